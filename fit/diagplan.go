package fit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/internal/budget"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// DenseCurvatureMax is the largest dimension d at which {sampler} auto's
// plan forms the dense curvature: the d×d negative Hessian at the MAP, its
// Cholesky factor and inverse (the Laplace covariance), and the step rule's
// scaled curvature, eigendecompositions and gradient covariances — about
// ten d×d matrices, DenseCurvatureBytes = 80·d² bytes (500 MB at d = 2,500,
// 32 GB at d = 20,000), and O(N·d² + d³) operations. Above it the plan is
// diagonal (newDiagPlan), in O(d) memory.
const DenseCurvatureMax = 2500

// DenseCurvatureMatrices is the number of d×d float64 matrices the dense
// plan holds at its peak (the Hessian, the Laplace precision, Cholesky factor
// and covariance, and ChooseStep's scaled curvature, products and gradient
// covariances); [RunLaplace] alone holds four.
const (
	DenseCurvatureMatrices = 10
	LaplaceMatrices        = 4
)

// DenseCurvatureBytes is the memory of n d×d float64 matrices, saturating.
func DenseCurvatureBytes(d, n int) int64 {
	x := float64(n) * 8 * float64(d) * float64(d)
	if x > math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(x)
}

// DiagPlanned reports whether NewPlan takes its diagonal path on m (nil
// opt: the defaults): more than DenseCurvatureMax parameters (or
// opt.DenseCurvatureMax), and neither a network (NewNetPlan), nor a
// model planned by predicted cost (CostPlanned) or in block-arrow form
// (BlockPlanned). A caller that computes the dense Laplace approximation
// for the plan must then not: the plan uses none of it.
func DiagPlanned(m langevin.Model, opt *PlanOptions) bool {
	var o PlanOptions
	if opt != nil {
		o = *opt
	}
	max := o.DenseCurvatureMax
	if max == 0 {
		max = DenseCurvatureMax
	}
	if m.Dim() <= max {
		return false
	}
	if _, ok := m.(Network); ok {
		return false
	}
	if _, ok := m.(*model.MLP); ok {
		return false
	}
	if (o.Kind == "" || o.Kind == "nuts") && CostPlanned(m) {
		return false
	}
	return !BlockPlanned(m, opt)
}

// Power iterations and observations of the diagonal plan's measurements.
const (
	diagCurvIters  = 24
	diagNoiseIters = 20
	diagNoiseObs   = 2000
	diagProbes     = 2
)

