package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// Gradient noise, in Mandt, Hoffman & Blei's (2017) notation and in ours.
//
// Mandt et al. minimise the mean loss L(θ) = (1/N) Σₙ ℓₙ(θ) with
// ℓₙ = −log p(zₙ|θ) − (1/N) log p(θ), by θ ← θ − ε ∇L_S, where ∇L_S is the
// mean of ∇ℓₙ over a minibatch of S observations. Their BBᵀ is the
// covariance of one ∇ℓₙ over the data, so that Cov(∇L_S) = BBᵀ/S for batches
// drawn with replacement. The prior term is the same for every n, so
//
//	BBᵀ = V(θ) = (1/N) Σₙ (gₙ − ḡ)(gₙ − ḡ)ᵀ,   gₙ = ∇log p(zₙ|θ),   ḡ = (1/N) Σₙ gₙ,
//
// the covariance of the per-observation log-likelihood gradients. We ascend
// log p(θ) + Σᵢ log p(zᵢ|θ) with ĝ = ∇log p(θ) + (N/S) Σ_{i∈B} ∇log p(zᵢ|θ),
// and ∇L_S = −ĝ/N, so their step θ − ε∇L_S is our θ + ηĝ with
//
//	ε = N·η,   Cov(ĝ) = N² Cov(∇L_S) = (N²/S)·V.
//
// [GradCov] and [EstimateGradCov] return V (their BBᵀ); the optimal settings
// ([OptimalStep] and friends) take V, N and S and return our η and
// preconditioners.

// GradCov writes V(θ), the covariance of the per-observation gradients
// ∇log p(zₙ|θ) over all N observations (divisor N; Mandt et al.'s BBᵀ), into
// dst, which must be d×d. It costs N gradient evaluations and O(N d²).
func GradCov(m langevin.Model, theta []float64, dst *mat.SymDense) error {
	d := m.Dim()
	if len(theta) != d || dst.SymmetricDim() != d {
		return fmt.Errorf("sampler: gradient covariance at a point of %d values into a %d×%d matrix, model has %d parameters", len(theta), dst.SymmetricDim(), dst.SymmetricDim(), d)
	}
	n := m.Len()
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return gradCovOver(m, theta, all, dst, float64(n))
}

// gradCovOver accumulates the covariance of the gradients of the
// observations rows with the given divisor.
func gradCovOver(m langevin.Model, theta []float64, rows []int, dst *mat.SymDense, div float64) error {
	d := m.Dim()
	mean := make([]float64, d)
	acc := make([]float64, d*d)
	// Two passes would need the gradients twice; use the shifted formula
	// with the first gradient as the shift, which is stable enough here.
	shift := make([]float64, d)
	langevin.RowGrads(m, theta, rows[:1], langevin.RowTerms{}, shift, nil, func(int, []float64) error { return nil })
	err := langevin.RowGrads(m, theta, rows, langevin.RowTerms{}, make([]float64, d), nil, func(k int, g []float64) error {
		for j := range g {
			g[j] -= shift[j]
			mean[j] += g[j]
			if math.IsNaN(g[j]) || math.IsInf(g[j], 0) {
				return fmt.Errorf("sampler: gradient covariance: observation %d has a non-finite gradient", rows[k]+1)
			}
		}
		addOuter(acc, g)
		return nil
	})
	if err != nil {
		return err
	}
	setCov(dst, acc, mean, float64(len(rows)), div)
	return nil
}

// addOuter adds the upper triangle of ggᵀ into acc, a row-major d×d
// matrix (d = len(g)), skipping the rows of the zero entries of g.
func addOuter(acc, g []float64) {
	d := len(g)
	for a := 0; a < d; a++ {
		if g[a] == 0 {
			continue
		}
		r := acc[a*d : a*d+d]
		for b := a; b < d; b++ {
			r[b] += g[a] * g[b]
		}
	}
}

// setCov writes into dst the covariance (acc − mean meanᵀ/k)/div of k
// vectors from the sums of their outer products (upper triangle of the
// row-major acc, as addOuter leaves it) and of the vectors (mean).
func setCov(dst *mat.SymDense, acc, mean []float64, k, div float64) {
	d := len(mean)
	for a := 0; a < d; a++ {
		for b := a; b < d; b++ {
			dst.SetSym(a, b, (acc[a*d+b]-mean[a]*mean[b]/k)/div)
		}
	}
}

