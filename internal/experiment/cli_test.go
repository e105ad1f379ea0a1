package experiment

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExperimentCredit(t *testing.T) {
	if testing.Short() {
		t.Skip("experiment acceptance test: skipped with -short")
	}
	dir := t.TempDir()
	code, out, errOut := runMain("experiment", "credit", "--draws", "300", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, w := range []string{"MALA  ε = 0.02 (η = 0.01)", "RWM   σ = 0.1", "SGLD", "NUTS", "0.8696", "627.0", "min ESS/s", "MAP   optimisation"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "NUTS", "chain-1.csv")); err != nil {
		t.Error(err)
	}
	checkCreditFigures(t, dir, out)
	if code, _, errOut := runMain("experiment", "credit", "--draws", "1"); code != 2 || !strings.Contains(errOut, "--draws 1: expected at least 10") {
		t.Errorf("--draws 1: exit %d, stderr %q", code, errOut)
	}
}

func TestExperimentMandt(t *testing.T) {
	code, out, errOut := runMain("experiment", "mandt-iasg", "--passes", "4")
	if code != 0 || !strings.Contains(out, "IASG min") || !strings.Contains(out, "       4 ") {
		t.Errorf("mandt-iasg: exit %d, stderr %q, output:\n%s", code, errOut, out)
	}
	// Without the data the table names the flag and the file.
	code, _, errOut = runMain("experiment", "mandt-table1", "--data-dir", t.TempDir(), "--datasets", "Wine")
	if code != 2 || !strings.Contains(errOut, "--data-dir") || !strings.Contains(errOut, "winequality-white.csv") {
		t.Errorf("missing data: exit %d, stderr %q", code, errOut)
	}
	for _, args := range [][]string{
		{"mandt-table1", "--datasets", "Iris"},
		{"mandt-table1", "--scale", "0"},
		{"mandt-iasg", "--passes", "1"},
	} {
		if code, _, errOut := runMain(append([]string{"experiment"}, args...)...); code != 2 {
			t.Errorf("%v: exit %d (%s), want 2", args, code, errOut)
		}
	}
}

// TestHyperExperiment runs the mandt-hyper pipeline on synthetic softmax data
// (the Fashion-MNIST files are not needed): variational EM's λ must lie in the
// flat minimum of the validation curve (loss within 2% of the grid's best).
func TestHyperExperiment(t *testing.T) {
	if testing.Short() {
		t.Skip("experiment acceptance test: skipped with -short")
	}
	train := SoftmaxData(300, 20, 3, 2, 2)
	valid := SoftmaxData(3000, 20, 3, 2, 3)
	o := hyperOpts{train: 300, valid: 3000, grid: []float64{0.01, 0.1, 1, 10, 100}, batch: 10, vemIters: 30000, viIters: 3000, viRounds: 3, seed: 1, diag: true, flat: true}
	res, err := hyperExperiment(context.Background(), train, valid, o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	printHyper(&sb, res, o)
	t.Log("\n" + sb.String())
	best := res.loss[res.best]
	if res.vemLoss > 1.02*best {
		t.Errorf("VEM λ = %.4g: validation loss %.5f, grid best %.5f", res.vemLambda, res.vemLoss, best)
	}
	// The curve must not be flat, or the check above could not fail.
	if res.loss[0] < 1.02*best && res.loss[len(res.loss)-1] < 1.02*best {
		t.Errorf("validation curve is flat within 2%%: %v", res.loss)
	}
}