// newDiagPlan is NewPlan's path above DenseCurvatureMax parameters (see
// DiagPlanned), in O(d) memory and without a d×d matrix:
//
//   - the preconditioner (NUTS's metric) M = diag(1/(Fⱼⱼ + Pⱼⱼ)): F the
//     empirical Fisher information N·mean ∇ⱼlog p(zᵢ|θ̂)² over up to
//     20,000 observations, which estimates the likelihood's curvature at
//     the MAP, and P the prior's curvature (approx.PriorCurvatureDiag:
//     Hutchinson's estimator, exact for a prior independent across
//     coordinates);
//   - the sampler by the cost rule of NewPlan (work, why);
//   - λmax and λmin of MH, the extreme eigenvalues of M^½HM^½, by 24 steps
//     of Lanczos (fully reorthogonalised) on Hessian-vector products,
//     central differences of full-data gradients (lanczosRange);
//   - λmax(VM) for the plain and the control-variate estimators, V the
//     covariance of the per-observation gradient terms over up to 2,000
//     observations (at 2 probes θ̂ + M^½ξ with control variates), by power
//     iteration that recomputes the terms instead of storing them;
//   - control variates where they pay and the step, as ChooseEstimator
//     decides (η_CV/2 > η_plain), through sampler.NewStepChoice; the
//     burn-in 3/(η·λmin(MH));
//   - the chains start at draws from N(θ̂, M) (InitDiagGaussian).
func newDiagPlan(ctx context.Context, m langevin.Model, mp []float64, opt PlanOptions, kind, why string, denseMax int) (*Plan, error) {
	d, n := m.Dim(), m.Len()
	rng := rand.New(rand.NewPCG(opt.Seed, 0x64696167))
	p := &Plan{MAP: mp, Kind: kind, Why: why}

	// The diagonal curvature and the preconditioner.
	idx := sampler.SubsetIndex(n, min(n, 20000), rng)
	fish := make([]float64, d)
	rowGradMoments(m, mp, idx, make([]float64, d), fish)
	prior := make([]float64, d)
	approx.PriorCurvatureDiag(m, mp, prior, rng)
	scale := float64(n) / float64(max(len(idx), 1))
	p.Precond = make([]float64, d)
	for j := range p.Precond {
		c := fish[j]*scale + prior[j]
		if !(c > 1e-12) {
			c = 1e-12
		}
		p.Precond[j] = 1 / c
	}
	p.PrecondWhy = fmt.Sprintf("diagonal 1/(Fⱼⱼ + Pⱼⱼ), F the empirical Fisher information at the MAP, P the prior's curvature (d = %d > %d: the dense curvature's d×d matrices would take %s and O(N·d² + d³) operations; the step's curvature from Hessian-vector products)",
		d, denseMax, budget.FmtBytes(DenseCurvatureBytes(d, DenseCurvatureMatrices)))
	p.Start = InitDiagGaussian{Mean: mp, Var: p.Precond}
	if kind == "nuts" {
		p.Sampler = sampler.NUTS{Precond: p.Precond}
		return p, nil
	}

	// Curvature: λmax and λmin of MH.
	dot := func(a, b []float64) float64 {
		var s float64
		for j := range a {
			s += a[j] * b[j]
		}
		return s
	}
	// minv returns xᵀM⁻¹x.
	minv := func(x []float64) float64 {
		var s float64
		for j, v := range x {
			s += v * v / p.Precond[j]
		}
		return s
	}
	normalise := func(x []float64) {
		s := math.Sqrt(minv(x))
		for j := range x {
			x[j] /= s
		}
	}
	hv := make([]float64, d)
	hvp := negHessVec(ctx, m, mp, hv)
	lmin, lmax, err := lanczosRange(d, diagCurvIters, hvp, hv, p.Precond, rng)
	if err != nil {
		return nil, err
	}
	if !(lmax > 0) {
		return nil, fmt.Errorf("fit: plan: the log posterior has no negative curvature at the MAP (λmax(MH) = %.3g)", lmax)
	}
	v := make([]float64, d)

	// Gradient noise: λmax(VM) of the plain and the control-variate terms.
	k := min(n, diagNoiseObs)
	nidx := sampler.SubsetIndex(n, k, rng)
	probes := make([][]float64, diagProbes)
	for i := range probes {
		probes[i] = make([]float64, d)
		for j := range probes[i] {
			probes[i][j] = mp[j] + math.Sqrt(p.Precond[j])*rng.NormFloat64()
		}
	}
	g, g0 := make([]float64, d), make([]float64, d)
	// terms are the per-observation terms (langevin.RowGrads): the plain
	// gradients, or (cv) less their values at the MAP.
	terms := func(cv bool) langevin.RowTerms {
		if cv {
			return langevin.RowTerms{Centre: mp}
		}
		return langevin.RowTerms{}
	}
	// lambdaVM is λmax(VM), V averaged over the points pts, by power
	// iteration on MV with Rayleigh quotients vᵀVv / vᵀM⁻¹v.
	lambdaVM := func(pts [][]float64, cv bool) (float64, error) {
		means := make([][]float64, len(pts))
		for a, pt := range pts {
			means[a] = make([]float64, d)
			err := langevin.RowGrads(m, pt, nidx, terms(cv), g, g0, func(_ int, g []float64) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				for j, x := range g {
					means[a][j] += x / float64(k)
				}
				return nil
			})
			if err != nil {
				return 0, err
			}
		}
		vv := make([]float64, d)
		for j := range v {
			v[j] = rng.NormFloat64() * math.Sqrt(p.Precond[j])
		}
		normalise(v)
		var lvm float64
		norm := float64(k * len(pts))
		for range diagNoiseIters {
			clear(vv)
			for a, pt := range pts {
				err := langevin.RowGrads(m, pt, nidx, terms(cv), g, g0, func(_ int, g []float64) error {
					if err := ctx.Err(); err != nil {
						return err
					}
					var c float64
					for j := range g {
						g[j] -= means[a][j]
						c += g[j] * v[j]
					}
					c /= norm
					for j, x := range g {
						vv[j] += c * x
					}
					return nil
				})
				if err != nil {
					return 0, err
				}
			}
			lvm = math.Max(lvm, dot(v, vv)/minv(v))
			for j := range v {
				v[j] = p.Precond[j] * vv[j]
			}
			if dot(v, v) == 0 {
				break
			}
			normalise(v)
		}
		return lvm, nil
	}
	b := opt.Batch
	if b >= n && !opt.Replace {
		b = n
	}
	nf, bf := float64(n), float64(b)
	f := nf * nf / bf
	if !opt.Replace {
		f *= (nf - bf) / math.Max(nf-1, 1)
	}
	plainVM, err := lambdaVM([][]float64{mp}, false)
	if err != nil {
		return nil, err
	}
	plain, err := sampler.NewStepChoice(opt.Rule, lmax, lmin, f*plainVM, b, n, false)
	if err != nil {
		return nil, err
	}
	mb := sampler.Minibatch{Size: opt.Batch, Replace: opt.Replace}
	useCV := opt.CV == "on"
	switch opt.CV {
	case "", "on":
		if b == n { // full batch: no minibatch noise, nothing for control variates to cut
			if opt.CV == "on" {
				mb.CV = append([]float64(nil), mp...)
			}
			p.Step = plain
			break
		}
		cvVM, err := lambdaVM(probes, true)
		if err != nil {
			return nil, err
		}
		cv, err := sampler.NewStepChoice(opt.Rule, lmax, lmin, f*cvVM, b, n, true)
		if err != nil {
			return nil, err
		}
		if opt.CV == "" {
			p.CV = &sampler.CVChoice{Plain: plain, CV: cv, Reduction: plain.LambdaCM / cv.LambdaCM}
			p.CV.Pays = cv.Eta/2 > plain.Eta
			useCV = p.CV.Pays
		}
		p.Step = plain
		if useCV {
			p.Step = cv
			mb.CV = append([]float64(nil), mp...)
		}
	case "off":
		p.Step = plain
	default:
		return nil, fmt.Errorf("sampler: plan: control variates %q: expected on, off or empty", opt.CV)
	}
	p.Batch = mb
	p.BurnIn = max(100, p.Step.BurnIn(p.Step.Eta))
	p.Sampler = sampler.SGLD{Step: schedule.Constant(p.Step.Eta), Batch: mb, Precond: p.Precond}
	return p, nil
}

