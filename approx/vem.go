package approx

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// VEM is variational EM for the precision λ of a Gaussian prior θ ~ N(0, λ⁻¹I)
// (Mandt, Hoffman & Blei 2017, §5 and eq. 22): constant-rate SGD on θ, whose
// stationary law is the variational distribution q(θ) (the E-step), and
// Robbins–Monro steps ρₜ on λ along the gradient of the expected log joint
// E_q[log p(D, θ | λ)] (the M-step), both at the current iterate:
//
//	θₜ₊₁ = θₜ + η (N/|B|) Σ_{i∈B} ∇log p(zᵢ|θₜ) − η λₜ θₜ,
//	log λₜ₊₁ = log λₜ + ρₜ · (1/D) ∂/∂log λ log N(θₜ; 0, λ⁻¹I)
//	         = log λₜ + ρₜ · ½ (1 − λₜ‖θₜ‖²/D).
//
// The λ step is taken on log λ (positivity) and divided by D (so ρ is
// dimensionless); its fixed point is the M-step's λ = D / E_q‖θ‖², and with q
// the exact posterior it is the evidence maximiser (empirical Bayes). Only the
// model's LogLik is used: VEM supplies the prior itself.
//
// The constant step η is, unless given, the scalar optimum of Mandt et al.'s
// Theorem 1, eq. 15, ε* = 2 (S/N) D / Tr(BBᵀ), converted to our convention
// (their loss is the mean −(1/N) log p over data, their step ε multiplies its
// gradient, so η = ε/N, and BBᵀ = C is the covariance of one observation's
// gradient ∇log p(zᵢ|θ)):
//
//	η* = 2 |B| D / (N² Tr C),
//
// with Tr C estimated at θ₀ from NoiseRows observations. At η* the iterates'
// stationary covariance is the KL-best scalar-rate approximation of the
// posterior, exact for an isotropic Gaussian posterior. Eq. 15 assumes that
// SGD is stable at η*; when the curvature is very uneven it is not (on
// Fashion-MNIST's raw pixels η*·a_max ≫ 2 and the iterates diverge, which
// drives λ to 0), so the default step is capped at 1/a_max, a_max the largest
// eigenvalue of −∇²log p(θ₀|D) found by MaxCurvature: the iterates then
// contract in every direction (the deviation is reported in VEMResult).
type VEM struct {
	Step        float64           // constant η on θ; 0: η* estimated at θ₀
	Batch       sampler.Minibatch // SGD minibatch; Size must be positive (full batches have no noise)
	Rho         schedule.Schedule // ρₜ on log λ; nil: schedule.Polynomial{A: 1, B: 100, Gamma: 0.6}
	Lambda0     float64           // initial λ; 0: 1
	AverageFrom int               // log λ is averaged over iterations after this; 0: the second half
	NoiseRows   int               // observations for Tr C; 0: min(N, 1000)
	TraceEvery  int               // record λ every this many iterations; 0: iters/200

	// Diagonal uses per-coordinate rates (Corollary 3, in our convention
	// ηₖ = 2|B| / (N² Cₖₖ)) instead of one scalar rate, each capped at every
	// iteration at 1/(λₜ + N Cₖₖ), the coordinate's curvature with the
	// Fisher information N Cₖₖ standing in for the likelihood's Hessian, so
	// that no coordinate overshoots. Step is then ignored.
	Diagonal bool

	// Flat, if set, is a subspace along which the model's log-likelihood is
	// constant (for example the softmax's class shifts, model.Softmax). In
	// it the posterior is exactly the prior N(0, λ⁻¹I), independent of the
	// orthogonal complement (the prior is isotropic), whereas constant SGD
	// has no gradient noise there and contracts to 0: its stationary law
	// cannot represent that part of q. VEM therefore takes the flat part of
	// the E-step exactly: with P the projection onto the flat subspace of
	// dimension F and r = D − F,
	//
	//	E_q‖θ‖² = E_q‖(I−P)θ‖² + F/λ,
	//	∂/∂log λ E_q log N(θ; 0, λ⁻¹I) = ½ (r − λ E_q‖(I−P)θ‖²),
	//
	// so the λ step becomes ρₜ · ½ (1 − λₜ‖(I−P)θₜ‖²/r) with fixed point
	// λ = r / E_q‖(I−P)θ‖² (the flat coordinates integrate out of the
	// evidence exactly), and eq. 15's D is r, the dimension on which the
	// SGD process is non-degenerate: η* = 2|B| r / (N² Tr C).
	Flat FlatSubspace
}

// FlatSubspace is a linear subspace of parameter space along which a model's
// log-likelihood is constant.
type FlatSubspace interface {
	FlatDim() int                      // its dimension F < D
	FlatNorm2(theta []float64) float64 // ‖Pθ‖², P the orthogonal projection onto it
}

