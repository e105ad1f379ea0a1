package density

import (
	"math"

	"gonum.org/v1/gonum/mathext"
)

const (
	lnSqrt2Pi = 0.91893853320467274178032973640561763986139747363778 // ½ log 2π
	ln2       = math.Ln2
	lnPi      = 1.14472988584940017414342735135305871164729481291531
)

// Normal returns log N(x; μ, σ) = −½ z² − log σ − ½ log 2π, z = (x − μ)/σ,
// and its partials ∂/∂x = −z/σ, ∂/∂μ = z/σ, ∂/∂σ = (z² − 1)/σ.
func Normal(x, mu, sigma float64) (lp, dx, dmu, dsigma float64) {
	if !(sigma > 0) {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	z := (x - mu) / sigma
	dmu = z / sigma
	return -0.5*z*z - math.Log(sigma) - lnSqrt2Pi, -dmu, dmu, (z*z - 1) / sigma
}

// StudentT returns the log density of Student's t with ν degrees of freedom,
// location μ and scale σ,
//
//	log Γ((ν+1)/2) − log Γ(ν/2) − ½ log νπ − log σ − (ν+1)/2 log(1 + z²/ν),
//
// z = (x − μ)/σ, and its partials: with r = z²/ν,
//
//	∂/∂x = −(ν+1) z / (σ (ν + z²)),  ∂/∂μ = −∂/∂x,
//	∂/∂σ = −1/σ + (ν+1) z² / (σ (ν + z²)),
//	∂/∂ν = ½ (ψ((ν+1)/2) − ψ(ν/2) − 1/ν − log(1 + r) + (ν+1) r / (ν (1 + r))).
func StudentT(x, nu, mu, sigma float64) (lp, dx, dnu, dmu, dsigma float64) {
	if !(sigma > 0) || !(nu > 0) {
		n := math.NaN()
		return n, n, n, n, n
	}
	z := (x - mu) / sigma
	r := z * z / nu
	l1 := math.Log1p(r)
	a, _ := math.Lgamma((nu + 1) / 2)
	b, _ := math.Lgamma(nu / 2)
	lp = a - b - 0.5*math.Log(nu*math.Pi) - math.Log(sigma) - (nu+1)/2*l1
	w := (nu + 1) / (nu + z*z)
	dx = -w * z / sigma
	dsigma = (w*z*z - 1) / sigma
	dnu = 0.5 * (mathext.Digamma((nu+1)/2) - mathext.Digamma(nu/2) - 1/nu - l1 + (nu+1)*r/(nu*(1+r)))
	return lp, dx, dnu, -dx, dsigma
}

// Cauchy returns log Cauchy(x; μ, σ) = −log π − log σ − log(1 + z²),
// z = (x − μ)/σ, and its partials ∂/∂x = −2z/(σ(1 + z²)), ∂/∂μ = −∂/∂x,
// ∂/∂σ = (z² − 1)/(σ(1 + z²)).
func Cauchy(x, mu, sigma float64) (lp, dx, dmu, dsigma float64) {
	if !(sigma > 0) {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	z := (x - mu) / sigma
	q := 1 + z*z
	dx = -2 * z / (sigma * q)
	return -lnPi - math.Log(sigma) - math.Log1p(z*z), dx, -dx, (z*z - 1) / (sigma * q)
}

// HalfNormal returns the log density of |X|, X ~ N(0, σ), at x ≥ 0:
// log 2 + log N(x; 0, σ), with ∂/∂x = −x/σ², ∂/∂σ = (x²/σ² − 1)/σ; −Inf for
// x < 0.
func HalfNormal(x, sigma float64) (lp, dx, dsigma float64) {
	if x < 0 {
		return math.Inf(-1), 0, 0
	}
	lp, dx, _, dsigma = Normal(x, 0, sigma)
	return lp + ln2, dx, dsigma
}

// HalfCauchy returns the log density of |X|, X ~ Cauchy(0, σ), at x ≥ 0:
// log 2 + log Cauchy(x; 0, σ); −Inf for x < 0.
func HalfCauchy(x, sigma float64) (lp, dx, dsigma float64) {
	if x < 0 {
		return math.Inf(-1), 0, 0
	}
	lp, dx, _, dsigma = Cauchy(x, 0, sigma)
	return lp + ln2, dx, dsigma
}

// Exponential returns log Exp(x; λ) = log λ − λx for x ≥ 0 (rate λ), with
// ∂/∂x = −λ, ∂/∂λ = 1/λ − x; −Inf for x < 0.
func Exponential(x, rate float64) (lp, dx, drate float64) {
	if !(rate > 0) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	if x < 0 {
		return math.Inf(-1), 0, 0
	}
	return math.Log(rate) - rate*x, -rate, 1/rate - x
}

// Gamma returns log Gamma(x; α, β) = α log β − log Γ(α) + (α − 1) log x − βx
// (shape α, rate β) for x > 0, with ∂/∂x = (α − 1)/x − β,
// ∂/∂α = log β − ψ(α) + log x, ∂/∂β = α/β − x; −Inf for x ≤ 0.
func Gamma(x, alpha, beta float64) (lp, dx, dalpha, dbeta float64) {
	if !(alpha > 0) || !(beta > 0) {
		n := math.NaN()
		return n, n, n, n
	}
	if !(x > 0) {
		return math.Inf(-1), 0, 0, 0
	}
	lg, _ := math.Lgamma(alpha)
	lx, lb := math.Log(x), math.Log(beta)
	return alpha*lb - lg + (alpha-1)*lx - beta*x, (alpha-1)/x - beta, lb - mathext.Digamma(alpha) + lx, alpha/beta - x
}

// InvGamma returns log InvGamma(x; α, β) = α log β − log Γ(α) − (α + 1) log x
// − β/x (shape α, scale β) for x > 0, with ∂/∂x = −(α + 1)/x + β/x²,
// ∂/∂α = log β − ψ(α) − log x, ∂/∂β = α/β − 1/x; −Inf for x ≤ 0.
func InvGamma(x, alpha, beta float64) (lp, dx, dalpha, dbeta float64) {
	if !(alpha > 0) || !(beta > 0) {
		n := math.NaN()
		return n, n, n, n
	}
	if !(x > 0) {
		return math.Inf(-1), 0, 0, 0
	}
	lg, _ := math.Lgamma(alpha)
	lx, lb := math.Log(x), math.Log(beta)
	return alpha*lb - lg - (alpha+1)*lx - beta/x, (-(alpha + 1) + beta/x) / x, lb - mathext.Digamma(alpha) - lx, alpha/beta - 1/x
}

// LogNormal returns log LogNormal(x; μ, σ) = −log x − log σ − ½ log 2π − ½ z²,
// z = (log x − μ)/σ, for x > 0, with ∂/∂x = −(1 + z/σ)/x, ∂/∂μ = z/σ,
// ∂/∂σ = (z² − 1)/σ; −Inf for x ≤ 0.
func LogNormal(x, mu, sigma float64) (lp, dx, dmu, dsigma float64) {
	if !(sigma > 0) {
		return math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	if !(x > 0) {
		return math.Inf(-1), 0, 0, 0
	}
	lx := math.Log(x)
	z := (lx - mu) / sigma
	return -lx - math.Log(sigma) - lnSqrt2Pi - 0.5*z*z, -(1 + z/sigma) / x, z / sigma, (z*z - 1) / sigma
}

// Beta returns log Beta(x; a, b) = log Γ(a+b) − log Γ(a) − log Γ(b)
// + (a − 1) log x + (b − 1) log(1 − x) for 0 < x < 1, with
// ∂/∂x = (a − 1)/x − (b − 1)/(1 − x), ∂/∂a = ψ(a+b) − ψ(a) + log x,
// ∂/∂b = ψ(a+b) − ψ(b) + log(1 − x); −Inf outside (0, 1).
func Beta(x, a, b float64) (lp, dx, da, db float64) {
	if !(a > 0) || !(b > 0) {
		n := math.NaN()
		return n, n, n, n
	}
	if !(x > 0 && x < 1) {
		return math.Inf(-1), 0, 0, 0
	}
	lab, _ := math.Lgamma(a + b)
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lx, l1x := math.Log(x), math.Log1p(-x)
	dab := mathext.Digamma(a + b)
	return lab - la - lb + (a-1)*lx + (b-1)*l1x, (a-1)/x - (b-1)/(1-x), dab - mathext.Digamma(a) + lx, dab - mathext.Digamma(b) + l1x
}

// softplus returns log(1 + eᵗ) without overflow.
func softplus(t float64) float64 { return max(t, 0) + math.Log1p(math.Exp(-math.Abs(t))) }

// sigmoid returns 1/(1 + e^(−t)) without overflow.
func sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}

// BernoulliLogit returns log P(y | η) for y ∈ {0, 1} with P(y = 1) = σ(η):
// yη − log(1 + e^η), and ∂/∂η = y − σ(η). Any y other than 0 or 1 gives −Inf.
func BernoulliLogit(y int, eta float64) (lp, deta float64) {
	switch y {
	case 1:
		return -softplus(-eta), sigmoid(-eta)
	case 0:
		return -softplus(eta), -sigmoid(eta)
	}
	return math.Inf(-1), 0
}

// BinomialLogit returns log Binomial(k; n, σ(η)) = log C(n, k) + kη
// − n log(1 + e^η) for 0 ≤ k ≤ n, and ∂/∂η = k − n σ(η); −Inf otherwise.
func BinomialLogit(k, n int, eta float64) (lp, deta float64) {
	if k < 0 || k > n {
		return math.Inf(-1), 0
	}
	fk, fn := float64(k), float64(n)
	return lchoose(n, k) + fk*eta - fn*softplus(eta), fk - fn*sigmoid(eta)
}

// lchoose returns log C(n, k).
func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// PoissonLog returns log Poisson(k; e^η) = kη − e^η − log k! for k ≥ 0, and
// ∂/∂η = k − e^η; −Inf for k < 0.
func PoissonLog(k int, eta float64) (lp, deta float64) {
	if k < 0 {
		return math.Inf(-1), 0
	}
	fk := float64(k)
	lf, _ := math.Lgamma(fk + 1)
	e := math.Exp(eta)
	return fk*eta - e - lf, fk - e
}

// logAddExp returns log(eᵃ + eᵇ).
func logAddExp(a, b float64) float64 {
	if a < b {
		a, b = b, a
	}
	if math.IsInf(a, -1) {
		return a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// NegBin2Log returns the log mass of the negative binomial with log mean η and
// dispersion φ (Stan's neg_binomial_2_log: mean μ = e^η, variance μ + μ²/φ),
//
//	log Γ(k + φ) − log k! − log Γ(φ) + kη + φ log φ − (k + φ) log(μ + φ),
//
// for k ≥ 0, with ∂/∂η = k − (k + φ) μ/(μ + φ) and
// ∂/∂φ = ψ(k + φ) − ψ(φ) + log φ + 1 − log(μ + φ) − (k + φ)/(μ + φ);
// −Inf for k < 0.
//
// It is evaluated as Σ_{j<k} log((φ + j)/(μ + φ)) − log k! + kη
// − φ log(1 + μ/φ), and ∂/∂φ as Σ_{j<k} 1/(φ + j) − log(1 + μ/φ)
// + (μ − k)/(μ + φ), which stay accurate as φ → ∞ (the Poisson limit),
// where the differences of log-gammas lose every digit; for k > 1000 the
// sums are replaced by log-gamma and digamma differences.
func NegBin2Log(k int, eta, phi float64) (lp, deta, dphi float64) {
	if !(phi > 0) {
		return math.NaN(), math.NaN(), math.NaN()
	}
	if k < 0 {
		return math.Inf(-1), 0, 0
	}
	fk := float64(k)
	lphi := math.Log(phi)
	r := math.Exp(eta - lphi)   // μ/φ
	lmp := lphi + math.Log1p(r) // log(μ + φ)
	w := math.Exp(eta - lmp)    // μ/(μ + φ)
	b, _ := math.Lgamma(fk + 1)
	var s, ds float64
	if k <= 1000 {
		for j := 0; j < k; j++ {
			s += math.Log(phi+float64(j)) - lmp
			ds += 1 / (phi + float64(j))
		}
	} else {
		a, _ := math.Lgamma(fk + phi)
		c, _ := math.Lgamma(phi)
		s = a - c - fk*lmp
		ds = mathext.Digamma(fk+phi) - mathext.Digamma(phi)
	}
	lp = s - b + fk*eta - phi*math.Log1p(r)
	deta = fk - (fk+phi)*w
	dphi = ds - math.Log1p(r) + (math.Exp(eta)-fk)*math.Exp(-lmp)
	return lp, deta, dphi
}

// CategoricalLogit returns log softmax(η)_y = η_y − log Σₖ e^(ηₖ) for
// y ∈ {0, …, K−1} and adds its gradient δₖy − softmax(η)ₖ into deta (nil
// skips it; otherwise len K). An out-of-range y gives −Inf.
func CategoricalLogit(y int, eta, deta []float64) float64 {
	if y < 0 || y >= len(eta) {
		return math.Inf(-1)
	}
	m := math.Inf(-1)
	for _, v := range eta {
		m = max(m, v)
	}
	var s float64
	for _, v := range eta {
		s += math.Exp(v - m)
	}
	lse := m + math.Log(s)
	if deta != nil {
		deta = deta[:len(eta)]
		for k, v := range eta {
			deta[k] -= math.Exp(v - lse)
		}
		deta[y]++
	}
	return eta[y] - lse
}

// logPhi returns log Φ(x), Φ the standard normal distribution function,
// accurate in both tails, and the inverse Mills ratio φ(x)/Φ(x).
func logPhi(x float64) (lp, mills float64) {
	if x > -30 {
		c := 0.5 * math.Erfc(-x/math.Sqrt2)
		return math.Log(c), math.Exp(-0.5*x*x-lnSqrt2Pi) / c
	}
	// Φ(x) = φ(x)/(−x) · (1 − 1/x² + 3/x⁴ − 15/x⁶ + …) for x → −∞.
	x2 := 1 / (x * x)
	s := 1 - x2*(1-3*x2*(1-5*x2))
	return -0.5*x*x - lnSqrt2Pi - math.Log(-x) + math.Log(s), -x / s
}

// BernoulliProbit returns log P(y | η) for y ∈ {0, 1} with P(y = 1) = Φ(η),
// the standard normal distribution function: log Φ(sη) with s = 2y − 1, and
// ∂/∂η = s φ(η)/Φ(sη). Any y other than 0 or 1 gives −Inf.
func BernoulliProbit(y int, eta float64) (lp, deta float64) {
	var s float64
	switch y {
	case 1:
		s = 1
	case 0:
		s = -1
	default:
		return math.Inf(-1), 0
	}
	lp, m := logPhi(s * eta)
	return lp, s * m
}
