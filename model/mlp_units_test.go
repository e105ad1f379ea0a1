package model_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// unitNet is a 1-1-1 tanh regression network on 30 points of y = 1.5·
// tanh(2(x − 0.3)) + 0.3ε, x evenly on [−2, 2], with a learned noise: θ =
// (w, b, v, c, γ), f(x) = v·tanh(wx + b) + c, γ = log σ².
func unitNet(t testing.TB) *model.MLP {
	X, y := unitNetData()
	m, err := model.NewMLP(X, y, model.MLPOptions{Hidden: []int{1}, Activation: model.Tanh, Likelihood: model.LikGaussian,
		LearnNoise: true, LogNoiseMean: -1, LogNoiseSD: 1, PriorScale: []float64{1.5, 2}, FanIn: true})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// unitQuadrature returns the exact posterior means and sds of (|w|,
// b·sign w, v·sign w, c, γ) of unitNet (invariant under the network's
// symmetry (w, b, v) → (−w, −b, −v), which a random walk does not cross) by
// quadrature over (w, b, γ) on a grid, the output layer
// (v, c) integrated analytically: its conditional given (w, b, γ) is
// N(A⁻¹Φᵀy/σ², A⁻¹), A = ΦᵀΦ/σ² + P, and p(y | w, b, γ) is
// N(y; 0, σ²I + ΦP⁻¹Φᵀ), computed here with gonum from the definition.
func unitQuadrature(m *model.MLP, X *mat.Dense, y []float64) (mean, sd [5]float64) {
	sds := make([]float64, m.Dim())
	m.PriorSDs(sds)
	n := len(y)
	const gw, gb, gg = 161, 161, 81
	grid := func(k, g int, lo, hi float64) float64 { return lo + (hi-lo)*float64(k)/float64(g-1) }
	type cell struct{ lw, w, b, g, m0, m1, v0, v1 float64 }
	var cells []cell
	maxLW := math.Inf(-1)
	phi := mat.NewDense(n, 2, nil)
	var A mat.SymDense
	for iw := range gw {
		w := grid(iw, gw, -6*sds[0], 6*sds[0])
		for ib := range gb {
			b := grid(ib, gb, -6*sds[1], 6*sds[1])
			for i := range n {
				phi.Set(i, 0, math.Tanh(w*X.At(i, 0)+b))
				phi.Set(i, 1, 1)
			}
			var G mat.SymDense
			G.SymOuterK(1, phi.T())
			var r mat.VecDense
			r.MulVec(phi.T(), mat.NewVecDense(n, y))
			for ig := range gg {
				g := grid(ig, gg, -4.5, 0.5)
				s2 := math.Exp(g)
				A.ScaleSym(1/s2, &G)
				A.SetSym(0, 0, A.At(0, 0)+1/(sds[2]*sds[2]))
				A.SetSym(1, 1, A.At(1, 1)+1/(sds[3]*sds[3]))
				var ch mat.Cholesky
				if !ch.Factorize(&A) {
					continue
				}
				var mu mat.VecDense
				rs := mat.VecDenseCopyOf(&r)
				rs.ScaleVec(1/s2, rs)
				if err := ch.SolveVecTo(&mu, rs); err != nil {
					continue
				}
				var cov mat.SymDense
				if err := ch.InverseTo(&cov); err != nil {
					continue
				}
				var yy float64
				for _, v := range y {
					yy += v * v
				}
				lml := -0.5*float64(n)*g - 0.5*yy/s2 - 0.5*ch.LogDet() + 0.5*mat.Dot(rs, &mu) -
					math.Log(sds[2]*sds[3])
				u := (g + 1) / 1
				lp := -0.5*(w*w/(sds[0]*sds[0])+b*b/(sds[1]*sds[1])) - 0.5*u*u
				c := cell{lw: lml + lp, w: w, b: b, g: g, m0: mu.AtVec(0), m1: mu.AtVec(1), v0: cov.At(0, 0), v1: cov.At(1, 1)}
				maxLW = max(maxLW, c.lw)
				cells = append(cells, c)
			}
		}
	}
	var z float64
	var s1, s2 [5]float64
	for _, c := range cells {
		p := math.Exp(c.lw - maxLW)
		z += p
		// Invariant under the network's symmetry (w, b, v) → (−w, −b, −v).
		sg := 1.0
		if c.w < 0 {
			sg = -1
		}
		vals := [5]float64{sg * c.w, sg * c.b, sg * c.m0, c.m1, c.g}
		extra := [5]float64{0, 0, c.v0, c.v1, 0}
		for j, v := range vals {
			s1[j] += p * v
			s2[j] += p * (v*v + extra[j])
		}
	}
	for j := range mean {
		mean[j] = s1[j] / z
		sd[j] = math.Sqrt(s2[j]/z - mean[j]*mean[j])
	}
	return mean, sd
}

// TestUnitMovesPosterior: a chain of OutputConditional draws with unit
// moves (the hidden unit proposed from its prior, the output layer
// integrated out), random-walk moves of the unit and noise moves, and
// nothing else, samples the exact posterior of a 1-1-1 network in its 5
// correlated parameters: means and sds of |w|, b·sign w, v·sign w, c and
// γ = log σ² within 5 Monte Carlo standard errors (diag.MCSEMean and
// MCSESD of the 60,000 draws) of quadrature's; so does a chain with the
// random walk alone. The marginal likelihood without half its
// log-determinant (the Occam factor of the output layer), the output draw's
// noise ×√2 or a random walk without its prior ratio fails.
func TestUnitMovesPosterior(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 3 s: skipped with -short")
	}
	m := unitNet(t)
	X, y := unitNetData()
	mean, sds := unitQuadrature(m, X, y)
	names := [5]string{"|w|", "b·sign(w)", "v·sign(w)", "c", "γ"}
	t.Logf("quadrature: means %.3f, sds %.3f", mean, sds)
	run := func(global int, slipMarg, slipCov, slipPrior float64) error {
		c, err := m.NewOutputConditional()
		if err != nil {
			t.Fatal(err)
		}
		c.SetSlips(slipCov, 1)
		c.SetMarginalSlip(slipMarg)
		c.SetLocalPriorSlip(slipPrior)
		if err := c.SetUnitMoves(global); err != nil {
			t.Fatal(err)
		}
		if err := c.SetLocalMoves(2, 0.2, false); err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(17, 4))
		th := []float64{1, 0, 0, 0, -1}
		const draws = 60000
		var cols [5][]float64
		for range draws {
			if err := c.Draw(th, 1, rng); err != nil {
				t.Fatal(err)
			}
			sg := 1.0
			if th[0] < 0 {
				sg = -1
			}
			for j, v := range th {
				if j < 3 {
					v *= sg // |w|, b·sign(w), v·sign(w): the symmetry's invariants
				}
				cols[j] = append(cols[j], v)
			}
		}
		if acc, prop := c.UnitAccepted(); acc < prop/100 && global > 0 {
			t.Fatalf("unit moves accepted %d of %d: too few to test", acc, prop)
		}
		for j := range names {
			ch := [][]float64{cols[j]}
			mu := stat.Mean(cols[j], nil)
			sd := math.Sqrt(stat.PopVariance(cols[j], nil))
			se, seSD := diag.MCSEMean(ch), diag.MCSESD(ch)
			if math.Abs(mu-mean[j]) > 5*se || math.Abs(sd-sds[j]) > 5*seSD+0.01*sds[j] {
				return fmt.Errorf("%s: mean %.4f sd %.4f, exact %.4f and %.4f (±%.2g, ±%.2g)", names[j], mu, sd, mean[j], sds[j], se, seSD)
			}
		}
		return nil
	}
	if err := run(3, 1, 1, 1); err != nil {
		t.Errorf("unit, random-walk and noise moves: %v", err)
	}
	if err := run(0, 1, 1, 1); err != nil {
		t.Errorf("random-walk and noise moves alone: %v", err)
	}
	if err := run(3, 0.5, 1, 1); err == nil {
		t.Error("half the log-determinant in the marginal: passed")
	} else {
		t.Logf("half the log-determinant fails as it should: %v", err)
	}
	if err := run(3, 1, math.Sqrt2, 1); err == nil {
		t.Error("output draw's noise ×√2: passed")
	} else {
		t.Logf("noise ×√2 fails as it should: %v", err)
	}
	if err := run(0, 1, 1, 0); err == nil {
		t.Error("random walk without its prior ratio: passed")
	} else {
		t.Logf("random walk without its prior ratio fails as it should: %v", err)
	}
}

