package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// NUTS is the No-U-Turn sampler (Hoffman & Gelman 2014) in Stan's form:
// Hamiltonian Monte Carlo on H(θ, p) = −log π(θ) + ½ pᵀM⁻¹p with a diagonal
// metric (M⁻¹ is the diagonal "inverse metric", an estimate of the posterior
// variances), leapfrog steps of size ε, a trajectory doubled forwards or
// backwards at random until the generalised no-U-turn criterion (Betancourt
// 2017) fails on the whole tree or on any subtree, or MaxDepth doublings, and
// the draw chosen from the trajectory by multinomial sampling with weights
// e^(−H), biased toward the newest subtree. A leapfrog step whose energy
// error exceeds 1000 is a divergence and ends the trajectory.
//
// During warm-up the step size is dual-averaged toward a mean acceptance
// statistic of 0.8 and, by default, the inverse metric is estimated in
// Stan's windows (see MetricDiag); after every metric update the step is
// re-initialised by Stan's heuristic and the dual averaging restarts with
// μ = log(10 ε). The log posterior is full-data: log π(θ) = log p(θ) +
// Σᵢ log p(zᵢ|θ).
//
// Per-draw statistics, as Stan's: lp__, accept_stat__ (the mean over the
// trajectory's leapfrog states of min(1, e^(H₀ − H))), stepsize__ (ε),
// treedepth__, n_leapfrog__, divergent__ (0 or 1), energy__ (H at the draw).
type NUTS struct {
	// Step is the initial leapfrog step ε; 0 means 1 (Stan's default).
	Step float64
	// MaxDepth is the maximum tree depth; 0 means 10.
	MaxDepth int
	// Precond is the diagonal of the initial M, Stan's inverse metric
	// (the momentum's covariance is M⁻¹, so the leapfrog moves θ by εMp);
	// nil means the identity.
	Precond []float64
	// PrecondFull, if not nil, is a dense initial M (instead of Precond).
	// Set Adapt.Metric to MetricDense to adapt a dense one.
	PrecondFull *mat.SymDense
	// InvMetric and InvMetricDense are Precond's and PrecondFull's old
	// names (Stan's).
	//
	// Deprecated: use Precond and PrecondFull (the names of every sampler).
	InvMetric      []float64
	InvMetricDense *mat.SymDense
	Adapt

	innerBoundary bool // test hook: the pre-fix extra U-turn checks (the wrong sampler)
}

const maxDeltaH = 1000

// StatNames implements langevin.Sampler.
func (s NUTS) StatNames() []string {
	return []string{"lp__", "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__", "divergent__", "energy__"}
}

// NewChain implements langevin.Sampler.
func (s NUTS) NewChain(m langevin.Model, theta0 []float64, rng *rand.Rand) (langevin.Chain, error) {
	if err := checkStep("NUTS step", s.Step); err != nil {
		return nil, err
	}
	depth := s.MaxDepth
	if depth == 0 {
		depth = 10
	}
	if depth < 1 || depth > 30 {
		return nil, fmt.Errorf("sampler: NUTS maximum tree depth %d: expected 1 … 30", s.MaxDepth)
	}
	cfg, err := s.Adapt.validate(0.8, MetricDiag)
	if err != nil {
		return nil, err
	}
	pre, err := aliasSlice("NUTS", "Precond", s.Precond, "InvMetric", s.InvMetric)
	if err != nil {
		return nil, err
	}
	full, err := alias("NUTS", "PrecondFull", s.PrecondFull, "InvMetricDense", s.InvMetricDense)
	if err != nil {
		return nil, err
	}
	st, err := newExactState(m, theta0, true, pre, full, cfg.Metric, "NUTS inverse metric")
	if err != nil {
		return nil, err
	}
	d := m.Dim()
	c := &nutsChain{exactState: st, rng: rng, maxDepth: depth, tmp: make([]float64, d), inner: s.innerBoundary}
	vec := func() []float64 { return make([]float64, d) }
	pt := func() psPoint { return psPoint{q: vec(), p: vec(), g: vec()} }
	c.z, c.zInit, c.zFwd, c.zBck, c.zSample, c.zPropose = pt(), pt(), pt(), pt(), pt(), pt()
	c.pFwdFwd, c.pSharpFwdFwd, c.pFwdBck, c.pSharpFwdBck = vec(), vec(), vec(), vec()
	c.pBckFwd, c.pSharpBckFwd, c.pBckBck, c.pSharpBckBck = vec(), vec(), vec(), vec()
	c.rho, c.rhoFwd, c.rhoBck, c.rhoExt = vec(), vec(), vec(), vec()
	c.levels = make([]treeLevel, depth)
	for k := range c.levels {
		c.levels[k] = treeLevel{
			pInitEnd: vec(), pSharpInitEnd: vec(), rhoInit: vec(),
			zProposeFinal: pt(), pFinalBeg: vec(), pSharpFinalBeg: vec(), rhoFinal: vec(), rhoExt: vec(),
		}
	}
	eps := s.Step
	if eps == 0 {
		eps = 1
	}
	c.ad = newAdapter(cfg, eps, d, false)
	if c.ad.on && cfg.Tune == TuneDual {
		if eps, err = c.initStep(eps); err != nil {
			return nil, err
		}
		c.ad.restart(eps)
	}
	c.step = c.ad.startStep(eps)
	return c, nil
}

