package formula

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPredictTrainingRows: the predicted η on the training rows is the
// model's own linear predictor — the log likelihood rebuilt from it equals
// LogLik — for a formula with a factor, poly, an offset and two grouping
// factors.
func TestPredictTrainingRows(t *testing.T) {
	fr := simFrame(80, 5, "poisson", 2)
	f, _ := Parse("y ~ f + poly(w, 2) + offset(log(u)) + (1 + x | g) + (1 | h)")
	m, err := New(f, fr, Options{Family: "poisson"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	th := make([]float64, m.Dim())
	for j := range th {
		th[j] = 0.4 * rng.NormFloat64()
	}
	p, err := m.Predict(fr, [][]float64{th}, NewLevelsError, rng)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := fr.Column("y")
	var ll float64
	for i, eta := range p.Eta[0] {
		lg, _ := math.Lgamma(y.Num[i] + 1)
		ll += y.Num[i]*eta - math.Exp(eta) - lg
		if math.Abs(p.Mean[0][i]-math.Exp(eta)) > 1e-12 {
			t.Fatalf("mean %v, exp(η) %v", p.Mean[0][i], math.Exp(eta))
		}
	}
	if want := m.LogLik(th, nil, nil); math.Abs(ll-want) > 1e-9*math.Abs(want) {
		t.Errorf("log likelihood from predicted η %.12g, LogLik %.12g", ll, want)
	}
}

// TestPredictNewLevels: a level absent from training is refused
// (NewLevelsError), predicted at the population level (NewLevelsPopulation:
// η without its group effects), or given effects drawn from the group
// distribution (NewLevelsSample: over many predictions at one θ, η's
// spread is the model's sd_g__Intercept).
func TestPredictNewLevels(t *testing.T) {
	fr := simFrame(100, 4, "gaussian", 3)
	f, _ := Parse("y ~ x + (1 | g)")
	m, err := New(f, fr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(2, 2))
	th := make([]float64, m.Dim())
	for j := range th {
		th[j] = 0.3 * rng.NormFloat64()
	}
	nf := &Frame{}
	nf.AddNumeric("x", []float64{0.5, 0.5})
	nf.AddNumeric("g", []float64{2, 99})
	if _, err := m.Predict(nf, [][]float64{th}, NewLevelsError, rng); err == nil || !strings.Contains(err.Error(), `level "99"`) {
		t.Fatalf("NewLevelsError: %v, want an error naming level 99", err)
	}
	der := make([]float64, len(m.DerivedNames()))
	m.Derive(th, der)
	at := func(name string) float64 {
		for k, n := range m.DerivedNames() {
			if n == name {
				return der[k]
			}
		}
		t.Fatalf("no %s", name)
		return 0
	}
	pop := at("b_Intercept") + 0.5*at("b_x")
	p, err := m.Predict(nf, [][]float64{th}, NewLevelsPopulation, rng)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.Eta[0][1]-pop) > 1e-12 || math.Abs(p.Eta[0][0]-pop-at("r_g.2.1")) > 1e-12 {
		t.Errorf("η = %v, want (%v, %v)", p.Eta[0], pop+at("r_g.2.1"), pop)
	}
	if len(p.NewLevels) != 1 || !strings.Contains(p.NewLevels[0], "g: 99") {
		t.Errorf("NewLevels %v", p.NewLevels)
	}
	const reps = 4000
	draws := make([][]float64, reps)
	for i := range draws {
		draws[i] = th
	}
	p, err = m.Predict(nf, draws, NewLevelsSample, rng)
	if err != nil {
		t.Fatal(err)
	}
	var s, s2 float64
	for _, e := range p.Eta {
		d := e[1] - pop
		s += d
		s2 += d * d
	}
	sd := math.Sqrt(s2/reps - (s/reps)*(s/reps))
	want := at("sd_g__Intercept")
	// sd of a sample sd of n normals ≈ σ/√(2n): 4 of them.
	if math.Abs(sd-want) > 4*want/math.Sqrt(2*reps) || math.Abs(s/reps) > 4*want/math.Sqrt(reps) {
		t.Errorf("sampled new-level effects: mean %.4f, sd %.4f, want 0 and sd_g__Intercept %.4f", s/reps, sd, want)
	}
}