// EstimateGradCov estimates V(θ) (as [GradCov]) by averaging the sample
// covariances (divisor S − 1) of the per-observation gradients in `batches`
// minibatches of `size` observations drawn without replacement from rng, a
// one-off estimate that costs batches·size gradients instead of N.
func EstimateGradCov(m langevin.Model, theta []float64, size, batches int, rng *rand.Rand, dst *mat.SymDense) error {
	d := m.Dim()
	if len(theta) != d || dst.SymmetricDim() != d {
		return fmt.Errorf("sampler: gradient covariance at a point of %d values into a %d×%d matrix, model has %d parameters", len(theta), dst.SymmetricDim(), dst.SymmetricDim(), d)
	}
	if size < 2 || size > m.Len() {
		return fmt.Errorf("sampler: gradient covariance from batches of %d: expected 2 ≤ size ≤ N = %d", size, m.Len())
	}
	if batches < 1 {
		return fmt.Errorf("sampler: gradient covariance from %d batches: expected at least 1", batches)
	}
	// Above floydAbove observations each batch is drawn by Floyd's
	// algorithm, without the Batcher's permutation of all n indices.
	next := func() []int { return floydSample(m.Len(), size, rng) }
	if m.Len() <= floydAbove {
		b, err := langevin.NewBatcher(m.Len(), size, false, rng)
		if err != nil {
			return err
		}
		next = b.Next
	}
	sum := mat.NewSymDense(d, nil)
	one := mat.NewSymDense(d, nil)
	for k := 0; k < batches; k++ {
		batch := next()
		if err := gradCovOver(m, theta, batch[:size], one, float64(size-1)); err != nil {
			return err
		}
		sum.AddSym(sum, one)
	}
	dst.ScaleSym(1/float64(batches), sum)
	// The sample covariance within a batch drawn without replacement is
	// unbiased for N/(N−1)·V.
	n := float64(m.Len())
	dst.ScaleSym((n-1)/n, dst)
	return nil
}

// NoiseCovOnline is the online estimate of the gradient-noise covariance of
// Mandt et al. (2017, eq. 21),
//
//	C_t = (1 − κ_t) C_{t−1} + κ_t (ĝ_{1,t} − ĝ_{S,t})(ĝ_{1,t} − ĝ_{S,t})ᵀ,  κ_t = 1/t,
//
// where ĝ_{1,t} is the gradient ∇log p(zᵢ|θ_t) of one observation of the
// step's minibatch and ĝ_{S,t} the minibatch mean of the same. For an
// observation drawn from the batch, E[(ĝ₁ − ĝ_S)(ĝ₁ − ĝ_S)ᵀ] = (1 − 1/S)·V, so
// Update rescales by S/(S − 1) and C_t estimates V (their BBᵀ). With κ_t = 1/t
// C_t is the running mean; the diagonal form keeps only the d variances
// (O(d) per update), the full form all d² entries. Update does not allocate.
type NoiseCovOnline struct {
	d    int
	full bool
	t    int
	c    []float64 // d (diagonal) or d·d (full, row-major)
}

// NewNoiseCovOnline returns an empty estimator of dimension d, full or
// diagonal.
func NewNoiseCovOnline(d int, full bool) *NoiseCovOnline {
	n := d
	if full {
		n = d * d
	}
	return &NoiseCovOnline{d: d, full: full, c: make([]float64, n)}
}

// Update adds one observation: g1 is the gradient of one observation of a
// minibatch of size S ≥ 2 and gS the mean gradient of that minibatch.
func (o *NoiseCovOnline) Update(g1, gS []float64, S int) {
	o.t++
	k := 1 / float64(o.t)
	f := float64(S) / float64(S-1)
	if !o.full {
		for j := range o.c {
			u := g1[j] - gS[j]
			o.c[j] += k * (f*u*u - o.c[j])
		}
		return
	}
	d := o.d
	for a := 0; a < d; a++ {
		ua := f * (g1[a] - gS[a])
		r := o.c[a*d : a*d+d]
		for b := range r {
			r[b] += k * (ua*(g1[b]-gS[b]) - r[b])
		}
	}
}

// N returns the number of updates.
func (o *NoiseCovOnline) N() int { return o.t }

// Var returns the estimate of Vⱼⱼ.
func (o *NoiseCovOnline) Var(j int) float64 {
	if o.full {
		return o.c[j*o.d+j]
	}
	return o.c[j]
}

// Cov writes the estimate of V into dst (off-diagonal entries are zero for
// the diagonal form).
func (o *NoiseCovOnline) Cov(dst *mat.SymDense) {
	for a := 0; a < o.d; a++ {
		for b := a; b < o.d; b++ {
			switch {
			case o.full:
				dst.SetSym(a, b, (o.c[a*o.d+b]+o.c[b*o.d+a])/2)
			case a == b:
				dst.SetSym(a, a, o.c[a])
			default:
				dst.SetSym(a, b, 0)
			}
		}
	}
}
