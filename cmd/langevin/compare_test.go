package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
)

// TestCompare runs two samplers on the credit data and compares them: the
// table holds both runs, ESS, ESS/s, their test accuracy and the MAP
// baseline; --out writes the overlaid marginals and a page; bad input exits
// 2 naming the flag.
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{"mala", "rwm"} {
		if code, _, errOut := runMain("run", "--data", "australian", "--sampler", s, "--iters", "600", "--burnin", "200", "--chains", "2", "--quiet", "--out", filepath.Join(dir, s)); code != 0 {
			t.Fatalf("run %s: exit %d: %s", s, code, errOut)
		}
	}
	a, b := filepath.Join(dir, "mala"), filepath.Join(dir, "rwm")
	out := filepath.Join(dir, "cmp")
	code, stdout, errOut := runMain("compare", a, b, "--data", "australian", "--names", "MALA,RWM", "--out", out)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errOut)
	}
	for _, w := range []string{"MALA", "RWM", "min ESS/s", "accuracy", "optimisation (MAP)", "0.8"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	for _, f := range []string{"marginals.png", "marginals.svg", "index.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare"}, "no run directories"},
		{[]string{"compare", a, b, "--names", "one"}, "--names"},
		{[]string{"compare", a, "--params", "nope"}, "--params"},
		{[]string{"compare", filepath.Join(dir, "missing")}, "missing"},
	} {
		if code, _, errOut := runMain(tc.args...); code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %q", tc.args, code, errOut, tc.want)
		}
	}
}

// The --format flags of the commands that read data list the formats of
// the table (data.Formats), so a new format shows up in every one.
func TestFormatFlagsListTheTable(t *testing.T) {
	want := "auto|" + strings.Join(data.Formats(), "|")
	for _, cmd := range []string{"run", "predict", "compare"} {
		code, help, errs := runMain(cmd, "-h")
		if code != 0 || !strings.Contains(help+errs, want) {
			t.Errorf("%s -h: exit %d; --format does not list %q:\n%s%s", cmd, code, want, help, errs)
		}
	}
}
