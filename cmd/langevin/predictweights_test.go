package main

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestPredictUsesChainWeights: a network's run records its chains' stacking
// weights in model.json (the ones its auto: line prints), and langevin
// predict mixes the chains with exactly those weights: with weights w its
// predictive probabilities are Σₖ wₖ mₖ, mₖ chain k's own predictive (from
// one-hot weights), and with the recorded weights they differ from the
// equal pooling of a model.json without weights by what the weights say.
func TestPredictUsesChainWeights(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runMain("run", "--model", "mlp", "--data", "moons", "--n", "300", "--hidden", "10",
		"--iters", "3000", "--map-iters", "1000", "--quiet", "--out", dir)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	spec := filepath.Join(dir, "model.json")
	b, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	var mf map[string]any
	if err := json.Unmarshal(b, &mf); err != nil {
		t.Fatal(err)
	}
	if mf["chain_weighting"] != "stacking" {
		t.Fatalf("model.json chain_weighting %v, want stacking:\n%s", mf["chain_weighting"], b)
	}
	var rec []float64
	for _, v := range mf["chain_weights"].([]any) {
		rec = append(rec, v.(float64))
	}
	// the printed weights are the recorded ones
	const key = "chain weights: stacking "
	i := strings.Index(out, key)
	if i < 0 || len(rec) != 4 {
		t.Fatalf("no %q line or %d recorded weights:\n%s", key, len(rec), out)
	}
	printed := strings.Fields(out[i+len(key):])[:4]
	for k, s := range printed {
		if v, err := strconv.ParseFloat(s, 64); err != nil || math.Abs(v-rec[k]) > 5e-4 {
			t.Errorf("chain %d: printed weight %s, recorded %g", k+1, s, rec[k])
		}
	}

	// p1 runs predict with the chain weights w (nil: none recorded) and
	// returns the predictive probability of class 1 of each row.
	p1 := func(w []float64) []float64 {
		t.Helper()
		m := maps(mf)
		if w == nil {
			delete(m, "chain_weights")
			delete(m, "chain_weighting")
		} else {
			m["chain_weights"] = w
		}
		b, _ := json.Marshal(m)
		if err := os.WriteFile(spec, b, 0o644); err != nil {
			t.Fatal(err)
		}
		pred := filepath.Join(t.TempDir(), "pred.csv")
		if code, out, errOut := runMain("predict", "--samples", dir, "--data", "moons", "--n", "200", "--out", pred); code != 0 {
			t.Fatalf("predict %v: exit %d: %s%s", w, code, out, errOut)
		}
		fh, err := os.Open(pred)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		rows, err := csv.NewReader(fh).ReadAll()
		if err != nil || len(rows) != 201 {
			t.Fatalf("%s: %d rows, %v", pred, len(rows), err)
		}
		col := slices.Index(rows[0], "p.1")
		var p []float64
		for _, r := range rows[1:] {
			v, err := strconv.ParseFloat(r[col], 64)
			if err != nil {
				t.Fatal(err)
			}
			p = append(p, v)
		}
		return p
	}
	var chain [4][]float64
	for k := range chain {
		w := make([]float64, 4)
		w[k] = 1
		chain[k] = p1(w)
	}
	mix := func(w []float64) []float64 {
		p := make([]float64, len(chain[0]))
		for k := range chain {
			for i := range p {
				p[i] += w[k] * chain[k][i]
			}
		}
		return p
	}
	maxDiff := func(a, b []float64) float64 {
		var d float64
		for i := range a {
			d = max(d, math.Abs(a[i]-b[i]))
		}
		return d
	}
	// weights that are whole multiples of 1/(4n): the mixture exactly (to
	// the CSV's 6 digits)
	w := []float64{0.5, 0.25, 0, 0.25}
	if d := maxDiff(p1(w), mix(w)); d > 1e-5 {
		t.Errorf("weights %v: predict differs from Σₖ wₖ mₖ by %.3g", w, d)
	}
	eq := p1(nil)
	if d := maxDiff(eq, mix([]float64{0.25, 0.25, 0.25, 0.25})); d > 1e-5 {
		t.Errorf("no weights: predict differs from the equal pool by %.3g", d)
	}
	st := p1(rec)
	// the recorded weights: their mixture to within the 1/S rounding of
	// MixtureDraws (S = 4n draws)
	if d := maxDiff(st, mix(rec)); d > 0.01 {
		t.Errorf("recorded weights %v: predict differs from Σₖ wₖ mₖ by %.3g", rec, d)
	}
	if dw, dp := maxDiff(rec, []float64{0.25, 0.25, 0.25, 0.25}), maxDiff(st, eq); dw > 0.05 && dp < 1e-3 {
		t.Errorf("stacking weights %v, but predict's probabilities differ from equal pooling by only %.3g", rec, dp)
	}
	// a model.json whose weights do not match the chains is refused
	m := maps(mf)
	m["chain_weights"] = []float64{0.5, 0.5}
	b, _ = json.Marshal(m)
	os.WriteFile(spec, b, 0o644)
	if code, _, errOut := runMain("predict", "--samples", dir, "--data", "moons", "--n", "200"); code != 2 || !strings.Contains(errOut, "chain_weights") {
		t.Errorf("2 weights for 4 chains: exit %d, %q; want 2 naming chain_weights", code, errOut)
	}
}

// maps returns a shallow copy of m.
func maps(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
