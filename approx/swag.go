package approx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
)

// SWAG is stochastic weight averaging–Gaussian (Maddox, Izmailov, Garipov,
// Vetrov & Wilson 2019), the lecture slides' algorithm: run SGD with a constant
// step η,
//
//	θ ← θ + η ĝ(θ),
//
// (ĝ the minibatch estimate of ∇log p(θ|D), our step convention) and every
// Every iterations after Start take a snapshot θᵢ, i = 1, 2, …, updating
//
//	θ̄ ← (n θ̄ + θᵢ)/(n+1),   θ̄² ← (n θ̄² + θᵢ²)/(n+1)   (element-wise square),
//	D̂ ← the last K deviations θᵢ − θ̄ (θ̄ after the update), one per column.
//
// The approximation is N(θ̄, Σ) with
//
//	Σ = Scale · (Σ_diag + D̂D̂ᵀ/(K−1)),  Σ_diag = diag(θ̄² − θ̄²),
//
// sampled as θ̃ = θ̄ + √Scale (Σ_diag^{1/2} z₁ + D̂ z₂/√(K−1)), z₁ ~ N(0, I_D),
// z₂ ~ N(0, I_K). Scale is ½ as in the paper and slides: Σ_diag and
// D̂D̂ᵀ/(K−1) each estimate the iterates' covariance, so their mean, not their
// sum, is the covariance of the iterates. K is the number of columns held (at
// most Rank).
//
// SWAG approximates the stationary law of the SGD iterates, which matches the
// posterior only for a well-chosen η (Mandt, Hoffman & Blei 2017, eq. 15: in
// our convention η* = 2|B|D/(N² Tr C), C the covariance of one observation's
// gradient; see OptimalStep).
//
// SWAG (like VI) is also a langevin.Sampler: during burn-in its chains fit
// (Position is the current SGD iterate); when Run ends the burn-in
// (langevin.WarmupEnder) the fit is frozen and every later Step draws an
// independent θ from it, so `langevin run --sampler swag` reports the
// approximation with the same table as an MCMC run.
type SWAG struct {
	Step  float64           // constant SGD step η > 0
	Batch sampler.Minibatch // minibatch of each SGD step
	Every int               // SGD steps between snapshots; 0: one epoch, ⌈N/|B|⌉
	Start int               // SGD steps before the first snapshot
	Rank  int               // K, the columns of the deviation matrix; 0: 20
	Scale float64           // covariance scale; 0: ½
}

func (s SWAG) defaults(m langevin.Model) (SWAG, error) {
	if !(s.Step > 0) || math.IsInf(s.Step, 0) {
		return s, fmt.Errorf("approx: SWAG step %v: expected a positive constant η", s.Step)
	}
	if s.Every < 0 || s.Start < 0 || s.Rank < 0 || s.Scale < 0 || math.IsNaN(s.Scale) {
		return s, fmt.Errorf("approx: SWAG Every %d, Start %d, Rank %d, Scale %v: expected non-negative settings", s.Every, s.Start, s.Rank, s.Scale)
	}
	if s.Every == 0 {
		b := s.Batch.Size
		if b == 0 {
			b = m.Len()
		}
		s.Every = max(1, (m.Len()+b-1)/b)
	}
	if s.Rank == 0 {
		s.Rank = 20
	}
	if s.Scale == 0 {
		s.Scale = 0.5
	}
	return s, nil
}

// StatNames implements langevin.Sampler: lp__ (the minibatch log-posterior
// estimate of the last SGD step), stepsize__ (η) and snapshots__ (number of
// snapshots taken).
func (s SWAG) StatNames() []string { return []string{"lp__", "stepsize__", "snapshots__"} }

// NewChain implements langevin.Sampler. The chain runs SGD and collects the
// moments until EndWarmup, then draws independent samples from the fit.
func (s SWAG) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	s, err := s.defaults(m)
	if err != nil {
		return nil, err
	}
	if len(theta0) != m.Dim() {
		return nil, fmt.Errorf("approx: SWAG: initial point has %d values, model has %d parameters", len(theta0), m.Dim())
	}
	b, err := langevin.NewBatcher(m.Len(), s.Batch.Size, s.Batch.Replace, rng)
	if err != nil {
		return nil, err
	}
	d := m.Dim()
	return &swagChain{
		s:     s,
		est:   langevin.NewEstimator(m, b),
		rng:   rng,
		theta: append([]float64(nil), theta0...),
		grad:  make([]float64, d),
		draw:  make([]float64, d),
		fit:   NewSWAGFit(d, s.Rank, s.Scale),
	}, nil
}

// FitSWAG runs iters SGD steps of s from theta0 and returns the fit.
func FitSWAG(ctx context.Context, m langevin.Model, s SWAG, theta0 []float64, iters int, rng *rand.Rand) (*SWAGFit, error) {
	ch, err := s.NewChain(m, theta0, rng)
	if err != nil {
		return nil, err
	}
	c := ch.(*swagChain)
	for t := 0; t < iters; t++ {
		if t%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err := c.Step(); err != nil {
			return nil, err
		}
	}
	if c.fit.N() == 0 {
		return nil, fmt.Errorf("approx: SWAG: no snapshot in %d steps (Start %d, Every %d)", iters, c.s.Start, c.s.Every)
	}
	return c.fit, nil
}

type swagChain struct {
	s       SWAG
	est     *langevin.Estimator
	rng     *rand.Rand
	theta   []float64
	grad    []float64
	draw    []float64
	fit     *SWAGFit
	t       int
	lp      float64
	sampled bool  // after EndWarmup: Step draws from the fit
	err     error // burn-in ended without a snapshot
}