// psPoint is a point in phase space with its log density and gradient.
type psPoint struct {
	q, p, g []float64
	lp      float64
}

func (z *psPoint) copyFrom(o *psPoint) {
	copy(z.q, o.q)
	copy(z.p, o.p)
	copy(z.g, o.g)
	z.lp = o.lp
}

// treeLevel holds build_tree's locals for one recursion depth.
type treeLevel struct {
	pInitEnd, pSharpInitEnd, rhoInit []float64
	zProposeFinal                    psPoint
	pFinalBeg, pSharpFinalBeg        []float64
	rhoFinal, rhoExt                 []float64
}

type nutsChain struct {
	*exactState
	rng      *rand.Rand
	maxDepth int
	tmp      []float64
	inner    bool // test hook, see NUTS.innerBoundary

	z, zInit, zFwd, zBck, zSample, zPropose psPoint

	pFwdFwd, pSharpFwdFwd, pFwdBck, pSharpFwdBck []float64
	pBckFwd, pSharpBckFwd, pBckBck, pSharpBckBck []float64
	rho, rhoFwd, rhoBck, rhoExt                  []float64
	levels                                       []treeLevel

	// per transition
	eps                 float64
	h0                  float64
	nLeapfrog           int
	sumMetroProb        float64
	divergent           bool
	depth               int
	energy              float64
	lastDepth, lastLeap int
	lastDiv             bool
}

// hamiltonian returns H(z) = −log π(q) + ½ pᵀM⁻¹p, M⁻¹ the inverse metric.
func (c *nutsChain) hamiltonian(z *psPoint) float64 {
	return -z.lp + 0.5*c.met.quad(z.p)
}

// samplePMomentum draws p ~ N(0, M): with M⁻¹ = LLᵀ, p = L⁻ᵀξ.
func (c *nutsChain) samplePMomentum(z *psPoint) {
	for j := range z.p {
		z.p[j] = c.rng.NormFloat64()
	}
	c.met.solveLT(z.p, z.p)
}

// leapfrog advances z by one leapfrog step of size eps.
func (c *nutsChain) leapfrog(z *psPoint, eps float64) {
	h := eps / 2
	for j := range z.p {
		z.p[j] += h * z.g[j]
	}
	c.met.mul(c.tmp, z.p)
	for j, v := range c.tmp {
		z.q[j] += eps * v
	}
	z.lp = langevin.LogPosterior(c.m, z.q, z.g)
	for j := range z.p {
		z.p[j] += h * z.g[j]
	}
}

// sharp writes M⁻¹p into dst.
func (c *nutsChain) sharp(dst, p []float64) { c.met.mul(dst, p) }

func dot(a, b []float64) float64 {
	var s float64
	for j, v := range a {
		s += v * b[j]
	}
	return s
}

func criterion(pSharpMinus, pSharpPlus, rho []float64) bool {
	return dot(pSharpPlus, rho) > 0 && dot(pSharpMinus, rho) > 0
}

func logSumExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a > b {
		return a + math.Log1p(math.Exp(b-a))
	}
	return b + math.Log1p(math.Exp(a-b))
}

