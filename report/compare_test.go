package report_test

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/report"
)

// iidTrace holds k chains of n independent N(0, 1) draws of a and b.
func iidTrace(seed uint64, k, n int) *langevin.Trace {
	rng := rand.New(rand.NewPCG(seed, 7))
	tr := &langevin.Trace{Names: []string{"a", "b"}, Dim: 2}
	for c := 0; c < k; c++ {
		var ch [][]float64
		var it []int
		for t := 0; t < n; t++ {
			ch = append(ch, []float64{rng.NormFloat64(), rng.NormFloat64()})
			it = append(it, t+1)
		}
		tr.Draws = append(tr.Draws, ch)
		tr.Iters = append(tr.Iters, it)
	}
	return tr
}

func TestESSRange(t *testing.T) {
	for _, tc := range []struct {
		ess              []float64
		wantMin, wantMed float64
	}{
		{[]float64{30, 10, 20}, 10, 20},
		{[]float64{40, math.NaN(), 10, 20, 30}, 10, 25},
		{[]float64{math.NaN()}, math.NaN(), math.NaN()},
	} {
		var table diag.Table
		for _, e := range tc.ess {
			table = append(table, diag.Summary{ESSBulk: e})
		}
		gotMin, gotMed := report.ESSRange(table)
		same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
		if !same(gotMin, tc.wantMin) || !same(gotMed, tc.wantMed) {
			t.Errorf("ESSRange(%v) = %v, %v; want %v, %v", tc.ess, gotMin, gotMed, tc.wantMin, tc.wantMed)
		}
	}
}

// TestComparison writes the table of two runs and the baseline (unknown
// values as "–", the ESS of independent draws near their number) and the
// directory's figure and page.
func TestComparison(t *testing.T) {
	c := report.Comparison{
		Runs: []report.Compared{
			{Label: "one", Trace: iidTrace(1, 2, 500), Seconds: 2, Score: 0.875},
			{Label: "two", Trace: iidTrace(2, 2, 500), Seconds: math.NaN(), Score: math.NaN()},
		},
		ScoreName: "RMSE", Baseline: 0.5, HasBaseline: true,
	}
	var b strings.Builder
	if err := c.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want 4:\n%s", len(lines), b.String())
	}
	if f := strings.Fields(lines[0]); f[len(f)-1] != "RMSE" {
		t.Errorf("header %q does not end in the score name", lines[0])
	}
	one := strings.Fields(lines[1])
	if one[0] != "one" || one[1] != "2" || one[2] != "1000" || one[5] != "2.000" || one[7] != "0.8750" {
		t.Errorf("row %q", lines[1])
	}
	// 1000 independent draws: bulk-ESS within a generous ±30% of 1000.
	minESS, _ := report.ESSRange(diag.Summarize(c.Runs[0].Trace.Names, c.Runs[0].Trace.Params()))
	if minESS < 700 || minESS > 1300 {
		t.Errorf("min ESS %v of 1000 independent draws", minESS)
	}
	if two := strings.Fields(lines[2]); two[5] != "–" || two[6] != "–" || two[7] != "–" {
		t.Errorf("row %q: unknown time and score should print –", lines[2])
	}
	if !strings.HasPrefix(strings.TrimSpace(lines[3]), "optimisation (MAP)") || !strings.HasSuffix(lines[3], "0.5000") {
		t.Errorf("baseline row %q", lines[3])
	}

	if i, p := c.MissingParam([]string{"a", "zz"}); i != 0 || p != "zz" {
		t.Errorf("MissingParam = %d, %q; want 0, zz", i, p)
	}
	if i, _ := c.MissingParam([]string{"b"}); i != -1 {
		t.Errorf("MissingParam(b) = %d, want -1", i)
	}
	dir := t.TempDir()
	if err := c.WriteDir(dir, []string{"a", "b"}, "a note"); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), b.String()) || !strings.Contains(string(page), "a note") {
		t.Errorf("index.md lacks the table or the note:\n%s", page)
	}
	for _, f := range []string{"marginals.png", "marginals.svg"} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := c.Marginals([]string{"zz"}, "png"); err == nil {
		t.Error("Marginals of a missing parameter: no error")
	}
}
