package main

import (
	"strings"
	"testing"
)

// "SGD as a sampler stops working when S approaches N" (the ProbAI lecture;
// Mandt et al. 2017, §4: the minibatch noise that makes constant SGD's
// spread vanishes as S → N when batches are drawn without replacement):
// constant SGD at S = 500 of credit's N = 552 training rows misfits the
// Laplace approximation (sd ratios 0.19–4.88) and the warning names the
// cause; at S = 50 the misfit warning, if any, does not blame the batch.
func TestRunBatchCloseToN(t *testing.T) {
	if testing.Short() {
		t.Skip("two constant-SGD runs")
	}
	for _, tc := range []struct {
		batch string
		named bool
	}{{"500", true}, {"50", false}} {
		code, out, errOut := runMain("run", "--quiet", "--sampler", "csgd", "--batch", tc.batch, "--iters", "20000")
		if code != 0 {
			t.Fatalf("--batch %s: exit %d: %s", tc.batch, code, errOut)
		}
		named := strings.Contains(out, "The batch S = "+tc.batch+" is close to N = 552")
		if named != tc.named {
			t.Errorf("--batch %s: S close to N named %v, want %v:\n%s", tc.batch, named, tc.named, out)
		}
		if tc.named && !strings.Contains(out, "warning:  --sampler csgd misfits") {
			t.Errorf("--batch %s: no misfit warning:\n%s", tc.batch, out)
		}
	}
}
