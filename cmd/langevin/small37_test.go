package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFirstHourTexts: what a first-time user reads is true of the default
// run. run -h shows "(default auto)" for --iters, --burnin and --thin, not
// the hand-tuned samplers' 500000, 50000 and 450; help predict does not say
// the file must hold the target; the ksd line ends in a verdict with its
// rule; a NUTS run's report does not claim the sampler left an optimisation
// phase (a stochastic-gradient sampler's check); predict states its Brier
// score's convention.
func TestFirstHourTexts(t *testing.T) {
	_, help, _ := runMain("run", "-h")
	for _, f := range []string{"iters", "burnin", "thin"} {
		m := regexp.MustCompile(`(?m)^  -` + f + ` N\n.*\(default ([^)]*)\)$`).FindStringSubmatch(help)
		if m == nil || m[1] != "auto" {
			t.Errorf("run -h: -%s: default %v, want auto", f, m)
		}
	}
	_, phelp, _ := runMain("help", "predict")
	if strings.Contains(phelp, "training features and target") || !strings.Contains(phelp, "without it, the predictions only") {
		t.Errorf("help predict says --data must hold the target:\n%s", phelp)
	}

	out, dir := defaultRun(t) // NUTS, with --report
	if !regexp.MustCompile(`(?m)^ksd: .*; ratio [0-9.]+: pass \(≤ 2: `).MatchString(out) {
		t.Errorf("the ksd line has no verdict:\n%s", out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "optimisation phase") {
		t.Errorf("the NUTS run's report speaks of an optimisation phase")
	}
	code, pout, errOut := runMain("predict", "--samples", dir, "--data", "australian", "--split", "test")
	if code != 0 || !strings.Contains(pout, "Brier: (1/n) Σᵢ Σₖ (pᵢₖ − 1[yᵢ = k])², summed over the 2 classes") {
		t.Errorf("predict: exit %d, the Brier score's convention not stated:\n%s%s", code, pout, errOut)
	}
}