func (c *swagChain) Step() error {
	if c.sampled {
		c.fit.Sample(c.draw, c.rng)
		return nil
	}
	if c.err != nil {
		return c.err
	}
	c.t++
	c.lp = c.est.Eval(c.theta, c.grad)
	eta := c.s.Step
	for j, g := range c.grad {
		c.theta[j] += eta * g
	}
	if c.t > c.s.Start && (c.t-c.s.Start)%c.s.Every == 0 {
		c.fit.Add(c.theta)
	}
	return nil
}

func (c *swagChain) Position() []float64 {
	if c.sampled {
		return c.draw
	}
	return c.theta
}

func (c *swagChain) Stats(dst []float64) {
	dst[0], dst[1], dst[2] = c.lp, c.s.Step, float64(c.fit.N())
}

// EndWarmup freezes the fit; later steps draw from it. Without a snapshot
// the next Step reports an error.
func (c *swagChain) EndWarmup() {
	if c.fit.N() > 0 {
		c.sampled = true
		return
	}
	c.err = fmt.Errorf("approx: SWAG: burn-in ended after %d SGD steps without a snapshot (first after Start %d + Every %d): lengthen the burn-in", c.t, c.s.Start, c.s.Every)
}

// Fit returns the chain's SWAG fit (shared, not copied).
func (c *swagChain) Fit() *SWAGFit { return c.fit }

// SWAGFit holds SWAG's moments: the running mean θ̄, the running mean of
// squares θ̄², and up to K deviation columns.
type SWAGFit struct {
	Mean   []float64   // θ̄
	SqMean []float64   // θ̄², the running mean of θᵢ² (element-wise)
	Dev    [][]float64 // deviation columns θᵢ − θ̄, oldest first once full (see Columns)
	n      int         // snapshots taken
	next   int         // ring position of the next column
	cols   int         // columns held
	scale  float64
}

// NewSWAGFit returns an empty fit of dimension d keeping k deviation columns
// and sampling with covariance scale (½ in SWAG).
func NewSWAGFit(d, k int, scale float64) *SWAGFit {
	f := &SWAGFit{Mean: make([]float64, d), SqMean: make([]float64, d), Dev: make([][]float64, k), scale: scale}
	for i := range f.Dev {
		f.Dev[i] = make([]float64, d)
	}
	return f
}

// N returns the number of snapshots taken.
func (f *SWAGFit) N() int { return f.n }

// Columns returns the deviation columns held, oldest first (a new slice of
// the fit's columns).
func (f *SWAGFit) Columns() [][]float64 {
	out := make([][]float64, 0, f.cols)
	k := len(f.Dev)
	start := (f.next - f.cols + k) % k
	for i := 0; i < f.cols; i++ {
		out = append(out, f.Dev[(start+i)%k])
	}
	return out
}

// Add takes the snapshot theta. It does not allocate.
func (f *SWAGFit) Add(theta []float64) {
	n := float64(f.n)
	for j, v := range theta {
		f.Mean[j] = (n*f.Mean[j] + v) / (n + 1)
		f.SqMean[j] = (n*f.SqMean[j] + v*v) / (n + 1)
	}
	f.n++
	if len(f.Dev) == 0 {
		return
	}
	col := f.Dev[f.next]
	for j, v := range theta {
		col[j] = v - f.Mean[j]
	}
	f.next = (f.next + 1) % len(f.Dev)
	f.cols = min(f.cols+1, len(f.Dev))
}

// DiagVar writes Σ_diag = θ̄² − θ̄² (clamped at 0) into dst.
func (f *SWAGFit) DiagVar(dst []float64) {
	for j, m := range f.Mean {
		dst[j] = max(0, f.SqMean[j]-m*m)
	}
}

// Cov writes the covariance Scale·(Σ_diag + D̂D̂ᵀ/(K−1)) of the approximation
// into dst, D×D row-major. The low-rank term needs K ≥ 2 columns.
func (f *SWAGFit) Cov(dst []float64) {
	d := len(f.Mean)
	if len(dst) != d*d {
		panic(fmt.Sprintf("approx: SWAGFit.Cov: len(dst) = %d, want %d", len(dst), d*d))
	}
	clear(dst)
	if f.cols >= 2 {
		w := 1 / float64(f.cols-1)
		for _, col := range f.Columns() {
			for i, a := range col {
				row := dst[i*d : (i+1)*d]
				for j, b := range col {
					row[j] += w * a * b
				}
			}
		}
	}
	for j, m := range f.Mean {
		dst[j*d+j] += max(0, f.SqMean[j]-m*m)
	}
	for i := range dst {
		dst[i] *= f.scale
	}
}

// Sample writes θ̃ = θ̄ + √Scale (Σ_diag^{1/2} z₁ + D̂ z₂/√(K−1)) into dst. It
// does not allocate; the low-rank term needs K ≥ 2 columns.
func (f *SWAGFit) Sample(dst []float64, rng *rand.Rand) {
	r := math.Sqrt(f.scale)
	for j, m := range f.Mean {
		dst[j] = m + r*math.Sqrt(max(0, f.SqMean[j]-m*m))*rng.NormFloat64()
	}
	if f.cols < 2 {
		return
	}
	w := r / math.Sqrt(float64(f.cols-1))
	for c := 0; c < f.cols; c++ {
		z := w * rng.NormFloat64()
		for j, v := range f.Dev[c] {
			dst[j] += z * v
		}
	}
}