// InitDiagGaussian starts each chain at an independent draw from
// N(Mean, diag(Var)) from the chain's own stream: the diagonal plan's
// approximation of the posterior, so that chains start spread like it.
type InitDiagGaussian struct {
	Mean, Var []float64
}

// Init implements langevin.Initializer.
func (in InitDiagGaussian) Init(_ context.Context, m langevin.Model, _ int, rng *rand.Rand, dst []float64) error {
	if len(in.Mean) != m.Dim() || len(in.Var) != m.Dim() {
		return fmt.Errorf("fit: diagonal Gaussian initial points of dimension %d, model has %d parameters", len(in.Mean), m.Dim())
	}
	for j := range dst {
		dst[j] = in.Mean[j] + math.Sqrt(in.Var[j])*rng.NormFloat64()
	}
	return nil
}

// lanczosRange returns the extreme Ritz values of B = M^½HM^½ (M =
// diag(prec)) after k steps of Lanczos with full reorthogonalisation: λmax
// from below and λmin from above, both exact once k reaches d. hvp(x)
// writes Hx into hv. It holds k vectors of d values.
func lanczosRange(d, k int, hvp func([]float64) error, hv, prec []float64, rng *rand.Rand) (lmin, lmax float64, err error) {
	k = min(k, d)
	root := make([]float64, d)
	for j := range root {
		root[j] = math.Sqrt(prec[j])
	}
	dot := func(a, b []float64) float64 {
		var s float64
		for j := range a {
			s += a[j] * b[j]
		}
		return s
	}
	Q := make([][]float64, 0, k)
	q := make([]float64, d)
	for j := range q {
		q[j] = rng.NormFloat64()
	}
	nq := math.Sqrt(dot(q, q))
	for j := range q {
		q[j] /= nq
	}
	x := make([]float64, d)
	w := make([]float64, d)
	var alpha, beta []float64
	for len(Q) < k {
		Q = append(Q, q)
		for j := range x {
			x[j] = root[j] * q[j]
		}
		if err := hvp(x); err != nil {
			return 0, 0, err
		}
		for j := range w {
			w[j] = root[j] * hv[j]
		}
		alpha = append(alpha, dot(q, w))
		for pass := 0; pass < 2; pass++ { // full reorthogonalisation, twice
			for _, u := range Q {
				c := dot(u, w)
				for j := range w {
					w[j] -= c * u[j]
				}
			}
		}
		b := math.Sqrt(dot(w, w))
		if len(Q) == k || !(b > 1e-10*math.Abs(alpha[0])) {
			break
		}
		beta = append(beta, b)
		q = make([]float64, d)
		for j := range q {
			q[j] = w[j] / b
		}
	}
	n := len(alpha)
	t := mat.NewSymDense(n, nil)
	for i := range n {
		t.SetSym(i, i, alpha[i])
		if i+1 < n {
			t.SetSym(i, i+1, beta[i])
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(t, false) {
		return 0, 0, fmt.Errorf("fit: plan: the curvature's Lanczos eigenvalues failed")
	}
	ev := eig.Values(nil)
	if math.IsNaN(ev[0]) || math.IsNaN(ev[n-1]) {
		return 0, 0, fmt.Errorf("fit: plan: the curvature at the MAP is not finite")
	}
	return ev[0], ev[n-1], nil
}

// negHessVec returns hvp, which sets hv = H·v for H the negative Hessian of
// m's log posterior at θ = at, by a central difference of the gradient in
// v's direction with step 10⁻⁴/max|vⱼ| (two full gradients a product); it
// returns ctx's error when ctx is done.
func negHessVec(ctx context.Context, m langevin.Model, at, hv []float64) func(v []float64) error {
	d := len(at)
	gp, gm := make([]float64, d), make([]float64, d)
	th := make([]float64, d)
	return func(v []float64) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		var vmax float64
		for _, x := range v {
			vmax = math.Max(vmax, math.Abs(x))
		}
		e := 1e-4 / vmax
		for j := range th {
			th[j] = at[j] + e*v[j]
		}
		langevin.LogPosterior(m, th, gp)
		for j := range th {
			th[j] = at[j] - e*v[j]
		}
		langevin.LogPosterior(m, th, gm)
		for j := range hv {
			hv[j] = -(gp[j] - gm[j]) / (2 * e)
		}
		return nil
	}
}
