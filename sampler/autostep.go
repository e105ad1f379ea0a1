package sampler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// The automatic step rule of the stochastic-gradient Langevin samplers.
//
// Near the MAP θ̂ a posterior with negative Hessian H is locally Gaussian,
// and preconditioned SGLD θ ← θ + ηMĝ + √(2ηM)ξ with gradient noise
// e = ĝ − ∇log p of covariance C is the linear recursion
//
//	θ − θ̂ ← (I − ηMH)(θ − θ̂) + ηMe + √(2ηM)ξ.
//
// It is stable only for η·λmax(MH) < 2. Along an eigenvector of M^½HM^½
// with eigenvalue λ (and without gradient noise) the stationary variance is
// 2η/(1 − (1 − ηλ)²) = (1/λ)/(1 − ηλ/2): inflated by 1/(1 − ηλ/2). The
// gradient noise adds η²MCM per step to the injected 2ηM: relative to it, at
// most η·λmax(CM)/2, and the stationary variance is inflated by about
// (1 + η·λ(CM)/2)/(1 − ηλ/2) in all (the discrete Lyapunov equation gives it
// exactly; the variance facts are checked in diag.TestKSDStepTooLarge). So the rule is
//
//	η = min(κ/λmax(MH), 2ρ/λmax(CM)),  κ = 0.1, ρ = 0.05 by default,
//
// the stability rule and the noise rule, which keeps every variance within
// (1 + 0.05)/(1 − 0.05) ≈ 1.105 of the posterior's (sds within 5%). The
// chain then forgets its start along the slowest direction at the rate
// (1 − η·λmin(MH)) per step: its integrated autocorrelation time there is
// about 2/(η·λmin(MH)) steps, and after 3/(η·λmin(MH)) steps from the MAP
// the variance has reached 1 − e⁻⁶ of its stationary value.
//
// C is the covariance of the estimator actually used: without control
// variates C = (N²/|B|)·f·V(θ̂), V the covariance of the per-observation
// gradients ∇log p(zᵢ|θ̂) and f = (N − |B|)/(N − 1) for batches drawn without
// replacement (1 with); with control variates around θ̂ the per-observation
// terms are ∇log p(zᵢ|θ) − ∇log p(zᵢ|θ̂), which vanish at θ̂, so V is
// measured at points θ̂ + H^(−½)z one posterior scale away (z ~ N(0, I)) and
// averaged. Without control variates λmax(CM) grows like N²/|B| times
// λmax(VM) ~ 1/N, forcing η ∝ |B|/N; with them it is O(N/|B|) times
// O(1/N), and η can stay O(1) in posterior units (Baker, Fearnhead, Fox &
// Nemeth 2019).

// StepRule holds the targets of the automatic step rule. A zero field means
// its documented default.
type StepRule struct {
	// Stability κ: η·λmax(MH) ≤ κ; 0 means 0.1 (variance inflation
	// 1/(1 − κ/2) ≈ 5%).
	Stability float64
	// NoiseRatio ρ: η·λmax(CM)/2 ≤ ρ, the largest ratio of gradient noise to
	// injected noise; 0 means 0.05.
	NoiseRatio float64
	// Probes is the number of points θ̂ + H^(−½)z at which the
	// control-variate noise is measured; 0 means 4.
	Probes int
	// Subset is the number of observations (drawn without replacement) over
	// which the per-observation gradient covariance is computed; 0 means
	// min(N, 20000).
	Subset int
}

func (r StepRule) defaults(n int) (StepRule, error) {
	if r.Stability == 0 {
		r.Stability = StabilityBudget
	}
	if r.NoiseRatio == 0 {
		r.NoiseRatio = 0.05
	}
	if r.Probes == 0 {
		r.Probes = 4
	}
	if r.Subset == 0 {
		r.Subset = min(n, 20000)
	}
	switch {
	case !(r.Stability > 0 && r.Stability < 2):
		return r, fmt.Errorf("sampler: step rule: stability target %v: expected 0 < η·λmax < 2", r.Stability)
	case !(r.NoiseRatio > 0) || math.IsInf(r.NoiseRatio, 0):
		return r, fmt.Errorf("sampler: step rule: noise ratio %v: expected a positive number", r.NoiseRatio)
	case r.Probes < 1:
		return r, fmt.Errorf("sampler: step rule: %d probes: expected at least 1", r.Probes)
	case r.Subset < 2:
		return r, fmt.Errorf("sampler: step rule: subset of %d observations: expected at least 2", r.Subset)
	}
	r.Subset = min(r.Subset, n)
	return r, nil
}

