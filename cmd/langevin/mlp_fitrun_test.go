package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/model"
)

// TestFitRunEqualsMLPCommand: the library program of fit's
// ExampleRun_network (data.Moons, data.TrainTest, data.FitScaler, model.NewMLP with
// model.MLPDefaults, fit.Run) gives the draws of langevin run --model mlp
// --data moons, bit for bit, chain by chain, and the same test-set scores.
func TestFitRunEqualsMLPCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("a full network run twice (16 s of CPU); skipped with -short")
	}
	dir := t.TempDir()
	code, out, errs := runMain("run", "--quiet", "--model", "mlp", "--data", "moons", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// The program of fit's ExampleRun_network, line for line.
	full, err := data.Moons(1000, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	train, test := data.TrainTest(full, 0.2, 1)
	sc := data.FitScaler(train.X)
	sc.Transform(train.X)
	sc.Transform(test.X)
	m, err := model.NewMLP(train.X, train.Y, model.MLPDefaults(model.MLPOptions{
		Hidden: []int{50}, Activation: model.ReLU, Likelihood: model.LikBernoulli}))
	if err != nil {
		t.Fatal(err)
	}
	res, err := fit.Run(context.Background(), fit.Job{Model: m, Test: test}, fit.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trace
	for c := range tr.NumChains() {
		got := chainFileDraws(t, filepath.Join(dir, fmt.Sprintf("chain-%d.csv", c+1)), tr.Names)
		if len(got) != len(tr.Draws[c]) {
			t.Fatalf("chain %d: the command kept %d draws, fit.Run %d", c+1, len(got), len(tr.Draws[c]))
		}
		for i, row := range got {
			for j, v := range row {
				if math.Float64bits(v) != math.Float64bits(tr.Draws[c][i][j]) {
					t.Fatalf("chain %d draw %d %s: command %v, fit.Run %v", c+1, i, tr.Names[j], v, tr.Draws[c][i][j])
				}
			}
		}
	}
	if w := flagText((fit.Note{Key: "auto", Text: res.Weights.String()}).String()); !strings.Contains(out, w+"\n") {
		t.Errorf("langevin run does not print the library's chain weights\n%s\noutput:\n%s", w, out)
	}
	row := fmt.Sprintf("%.4f    %.4f", res.Test.Posterior[0], -res.Test.Posterior[1]) // accuracy, NLL
	if !strings.Contains(out, "stacked (4 chains)    "+row) {
		t.Errorf("langevin run does not print the library's test scores %s\noutput:\n%s", row, out)
	}
}