// initStep is Stan's init_stepsize: from the current position it doubles or
// halves eps until the energy change of one leapfrog step crosses log 0.8.
func (c *nutsChain) initStep(eps float64) (float64, error) {
	return findStep(eps, 0.8, func(eps float64) float64 {
		z := &c.zInit
		copy(z.q, c.theta)
		copy(z.g, c.grad)
		z.lp = c.lp
		c.samplePMomentum(z)
		h0 := c.hamiltonian(z)
		c.leapfrog(z, eps)
		h := c.hamiltonian(z)
		if math.IsNaN(h) {
			h = math.Inf(1)
		}
		return h0 - h
	})
}

func (c *nutsChain) Step() error {
	c.transition()
	if c.ad.on {
		if c.ad.update(&c.step, c.stat, c.theta, c.met) {
			if c.ad.cfg.Tune == TuneDual {
				eps, err := c.initStep(c.step)
				if err != nil {
					return err
				}
				c.step = eps
				c.ad.restart(eps)
			}
		}
	}
	return nil
}

// transition is Stan's base_nuts::transition.
func (c *nutsChain) transition() {
	c.eps = c.step
	c.used = c.eps
	z := &c.z
	copy(z.q, c.theta)
	copy(z.g, c.grad)
	z.lp = c.lp
	c.samplePMomentum(z)

	c.zFwd.copyFrom(z)
	c.zBck.copyFrom(z)
	c.zSample.copyFrom(z)
	c.zPropose.copyFrom(z)

	copy(c.pFwdFwd, z.p)
	c.sharp(c.pSharpFwdFwd, z.p)
	copy(c.pFwdBck, z.p)
	copy(c.pSharpFwdBck, c.pSharpFwdFwd)
	copy(c.pBckFwd, z.p)
	copy(c.pSharpBckFwd, c.pSharpFwdFwd)
	copy(c.pBckBck, z.p)
	copy(c.pSharpBckBck, c.pSharpFwdFwd)
	copy(c.rho, z.p)

	logSumWeight := 0.0
	c.h0 = c.hamiltonian(z)
	c.nLeapfrog = 0
	c.sumMetroProb = 0
	c.divergent = false
	depth := 0

	for depth < c.maxDepth {
		clear(c.rhoFwd)
		clear(c.rhoBck)
		var valid bool
		lswSubtree := math.Inf(-1)
		if c.rng.Float64() > 0.5 {
			z.copyFrom(&c.zFwd)
			copy(c.rhoBck, c.rho)
			if c.inner {
				copy(c.pBckFwd, c.pFwdBck)
				copy(c.pSharpBckFwd, c.pSharpFwdBck)
			} else {
				copy(c.pBckFwd, c.pFwdFwd)
				copy(c.pSharpBckFwd, c.pSharpFwdFwd)
			}
			valid = c.buildTree(depth, &c.zPropose, c.pSharpFwdBck, c.pSharpFwdFwd, c.rhoFwd, c.pFwdBck, c.pFwdFwd, 1, &lswSubtree)
			c.zFwd.copyFrom(z)
		} else {
			z.copyFrom(&c.zBck)
			copy(c.rhoFwd, c.rho)
			if c.inner {
				copy(c.pFwdBck, c.pBckFwd)
				copy(c.pSharpFwdBck, c.pSharpBckFwd)
			} else {
				copy(c.pFwdBck, c.pBckBck)
				copy(c.pSharpFwdBck, c.pSharpBckBck)
			}
			valid = c.buildTree(depth, &c.zPropose, c.pSharpBckFwd, c.pSharpBckBck, c.rhoBck, c.pBckFwd, c.pBckBck, -1, &lswSubtree)
			c.zBck.copyFrom(z)
		}
		if !valid {
			break
		}
		depth++
		if lswSubtree > logSumWeight {
			c.zSample.copyFrom(&c.zPropose)
		} else if c.rng.Float64() < math.Exp(lswSubtree-logSumWeight) {
			c.zSample.copyFrom(&c.zPropose)
		}
		logSumWeight = logSumExp(logSumWeight, lswSubtree)
		for j := range c.rho {
			c.rho[j] = c.rhoBck[j] + c.rhoFwd[j]
		}
		persist := criterion(c.pSharpBckBck, c.pSharpFwdFwd, c.rho)
		for j := range c.rhoExt {
			c.rhoExt[j] = c.rhoBck[j] + c.pFwdBck[j]
		}
		persist = persist && criterion(c.pSharpBckBck, c.pSharpFwdBck, c.rhoExt)
		for j := range c.rhoExt {
			c.rhoExt[j] = c.rhoFwd[j] + c.pBckFwd[j]
		}
		persist = persist && criterion(c.pSharpBckFwd, c.pSharpFwdFwd, c.rhoExt)
		if !persist {
			break
		}
	}
	c.lastDepth = depth
	c.lastLeap = c.nLeapfrog
	c.lastDiv = c.divergent
	c.stat = c.sumMetroProb / float64(c.nLeapfrog)
	copy(c.theta, c.zSample.q)
	copy(c.grad, c.zSample.g)
	c.lp = c.zSample.lp
	c.energy = c.hamiltonian(&c.zSample)
}