// StepChoice is a step chosen by [ChooseStep] and the numbers behind it;
// String prints which rule chose it and why.
type StepChoice struct {
	Eta         float64 // the chosen step η
	Rule        string  // "stability" or "noise" (the binding rule)
	EtaStable   float64 // κ/λmax(MH)
	EtaNoise    float64 // 2ρ/λmax(CM)
	Stability   float64 // κ
	NoiseRatio  float64 // ρ
	LambdaMaxMH float64 // λmax(MH)
	LambdaMinMH float64 // λmin(MH)
	LambdaCM    float64 // λmax(CM), C the covariance of ĝ for the estimator used
	Batch       int     // |B|
	N           int     // observations
	CV          bool    // C measured with control variates

	lambdaFloor float64 // max(λmin, 1e-3·λmax), for the run-length rules
}

// EtaLambda returns η·λmax(MH) at a step eta.
func (c *StepChoice) EtaLambda(eta float64) float64 { return eta * c.LambdaMaxMH }

// Ratio returns the gradient-to-injected noise ratio η·λmax(CM)/2 at eta.
func (c *StepChoice) Ratio(eta float64) float64 { return eta * c.LambdaCM / 2 }

// Inflation returns the predicted worst-case variance inflation
// (1 + η·λmax(CM)/2)/(1 − η·λmax(MH)/2) at eta (+Inf when unstable).
func (c *StepChoice) Inflation(eta float64) float64 {
	den := 1 - c.EtaLambda(eta)/2
	if den <= 0 {
		return math.Inf(1)
	}
	return (1 + c.Ratio(eta)) / den
}

// AutocorrSteps returns 2/(η·λmin(MH)), the integrated autocorrelation time
// in steps of the slowest direction of the linear recursion at step eta
// (λmin floored at 1e-3·λmax where the posterior is not log-concave at the
// MAP).
func (c *StepChoice) AutocorrSteps(eta float64) float64 { return 2 / (eta * c.lambdaFloor) }

// BurnIn returns ⌈3/(η·λmin(MH))⌉ (λmin floored as in AutocorrSteps), the
// steps from the MAP after which the variance of the slowest direction of
// the linear recursion is within e⁻⁶ of stationary.
func (c *StepChoice) BurnIn(eta float64) int {
	return int(math.Ceil(3 / (eta * c.lambdaFloor)))
}

// Check returns the reasons a user-given step eta breaks either rule (empty
// when it keeps both), each naming the step, the eigenvalue and the largest
// step the rule allows.
func (c *StepChoice) Check(eta float64) []string {
	var w []string
	switch el := c.EtaLambda(eta); {
	case el >= 2:
		w = append(w, fmt.Sprintf("step %.3g is unstable: η·λmax(MH) = %.3g ≥ 2 (λmax(MH) = %.3g; the largest stable step is %.3g, the rule's %.3g)",
			eta, el, c.LambdaMaxMH, 2/c.LambdaMaxMH, c.EtaStable))
	case el > c.Stability:
		w = append(w, fmt.Sprintf("step %.3g: η·λmax(MH) = %.3g > %g inflates a variance by up to %.0f%% (λmax(MH) = %.3g; the rule's step is %.3g, the stable limit %.3g)",
			eta, el, c.Stability, 100*(1/(1-el/2)-1), c.LambdaMaxMH, c.EtaStable, 2/c.LambdaMaxMH))
	}
	if r := c.Ratio(eta); r > c.NoiseRatio {
		w = append(w, fmt.Sprintf("step %.3g: the gradient noise is %.3g× the injected noise (η·λmax(CM)/2, λmax(CM) = %.3g; > %g above a step of %.3g)",
			eta, r, c.LambdaCM, c.NoiseRatio, c.EtaNoise))
	}
	return w
}

// String says which rule chose the step and the numbers behind it.
func (c *StepChoice) String() string {
	est := "without control variates"
	if c.CV {
		est = "with control variates"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "step η = %.3g by the %s rule: ", c.Eta, c.Rule)
	fmt.Fprintf(&b, "stability η·λmax(MH) ≤ %g gives %.3g (λmax(MH) = %.3g), ", c.Stability, c.EtaStable, c.LambdaMaxMH)
	fmt.Fprintf(&b, "noise η·λmax(CM)/2 ≤ %g gives %.3g (λmax(CM) = %.3g, batch %d of %d, %s); ", c.NoiseRatio, c.EtaNoise, c.LambdaCM, c.Batch, c.N, est)
	fmt.Fprintf(&b, "predicted variance inflation ≤ %.1f%%, autocorrelation ≈ %.3g steps", 100*(c.Inflation(c.Eta)-1), c.AutocorrSteps(c.Eta))
	return b.String()
}

