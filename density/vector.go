package density

import (
	"fmt"
	"math"
)

// size returns the common length n of the arguments, each of length n or 1
// (broadcast), and panics on any other length or on a derivative slice whose
// length differs from its argument's.
func size(who string, args ...[]float64) int {
	n := 1
	for _, a := range args {
		if len(a) != 1 {
			if n != 1 && len(a) != n {
				panic(fmt.Sprintf("density: %s: arguments of lengths %d and %d (want n or 1)", who, n, len(a)))
			}
			n = len(a)
		}
	}
	for _, a := range args {
		if len(a) == 0 {
			panic(fmt.Sprintf("density: %s: empty argument", who))
		}
	}
	return n
}

// checkD panics unless d is nil or as long as its argument a.
func checkD(who string, d, a []float64) {
	if d != nil && len(d) != len(a) {
		panic(fmt.Sprintf("density: %s: derivative slice of length %d for an argument of length %d", who, len(d), len(a)))
	}
}

// stride is 0 for a broadcast (length-1) slice and 1 otherwise.
func stride(a []float64) int {
	if len(a) == 1 {
		return 0
	}
	return 1
}

// add adds v into d[i·s] unless d is nil.
func add(d []float64, i, s int, v float64) {
	if d != nil {
		d[i*s] += v
	}
}

// sum3 sums a three-argument density f over broadcast slices.
func sum3(who string, f func(x, a, b float64) (lp, dx, da, db float64), x, a, b, dx, da, db []float64) float64 {
	n := size(who, x, a, b)
	checkD(who, dx, x)
	checkD(who, da, a)
	checkD(who, db, b)
	sx, sa, sb := stride(x), stride(a), stride(b)
	var lp float64
	for i := 0; i < n; i++ {
		l, gx, ga, gb := f(x[i*sx], a[i*sa], b[i*sb])
		lp += l
		add(dx, i, sx, gx)
		add(da, i, sa, ga)
		add(db, i, sb, gb)
	}
	return lp
}

// sum2 sums a two-argument density f over broadcast slices.
func sum2(who string, f func(x, a float64) (lp, dx, da float64), x, a, dx, da []float64) float64 {
	n := size(who, x, a)
	checkD(who, dx, x)
	checkD(who, da, a)
	sx, sa := stride(x), stride(a)
	var lp float64
	for i := 0; i < n; i++ {
		l, gx, ga := f(x[i*sx], a[i*sa])
		lp += l
		add(dx, i, sx, gx)
		add(da, i, sa, ga)
	}
	return lp
}

// NormalSum returns Σᵢ log N(xᵢ; μᵢ, σᵢ) over broadcast slices and adds the
// partials into dx, dmu, dsigma (nil skips). A broadcast σ costs one
// logarithm in all.
func NormalSum(x, mu, sigma, dx, dmu, dsigma []float64) float64 {
	const who = "NormalSum"
	if len(sigma) != 1 {
		return sum3(who, Normal, x, mu, sigma, dx, dmu, dsigma)
	}
	n := size(who, x, mu, sigma)
	checkD(who, dx, x)
	checkD(who, dmu, mu)
	checkD(who, dsigma, sigma)
	s := sigma[0]
	if !(s > 0) {
		return math.NaN()
	}
	inv := 1 / s
	sx, sm := stride(x), stride(mu)
	var ss float64
	for i := 0; i < n; i++ {
		z := (x[i*sx] - mu[i*sm]) * inv
		ss += z * z
		if dx != nil || dmu != nil {
			g := z * inv
			add(dx, i, sx, -g)
			add(dmu, i, sm, g)
		}
	}
	if dsigma != nil {
		dsigma[0] += (ss - float64(n)) * inv
	}
	return -0.5*ss - float64(n)*(math.Log(s)+lnSqrt2Pi)
}

// StudentTSum returns Σᵢ log StudentT(xᵢ; νᵢ, μᵢ, σᵢ) over broadcast slices
// and adds the partials into dx, dnu, dmu, dsigma (nil skips).
func StudentTSum(x, nu, mu, sigma, dx, dnu, dmu, dsigma []float64) float64 {
	const who = "StudentTSum"
	n := size(who, x, nu, mu, sigma)
	for _, p := range [][2][]float64{{dx, x}, {dnu, nu}, {dmu, mu}, {dsigma, sigma}} {
		checkD(who, p[0], p[1])
	}
	sx, sn, sm, ss := stride(x), stride(nu), stride(mu), stride(sigma)
	var lp float64
	for i := 0; i < n; i++ {
		l, gx, gn, gm, gs := StudentT(x[i*sx], nu[i*sn], mu[i*sm], sigma[i*ss])
		lp += l
		add(dx, i, sx, gx)
		add(dnu, i, sn, gn)
		add(dmu, i, sm, gm)
		add(dsigma, i, ss, gs)
	}
	return lp
}

