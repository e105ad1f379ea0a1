package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLooBadInput: each input langevin loo cannot use honestly is a clear
// error, exit 2, naming what is wrong, and writes nothing: runs on
// different rows, a run whose data file changed or is missing since it ran,
// a model without a pointwise log-likelihood, a single draw.
func TestLooBadInput(t *testing.T) {
	src := looData(t, 80)
	tmp := t.TempDir()
	lin := func(name string, extra ...string) string {
		t.Helper()
		d := filepath.Join(tmp, name)
		data := filepath.Join(tmp, name+".csv")
		b, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(data, b, 0o644); err != nil {
			t.Fatal(err)
		}
		args := append([]string{"run", "--model", "linear", "--data", data, "--target", "y", "--out", d}, quick...)
		if code, _, errOut := runMain(append(args, extra...)...); code != 0 {
			t.Fatalf("run %s: exit %d: %s", name, code, errOut)
		}
		return d
	}
	base := lin("base")
	other := lin("other", "--seed", "9")
	changed := lin("changed")
	if err := os.WriteFile(filepath.Join(tmp, "changed.csv"), []byte("x1,x2,x3,y\n1,2,3,4\n5,6,7,8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := lin("missing")
	if err := os.Remove(filepath.Join(tmp, "missing.csv")); err != nil {
		t.Fatal(err)
	}
	one := lin("one", "--chains", "1", "--iters", "201", "--burnin", "200")
	// softmax regression gives no pointwise log-likelihood
	var b strings.Builder
	b.WriteString("x,y\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%d,%d\n", i%7, i%3)
	}
	cls := filepath.Join(tmp, "cls.csv")
	if err := os.WriteFile(cls, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	soft := filepath.Join(tmp, "soft")
	if code, _, errOut := runMain(append([]string{"run", "--model", "softmax", "--data", cls, "--target", "y", "--out", soft}, quick...)...); code != 0 {
		t.Fatalf("softmax run: exit %d: %s", code, errOut)
	}
	for _, c := range []struct {
		name string
		args []string
		msg  string
	}{
		{"different rows", []string{base, other}, "fitted to different rows"},
		{"data changed", []string{changed}, "changed.csv has changed since it ran"},
		{"data missing", []string{missing}, "missing.csv is missing"},
		{"no pointwise log-likelihood", []string{soft}, "gives no pointwise log-likelihood"},
		{"single draw", []string{one}, "a chain with 1 kept draw(s): expected at least 2"},
		{"changed among others", []string{base, changed}, "has changed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(tmp, "pw.csv")
			code, stdout, errOut := runMain(append(append([]string{"loo"}, c.args...), "--out", out)...)
			if code != 2 || !strings.Contains(errOut, c.msg) {
				t.Errorf("exit %d, stderr %q: want exit 2 naming %q", code, errOut, c.msg)
			}
			t.Log(strings.TrimSpace(errOut))
			if stdout != "" {
				t.Errorf("printed %q", stdout)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("wrote %s", out)
			}
		})
	}
}
