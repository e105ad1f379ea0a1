package model

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// LinearPosterior is the exact posterior of a [Linear] model. By
// Normal–Inverse-Gamma conjugacy
//
//	β | σ², y ~ N(μₙ, σ² Vₙ),   σ² | y ~ IG(φₙ, ψₙ),
//	Vₙ = (V⁻¹ + XᵀX)⁻¹,   μₙ = Vₙ (V⁻¹μ + Xᵀy),   φₙ = φ + n/2,
//	ψₙ = ψ + ½ (yᵀy + μᵀV⁻¹μ − μₙᵀVₙ⁻¹μₙ)
//	   = ψ + ½ (‖y − Xμₙ‖² + (μₙ − μ)ᵀV⁻¹(μₙ − μ)),
//
// where X includes the column of ones of the intercept; the second form of ψₙ,
// which is free of cancellation, is the one computed. With the flat prior
// p(β, log σ²) ∝ 1 the same forms hold with V⁻¹ = 0, ψ = 0 and φ = −d/2:
// Vₙ = (XᵀX)⁻¹, μₙ = β̂ (the least-squares estimate), φₙ = (n − d)/2 and
// ψₙ = RSS/2.
//
// Marginally each βⱼ is Student-t with ν = 2φₙ degrees of freedom, location
// μₙ,ⱼ and scale √(ψₙ/φₙ · Vₙ,ⱼⱼ); σ² ~ IG(φₙ, ψₙ); and γ = log σ² has
// E γ = log ψₙ − ψ(φₙ), Var γ = ψ′(φₙ) (digamma and trigamma), because
// 1/σ² ~ Gamma(φₙ, rate ψₙ).
//
// Parameter indices j follow the model's order: β₀ … β_{d−1} (index 0 is the
// intercept when the model has one), then index d for log_sigma2.
type LinearPosterior struct {
	// Mu is μₙ, the posterior mean of β (length d).
	Mu []float64
	// V is Vₙ, so that Cov(β | σ², y) = σ² Vₙ.
	V *mat.SymDense
	// Phi and Psi are the shape φₙ and scale ψₙ of the posterior of σ².
	Phi, Psi float64
	// N is the number of observations and D the number of coefficients d.
	N, D int
	// Flat reports the flat prior.
	Flat bool
	// Intercept reports whether β₀ is an intercept.
	Intercept bool

	// BetaHat is the maximum-likelihood (ordinary least-squares) estimate
	// β̂ = (XᵀX)⁻¹Xᵀy, and Sigma2Hat = RSS/n with RSS = ‖y − Xβ̂‖². BetaHat
	// is nil and Sigma2Hat NaN when X does not have full column rank.
	BetaHat   []float64
	Sigma2Hat float64

	prec     *mat.SymDense // Vₙ⁻¹
	logDetV  float64       // log|Vₙ|
	logEvid  float64
	lower    []float64 // lower Cholesky factor of Vₙ, d×d row-major
	features int
}

// Posterior returns the exact posterior of m. It costs O(n d² + d³) and is
// computed afresh by each call.
func (m *Linear) Posterior() *LinearPosterior {
	d, n := m.coef(), m.n
	xd := m.designMatrix()
	y := mat.NewVecDense(n, m.y)
	var xty mat.VecDense
	xty.MulVec(xd.T(), y)

	post := &LinearPosterior{N: n, D: d, Flat: m.flat, Intercept: m.intercept, features: m.p, Sigma2Hat: math.NaN()}

	// Maximum likelihood.
	xtx := gram(xd, 0)
	var cml mat.Cholesky
	if cml.Factorize(xtx) {
		var bh mat.VecDense
		if err := cml.SolveVecTo(&bh, &xty); err == nil {
			post.BetaHat = make([]float64, d)
			copy(post.BetaHat, bh.RawVector().Data)
			post.Sigma2Hat = rss(xd, m.y, post.BetaHat) / float64(n)
		}
	}

	// Posterior precision Λₙ = V⁻¹ + XᵀX and b = V⁻¹μ + Xᵀy.
	lam := xtx
	b := mat.VecDenseCopyOf(&xty)
	phi0, psi0 := -float64(d)/2, 0.0
	if !m.flat {
		lam = gram(xd, 1/m.v)
		for j := 0; j < d; j++ {
			b.SetVec(j, b.AtVec(j)+m.mu[j]/m.v)
		}
		phi0, psi0 = m.phi, m.psi
	}
	var chol mat.Cholesky
	if !chol.Factorize(lam) {
		// Cannot happen: NewLinear checks the flat case, and V⁻¹ + XᵀX is
		// positive definite otherwise.
		panic("model: linear posterior: posterior precision is not positive definite")
	}
	var mun mat.VecDense
	if err := chol.SolveVecTo(&mun, b); err != nil {
		panic(fmt.Sprintf("model: linear posterior: %v", err))
	}
	post.Mu = append([]float64(nil), mun.RawVector().Data...)
	post.V = mat.NewSymDense(d, nil)
	if err := chol.InverseTo(post.V); err != nil {
		panic(fmt.Sprintf("model: linear posterior: %v", err))
	}
	post.prec = lam
	post.logDetV = -chol.LogDet()

	q := rss(xd, m.y, post.Mu)
	if !m.flat {
		var s float64
		for j, v := range post.Mu {
			r := v - m.mu[j]
			s += r * r
		}
		q += s / m.v
	}
	post.Phi = phi0 + float64(n)/2
	post.Psi = psi0 + q/2

	// Normalising constant log ∫ p(w) p(y|w) dw.
	lgn, _ := math.Lgamma(post.Phi)
	post.logEvid = 0.5*post.logDetV + lgn - post.Phi*math.Log(post.Psi)
	if m.flat {
		post.logEvid += -float64(n-d) / 2 * log2Pi
	} else {
		lg, _ := math.Lgamma(m.phi)
		post.logEvid += -float64(n)/2*log2Pi - float64(d)/2*math.Log(m.v) + m.phi*math.Log(m.psi) - lg
	}

	var cv mat.Cholesky
	if cv.Factorize(post.V) {
		var l mat.TriDense
		cv.LTo(&l)
		post.lower = make([]float64, d*d)
		for i := 0; i < d; i++ {
			for j := 0; j <= i; j++ {
				post.lower[i*d+j] = l.At(i, j)
			}
		}
	}
	return post
}

