package main

import (
	"fmt"
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
		{[]string{"--stan", writeFile(t, dir, "gq.stan", "generated quantities { real y = normal_rng(0, 1); }\n")}, "the program has no parameters"},
	} {
		code, _, stderr := runMain(append([]string{"run"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("run %v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestRunStanRows runs a Stan program with --rows N: the default sampler is
// then the plan of --sampler auto (here minibatches, asked for), the rows are
// subsampled, and a program whose model block does not separate into row
// terms is refused with the statement's file, line and column, exit 2.
func TestRunStanRows(t *testing.T) {
	dir := t.TempDir()
	prog := writeFile(t, dir, "m.stan", `data { int<lower=0> N; vector[N] x; array[N] int<lower=0, upper=1> y; }
parameters { real alpha; real beta; }
model {
  alpha ~ normal(0, 1);
  beta ~ normal(0, 1);
  y ~ bernoulli_logit(alpha + beta * x);
}
`)
	var b strings.Builder
	b.WriteString(`{"N": 400, "x": [`)
	ys := make([]string, 400)
	for i := range ys {
		x := float64(i%20)/10 - 1
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, x)
		ys[i] = "0"
		if (i*7919)%100 < int(50+40*x) {
			ys[i] = "1"
		}
	}
	b.WriteString(`], "y": [` + strings.Join(ys, ", ") + "]}")
	data := writeFile(t, dir, "d.json", b.String())
	code, stdout, stderr := runMain("run", "--stan", prog, "--data", data, "--rows", "N", "--sampler", "sgld", "--target-ess", "100", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"Stan program " + prog, "SGLD (batch 100)", "batch 100 of 400", "\nalpha ", "\nbeta "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	bad := writeFile(t, dir, "bad.stan", `data { int<lower=0> N; vector[N] x; array[N] int<lower=0, upper=1> y; }
parameters { real alpha; real beta; }
model {
  alpha ~ normal(0, 1);
  beta ~ normal(mean(x), 1);
  y ~ bernoulli_logit(alpha + beta * x);
}
`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--stan", bad, "--data", data, "--rows", "N"}, "bad.stan:5:8: --rows N: this statement is not a sum of one term per row: mean of row-wise values mixes the rows (at line 5, column 17)"},
		{[]string{"--stan", prog, "--data", data, "--rows", "M"}, "--rows M: the data block declares no int M"},
		{[]string{"--data", data, "--rows", "N"}, "--rows: not used here: only with --stan"},
	} {
		code, _, stderr := runMain(append([]string{"run"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("run %v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
