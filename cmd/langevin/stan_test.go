package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunStan runs a Stan program with its JSON data: NUTS by default, the
// summary under CmdStan's names, the chain files with every column; a
// wrong program or data exits 2 with the file, line and column.
func TestRunStan(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "m.stan", `
data { int<lower=0> N; vector[N] y; }
parameters { real mu; real<lower=0> sigma; }
model { y ~ normal(mu, sigma); mu ~ normal(0, 10); sigma ~ exponential(1); }
generated quantities { real z = mu / sigma; }
`)
	data := writeFile(t, dir, "d.json", `{"N": 5, "y": [1.2, 0.4, 2.1, 1.5, 0.9]}`)
	out := filepath.Join(dir, "run")
	code, stdout, stderr := runMain("run", "--stan", prog, "--data", data, "--iters", "600", "--burnin", "300", "--quiet", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Stan program " + prog, "NUTS", "\nmu ", "\nsigma ", "\nz "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "\nmu__free ") || strings.Contains(stdout, "\nsigma__free ") {
		t.Errorf("the summary prints the unconstrained θ:\n%s", stdout)
	}
	head, err := os.ReadFile(filepath.Join(out, "chain-1.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(head), ",mu__free,sigma__free,mu,sigma,z") {
		t.Errorf("chain-1.csv header lacks the columns in order")
	}
	bad := writeFile(t, dir, "bad.stan", "parameters { real x; }\nmodel { x ~ normal(0, 1) T[0, ]; }\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--stan", bad}, "bad.stan:2:11: truncation T[,] is not supported yet"},
		{[]string{"--stan", prog, "--data", writeFile(t, dir, "short.json", `{"N": 5, "y": [1]}`)}, "short.json: y: expected 5 values (the declared size), found 1"},
		{[]string{"--stan", prog, "--data", data, "--model", "linear"}, "--stan names the model"},
	} {
		code, _, stderr := runMain(append([]string{"run"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("run %v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
