package fit_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/formula"
)

// blockMAPModel is y ~ x + (1 | g) with centred effects on J groups of per
// rows: η = a_g + x, a_g ~ N(0, 1), y Bernoulli(logit⁻¹ η) for the
// bernoulli family, y = η + N(0, 0.5²) for the gaussian.
func blockMAPModel(t *testing.T, family string, J, per int, seed uint64) *formula.Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	a := make([]float64, J)
	for j := range a {
		a[j] = rng.NormFloat64()
	}
	n := J * per
	x, y, g := make([]float64, n), make([]float64, n), make([]int, n)
	levels := make([]string, J)
	for j := range levels {
		levels[j] = fmt.Sprintf("g%d", j)
	}
	for i := range x {
		g[i], x[i] = i%J, rng.NormFloat64()
		eta := a[g[i]] + x[i]
		switch family {
		case "bernoulli":
			if rng.Float64() < 1/(1+math.Exp(-eta)) {
				y[i] = 1
			}
		default:
			y[i] = eta + 0.5*rng.NormFloat64()
		}
	}
	fr := &formula.Frame{}
	fr.AddNumeric("y", y)
	fr.AddNumeric("x", x)
	fr.AddFactor("g", g, levels)
	f, err := formula.Parse("y ~ x + (1 | g)")
	if err != nil {
		t.Fatal(err)
	}
	m, err := formula.New(f, fr, formula.Options{Family: family, Centring: "centred"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestBlockMAPHandOver drives fit.BlockMAP's hand-over to L-BFGS — Newton's
// iterations stop short of the mode and approx.FindMAP goes on from where
// they stopped — on two models that have a mode (10 groups × 200 rows):
//
//   - bernoulli with Newton started at θ = 0 (a warm-up of 1 L-BFGS
//     iteration, which gonum spends evaluating the start): at Newton's
//     second point the centred effects' funnel makes the block-arrow
//     curvature indefinite, as wherever a group's prior curvature
//     outweighs its data; Levenberg–Marquardt's damping (H + μI) now
//     carries Newton on to the mode, so no hand-over happens (why "")
//     and the mode must pass the same checks;
//   - gaussian with the default 20 L-BFGS iterations: the family has no
//     Taylor expansion, so Newton cannot start.
//
// The mode found must be the one plain L-BFGS finds from θ = 0 (approx.FindMAP,
// an independent answer): Newton decrement √(gᵀH⁻¹g) ≤ 10⁻³ (the gradient
// in posterior-sd units, H the finite-difference block-arrow Hessian at
// L-BFGS's mode), within 2·10⁻³ posterior sd of it in that metric, and a
// log posterior no lower by more than 10⁻⁶ (measured: decrements 1.4·10⁻⁶
// and 7.5·10⁻⁷, 3.2·10⁻⁶ and 1.1·10⁻⁶ sd apart: the two L-BFGS runs'
// tolerances). The deliberately wrong variant — the hand-over skipped, the
// point where Newton stopped returned — fails the same checks (measured:
// decrement 23 and 20 sd away; 0.076 and 0.075 sd away).
func TestBlockMAPHandOver(t *testing.T) {
	defer fit.SetBlockMAPHandOver(nil)
	ctx := context.Background()
	for _, c := range []struct {
		family string
		warmup int    // L-BFGS iterations before Newton's (0: BlockMAP's 20)
		why    string // why Newton stopped
	}{
		{"bernoulli", 1, ""},
		{"gaussian", 0, "no Taylor expansion"},
	} {
		m := blockMAPModel(t, c.family, 10, 200, 1)
		var why string
		var stopped []float64
		fit.SetBlockMAPHandOver(func(w string, th []float64) { why, stopped = w, append([]float64(nil), th...) })
		restore := func() {}
		if c.warmup > 0 {
			restore = fit.SetBlockMAPWarmup(c.warmup)
		}
		got, err := fit.BlockMAP(ctx, m)
		restore()
		if err != nil {
			t.Fatalf("%s: %v", c.family, err)
		}
		if c.why == "" && why != "" || !strings.Contains(why, c.why) {
			t.Fatalf("%s: Newton stopped with %q, not %q: the test no longer drives the hand-over it means to", c.family, why, c.why)
		}
		want, err := approx.FindMAP(ctx, m, nil)
		if err != nil {
			t.Fatal(err)
		}
		H, err := langevin.HessianBlockArrowFD(ctx, m, want, m.HessianBlocks())
		if err != nil {
			t.Fatal(err)
		}
		lpWant := langevin.LogPosterior(m, want, nil)
		// check returns θ's Newton decrement, its distance from L-BFGS's
		// mode in posterior sd, and its log posterior less the mode's.
		check := func(th []float64) (dec, dist, dlp float64) {
			d := len(th)
			g, hg := make([]float64, d), make([]float64, d)
			lp := langevin.LogPosterior(m, th, g)
			H.MulPrecond(hg, g)
			dx, hd := make([]float64, d), make([]float64, d)
			for j := range dx {
				dx[j] = th[j] - want[j]
			}
			H.MulVec(hd, dx)
			for j := range g {
				dec += g[j] * hg[j]
				dist += dx[j] * hd[j]
			}
			return math.Sqrt(dec), math.Sqrt(dist), lp - lpWant
		}
		bad := func(dec, dist, dlp float64) bool { return dec > 1e-3 || dist > 2e-3 || dlp < -1e-6 }
		dec, dist, dlp := check(got)
		if c.why == "" {
			t.Logf("%s: damped Newton reached the mode: decrement %.2g, %.2g sd from L-BFGS's mode, Δlog p %.2g", c.family, dec, dist, dlp)
			if bad(dec, dist, dlp) {
				t.Errorf("%s: damped Newton: decrement %.3g, %.3g posterior sd from L-BFGS's mode, log posterior %.3g below it", c.family, dec, dist, -dlp)
			}
			continue
		}
		sDec, sDist, sDlp := check(stopped)
		t.Logf("%s: Newton stopped (%s); BlockMAP: decrement %.2g, %.2g sd from L-BFGS's mode, Δlog p %.2g; the point Newton stopped at: %.2g, %.2g sd, %.2g",
			c.family, why, dec, dist, dlp, sDec, sDist, sDlp)
		if bad(dec, dist, dlp) {
			t.Errorf("%s: BlockMAP after the hand-over: decrement %.3g, %.3g posterior sd from L-BFGS's mode, log posterior %.3g below it", c.family, dec, dist, -dlp)
		}
		if !bad(sDec, sDist, sDlp) {
			t.Errorf("%s: the point where Newton stopped passes the checks (decrement %.3g, %.3g sd): they could not tell a skipped hand-over", c.family, sDec, sDist)
		}
	}
}
