package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/internal/experiment"
)

func csvOf(d *data.Dataset) string {
	var sb strings.Builder
	sb.WriteString(strings.Join(d.Names, ",") + ",y\n")
	n, p := d.X.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			fmt.Fprintf(&sb, "%.6f,", d.X.At(i, j))
		}
		fmt.Fprintf(&sb, "%g\n", d.Y[i])
	}
	return sb.String()
}

// TestRunSoftmaxApprox runs --model softmax with --sampler swag and vi end to
// end: the table names the classes' parameters, and both approximations'
// posterior means predict as well as the MAP on the held-out rows.
func TestRunSoftmaxApprox(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "three.csv", csvOf(experiment.SoftmaxData(400, 3, 3, 0.5, 1)))
	for _, s := range []string{"swag", "vi"} {
		code, out, errOut := runMain("run", "--data", path, "--model", "softmax", "--sampler", s, "--iters", "6000", "--burnin", "5000", "--thin", "1", "--chains", "2", "--quiet")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", s, code, errOut)
		}
		for _, want := range []string{"b.1", "w.3.3", "accuracy", "SWAG", "VI"} {
			if (want == "SWAG" && s != "swag") || (want == "VI" && s != "vi") {
				continue
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", s, want, out)
			}
		}
		var post, mapAcc float64
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "accuracy" {
				fmt.Sscan(f[1], &post)
				fmt.Sscan(f[2], &mapAcc)
			}
		}
		if !(post >= mapAcc-0.03 && mapAcc > 0.5) {
			t.Errorf("%s: test accuracy %v, MAP %v:\n%s", s, post, mapAcc, out)
		}
	}
	// Bad input: labels and flags.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", writeFile(t, dir, "half.csv", "a,y\n1,0\n2,1.5\n3,2\n"), "--model", "softmax"}, `half.csv:3: label 1.5 in column "y": softmax regression expects integer class labels`},
		{[]string{"--data", path, "--model", "softmax", "--sampler", "swag", "--schedule", "poly"}, "--schedule poly: SWAG runs SGD at a constant step"},
		{[]string{"--data", path, "--sampler", "vi", "--burnin", "0"}, "--burnin 0: --sampler vi fits its approximation during burn-in"},
		{[]string{"--data", path, "--model", "softmax", "--sampler", "hmc"}, `--sampler "hmc": expected one of gd, sgd, adam, adagrad, rmsprop, momentum, polyak, sgld,`},
	} {
		code, _, errOut := runMain(append([]string{"run", "--quiet", "--iters", "100", "--burnin", "50"}, tc.args...)...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
