package diag_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/diag"
)

// imq is the IMQ kernel k(x, y) = (1 + ‖x − y‖²)^(−1/2).
func imq(x, y []float64) float64 {
	var r2 float64
	for j := range x {
		r2 += (x[j] - y[j]) * (x[j] - y[j])
	}
	return 1 / math.Sqrt(1+r2)
}

// ksdDirect is the O(n²) reference: every term of
// k₀ = ∇ₓ·∇ᵧk + ∇ₓk·s(y) + ∇ᵧk·s(x) + k s(x)·s(y) from central finite
// differences of k, in coordinates z = x/scale with scores scale·s. It shares
// no algebra with diag.KSD.
func ksdDirect(x, s [][]float64, scale []float64) float64 {
	n, d := len(x), len(x[0])
	z := make([][]float64, n)
	t := make([][]float64, n)
	for i := range x {
		z[i] = make([]float64, d)
		t[i] = make([]float64, d)
		for j := range x[i] {
			z[i][j] = x[i][j] / scale[j]
			t[i][j] = s[i][j] * scale[j]
		}
	}
	const h = 1e-4
	xp := make([]float64, d)
	yp := make([]float64, d)
	var total float64
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			copy(xp, z[i])
			copy(yp, z[k])
			k0 := imq(xp, yp)
			for j := 0; j < d; j++ {
				// ∂k/∂xⱼ and ∂k/∂yⱼ.
				xp[j] += h
				fxp := imq(xp, yp)
				xp[j] -= 2 * h
				fxm := imq(xp, yp)
				xp[j] += h
				gx := (fxp - fxm) / (2 * h)
				yp[j] += h
				fyp := imq(xp, yp)
				yp[j] -= 2 * h
				fym := imq(xp, yp)
				yp[j] += h
				gy := (fyp - fym) / (2 * h)
				// ∂²k/∂xⱼ∂yⱼ.
				var f [2][2]float64
				for a, da := range []float64{h, -h} {
					for b, db := range []float64{h, -h} {
						xp[j] += da
						yp[j] += db
						f[a][b] = imq(xp, yp)
						xp[j] -= da
						yp[j] -= db
					}
				}
				gxy := (f[0][0] - f[0][1] - f[1][0] + f[1][1]) / (4 * h * h)
				total += gxy + gx*t[k][j] + gy*t[i][j]
				total += k0 * t[i][j] * t[k][j]
			}
		}
	}
	return math.Sqrt(total / float64(n*n))
}

func TestKSDMatchesDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d = 40, 3
	x := make([][]float64, n)
	s := make([][]float64, n)
	for i := range x {
		x[i] = make([]float64, d)
		s[i] = make([]float64, d)
		for j := range x[i] {
			x[i][j] = 2 * rng.NormFloat64()
			s[i][j] = rng.NormFloat64() - 0.5*x[i][j]
		}
	}
	scale := []float64{1.5, 0.7, 2}
	got := diag.KSD(x, s, scale)
	want := ksdDirect(x, s, scale)
	if math.Abs(got-want) > 1e-6*want {
		t.Errorf("KSD = %.12g, direct finite-difference reference %.12g", got, want)
	}
	// nil scale is the identity.
	one := []float64{1, 1, 1}
	if a, b := diag.KSD(x, s, nil), ksdDirect(x, s, one); math.Abs(a-b) > 1e-6*b {
		t.Errorf("KSD with nil scale = %.12g, reference %.12g", a, b)
	}
	// A slip in the score term is caught: scores off by 1% in one coordinate.
	for i := range s {
		s[i][1] *= 1.01
	}
	if slip := diag.KSD(x, s, scale); math.Abs(slip-want) < 1e-4*want {
		t.Errorf("KSD does not see a 1%% change of one score coordinate: %.12g vs %.12g", slip, want)
	}
}

// gauss4 is N(0, Σ) in 4 dimensions with equicorrelation 0.9: Σ has
// eigenvalues 3.7 and 0.1 (three times), the precision H = Σ⁻¹ 1/3.7 and 10.
type gauss4 struct {
	cov, prec *mat.SymDense
	chol      mat.Cholesky
}

func newGauss4() *gauss4 {
	const d, rho = 4, 0.9
	c := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			v := rho
			if i == j {
				v = 1
			}
			c.SetSym(i, j, v)
		}
	}
	g := &gauss4{cov: c}
	if !g.chol.Factorize(c) {
		panic("not PD")
	}
	g.prec = mat.NewSymDense(d, nil)
	if err := g.chol.InverseTo(g.prec); err != nil {
		panic(err)
	}
	return g
}

func (g *gauss4) score(dst, x []float64) {
	for i := range dst {
		var v float64
		for j := range x {
			v -= g.prec.At(i, j) * x[j]
		}
		dst[i] = v
	}
}

func (g *gauss4) draw(rng *rand.Rand) []float64 {
	var l mat.TriDense
	g.chol.LTo(&l)
	z := make([]float64, 4)
	for j := range z {
		z[j] = rng.NormFloat64()
	}
	x := make([]float64, 4)
	for i := range x {
		for j := 0; j <= i; j++ {
			x[i] += l.At(i, j) * z[j]
		}
	}
	return x
}

func (g *gauss4) scores(x [][]float64) [][]float64 {
	s := make([][]float64, len(x))
	for i := range x {
		s[i] = make([]float64, len(x[i]))
		g.score(s[i], x[i])
	}
	return s
}