// ChooseStep chooses the step of preconditioned SGLD with the constant
// preconditioner precond (nil: the identity; a *mat.DiagDense for SGLD's
// Precond, the dense matrix of its PrecondFull) on m near its MAP mapTheta,
// with negHess = −∇²log p(θ|D) at the MAP (nil: central finite differences,
// 2d full-data gradients), for minibatches mb (with control variates when
// mb.CV is set, centred at mb.CV), by the rule above. It costs
// rule.Subset per-observation gradients (twice that for each of
// rule.Probes probes with control variates) and one d×d eigendecomposition;
// randomness (the subset, the probes) comes from rng.
func ChooseStep(m langevin.Model, mapTheta []float64, negHess *mat.SymDense, precond mat.Symmetric, mb Minibatch, rule StepRule, rng *rand.Rand) (*StepChoice, error) {
	d, n := m.Dim(), m.Len()
	if len(mapTheta) != d {
		return nil, fmt.Errorf("sampler: step rule at a point of %d values, model has %d parameters", len(mapTheta), d)
	}
	rule, err := rule.defaults(n)
	if err != nil {
		return nil, err
	}
	b := mb.Size
	if b == 0 || (b >= n && !mb.Replace) {
		b = n
	}
	if b < 1 || b > n {
		return nil, fmt.Errorf("sampler: step rule: batch %d: expected 1 ≤ batch ≤ N = %d", mb.Size, n)
	}
	if precond != nil && precond.SymmetricDim() != d {
		return nil, fmt.Errorf("sampler: step rule: preconditioner is %d×%d, model has %d parameters", precond.SymmetricDim(), precond.SymmetricDim(), d)
	}
	if negHess == nil {
		h := make([]float64, d*d)
		langevin.HessianFD(m, mapTheta, h)
		negHess = mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				negHess.SetSym(i, j, -(h[i*d+j]+h[j*d+i])/2)
			}
		}
	}
	sq := mat.NewTriDense(d, mat.Lower, nil) // M = LLᵀ
	if precond == nil {
		for j := 0; j < d; j++ {
			sq.SetTri(j, j, 1)
		}
	} else {
		var ch mat.Cholesky
		if !ch.Factorize(precond) {
			return nil, fmt.Errorf("sampler: step rule: the preconditioner is not positive definite")
		}
		ch.LTo(sq)
	}
	bh, lmin, lmax, err := scaledEigenRange(negHess, sq)
	if err != nil {
		return nil, fmt.Errorf("sampler: step rule: curvature: %v", err)
	}
	if !(lmax > 0) {
		return nil, fmt.Errorf("sampler: step rule: the log posterior has no negative curvature at the MAP (λmax(MH) = %.3g)", lmax)
	}
	// Not log-concave at the MAP (a neural network): the curvature floor
	// 1e-3·λmax stands in for λmin in the probes and the run-length rules.
	floor := math.Max(lmin, 1e-3*lmax)
	// Per-observation gradient covariance V of the estimator used.
	V := mat.NewSymDense(d, nil)
	idx := subsetIndex(n, rule.Subset, rng)
	if mb.CV == nil || b == n {
		if err := obsGradCov(m, mapTheta, nil, idx, V); err != nil {
			return nil, err
		}
	} else {
		if len(mb.CV) != d {
			return nil, fmt.Errorf("sampler: step rule: control-variate centre has %d values, model has %d parameters", len(mb.CV), d)
		}
		// Probes θ̂ + L·B⁻½ξ with B = LᵀHL (eigenvalues floored): covariance
		// L B⁻¹ Lᵀ = H⁻¹.
		for j := 0; j < d; j++ {
			bh.SetSym(j, j, bh.At(j, j)+math.Max(0, floor-lmin))
		}
		var chol mat.Cholesky
		if !chol.Factorize(bh) {
			return nil, fmt.Errorf("sampler: step rule: the scaled curvature is not positive definite")
		}
		var u mat.TriDense
		chol.UTo(&u) // B = UᵀU; U⁻¹ξ has covariance B⁻¹
		z := mat.NewVecDense(d, nil)
		lz := mat.NewVecDense(d, nil)
		probe := make([]float64, d)
		one := mat.NewSymDense(d, nil)
		for k := 0; k < rule.Probes; k++ {
			for j := 0; j < d; j++ {
				z.SetVec(j, rng.NormFloat64())
			}
			if err := z.SolveVec(&u, z); err != nil {
				return nil, fmt.Errorf("sampler: step rule: %v", err)
			}
			lz.MulVec(sq, z)
			for j := range probe {
				probe[j] = mapTheta[j] + lz.AtVec(j)
			}
			if err := obsGradCov(m, probe, mb.CV, idx, one); err != nil {
				return nil, err
			}
			V.AddSym(V, one)
		}
		V.ScaleSym(1/float64(rule.Probes), V)
	}
	nf, bf := float64(n), float64(b)
	f := nf * nf / bf
	if !mb.Replace {
		if n > 1 {
			f *= (nf - bf) / (nf - 1)
		} else {
			f = 0
		}
	}
	lcm := 0.0
	if f > 0 {
		_, _, vmax, err := scaledEigenRange(V, sq)
		if err != nil {
			return nil, fmt.Errorf("sampler: step rule: gradient noise: %v", err)
		}
		lcm = f * math.Max(vmax, 0)
	}
	return newStepChoice(rule, lmax, lmin, lcm, b, n, mb.CV != nil && b < n), nil
}

