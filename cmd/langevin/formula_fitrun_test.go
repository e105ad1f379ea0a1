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
	"github.com/langevin-go/langevin/formula"
)

// TestFitRunEqualsFormulaCommand: fit.Run on a formula model read and
// built by the library (formula.Read, formula.New; formula's Example_run)
// gives the draws of langevin run --formula, bit for bit, chain by chain,
// and the command prints the library's summary rows under brms's names.
func TestFitRunEqualsFormulaCommand(t *testing.T) {
	path := filepath.Join("..", "..", "formula", "testdata", "groups.csv")
	const form = "y ~ x + (1 | g)"
	dir := t.TempDir()
	// -short: both with 2 chains, a bulk-ESS target of 100 and a warm-up of
	// 300 iterations (the same settings given to each; about a third of
	// the CPU).
	args, set := []string{"run", "--quiet", "--formula", form, "--data", path, "--out", dir}, fit.Settings{}
	if testing.Short() {
		args = append(args, "--chains", "2", "--target-ess", "100", "--burnin", "300")
		set = fit.Settings{Chains: 2, TargetESS: 100, BurnIn: 300}
	}
	code, out, errs := runMain(args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	f, err := formula.Parse(form)
	if err != nil {
		t.Fatal(err)
	}
	tab, _, err := formula.Read(path, "auto", f, data.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := formula.New(f, tab, formula.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := fit.Run(context.Background(), fit.Job{Model: m}, set, nil)
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
	var tb bytes.Buffer
	if err := formulaTable(res.Table, m).Format(&tb); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	for _, w := range strings.Split(strings.TrimSpace(tb.String()), "\n") {
		if !slices.Contains(lines, w) {
			t.Errorf("langevin run does not print the library's row\n%s\noutput:\n%s", w, out)
		}
	}
}

// chainFileDraws reads the columns names of a chain file's draws.
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
