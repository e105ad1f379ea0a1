package diag

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestRaggedChains: chains of different lengths (a run whose chains diverged
// at different iterations) never panic; every function gives exactly what it
// gives on the chains cut to the shortest, and Summarize records the lengths
// so that Format prints a warning naming them.
func TestRaggedChains(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	full := make([][]float64, 4)
	for c := range full {
		full[c] = make([]float64, 300)
		x := 0.0
		for i := range full[c] {
			x = 0.6*x + rng.NormFloat64() // AR(1)
			full[c][i] = x + 0.1*float64(c)
		}
	}
	ragged := [][]float64{full[0], full[1][:173], full[2][:250], full[3]}
	cut := [][]float64{full[0][:173], full[1][:173], full[2][:173], full[3][:173]}
	for _, f := range []struct {
		name string
		f    func([][]float64) float64
	}{
		{"ESSBulk", ESSBulk}, {"ESSTail", ESSTail}, {"ESSBasic", ESSBasic}, {"ESSMean", ESSMean},
		{"RHat", RHat}, {"RHatBasic", RHatBasic}, {"MCSEMean", MCSEMean},
		{"MCSEQuantile", func(c [][]float64) float64 { return MCSEQuantile(c, 0.1) }},
		{"Quantile", func(c [][]float64) float64 { return Quantile(c, 0.9) }},
	} {
		got, want := f.f(ragged), f.f(cut)
		if !(got == want) || math.IsNaN(want) {
			t.Errorf("%s: ragged %v, cut to the shortest %v", f.name, got, want)
		}
	}
	tab := Summarize([]string{"x", "y"}, [][][]float64{ragged, full})
	ref := Summarize([]string{"x"}, [][][]float64{cut})
	got := tab[0]
	got.ChainLengths = nil
	if !reflect.DeepEqual(got, ref[0]) {
		t.Errorf("ragged summary %+v, want %+v", got, ref[0])
	}
	if l := tab[0].ChainLengths; len(l) != 4 || l[0] != 300 || l[1] != 173 || l[2] != 250 || l[3] != 300 {
		t.Errorf("ChainLengths %v, want [300 173 250 300]", l)
	}
	if tab[1].ChainLengths != nil {
		t.Errorf("equal chains: ChainLengths %v, want nil", tab[1].ChainLengths)
	}
	out := tab.String()
	want := "warning: the chains have different numbers of draws (300, 173, 250, 300): every statistic uses the first 173 draws of each chain"
	if !strings.Contains(out, want) {
		t.Errorf("Format:\n%s\nwant a line %q", out, want)
	}
	if strings.Contains(ref.String(), "warning") {
		t.Errorf("equal chains: Format warns:\n%s", ref)
	}
	// A chain without draws: every statistic NA, no panic.
	empty := Summarize([]string{"x"}, [][][]float64{{full[0], nil}})
	if !math.IsNaN(empty[0].Mean) || empty[0].ChainLengths[1] != 0 {
		t.Errorf("a chain without draws: %+v", empty[0])
	}
}