// VEMResult is the outcome of a VEM run.
type VEMResult struct {
	Lambda      float64   // exp of the average of log λ over the averaging window
	Theta       []float64 // the last SGD iterate
	Step        float64   // η used
	OptimalStep float64   // η* of eq. 15 at θ₀ (0 when Step was given)
	MaxStep     float64   // 1/a_max at θ₀, the cap on η* (0 when Step was given)
	TraceIters  []int     // iterations at which λ was recorded
	TraceLambda []float64 // λ at those iterations
}

// OptimalStep returns η* = 2|B|D / (N² Tr C) (Mandt et al. eq. 15 in our
// convention), with C the covariance of one observation's log-likelihood
// gradient at theta, estimated from rows observations chosen by rng (all N
// when rows ≥ N).
func OptimalStep(m langevin.Model, theta []float64, batch, rows int, rng *rand.Rand) (float64, error) {
	n, d := m.Len(), m.Dim()
	if batch < 1 || batch > n {
		return 0, fmt.Errorf("approx: optimal step: batch %d: expected 1 ≤ |B| ≤ N = %d", batch, n)
	}
	c := GradVar(m, theta, rows, rng)
	var tr float64
	for _, v := range c {
		tr += v
	}
	if !(tr > 0) || math.IsInf(tr, 0) {
		return 0, fmt.Errorf("approx: optimal step: trace of the gradient covariance is %v at θ₀: expected a positive number", tr)
	}
	nf := float64(n)
	return 2 * float64(batch) * float64(d) / (nf * nf * tr), nil
}

