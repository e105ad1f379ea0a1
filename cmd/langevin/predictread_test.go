package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// european writes rows of a plain CSV (header first) with ; as the
// delimiter and , as the decimal mark.
func european(plain string) string {
	return strings.ReplaceAll(strings.ReplaceAll(plain, ",", ";"), ".", ",")
}

// predictOut runs predict and returns its per-row predictions (--out).
func predictOut(t *testing.T, args ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "pred.csv")
	code, _, errOut := runMain(append(append([]string{"predict"}, args...), "--out", out)...)
	if code != 0 {
		t.Fatalf("predict %v: exit %d: %s", args, code, errOut)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readOf returns model.json's "read" record of a run directory.
func readOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	var mf struct {
		Read map[string]string `json:"read"`
	}
	if err := json.Unmarshal(b, &mf); err != nil {
		t.Fatal(err)
	}
	return mf.Read
}

// A run's --na, --sep and --decimal are stored in model.json, and predict
// reads new rows in the same format by them (it read them with its own
// defaults: a European file's "0,5" became text and predict refused it);
// a flag given to predict overrides the run's (the plain file with --sep ,
// --decimal .), for a plain and a --formula run alike.
func TestPredictReadsLikeTheRun(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(37, 2))
	var train, rows strings.Builder
	train.WriteString("a,b,y\n")
	rows.WriteString("a,b,y\n")
	for i := range 160 {
		a, b := rng.NormFloat64(), rng.NormFloat64()
		y := 0
		if a-b+rng.NormFloat64() > 0 {
			y = 1
		}
		fmt.Fprintf(&train, "%.3f,%.3f,%d\n", a, b, y)
		if i%40 == 0 {
			fmt.Fprintf(&train, "%.3f,-999,%d\n", a, y) // a missing b, dropped
		}
		if i < 20 {
			fmt.Fprintf(&rows, "%.3f,%.3f,%d\n", b, a, y)
		}
	}
	euTrain := writeFile(t, dir, "eu.csv", european(train.String()))
	euRows := writeFile(t, dir, "eu-new.csv", european(rows.String()))
	plainRows := writeFile(t, dir, "new.csv", rows.String())
	read := []string{"--sep", ";", "--decimal", ",", "--na", "-999"}

	run := filepath.Join(dir, "run")
	if code, _, errOut := runMain(append(append(append([]string(nil), smallRun...), "--data", euTrain, "--missing", "drop", "--out", run), read...)...); code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	if got := readOf(t, run); got["sep"] != ";" || got["decimal"] != "," || got["na"] != "-999" {
		t.Errorf("model.json's read settings: %v, want sep ;, decimal , and na -999", got)
	}
	eu := predictOut(t, "--samples", run, "--data", euRows)
	plain := predictOut(t, "--samples", run, "--data", plainRows, "--sep", ",", "--decimal", ".")
	if eu != plain || strings.Count(eu, "\n") != 21 {
		t.Errorf("predict on the European rows:\n%s\nwant the plain file's (20 rows):\n%s", eu, plain)
	}

	// A --formula run: its predict read the file with no column flags.
	var ftrain, frows strings.Builder
	ftrain.WriteString("y,x,g\n")
	frows.WriteString("y,x,g\n")
	for i := range 150 {
		x, g := rng.NormFloat64(), i%5
		fmt.Fprintf(&ftrain, "%.3f,%.3f,s%d\n", 1+0.5*x+0.3*float64(g)+0.5*rng.NormFloat64(), x, g)
		if i < 15 {
			fmt.Fprintf(&frows, "%.3f,%.3f,s%d\n", 1+x, x, g)
		}
	}
	frun := filepath.Join(dir, "frun")
	args := append([]string{"run", "--quiet", "--target-ess", "100", "--chains", "2", "--formula", "y ~ x + (1 | g)",
		"--data", writeFile(t, dir, "feu.csv", european(ftrain.String())), "--out", frun}, read...)
	if code, _, errOut := runMain(args...); code != 0 {
		t.Fatalf("formula run: exit %d: %s", code, errOut)
	}
	if got := readOf(t, frun); got["sep"] != ";" || got["decimal"] != "," {
		t.Errorf("a formula run's model.json read settings: %v, want sep ; and decimal ,", got)
	}
	feu := predictOut(t, "--samples", frun, "--data", writeFile(t, dir, "feu-new.csv", european(frows.String())))
	fplain := predictOut(t, "--samples", frun, "--data", writeFile(t, dir, "fnew.csv", frows.String()), "--sep", ",", "--decimal", ".")
	if feu != fplain || strings.Count(feu, "\n") != 16 {
		t.Errorf("formula predict on the European rows:\n%s\nwant the plain file's (15 rows):\n%s", feu, fplain)
	}
}
