package formula

import (
	"context"
	"encoding/csv"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/sampler"
)

// brmsCases are the side-by-side models: the data of simFrame (seed 7, as
// TestWriteSim writes them for R), brms 2.18.0's fit in
// testdata/brms-NAME.csv (posterior mean, sd, R̂ and bulk-ESS of every b_,
// sd_, cor_, sigma and r_ quantity; 4 chains × 2,000 draws after 1,000
// warm-up, default priors; formula/testdata/brms-fit.R).
var brmsCases = []struct {
	name, family, formula string
	n, J                  int
}{
	{"logistic", "bernoulli", "y ~ x + w + f + (1 + x | g)", 2000, 20},
	// To add when brms's fits are in testdata (docs/formulas.md):
	{"poisson", "poisson", "y ~ x + offset(log(u)) + (1 | g)", 1000, 15},
	{"gaussian", "gaussian", "y ~ x + w + (1 + x | g) + (1 | h)", 600, 12},
}

type brmsRow struct{ mean, sd, rhat, ess float64 }

func readBrms(t *testing.T, name string) (map[string]brmsRow, []string) {
	fh, err := os.Open("testdata/brms-" + name + ".csv")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]brmsRow{}
	var order []string
	for _, r := range recs[1:] {
		var v [4]float64
		for k := range v {
			if v[k], err = strconv.ParseFloat(r[k+1], 64); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		out[r[0]] = brmsRow{v[0], v[1], v[2], v[3]}
		order = append(order, r[0])
	}
	return out, order
}

// TestBrmsNames: our model of each side-by-side case has exactly brms's
// names (no NUTS run: always on).
func TestBrmsNames(t *testing.T) {
	for _, c := range brmsCases {
		want, order := readBrms(t, c.name)
		f, _ := Parse(c.formula)
		m, err := New(f, simFrame(c.n, c.J, c.family, 7), Options{Family: c.family})
		if err != nil {
			t.Fatal(err)
		}
		got := m.BrmsNames()
		if len(got) != len(want) {
			t.Errorf("%s: %d names, brms %d", c.name, len(got), len(want))
		}
		for _, n := range got {
			if _, ok := want[n]; !ok {
				t.Errorf("%s: %s is not a brms name (brms: %v …)", c.name, n, order[:min(6, len(order))])
			}
		}
	}
}

// TestBrmsSideBySide runs NUTS (4 chains × 2,000 draws) on each case and
// checks every quantity against brms: mean within 0.1 brms sd, sd within
// 10%. Set LANGEVIN_LONG=1 (≈ 3 min of CPU); the table is in
// docs/formulas.md.
func TestBrmsSideBySide(t *testing.T) {
	if os.Getenv("LANGEVIN_LONG") == "" {
		t.Skip("set LANGEVIN_LONG=1: NUTS on three models, ≈ 3 min of CPU")
	}
	for _, c := range brmsCases {
		if only := os.Getenv("LANGEVIN_BRMS_CASE"); only != "" && only != c.name {
			continue
		}
		f, _ := Parse(c.formula)
		m, err := New(f, simFrame(c.n, c.J, c.family, 7), Options{Family: c.family})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := langevin.Run(context.Background(), m, sampler.NUTS{},
			langevin.Options{Chains: 4, Iters: 3000, BurnIn: 1000, Seed: 1, Init: langevin.InitUniform{}})
		if err != nil {
			t.Fatal(err)
		}
		names := m.BrmsNames()
		d := m.Dim()
		all := tr.Params()
		if len(all) != d+len(names) {
			t.Fatalf("%s: %d columns in the trace, want θ (%d) + derived (%d)", c.name, len(all), d, len(names))
		}
		table := diag.Summarize(names, all[d:])
		if dir := os.Getenv("LANGEVIN_BRMS_OURS"); dir != "" {
			fh, err := os.Create(dir + "/ours-" + c.name + ".csv")
			if err != nil {
				t.Fatal(err)
			}
			table.WriteCSV(fh)
			fh.Close()
		}
		want, _ := readBrms(t, c.name)
		var worstM, worstS float64
		for _, s := range table {
			b := want[s.Name]
			dm, ds := math.Abs(s.Mean-b.mean)/b.sd, math.Abs(s.SD/b.sd-1)
			worstM, worstS = math.Max(worstM, dm), math.Max(worstS, ds)
			if dm > 0.1 || ds > 0.1 {
				t.Errorf("%s %s: mean %.4f sd %.4f (ESS %.0f), brms %.4f %.4f (ESS %.0f): |Δmean|/sd %.3f, sd ratio %.3f",
					c.name, s.Name, s.Mean, s.SD, s.ESSBulk, b.mean, b.sd, b.ess, dm, s.SD/b.sd)
			}
			if os.Getenv("LANGEVIN_BRMS_TABLE") != "" && (s.Name[0] != 'r' || s.Name[len(s.Name)-2] == '1') {
				t.Logf("| %s | `%s` | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |", c.name, s.Name, b.mean, s.Mean, b.sd, s.SD, dm, s.SD/b.sd)
			}
		}
		t.Logf("%s: %d quantities, max |Δmean|/sd_brms %.3f, max |sd/sd_brms − 1| %.3f", c.name, len(table), worstM, worstS)
	}
}