// CauchySum returns Σᵢ log Cauchy(xᵢ; μᵢ, σᵢ) and adds the partials.
func CauchySum(x, mu, sigma, dx, dmu, dsigma []float64) float64 {
	return sum3("CauchySum", Cauchy, x, mu, sigma, dx, dmu, dsigma)
}

// HalfNormalSum returns Σᵢ log HalfNormal(xᵢ; σᵢ) and adds the partials.
func HalfNormalSum(x, sigma, dx, dsigma []float64) float64 {
	return sum2("HalfNormalSum", HalfNormal, x, sigma, dx, dsigma)
}

// HalfCauchySum returns Σᵢ log HalfCauchy(xᵢ; σᵢ) and adds the partials.
func HalfCauchySum(x, sigma, dx, dsigma []float64) float64 {
	return sum2("HalfCauchySum", HalfCauchy, x, sigma, dx, dsigma)
}

// ExponentialSum returns Σᵢ log Exp(xᵢ; λᵢ) and adds the partials.
func ExponentialSum(x, rate, dx, drate []float64) float64 {
	return sum2("ExponentialSum", Exponential, x, rate, dx, drate)
}

// GammaSum returns Σᵢ log Gamma(xᵢ; αᵢ, βᵢ) (rate βᵢ) and adds the partials.
func GammaSum(x, alpha, beta, dx, dalpha, dbeta []float64) float64 {
	return sum3("GammaSum", Gamma, x, alpha, beta, dx, dalpha, dbeta)
}

// InvGammaSum returns Σᵢ log InvGamma(xᵢ; αᵢ, βᵢ) (scale βᵢ) and adds the
// partials.
func InvGammaSum(x, alpha, beta, dx, dalpha, dbeta []float64) float64 {
	return sum3("InvGammaSum", InvGamma, x, alpha, beta, dx, dalpha, dbeta)
}

// LogNormalSum returns Σᵢ log LogNormal(xᵢ; μᵢ, σᵢ) and adds the partials.
func LogNormalSum(x, mu, sigma, dx, dmu, dsigma []float64) float64 {
	return sum3("LogNormalSum", LogNormal, x, mu, sigma, dx, dmu, dsigma)
}

// BetaSum returns Σᵢ log Beta(xᵢ; aᵢ, bᵢ) and adds the partials.
func BetaSum(x, a, b, dx, da, db []float64) float64 {
	return sum3("BetaSum", Beta, x, a, b, dx, da, db)
}

// checkCounts panics unless len(k) is n, or 1 with n = 1 … it returns the
// number of terms, the longer of len(k) and len(eta) where eta broadcasts.
func countSize(who string, k int, eta []float64) int {
	if len(eta) == 0 || (len(eta) != 1 && len(eta) != k) {
		panic(fmt.Sprintf("density: %s: %d counts and %d linear predictors (want equal, or 1 predictor)", who, k, len(eta)))
	}
	return k
}

// BernoulliLogitSum returns Σᵢ log Bernoulli(yᵢ; σ(ηᵢ)) for labels yᵢ ∈ {0, 1}
// and adds ∂/∂ηᵢ = yᵢ − σ(ηᵢ) into deta (nil skips). η broadcasts.
//
// With tᵢ = sᵢηᵢ (sᵢ = ±1 the sign of the label) each term is
// −max(−tᵢ, 0) − log(1 + e^(−|tᵢ|)); the logarithms are taken as the log of
// the product of the factors 1 + e^(−|tᵢ|) ∈ (1, 2], one per block of 512
// terms (no overflow), which is the summed logarithm to rounding.
func BernoulliLogitSum(y []int, eta, deta []float64) float64 {
	n := countSize("BernoulliLogitSum", len(y), eta)
	checkD("BernoulliLogitSum", deta, eta)
	se := stride(eta)
	var hinge, logs float64
	prod := 1.0
	for i := 0; i < n; i++ {
		var s float64
		switch y[i] {
		case 1:
			s = 1
		case 0:
			s = -1
		default:
			return math.Inf(-1)
		}
		t := s * eta[i*se]
		e := math.Exp(-math.Abs(t))
		hinge += max(-t, 0)
		prod *= 1 + e
		if i&511 == 511 {
			logs += math.Log(prod)
			prod = 1
		}
		if deta != nil {
			// ∂/∂η = s σ(−t); σ(−t) = e/(1+e) for t ≥ 0 and 1/(1+e) for t < 0.
			c := s / (1 + e)
			if t >= 0 {
				c *= e
			}
			deta[i*se] += c
		}
	}
	return -(hinge + logs + math.Log(prod))
}