// NewStepChoice applies the step rule to curvature and noise measured
// elsewhere (for a preconditioner given as an operator, where ChooseStep's
// dense d×d algebra is too costly): λmax and λmin of MH, λmax(CM) for the
// estimator used with batch b of n observations (cv: with control
// variates). It picks η = min(κ/λmax(MH), 2ρ/λmax(CM)) as ChooseStep does.
func NewStepChoice(rule StepRule, lmax, lmin, lcm float64, b, n int, cv bool) (*StepChoice, error) {
	rule, err := rule.defaults(n)
	if err != nil {
		return nil, err
	}
	if !(lmax > 0) {
		return nil, fmt.Errorf("sampler: step rule: the log posterior has no negative curvature at the MAP (λmax(MH) = %.3g)", lmax)
	}
	return newStepChoice(rule, lmax, lmin, lcm, b, n, cv), nil
}

func newStepChoice(rule StepRule, lmax, lmin, lcm float64, b, n int, cv bool) *StepChoice {
	floor := math.Max(lmin, 1e-3*lmax)
	c := &StepChoice{
		Stability: rule.Stability, NoiseRatio: rule.NoiseRatio,
		LambdaMaxMH: lmax, LambdaMinMH: lmin, lambdaFloor: floor, LambdaCM: lcm,
		Batch: b, N: n, CV: cv,
	}
	c.EtaStable = rule.Stability / lmax
	c.EtaNoise = math.Inf(1)
	if lcm > 0 {
		c.EtaNoise = 2 * rule.NoiseRatio / lcm
	}
	c.Eta, c.Rule = c.EtaStable, "stability"
	if c.EtaNoise < c.EtaStable {
		c.Eta, c.Rule = c.EtaNoise, "noise"
	}
	return c
}

// CVChoice is the verdict of [ChooseEstimator].
type CVChoice struct {
	Plain, CV *StepChoice
	// Reduction is λmax(CM) without control variates over λmax(CM) with
	// them, the gradient-noise reduction measured at the MAP.
	Reduction float64
	Pays      bool
}

// String says whether control variates pay, and why.
func (v *CVChoice) String() string {
	verdict := "do not pay"
	if v.Pays {
		verdict = "pay"
	}
	return fmt.Sprintf("control variates %s: they cut the gradient noise %.3g-fold at the MAP; the step per batch gradient is %.3g with them (2 per step) and %.3g without",
		verdict, v.Reduction, v.CV.Eta/2, v.Plain.Eta)
}

// ChooseEstimator applies [ChooseStep] with and without control variates
// around mapTheta and decides whether they pay. Both estimators need about
// the same number of steps per effective draw at the same step, and one step
// costs one batch gradient without control variates and two with them, so
// they pay when the step they allow is more than twice the plain one:
// η_CV/2 > η_plain (the full-data gradient at θ̂, computed once per chain,
// is not counted). The returned Minibatch has CV set when they pay.
func ChooseEstimator(m langevin.Model, mapTheta []float64, negHess *mat.SymDense, precond mat.Symmetric, mb Minibatch, rule StepRule, rng *rand.Rand) (*CVChoice, Minibatch, error) {
	plainMB := mb
	plainMB.CV = nil
	plain, err := ChooseStep(m, mapTheta, negHess, precond, plainMB, rule, rng)
	if err != nil {
		return nil, mb, err
	}
	cvMB := mb
	cvMB.CV = append([]float64(nil), mapTheta...)
	cv, err := ChooseStep(m, mapTheta, negHess, precond, cvMB, rule, rng)
	if err != nil {
		return nil, mb, err
	}
	v := &CVChoice{Plain: plain, CV: cv, Reduction: plain.LambdaCM / cv.LambdaCM}
	v.Pays = cv.Eta/2 > plain.Eta
	if v.Pays {
		return v, cvMB, nil
	}
	return v, plainMB, nil
}