// rss returns ‖y − X β‖².
func rss(xd *mat.Dense, y, beta []float64) float64 {
	var r mat.VecDense
	r.MulVec(xd, mat.NewVecDense(len(beta), beta))
	r.ScaleVec(-1, &r)
	r.AddVec(&r, mat.NewVecDense(len(y), y))
	return mat.Dot(&r, &r)
}

// Dim returns d + 1, the dimension of w = (β, γ).
func (p *LinearPosterior) Dim() int { return p.D + 1 }

// BetaDist returns the Student-t marginal posterior of βⱼ: ν = 2φₙ, location
// μₙ,ⱼ, scale √(ψₙ/φₙ · Vₙ,ⱼⱼ).
func (p *LinearPosterior) BetaDist(j int) distuv.StudentsT {
	return distuv.StudentsT{Mu: p.Mu[j], Sigma: math.Sqrt(p.Psi / p.Phi * p.V.At(j, j)), Nu: 2 * p.Phi}
}

// BetaMean returns μₙ,ⱼ, the posterior mean (and location) of βⱼ.
func (p *LinearPosterior) BetaMean(j int) float64 { return p.Mu[j] }

// BetaSD returns the posterior standard deviation of βⱼ,
// √(ψₙ Vₙ,ⱼⱼ / (φₙ − 1)), or +Inf when φₙ ≤ 1.
func (p *LinearPosterior) BetaSD(j int) float64 {
	if p.Phi <= 1 {
		return math.Inf(1)
	}
	return math.Sqrt(p.Psi * p.V.At(j, j) / (p.Phi - 1))
}

// BetaPDF returns the marginal posterior density of βⱼ at x.
func (p *LinearPosterior) BetaPDF(j int, x float64) float64 { return p.BetaDist(j).Prob(x) }

// Sigma2Dist returns the marginal posterior IG(φₙ, ψₙ) of σ².
func (p *LinearPosterior) Sigma2Dist() distuv.InverseGamma {
	return distuv.InverseGamma{Alpha: p.Phi, Beta: p.Psi}
}

// Sigma2Mean returns E[σ² | y] = ψₙ/(φₙ − 1), or +Inf when φₙ ≤ 1.
func (p *LinearPosterior) Sigma2Mean() float64 {
	if p.Phi <= 1 {
		return math.Inf(1)
	}
	return p.Psi / (p.Phi - 1)
}

// Sigma2SD returns the posterior standard deviation of σ²,
// ψₙ / ((φₙ − 1) √(φₙ − 2)), or +Inf when φₙ ≤ 2.
func (p *LinearPosterior) Sigma2SD() float64 {
	if p.Phi <= 2 {
		return math.Inf(1)
	}
	return p.Psi / ((p.Phi - 1) * math.Sqrt(p.Phi-2))
}

// Sigma2PDF returns the marginal posterior density of σ² at x.
func (p *LinearPosterior) Sigma2PDF(x float64) float64 { return p.Sigma2Dist().Prob(x) }

// LogSigma2Mean returns E[log σ² | y] = log ψₙ − ψ(φₙ), ψ the digamma function.
func (p *LinearPosterior) LogSigma2Mean() float64 { return math.Log(p.Psi) - mathext.Digamma(p.Phi) }

// LogSigma2SD returns the posterior standard deviation of log σ², √ψ′(φₙ),
// ψ′ the trigamma function.
func (p *LinearPosterior) LogSigma2SD() float64 { return math.Sqrt(trigamma(p.Phi)) }

// LogSigma2PDF returns the marginal posterior density of γ = log σ² at g,
// ψₙ^φₙ/Γ(φₙ) exp(−φₙ g − ψₙ e^(−g)).
func (p *LinearPosterior) LogSigma2PDF(g float64) float64 {
	lg, _ := math.Lgamma(p.Phi)
	return math.Exp(p.Phi*math.Log(p.Psi) - lg - p.Phi*g - p.Psi*math.Exp(-g))
}