// ula runs the unadjusted Langevin algorithm θ ← θ + η∇log π(θ) + √(2η)ξ
// (SGLD without gradient noise) for burn + n·thin steps and keeps every
// thin-th draw.
func (g *gauss4) ula(eta float64, n, burn, thin int, rng *rand.Rand) [][]float64 {
	th := make([]float64, 4)
	gr := make([]float64, 4)
	sd := math.Sqrt(2 * eta)
	out := make([][]float64, 0, n)
	for it := 1; it <= burn+n*thin; it++ {
		g.score(gr, th)
		for j := range th {
			th[j] += eta*gr[j] + sd*rng.NormFloat64()
		}
		if it > burn && (it-burn)%thin == 0 {
			out = append(out, append([]float64(nil), th...))
		}
	}
	return out
}

// TestKSDExactDraws checks E KSD² = E k₀(x,x)/n for independent exact draws
// (Stein's identity), and measures the spread of KSD/KSDExpectedIID that the
// rule KSDWorseFactor must clear.
func TestKSDExactDraws(t *testing.T) {
	g := newGauss4()
	const n, seeds = 300, 40
	var sum, sumExp, maxRatio float64
	for seed := uint64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		x := make([][]float64, n)
		for i := range x {
			x[i] = g.draw(rng)
		}
		s := g.scores(x)
		k := diag.KSD(x, s, nil)
		e := diag.KSDExpectedIID(s, nil)
		sum += k * k
		sumExp += e * e
		maxRatio = math.Max(maxRatio, k/e)
	}
	// E k₀(x,x) = d + E‖s‖² = d + tr(Σ⁻¹) for c = 1, β = −½.
	want := (4 + mat.Trace(g.prec)) / n
	if r := sumExp / seeds / want; math.Abs(r-1) > 0.05 {
		t.Errorf("mean KSDExpectedIID² = %.4g, want (d + tr Σ⁻¹)/n = %.4g", sumExp/seeds, want)
	}
	if r := sum / seeds / want; math.Abs(r-1) > 0.15 {
		t.Errorf("mean KSD² of %d exact draws = %.4g, Stein's identity gives %.4g (ratio %.3f)", n, sum/seeds, want, r)
	}
	if maxRatio >= diag.KSDWorseFactor {
		t.Errorf("exact draws: largest KSD/expected over %d seeds = %.3f ≥ KSDWorseFactor %g", seeds, maxRatio, diag.KSDWorseFactor)
	}
	t.Logf("exact draws: mean KSD² / (E k₀(x,x)/n) = %.3f, max KSD ratio over %d seeds %.3f", sum/seeds/want, seeds, maxRatio)
}

// TestKSDStepTooLarge runs the unadjusted Langevin algorithm on the 4-D
// Gaussian (λmax(H) = 10) with η·λmax = 0.05 and 1.5. The update is the
// linear recursion θ ← (I − ηH)θ + √(2η)ξ; along an eigenvector of H with
// eigenvalue λ its stationary variance is 2η/(1 − (1 − ηλ)²) =
// (1/λ)/(1 − ηλ/2): inflated by 1.026 and by 4. The test checks that
// variance, then that KSD sees the large step (KSDCheck.Worse against as
// many exact draws) and not the small one.
func TestKSDStepTooLarge(t *testing.T) {
	g := newGauss4()
	const n = 400
	lmax := 10.0
	ref := make([][]float64, n)
	rng := rand.New(rand.NewPCG(11, 1))
	for i := range ref {
		ref[i] = g.draw(rng)
	}
	kref := diag.KSD(ref, g.scores(ref), nil)
	// Top eigenvector of H: contrasts; e = (1, −1, 0, 0)/√2 has λ = 10.
	e := []float64{1 / math.Sqrt2, -1 / math.Sqrt2, 0, 0}
	for _, tc := range []struct {
		etaL  float64
		worse bool
	}{{0.05, false}, {1.5, true}} {
		eta := tc.etaL / lmax
		// Slowest direction λ = 1/3.7: thin by 3 relaxation times.
		thin := int(3 / (eta / 3.7))
		draws := g.ula(eta, n, 5*thin, thin, rand.New(rand.NewPCG(5, 2)))
		var v float64
		for _, x := range draws {
			p := x[0]*e[0] + x[1]*e[1]
			v += p * p
		}
		v /= n
		wantV := (1 / lmax) / (1 - tc.etaL/2)
		// Variance of n nearly independent draws: relative sd √(2/n) = 7%.
		if math.Abs(v/wantV-1) > 4*math.Sqrt(2.0/n) {
			t.Errorf("ηλ = %g: variance along the top eigenvector %.4g, linear recursion gives %.4g", tc.etaL, v, wantV)
		}
		k := diag.KSD(draws, g.scores(draws), nil)
		chk := diag.NewKSDCheck(n, k, kref)
		t.Logf("ηλmax = %g: var along top eigenvector %.4g (theory %.4g); %v", tc.etaL, v, wantV, chk)
		if chk.Worse != tc.worse {
			t.Errorf("ηλmax = %g: %v; want Worse = %v", tc.etaL, chk, tc.worse)
		}
	}
}

func TestThinIndex(t *testing.T) {
	for _, tc := range []struct {
		n, k int
		want []int
	}{
		{10, 5, []int{0, 2, 4, 6, 8}},
		{5, 10, []int{0, 1, 2, 3, 4}},
		{7, 3, []int{0, 2, 4}},
	} {
		got := diag.ThinIndex(tc.n, tc.k)
		if len(got) != len(tc.want) {
			t.Fatalf("ThinIndex(%d, %d) = %v, want %v", tc.n, tc.k, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("ThinIndex(%d, %d) = %v, want %v", tc.n, tc.k, got, tc.want)
			}
		}
	}
}