// scaledEigenRange returns B = LᵀAL and its extreme eigenvalues: those of
// MA for M = LLᵀ, A symmetric.
func scaledEigenRange(a mat.Symmetric, l *mat.TriDense) (b *mat.SymDense, lmin, lmax float64, err error) {
	d := a.SymmetricDim()
	var al, lal mat.Dense
	al.Mul(a, l)
	lal.Mul(l.T(), &al)
	b = mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			b.SetSym(i, j, (lal.At(i, j)+lal.At(j, i))/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(b, false) {
		return nil, 0, 0, fmt.Errorf("eigendecomposition failed")
	}
	v := eig.Values(nil)
	for _, x := range v {
		if math.IsNaN(x) {
			return nil, 0, 0, fmt.Errorf("non-finite matrix")
		}
	}
	return b, v[0], v[d-1], nil
}

// subsetIndex returns k distinct indices of 0…n−1 (all of them, in order,
// when k ≥ n), drawn from rng.
func subsetIndex(n, k int, rng *rand.Rand) []int {
	if k >= n {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	if n > floydAbove {
		return floydSample(n, k, rng)
	}
	p := rng.Perm(n)
	return p[:k]
}

// SubsetIndex returns k distinct indices of 0…n−1 (all of them, in order,
// when k ≥ n), drawn from rng: a random permutation's first k up to
// FloydAbove observations, Floyd's sample (in increasing order) above.
func SubsetIndex(n, k int, rng *rand.Rand) []int { return subsetIndex(n, k, rng) }

// FloydSample returns k < n distinct uniform indices of 0…n−1 in increasing
// order by Floyd's algorithm (O(k) memory; see floydSample).
func FloydSample(n, k int, rng *rand.Rand) []int { return floydSample(n, k, rng) }

// FloydAbove is the number of observations above which a uniform subset
// is drawn by Floyd's algorithm (see floydAbove).
const FloydAbove = floydAbove

// floydAbove is the number of observations above which a uniform subset of
// distinct indices is drawn by Floyd's algorithm (O(k) memory) instead of
// from a random permutation of all n indices (8n bytes: 800 MB at 10⁸
// observations streamed from a data store). The two give the same
// distribution but other draws; below the bound the permutation is kept so
// that runs on data that fit in memory are unchanged.
const floydAbove = 1 << 20

// floydSample returns k distinct uniform indices of 0…n−1, k < n, in
// increasing order (so that rows read from a file are read in file order),
// by Floyd's algorithm: for j = n−k, …, n−1 draw t uniform in 0…j and take
// t, or j if t was taken already (Bentley & Floyd 1987).
func floydSample(n, k int, rng *rand.Rand) []int {
	seen := make(map[int]struct{}, k)
	idx := make([]int, 0, k)
	for j := n - k; j < n; j++ {
		t := rng.IntN(j + 1)
		if _, dup := seen[t]; dup {
			t = j
		}
		seen[t] = struct{}{}
		idx = append(idx, t)
	}
	slices.Sort(idx)
	return idx
}

// obsGradCov writes into dst the covariance (divisor k) over the k
// observations idx of gᵢ = ∇log p(zᵢ|θ) − ∇log p(zᵢ|center) (center nil:
// gᵢ = ∇log p(zᵢ|θ)): the per-observation gradient covariance V of the
// estimator with or without control variates.
func obsGradCov(m langevin.Model, theta, center []float64, idx []int, dst *mat.SymDense) error {
	d := m.Dim()
	mean := make([]float64, d)
	acc := make([]float64, d*d)
	err := langevin.RowGrads(m, theta, idx, langevin.RowTerms{Centre: center}, make([]float64, d), make([]float64, d), func(k int, g []float64) error {
		for j, v := range g {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("sampler: gradient noise: observation %d has a non-finite gradient", idx[k]+1)
			}
			mean[j] += v
		}
		addOuter(acc, g)
		return nil
	})
	if err != nil {
		return err
	}
	k := float64(len(idx))
	setCov(dst, acc, mean, k, k)
	return nil
}