// Mean returns the posterior means in parameter order: μₙ, then E[log σ²].
func (p *LinearPosterior) Mean() []float64 {
	return append(append(make([]float64, 0, p.D+1), p.Mu...), p.LogSigma2Mean())
}

// SD returns the posterior standard deviations in parameter order.
func (p *LinearPosterior) SD() []float64 {
	sd := make([]float64, p.D+1)
	for j := 0; j < p.D; j++ {
		sd[j] = p.BetaSD(j)
	}
	sd[p.D] = p.LogSigma2SD()
	return sd
}

// MAP returns the mode of the posterior density of w = (β, γ) that the
// samplers target (Jacobian included). The log density is
//
//	const − (φₙ + d/2) γ − e^(−γ) (ψₙ + ½ (β − μₙ)ᵀVₙ⁻¹(β − μₙ)),
//
// so the mode is β = μₙ, σ² = e^γ = ψₙ/(φₙ + d/2), that is ψₙ/(φ + n/2 + d/2)
// for the proper prior and RSS/n (the MLE) for the flat prior.
func (p *LinearPosterior) MAP() []float64 {
	return append(append(make([]float64, 0, p.D+1), p.Mu...), math.Log(p.Psi/(p.Phi+float64(p.D)/2)))
}

// MLE returns the maximum-likelihood estimate in parameter order,
// (β̂, log σ̂²), or nil when X does not have full column rank.
func (p *LinearPosterior) MLE() []float64 {
	if p.BetaHat == nil {
		return nil
	}
	return append(append(make([]float64, 0, p.D+1), p.BetaHat...), math.Log(p.Sigma2Hat))
}

// LogDensity returns the normalised log posterior density of w = (β, γ),
//
//	log N(β; μₙ, e^γ Vₙ) + log IG(e^γ; φₙ, ψₙ) + γ.
func (p *LinearPosterior) LogDensity(w []float64) float64 {
	d := p.D
	g := w[d]
	var q float64
	for i := 0; i < d; i++ {
		ri := w[i] - p.Mu[i]
		for j := 0; j < d; j++ {
			q += ri * p.prec.At(i, j) * (w[j] - p.Mu[j])
		}
	}
	lg, _ := math.Lgamma(p.Phi)
	fd := float64(d)
	eg := math.Exp(-g)
	return -fd/2*(log2Pi+g) - 0.5*p.logDetV - 0.5*eg*q +
		p.Phi*math.Log(p.Psi) - lg - p.Phi*g - p.Psi*eg
}

// LogEvidence returns log ∫ p(w) p(y|w) dw, the log marginal likelihood
// log p(y), so that log p(w) + log p(y|w) = LogEvidence + LogDensity(w):
//
//	−(n/2) log 2π − ½ log|V| + ½ log|Vₙ| + φ log ψ − log Γ(φ)
//	+ log Γ(φₙ) − φₙ log ψₙ.
//
// With the flat prior it is the normalising constant of the improper
// posterior, −((n − d)/2) log 2π + ½ log|Vₙ| + log Γ(φₙ) − φₙ log ψₙ, which
// is not a marginal likelihood.
func (p *LinearPosterior) LogEvidence() float64 { return p.logEvid }

// Rand draws w = (β, log σ²) from the exact posterior into dst:
// σ² ~ IG(φₙ, ψₙ), then β ~ N(μₙ, σ² Vₙ).
func (p *LinearPosterior) Rand(dst []float64, rng *rand.Rand) {
	d := p.D
	s2 := p.Psi / distuv.Gamma{Alpha: p.Phi, Beta: 1, Src: rng}.Rand()
	s := math.Sqrt(s2)
	z := dst[:d]
	for j := range z {
		z[j] = rng.NormFloat64()
	}
	// β = μₙ + s L z, computed from the last row up so z can be overwritten.
	for i := d - 1; i >= 0; i-- {
		row := p.lower[i*d : i*d+i+1]
		z[i] = p.Mu[i] + s*floats.Dot(row, z[:i+1])
	}
	dst[d] = math.Log(s2)
}

// Predictive returns the posterior predictive distribution of a new response
// at the features x (length p, no intercept entry): Student-t with ν = 2φₙ,
// location x̃ᵀμₙ and scale √(ψₙ/φₙ (1 + x̃ᵀVₙx̃)), x̃ = (1, x) with an
// intercept.
func (p *LinearPosterior) Predictive(x []float64) distuv.StudentsT {
	if len(x) != p.features {
		panic(fmt.Sprintf("model: linear Predictive: %d features, model has %d", len(x), p.features))
	}
	xt := x
	if p.Intercept {
		xt = append([]float64{1}, x...)
	}
	v := mat.NewVecDense(p.D, xt)
	loc := floats.Dot(xt, p.Mu)
	s2 := p.Psi / p.Phi * (1 + mat.Inner(v, p.V, v))
	return distuv.StudentsT{Mu: loc, Sigma: math.Sqrt(s2), Nu: 2 * p.Phi}
}