// unitNetData returns unitNet's inputs and responses.
func unitNetData() (*mat.Dense, []float64) {
	const n = 30
	rng := rand.New(rand.NewPCG(3, 9))
	X := mat.NewDense(n, 1, nil)
	y := make([]float64, n)
	for i := range n {
		x := -2 + 4*float64(i)/(n-1)
		X.Set(i, 0, x)
		y[i] = 1.5*math.Tanh(2*(x-0.3)) + 0.3*rng.NormFloat64()
	}
	return X, y
}

// TestUnitMovesAgainstNUTS: on a 2-4-1 ReLU network with the regression
// defaults (learned noise, standardised response) and 40 points, a chain of
// OutputConditional draws with unit and noise moves alone agrees with NUTS
// (4 chains) on the posterior means and second moments of f at three inputs
// (two inside the data, one far outside) and of log σ²: within 5 combined
// Monte Carlo standard errors (diag.MCSEMean, Stan's). Without the marginal's
// log-determinant (no Occam factor for the output layer) it fails.
func TestUnitMovesAgainstNUTS(t *testing.T) {
	if testing.Short() {
		t.Skip("≈ 15 s: skipped with -short")
	}
	const n = 40
	rng := rand.New(rand.NewPCG(3, 9))
	X := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		a, b := 2*rng.Float64()-1, 2*rng.Float64()-1
		X.SetRow(i, []float64{a, b})
		y[i] = math.Sin(2*a) + a*b + 0.2*rng.NormFloat64()
	}
	m, err := model.NewMLP(X, y, model.MLPDefaults(model.MLPOptions{Hidden: []int{4}, Activation: model.ReLU, Likelihood: model.LikGaussian}))
	if err != nil {
		t.Fatal(err)
	}
	pts := mat.NewDense(3, 2, []float64{0, 0, 0.8, -0.5, -2, 2})
	// Statistics of a draw: f at the points, their squares, and log σ².
	stats := func(th []float64, dst []float64) {
		f := dst[:3]
		m.RegressionMean(th, pts, f)
		for j := range 3 {
			dst[3+j] = f[j] * f[j]
		}
		dst[6] = th[m.Dim()-1]
	}
	const k = 7
	starts := make([][]float64, 4)
	for c := range starts {
		starts[c] = make([]float64, m.Dim())
		m.FanInInit(starts[c], rand.New(rand.NewPCG(uint64(c), 5)))
		starts[c][m.Dim()-1] = -2
	}
	tr, err := langevin.Run(context.Background(), m, sampler.NUTS{Adapt: sampler.Adapt{Warmup: 1000}},
		langevin.Options{Chains: 4, Iters: 4000, BurnIn: 1000, Init: langevin.InitAt{Points: starts}, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	// NUTS: each statistic's chains, its mean and Monte Carlo SE (Stan's).
	var nutsMean, nutsSE [k]float64
	nutsCols := make([][][]float64, k)
	s := make([]float64, k)
	for _, ch := range tr.Draws {
		for j := range k {
			nutsCols[j] = append(nutsCols[j], nil)
		}
		for _, d := range ch {
			stats(d[:m.Dim()], s)
			for j := range k {
				c := len(nutsCols[j]) - 1
				nutsCols[j][c] = append(nutsCols[j][c], s[j])
			}
		}
	}
	for j := range k {
		var all []float64
		for _, c := range nutsCols[j] {
			all = append(all, c...)
		}
		nutsMean[j], nutsSE[j] = stat.Mean(all, nil), diag.MCSEMean(nutsCols[j])
	}
	run := func(slipMarg float64) error {
		c, err := m.NewOutputConditional()
		if err != nil {
			t.Fatal(err)
		}
		c.SetMarginalSlip(slipMarg)
		if err := c.SetUnitMoves(4); err != nil {
			t.Fatal(err)
		}
		if err := c.SetLocalMoves(4, 0.2, false); err != nil {
			t.Fatal(err)
		}
		th := append([]float64(nil), starts[0]...)
		r := rand.New(rand.NewPCG(21, 2))
		cols := make([][]float64, k)
		for i := range 61000 {
			if err := c.Draw(th, 1, r); err != nil {
				t.Fatal(err)
			}
			if i >= 1000 {
				stats(th, s)
				for j := range k {
					cols[j] = append(cols[j], s[j])
				}
			}
		}
		for j := range k {
			mu, se := stat.Mean(cols[j], nil), diag.MCSEMean([][]float64{cols[j]})
			if tol := 5 * math.Hypot(se, nutsSE[j]); math.Abs(mu-nutsMean[j]) > tol {
				return fmt.Errorf("statistic %d: %.4f, NUTS %.4f (tolerance %.2g)", j, mu, nutsMean[j], tol)
			}
		}
		return nil
	}
	if err := run(1); err != nil {
		t.Errorf("unit and noise moves: %v", err)
	}
	if err := run(0); err == nil {
		t.Error("no log-determinant in the marginal: passed")
	} else {
		t.Logf("no log-determinant fails as it should: %v", err)
	}
}
