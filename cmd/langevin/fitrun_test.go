package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/model"
)

// TestFitRunEqualsCommand: fit.Run on the default job (Australian credit,
// seeded 80/20 split, standardised, logistic regression) gives, bit for bit,
// the draws that langevin run writes — with a nil method (the cost rule:
// NUTS) and with the SG-MCMC method (auto's SGLD, as --sampler sgld) — and
// every note, the summary table and the test-set table it prints; and for a
// network (--model mlp on the two moons, nil method: the network plan) the
// draws and every auto: note.
func TestFitRunEqualsCommand(t *testing.T) {
	for _, tc := range []struct {
		name   string
		args   []string
		method *fit.Method
		job    func(t *testing.T) fit.Job // nil: the default job
	}{
		{"nil method", nil, nil, nil},
		{"SGLD", []string{"--sampler", "sgld"}, fit.SGLD, nil},
		{"MLP", []string{"--data", "moons", "--n", "200", "--model", "mlp", "--hidden", "8"}, nil, moonsMLPJob},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, dir string
			if tc.args == nil {
				out, dir = defaultRun(t) // with --report, which changes no draw
			} else {
				dir = t.TempDir()
				code, o, errOut := runMain(append([]string{"run", "--quiet", "--out", dir}, tc.args...)...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				out = o
			}
			job := defaultJob(t)
			if tc.job != nil {
				job = tc.job(t)
			}
			res, err := fit.Run(context.Background(), job, fit.Settings{}, tc.method)
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
			var want []string
			var tb bytes.Buffer
			if err := res.Table.Format(&tb); err != nil {
				t.Fatal(err)
			}
			want = append(want, strings.Split(strings.TrimSpace(tb.String()), "\n")...)
			if tc.job == nil { // a network's test-set lines are the predict package's (PrintMLPPredictive)
				if res.Test == nil {
					t.Fatalf("no test-set table (%v)", res.TestErr)
				}
				tb.Reset()
				res.Test.Format(&tb)
				want = append(want, strings.Split(strings.TrimSpace(tb.String()), "\n")...)
			}
			for _, n := range res.Notes {
				want = append(want, n.String())
			}
			lines := strings.Split(out, "\n")
			for _, w := range want {
				if !slices.Contains(lines, w) {
					t.Errorf("langevin run does not print fit.Run's line\n%s\noutput:\n%s", w, out)
				}
			}
			switch {
			case tc.job != nil:
				if res.NetPlan == nil || len(res.Notes) < 5 {
					t.Errorf("network: plan %v, %d notes", res.NetPlan, len(res.Notes))
				}
			case res.Plan.Kind != map[*fit.Method]string{nil: "nuts", fit.SGLD: "sgld"}[tc.method]:
				t.Errorf("plan %s", res.Plan.Kind)
			}
		})
	}
}

// defaultJob is langevin run's default job built with the library: the
// Australian credit data, a seeded 80/20 split, standardised features,
// logistic regression.
func defaultJob(t *testing.T) fit.Job {
	train, test := data.TrainTest(data.Australian(), 0.2, 1)
	sc := data.FitScaler(train.X)
	sc.Transform(train.X)
	sc.Transform(test.X)
	m, err := model.NewLogistic(train.X, train.Y, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return fit.Job{Model: m, Test: test}
}

// moonsMLPJob is langevin run --data moons --n 200 --model mlp --hidden 8
// built with the library: 200 generated points, a seeded 80/20 split,
// standardised features, a one-layer ReLU network with the network
// defaults (model.MLPDefaults).
func moonsMLPJob(t *testing.T) fit.Job {
	full, _, _, err := data.Generated("moons", data.GenOptions{N: 200, Noise: 0.1, K: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	train, test := data.TrainTest(full, 0.2, 1)
	sc := data.FitScaler(train.X)
	sc.Transform(train.X)
	sc.Transform(test.X)
	s := model.Spec{Kind: "mlp", Hidden: []int{8}, Activation: "relu", NoiseVar: 1, LearnNoise: true, NetDefaults: true}
	s.Resolve(train.Y)
	m, err := s.Build(train.X, train.Y)
	if err != nil {
		t.Fatal(err)
	}
	return fit.Job{Model: m, Test: test}
}

// chainFileDraws reads the columns names of a CmdStan CSV file's draws.
func chainFileDraws(t *testing.T, path string, names []string) [][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	var cols []int
	var out [][]float64
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Split(line, ",")
		if cols == nil {
			for _, n := range names {
				k := slices.Index(fields, n)
				if k < 0 {
					t.Fatalf("%s: no column %s", path, n)
				}
				cols = append(cols, k)
			}
			continue
		}
		row := make([]float64, len(cols))
		for j, k := range cols {
			if row[j], err = strconv.ParseFloat(fields[k], 64); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, row)
	}
	return out
}
