package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A label column of two values other than 0/1 (Skin Segmentation's 1/2) is
// a binary label with the larger value the event, said on an auto: line and
// kept in model.json, so that predict names p.1 as P(y = 2) and reads new
// rows' labels by the same map. The data make y = 2 likely for large x: the
// slope's sign shows which value is the event.
func TestRunTwoValuedLabels(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("x,z,y\n")
	for i := range 60 {
		x := float64(i%20)/5 - 2
		y := 1
		if x+0.7*float64((i*7)%5-2) > 0 {
			y = 2
		}
		fmt.Fprintf(&b, "%g,%d,%d\n", x, (i*3)%4, y)
	}
	csv := writeFile(t, dir, "two.csv", b.String())
	out := filepath.Join(dir, "run")
	code, stdout, errs := runMain("run", "--data", csv, "--out", out, "--sampler", "nuts", "--iters", "600", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if want := `auto:     labels: column "y": 1 → 0, 2 → 1 (two distinct values; the larger is the event, as R's glm and scikit-learn)`; !strings.Contains(stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, stdout)
	}
	var slope float64
	for _, l := range strings.Split(stdout, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "beta.1" {
			fmt.Sscan(f[1], &slope)
		}
	}
	if !(slope > 1) {
		t.Errorf("posterior mean of x's slope %v, want > 1 (event y = 2, more likely for large x)", slope)
	}
	raw, err := os.ReadFile(filepath.Join(out, "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mf struct{ Labels []float64 }
	if err := json.Unmarshal(raw, &mf); err != nil || !slices.Equal(mf.Labels, []float64{1, 2}) {
		t.Fatalf("model.json labels %v (%v), want [1 2]", mf.Labels, err)
	}
	newRows := writeFile(t, dir, "new.csv", "x,z,y\n2,1,2\n-2,0,1\n")
	code, stdout, errs = runMain("predict", "--samples", out, "--data", newRows, "--out", filepath.Join(dir, "p.csv"))
	if code != 0 || !strings.Contains(stdout, "classes: p.0 is P(y = 1), p.1 is P(y = 2)") || !strings.Contains(stdout, "accuracy 1.0000") {
		t.Errorf("predict: exit %d, %s\n%s", code, errs, stdout)
	}
	// A store (langevin convert) is streamed: its labels are recoded as
	// they are read.
	store := filepath.Join(dir, "two.lvs")
	if code, _, errs := runMain("convert", "--data", csv, "--out", store); code != 0 {
		t.Fatal(errs)
	}
	sout := filepath.Join(dir, "srun")
	code, stdout, errs = runMain("run", "--data", store, "--out", sout, "--quiet")
	if want := `auto:     labels: column "y": 1 → 0, 2 → 1`; code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("run on a store: exit %d, %s; output lacks %q:\n%s", code, errs, want, stdout)
	}
	code, stdout, errs = runMain("predict", "--samples", sout, "--data", store)
	if code != 0 || !strings.Contains(stdout, "classes: p.0 is P(y = 1), p.1 is P(y = 2)") {
		t.Errorf("predict on a store: exit %d, %s\n%s", code, errs, stdout)
	}
	bad := writeFile(t, dir, "bad.csv", "x,z,y\n2,1,2\n-2,0,3\n")
	code, _, errs = runMain("predict", "--samples", out, "--data", bad)
	if want := `bad.csv:3: label 3 in column "y": the run's labels are 1 or 2`; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("a label outside the run's: exit %d, %q; want 2 and %q", code, errs, want)
	}
}