// BinomialLogitSum returns Σᵢ log Binomial(kᵢ; nᵢ, σ(ηᵢ)) and adds the
// partials kᵢ − nᵢσ(ηᵢ) into deta (nil skips). η broadcasts; len(n) =
// len(k).
func BinomialLogitSum(k, trials []int, eta, deta []float64) float64 {
	n := countSize("BinomialLogitSum", len(k), eta)
	if len(trials) != n {
		panic(fmt.Sprintf("density: BinomialLogitSum: %d counts and %d trial numbers", n, len(trials)))
	}
	checkD("BinomialLogitSum", deta, eta)
	se := stride(eta)
	var lp float64
	for i := 0; i < n; i++ {
		l, g := BinomialLogit(k[i], trials[i], eta[i*se])
		lp += l
		add(deta, i, se, g)
	}
	return lp
}

// PoissonLogSum returns Σᵢ log Poisson(kᵢ; e^(ηᵢ)) and adds the partials
// kᵢ − e^(ηᵢ) into deta (nil skips). η broadcasts.
func PoissonLogSum(k []int, eta, deta []float64) float64 {
	n := countSize("PoissonLogSum", len(k), eta)
	checkD("PoissonLogSum", deta, eta)
	se := stride(eta)
	var lp float64
	for i := 0; i < n; i++ {
		l, g := PoissonLog(k[i], eta[i*se])
		lp += l
		add(deta, i, se, g)
	}
	return lp
}

// NegBin2LogSum returns Σᵢ log NegBin2Log(kᵢ; ηᵢ, φᵢ) and adds the partials
// into deta and dphi (nil skips). η and φ broadcast.
func NegBin2LogSum(k []int, eta, phi, deta, dphi []float64) float64 {
	n := countSize("NegBin2LogSum", len(k), eta)
	if len(phi) != 1 && len(phi) != n {
		panic(fmt.Sprintf("density: NegBin2LogSum: %d counts and %d dispersions (want equal, or 1)", n, len(phi)))
	}
	checkD("NegBin2LogSum", deta, eta)
	checkD("NegBin2LogSum", dphi, phi)
	se, sp := stride(eta), stride(phi)
	var lp float64
	for i := 0; i < n; i++ {
		l, ge, gp := NegBin2Log(k[i], eta[i*se], phi[i*sp])
		lp += l
		add(deta, i, se, ge)
		add(dphi, i, sp, gp)
	}
	return lp
}

// CategoricalLogitSum returns Σᵢ log softmax(ηᵢ)_yᵢ, where ηᵢ is row i of the
// n×K row-major matrix eta (K = len(eta)/len(y)), and adds the gradient into
// deta (nil skips; len(eta)).
func CategoricalLogitSum(y []int, eta, deta []float64) float64 {
	n := len(y)
	if n == 0 || len(eta)%n != 0 {
		panic(fmt.Sprintf("density: CategoricalLogitSum: %d logits for %d labels (want a multiple)", len(eta), n))
	}
	checkD("CategoricalLogitSum", deta, eta)
	k := len(eta) / n
	var lp float64
	for i, yi := range y {
		var d []float64
		if deta != nil {
			d = deta[i*k : (i+1)*k]
		}
		lp += CategoricalLogit(yi, eta[i*k:(i+1)*k], d)
	}
	return lp
}

// BernoulliProbitSum returns Σᵢ log Bernoulli(yᵢ; Φ(ηᵢ)) and adds the
// partials into deta (nil skips). η broadcasts.
func BernoulliProbitSum(y []int, eta, deta []float64) float64 {
	n := countSize("BernoulliProbitSum", len(y), eta)
	checkD("BernoulliProbitSum", deta, eta)
	se := stride(eta)
	var lp float64
	for i := 0; i < n; i++ {
		l, g := BernoulliProbit(y[i], eta[i*se])
		lp += l
		add(deta, i, se, g)
	}
	return lp
}