// GradVar returns the diagonal of C, the covariance of one observation's
// log-likelihood gradient ∇log p(zᵢ|θ) at theta, estimated (unbiased) from
// rows observations chosen by rng (all N when rows ≥ N; at least 2).
func GradVar(m langevin.Model, theta []float64, rows int, rng *rand.Rand) []float64 {
	n, d := m.Len(), m.Dim()
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	if rows < n {
		rng.Shuffle(n, func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		idx = idx[:max(2, rows)]
	}
	sum := make([]float64, d)
	ss := make([]float64, d)
	langevin.RowGrads(m, theta, idx, langevin.RowTerms{}, make([]float64, d), nil, func(_ int, g []float64) error {
		for j, v := range g {
			sum[j] += v
			ss[j] += v * v
		}
		return nil
	})
	k := float64(len(idx))
	for j := range ss {
		ss[j] = max(0, (ss[j]-sum[j]*sum[j]/k)/(k-1))
	}
	return ss
}

// Run runs iters iterations of variational EM on m from theta0 with the
// chain's random stream rng.
func (v VEM) Run(ctx context.Context, m langevin.Model, theta0 []float64, iters int, rng *rand.Rand) (*VEMResult, error) {
	d, n := m.Dim(), m.Len()
	if len(theta0) != d {
		return nil, fmt.Errorf("approx: VEM: initial point has %d values, model has %d parameters", len(theta0), d)
	}
	if iters < 1 {
		return nil, fmt.Errorf("approx: VEM: %d iterations: expected at least 1", iters)
	}
	if v.Batch.Size < 1 || (v.Batch.Size >= n && !v.Batch.Replace) {
		return nil, fmt.Errorf("approx: VEM: batch %d: expected 1 ≤ |B| < N = %d (constant SGD needs gradient noise)", v.Batch.Size, n)
	}
	if v.Rho == nil {
		v.Rho = schedule.Polynomial{A: 1, B: 100, Gamma: 0.6}
	}
	if err := v.Rho.Validate(); err != nil {
		return nil, err
	}
	if v.Lambda0 == 0 {
		v.Lambda0 = 1
	}
	if !(v.Lambda0 > 0) || math.IsInf(v.Lambda0, 0) {
		return nil, fmt.Errorf("approx: VEM: Lambda0 %v: expected a positive precision", v.Lambda0)
	}
	if v.Step < 0 || math.IsNaN(v.Step) || math.IsInf(v.Step, 0) || v.AverageFrom < 0 || v.AverageFrom >= iters || v.NoiseRows < 0 || v.TraceEvery < 0 {
		return nil, fmt.Errorf("approx: VEM: Step %v, AverageFrom %d (of %d iterations), NoiseRows %d, TraceEvery %d: expected non-negative settings, AverageFrom < iterations",
			v.Step, v.AverageFrom, iters, v.NoiseRows, v.TraceEvery)
	}
	if v.AverageFrom == 0 {
		v.AverageFrom = iters / 2
	}
	if v.NoiseRows == 0 {
		v.NoiseRows = min(n, 1000)
	}
	if v.TraceEvery == 0 {
		v.TraceEvery = max(1, iters/200)
	}
	r := d
	if v.Flat != nil {
		r = d - v.Flat.FlatDim()
		if r < 1 || r > d {
			return nil, fmt.Errorf("approx: VEM: flat subspace of dimension %d: expected 0 ≤ F < D = %d", v.Flat.FlatDim(), d)
		}
	}
	eta := v.Step
	var etaOpt, etaMax float64
	var diagC []float64
	if v.Diagonal {
		diagC = GradVar(m, theta0, v.NoiseRows, rng)
		eta = 0
	} else if eta == 0 {
		var err error
		if etaOpt, err = OptimalStep(m, theta0, v.Batch.Size, v.NoiseRows, rng); err != nil {
			return nil, err
		}
		etaOpt *= float64(r) / float64(d)
		amax := MaxCurvature(m, theta0, 30, rng)
		etaMax = 1 / amax
		eta = min(etaOpt, etaMax)
	}
	b, err := langevin.NewBatcher(n, v.Batch.Size, v.Batch.Replace, rng)
	if err != nil {
		return nil, err
	}
	theta := append([]float64(nil), theta0...)
	lik := make([]float64, d)
	res := &VEMResult{Step: eta, OptimalStep: etaOpt, MaxStep: etaMax}
	logLam := math.Log(v.Lambda0)
	var sumLog float64
	var nAvg int
	scale := b.Scale()
	for t := 1; t <= iters; t++ {
		if t%256 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		lam := math.Exp(logLam)
		clear(lik)
		m.LogLik(theta, b.Next(), lik)
		var ss, flat float64
		if v.Flat != nil {
			flat = v.Flat.FlatNorm2(theta)
		}
		if diagC != nil {
			nf, bf := float64(n), float64(v.Batch.Size)
			for j, th := range theta {
				ss += th * th
				c := diagC[j]
				e := 1 / (lam + nf*c) // cap
				if c > 0 {
					e = min(e, 2*bf/(nf*nf*c))
				}
				theta[j] = th + e*(scale*lik[j]-lam*th)
			}
		} else {
			for j, th := range theta {
				ss += th * th
				theta[j] = th + eta*(scale*lik[j]-lam*th)
			}
		}
		if math.IsNaN(ss) || math.IsInf(ss, 0) {
			return nil, fmt.Errorf("approx: VEM: iteration %d: θ diverged (step η = %.3g too large?)", t, eta)
		}
		ss = max(0, ss-flat) // ‖(I−P)θₜ‖²
		logLam += v.Rho.At(t) * 0.5 * (1 - lam*ss/float64(r))
		if t > v.AverageFrom {
			sumLog += logLam
			nAvg++
		}
		if t%v.TraceEvery == 0 || t == iters {
			res.TraceIters = append(res.TraceIters, t)
			res.TraceLambda = append(res.TraceLambda, math.Exp(logLam))
		}
	}
	res.Lambda = math.Exp(sumLog / float64(nAvg))
	res.Theta = theta
	return res, nil
}

// MaxCurvature returns an estimate of the largest eigenvalue a_max of the
// negative Hessian −∇²log p(θ|D) of the full-data log posterior at theta, by
// iters steps of power iteration on Hessian–vector products from central
// differences of the gradient, −(∇log p(θ + hv) − ∇log p(θ − hv))/2h, from a
// random start drawn from rng. Each step costs two full-data gradients. For a
// positive definite Hessian the estimate is a lower bound that converges to
// a_max; SGD with step η on the log posterior is stable only for η·a_max < 2.
func MaxCurvature(m langevin.Model, theta []float64, iters int, rng *rand.Rand) float64 {
	d := len(theta)
	v := make([]float64, d)
	for j := range v {
		v[j] = rng.NormFloat64()
	}
	normalize := func(x []float64) float64 {
		var ss float64
		for _, a := range x {
			ss += a * a
		}
		n := math.Sqrt(ss)
		if n > 0 {
			for j := range x {
				x[j] /= n
			}
		}
		return n
	}
	normalize(v)
	var tn float64
	for _, a := range theta {
		tn += a * a
	}
	h := 1e-4 * math.Max(1, math.Sqrt(tn))
	th := make([]float64, d)
	gp, gm := make([]float64, d), make([]float64, d)
	var lam float64
	for it := 0; it < iters; it++ {
		for j := range th {
			th[j] = theta[j] + h*v[j]
		}
		langevin.LogPosterior(m, th, gp)
		for j := range th {
			th[j] = theta[j] - h*v[j]
		}
		langevin.LogPosterior(m, th, gm)
		for j := range v {
			v[j] = -(gp[j] - gm[j]) / (2 * h)
		}
		lam = normalize(v)
	}
	return lam
}