// buildTree is Stan's base_nuts::build_tree. It extends c.z by 2^depth
// leapfrog steps in direction sign, samples zPropose from the new subtree,
// and accumulates rho and the subtree's log weight.
func (c *nutsChain) buildTree(depth int, zPropose *psPoint, pSharpBeg, pSharpEnd, rho, pBeg, pEnd []float64, sign float64, logSumWeight *float64) bool {
	z := &c.z
	if depth == 0 {
		c.leapfrog(z, sign*c.eps)
		c.nLeapfrog++
		h := c.hamiltonian(z)
		if math.IsNaN(h) {
			h = math.Inf(1)
		}
		if h-c.h0 > maxDeltaH {
			c.divergent = true
		}
		*logSumWeight = logSumExp(*logSumWeight, c.h0-h)
		if c.h0-h > 0 {
			c.sumMetroProb++
		} else {
			c.sumMetroProb += math.Exp(c.h0 - h)
		}
		zPropose.copyFrom(z)
		c.sharp(pSharpBeg, z.p)
		copy(pSharpEnd, pSharpBeg)
		for j, v := range z.p {
			rho[j] += v
		}
		copy(pBeg, z.p)
		copy(pEnd, z.p)
		return !c.divergent
	}
	L := &c.levels[depth]
	// The initial subtree.
	lswInit := math.Inf(-1)
	clear(L.pInitEnd)
	clear(L.pSharpInitEnd)
	clear(L.rhoInit)
	if !c.buildTree(depth-1, zPropose, pSharpBeg, L.pSharpInitEnd, L.rhoInit, pBeg, L.pInitEnd, sign, &lswInit) {
		return false
	}
	// The final subtree.
	zFinal := &L.zProposeFinal
	zFinal.copyFrom(z)
	lswFinal := math.Inf(-1)
	clear(L.pFinalBeg)
	clear(L.pSharpFinalBeg)
	clear(L.rhoFinal)
	if !c.buildTree(depth-1, zFinal, L.pSharpFinalBeg, pSharpEnd, L.rhoFinal, L.pFinalBeg, pEnd, sign, &lswFinal) {
		return false
	}
	// Multinomial sample from the right subtree.
	lswSubtree := logSumExp(lswInit, lswFinal)
	*logSumWeight = logSumExp(*logSumWeight, lswSubtree)
	if lswFinal > lswSubtree {
		zPropose.copyFrom(zFinal)
	} else if c.rng.Float64() < math.Exp(lswFinal-lswSubtree) {
		zPropose.copyFrom(zFinal)
	}
	// Demand satisfaction between the subtrees, then around the merged one
	// (rhoSubtree = rhoInit + rhoFinal is kept in rhoInit).
	for j := range L.rhoExt {
		L.rhoExt[j] = L.rhoInit[j] + L.pFinalBeg[j]
	}
	persist := criterion(pSharpBeg, L.pSharpFinalBeg, L.rhoExt)
	for j := range L.rhoExt {
		L.rhoExt[j] = L.rhoFinal[j] + L.pInitEnd[j]
	}
	persist = criterion(L.pSharpInitEnd, pSharpEnd, L.rhoExt) && persist
	for j := range L.rhoInit {
		L.rhoInit[j] += L.rhoFinal[j]
		rho[j] += L.rhoInit[j]
	}
	persist = criterion(pSharpBeg, pSharpEnd, L.rhoInit) && persist
	return persist
}

func (c *nutsChain) Stats(dst []float64) {
	dst[0] = c.lp
	dst[1] = c.stat
	dst[2] = c.used
	dst[3] = float64(c.lastDepth)
	dst[4] = float64(c.lastLeap)
	dst[5] = 0
	if c.lastDiv {
		dst[5] = 1
	}
	dst[6] = c.energy
}
