package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
)

// TestRunMLPAndPredict runs a small MLP on the generated gap data and on two
// moons with --out, then langevin predict on fresh data from another seed.
func TestRunMLPAndPredict(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runMain("run", "--model", "mlp", "--data", "moons", "--n", "300", "--hidden", "20", "--batch", "10",
		"--iters", "600", "--burnin", "100", "--thin", "50", "--chains", "2", "--step", "1e-4", "--map-iters", "2000", "--quiet", "--out", dir)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"BMA (20 draws)", "MAP network", "model.json"} {
		if !strings.Contains(out, want) {
			t.Errorf("run output lacks %q:\n%s", want, out)
		}
	}
	pred := filepath.Join(dir, "pred.csv")
	code, out, errOut = runMain("predict", "--samples", dir, "--data", "moons", "--n", "200", "--out", pred)
	if code != 0 {
		t.Fatalf("predict: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"accuracy", "ECE", "mutual information", "confusion matrix"} {
		if !strings.Contains(out, want) {
			t.Errorf("predict output lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(pred); err != nil || strings.Count(string(b), "\n") != 201 {
		t.Errorf("predictions file: %v, %d lines", err, strings.Count(string(b), "\n"))
	}

	gdir := t.TempDir()
	code, _, errOut = runMain("run", "--model", "mlp", "--data", "gap1d", "--n", "100", "--hidden", "10", "--activation", "tanh",
		"--noise-var", "0.01", "--iters", "600", "--burnin", "100", "--thin", "50", "--chains", "1", "--step", "1e-5", "--map-iters", "1000", "--quiet", "--out", gdir)
	if code != 0 {
		t.Fatalf("gap1d run: exit %d: %s", code, errOut)
	}
	code, out, errOut = runMain("predict", "--samples", gdir, "--data", "gap1d", "--n", "50")
	if code != 0 || !strings.Contains(out, "RMSE") {
		t.Fatalf("gap1d predict: exit %d: %s%s", code, out, errOut)
	}
}

// TestPredictLogistic: langevin predict on a logistic-regression run, with
// the test data as a CSV file.
func TestPredictLogistic(t *testing.T) {
	_, dir := defaultRun(t)
	d := data.Australian()
	csv := filepath.Join(t.TempDir(), "australian.csv")
	var sb strings.Builder
	sb.WriteString(strings.Join(append(append([]string(nil), d.Names...), d.Target), ",") + "\n")
	for i := 0; i < d.Len(); i++ {
		for j := 0; j < d.Dim(); j++ {
			sb.WriteString(fit.FmtF(d.X.At(i, j)) + ",")
		}
		sb.WriteString(fit.FmtF(d.Y[i]) + "\n")
	}
	if err := os.WriteFile(csv, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runMain("predict", "--samples", dir, "--data", csv)
	if code != 0 || !strings.Contains(out, "accuracy 0.8") {
		t.Fatalf("predict: exit %d: %s%s", code, out, errOut)
	}
}

func TestPredictErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "--data", "moons"}, "--samples: no directory"},
		{[]string{"predict", "--samples", dir, "--data", "moons"}, "model.json"},
		{[]string{"predict", "--samples", dir}, "--data: no data"},
		{[]string{"predict", "--samples", dir, "--data", "moons", "--level", "2"}, "--level 2"},
		{[]string{"run", "--model", "mlp", "--data", "moons", "--activation", "softmax"}, "--activation"},
		{[]string{"run", "--model", "mlp", "--data", "moons", "--hidden", "10,x"}, "--hidden"},
		{[]string{"run", "--model", "mlp", "--data", "moons", "--precond", "laplace"}, "not available"},
		{[]string{"run", "--model", "mlp", "--data", "moons", "--sampler", "csgd-full"}, "csgd, csgd-diag or iasg"},
		{[]string{"run", "--model", "mlp", "--data", "moons", "--sampler", "sgfs"}, "csgd, csgd-diag or iasg"},
		{[]string{"run", "--model", "mlp", "--data", "moons", "--init", "map"}, "its own mode"},
		{[]string{"run", "--model", "mlp", "--data", "moons", "--map-lr", "0.1"}, "--map-lr"},
	} {
		code, _, errOut := runMain(c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestPredictEveryModelKind: langevin predict scores the runs of every model
// kind that langevin run --out writes (logistic and mlp above; linear and
// softmax here), with the metrics of its kind.
func TestPredictEveryModelKind(t *testing.T) {
	for _, c := range []struct {
		run  []string
		data []string
		want string
	}{
		{[]string{"--model", "linear", "--data", "gap1d", "--n", "200", "--sampler", "nuts"}, []string{"--data", "gap1d", "--n", "50"}, "RMSE"},
		{[]string{"--model", "softmax", "--data", "spirals", "--n", "300", "--batch", "30"}, []string{"--data", "spirals", "--n", "90"}, "confusion matrix"},
		{[]string{"--model", "logistic", "--data", "moons", "--n", "200"}, []string{"--data", "moons", "--n", "50"}, "accuracy"},
		{[]string{"--model", "mlp", "--data", "moons", "--n", "200", "--hidden", "5", "--map-iters", "200", "--step", "1e-4"}, []string{"--data", "moons", "--n", "50"}, "accuracy"},
	} {
		dir := t.TempDir()
		args := append([]string{"run", "--quiet", "--chains", "2", "--iters", "400", "--burnin", "200", "--thin", "10", "--out", dir}, c.run...)
		if code, _, errOut := runMain(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		pargs := append([]string{"predict", "--samples", dir}, c.data...)
		code, out, errOut := runMain(pargs...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, output lacks %q:\n%s%s", pargs, code, c.want, out, errOut)
		}
	}
}
