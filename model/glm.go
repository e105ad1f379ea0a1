package model

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/ad"
	"github.com/langevin-go/langevin/density"
	"github.com/langevin-go/langevin/transform"
)

// GLMKind names a generalised linear model of a GLM.
type GLMKind int

const (
	// Poisson counts with a log link: yᵢ ~ Poisson(exp(oᵢ + ηᵢ)).
	Poisson GLMKind = iota + 1
	// NegBin counts with a log link and dispersion φ:
	// yᵢ ~ NegBin(mean exp(oᵢ + ηᵢ), variance μ + μ²/φ).
	NegBin
	// Probit binary labels: P(yᵢ = 1) = Φ(ηᵢ).
	Probit
	// Robust regression: yᵢ ~ StudentT(ν, ηᵢ, σ).
	Robust
)

var glmNames = map[GLMKind]string{Poisson: "poisson", NegBin: "negbin", Probit: "probit", Robust: "robust"}

func (k GLMKind) String() string {
	if s, ok := glmNames[k]; ok {
		return s
	}
	return fmt.Sprintf("GLMKind(%d)", int(k))
}

// ParseGLMKind returns the kind called s (poisson, negbin, probit, robust).
func ParseGLMKind(s string) (GLMKind, error) {
	for k, n := range glmNames {
		if n == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("model: unknown GLM %q: expected poisson, negbin, probit or robust", s)
}

// GLMOptions are the settings of a GLM. The zero value is the default:
// an intercept and rstanarm's weakly informative priors (see GLM).
type GLMOptions struct {
	// NoIntercept drops the intercept, which is on by default.
	NoIntercept bool
	// PriorScale is s₀ of the slopes' priors βⱼ ~ N(0, (s₀ c/sd(xⱼ))²),
	// with c = 1 for the count and binary models and c = sd(y) for Robust;
	// 0 means 2.5.
	PriorScale float64
	// Offset holds oᵢ, added to each linear predictor (the log exposure of
	// a count); nil means none. Poisson and NegBin only.
	Offset []float64
	// Nu fixes Robust's degrees of freedom ν; 0 estimates ν > 1.
	Nu float64
}

// GLM is a generalised linear model with linear predictor ηᵢ = α + xᵢᵀβ
// (α = 0 without intercept), written with the transforms, densities and
// automatic gradients of packages transform, density and ad (the fused GLM
// nodes; docs/writing-a-model.md shows the same models in user code). Its
// priors follow rstanarm's weakly informative defaults:
//
//	βⱼ ~ N(0, (s₀ c / sd(xⱼ))²),  s₀ = 2.5,
//	α ~ N(0, 10²)                 (Poisson, NegBin, Probit),
//	α ~ N(ȳ, (10 sd(y))²)         (Robust),
//	1/√φ ~ half-N(0, 1)           (NegBin; Stan's prior-choice advice),
//	σ ~ Exponential(1/sd(y)),  ν ~ Gamma(2, 0.1) on ν > 1   (Robust),
//
// with c = 1, or sd(y) for Robust. Positive parameters are sampled on the
// log scale (log(ν − 1) for ν) and their log Jacobians are in LogPrior.
//
// Parameters: intercept, beta.1, …, beta.p, then log_phi (NegBin) or
// log_sigma and log_nu (Robust); the derived quantities are phi, or sigma
// and nu. GLM is safe for concurrent use.
type GLM struct {
	*ad.Model
	kind                 GLMKind
	n, p                 int
	intercept            bool
	x                    *ad.Matrix
	yi                   []int
	yf                   []float64
	offset               []float64
	nu                   float64 // fixed ν (Robust), 0 if estimated
	icpt, beta, aux, nuB transform.Block
}

// NewGLM returns the GLM of the given kind of the responses y on the columns
// of X (shared when X is contiguous: X must not change while the model is in use). Count models need non-negative integer responses, Probit
// labels 0/1 (or −1/+1); errors name the first bad row.
func NewGLM(kind GLMKind, X *mat.Dense, y []float64, opt GLMOptions) (*GLM, error) {
	who := kind.String() + " regression"
	if _, ok := glmNames[kind]; !ok {
		return nil, fmt.Errorf("model: %v: unknown GLM kind", kind)
	}
	if y == nil {
		return nil, fmt.Errorf("model: %s: no responses", who)
	}
	ds, err := newDesign(who, X, y, !opt.NoIntercept)
	if err != nil {
		return nil, err
	}
	n, p := ds.n, ds.p
	m := &GLM{kind: kind, n: n, p: p, intercept: !opt.NoIntercept, x: ad.NewMatrix(X), nu: opt.Nu}
	switch kind {
	case Poisson, NegBin:
		m.yi = make([]int, n)
		for i, v := range y {
			if v < 0 || v != math.Trunc(v) || v > 1<<40 {
				return nil, fmt.Errorf("model: %s: row %d: response %v: expected a non-negative integer count", who, i+1, v)
			}
			m.yi[i] = int(v)
		}
	case Probit:
		if err := CheckLabels(y); err != nil {
			return nil, err
		}
		m.yi = make([]int, n)
		for i, v := range y {
			if v == 1 {
				m.yi[i] = 1
			}
		}
	case Robust:
		m.yf = append([]float64(nil), y...)
	}
	if opt.Offset != nil {
		if kind != Poisson && kind != NegBin {
			return nil, fmt.Errorf("model: %s: an offset applies to the count models only", who)
		}
		if len(opt.Offset) != n {
			return nil, fmt.Errorf("model: %s: %d offsets for %d rows", who, len(opt.Offset), n)
		}
		for i, v := range opt.Offset {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("model: %s: row %d: offset %v: expected a finite number (the log of a positive exposure)", who, i+1, v)
			}
		}
		m.offset = append([]float64(nil), opt.Offset...)
	}
	s0 := opt.PriorScale
	if s0 == 0 {
		s0 = 2.5
	}
	if !(s0 > 0) || math.IsInf(s0, 1) {
		return nil, fmt.Errorf("model: %s: PriorScale = %v: expected a positive finite number (0 for the default)", who, opt.PriorScale)
	}
	if kind == Robust && opt.Nu != 0 && !(opt.Nu > 0) {
		return nil, fmt.Errorf("model: %s: Nu = %v: expected a positive number (0 to estimate ν)", who, opt.Nu)
	}
	// Prior scales.
	ymean, ysd := 0.0, 1.0
	if kind == Robust {
		ymean = meanOf(y)
		ysd = math.Sqrt(varOf(y, ymean))
		if !(ysd > 0) {
			ysd = 1
		}
	}
	sds := make([]float64, p)
	col := make([]float64, n)
	for j := range sds {
		mat.Col(col, j, X)
		sd := math.Sqrt(varOf(col, meanOf(col)))
		if !(sd > 0) {
			sd = 1
		}
		sds[j] = s0 * ysd / sd
	}
	var l transform.Layout
	if m.intercept {
		m.icpt = l.Add("intercept", transform.Identity(1))
	}
	m.beta = l.Add("beta", transform.Identity(p), p)
	switch kind {
	case NegBin:
		m.aux = l.Add("phi", transform.Positive(1))
	case Robust:
		m.aux = l.Add("sigma", transform.Positive(1))
		if m.nu == 0 {
			m.nuB = l.Add("nu", transform.Lower{L: 1, N: 1})
		}
	}
	icptMean, icptSD := 0.0, 10.0
	if kind == Robust {
		icptMean, icptSD = ymean, 10*ysd
	}
	prior := func(t *ad.Tape) ad.Vec {
		lp := t.Normal(t.Param(m.beta), t.Const(0), t.Data(sds))
		if m.intercept {
			lp = t.Add(lp, t.Normal(t.Param(m.icpt), t.Const(icptMean), t.Const(icptSD)))
		}
		switch kind {
		case NegBin:
			// κ = 1/√φ ~ half-N(0, 1): log p(φ) = log p(κ) − log 2 − 1.5 log φ.
			phi := t.Param(m.aux)
			kappa := t.Div(t.Const(1), t.Sqrt(phi))
			lp = t.Total(lp, t.HalfNormal(kappa, t.Const(1)), t.Mul(t.Const(-1.5), t.Log(phi)), t.Const(-math.Ln2))
		case Robust:
			lp = t.Add(lp, t.Exponential(t.Param(m.aux), t.Const(1/ysd)))
			if m.nu == 0 {
				lp = t.Add(lp, t.Gamma(t.Param(m.nuB), t.Const(2), t.Const(0.1)))
			}
		}
		return lp
	}
	lik := func(t *ad.Tape, batch []int) ad.Vec {
		a := t.Const(0)
		if m.intercept {
			a = t.Param(m.icpt)
		}
		beta := t.Param(m.beta)
		switch kind {
		case Poisson:
			return t.PoissonLogGLM(m.yi, m.x, batch, a, beta, m.offset)
		case NegBin:
			return t.NegBin2LogGLM(m.yi, m.x, batch, a, beta, t.Param(m.aux), m.offset)
		case Probit:
			return t.BernoulliProbitGLM(m.yi, m.x, batch, a, beta)
		}
		nu := t.Const(m.nu)
		if m.nu == 0 {
			nu = t.Param(m.nuB)
		}
		return t.StudentT(t.Rows(m.yf, batch), nu, t.Add(a, t.MatVec(m.x, beta, batch)), t.Param(m.aux))
	}
	m.Model = ad.New(&l, n, prior, lik)
	return m, nil
}

func meanOf(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func varOf(x []float64, m float64) float64 {
	if len(x) < 2 {
		return 0
	}
	var s float64
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return s / float64(len(x)-1)
}

// Kind returns the model's kind.
func (m *GLM) Kind() GLMKind { return m.kind }

// Intercept reports whether the model has an intercept.
func (m *GLM) Intercept() bool { return m.intercept }

// String names the model and its priors.
func (m *GLM) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%v regression, %d rows, %d features", m.kind, m.n, m.p)
	if m.offset != nil {
		sb.WriteString(", with offsets")
	}
	return sb.String()
}

// linpred returns α + xᵀβ at θ.
func (m *GLM) linpred(theta, x []float64) float64 {
	var z float64
	if m.intercept {
		z = theta[m.icpt.Off]
	}
	b := theta[m.beta.Off : m.beta.Off+m.p]
	for j, v := range x {
		z += v * b[j]
	}
	return z
}

// aux returns φ or σ at θ, and ν (Robust).
func (m *GLM) auxAt(theta []float64) (aux, nu float64) {
	if m.kind == NegBin || m.kind == Robust {
		aux = math.Exp(theta[m.aux.Off])
	}
	if m.kind == Robust {
		nu = m.nu
		if nu == 0 {
			nu = 1 + math.Exp(theta[m.nuB.Off])
		}
	}
	return aux, nu
}

func (m *GLM) rows(who string, X *mat.Dense, offset []float64) int {
	n, p := X.Dims()
	if p != m.p {
		panic(fmt.Sprintf("model: %v %s: feature matrix has %d columns, model has %d features", m.kind, who, p, m.p))
	}
	if offset != nil && len(offset) != n {
		panic(fmt.Sprintf("model: %v %s: %d offsets for %d rows", m.kind, who, len(offset), n))
	}
	return n
}

// Mean writes E[yᵢ | xᵢ, θ] for the rows of X into dst (allocated when nil)
// and returns it: exp(oᵢ + ηᵢ) for the count models, Φ(ηᵢ) for Probit, ηᵢ
// for Robust. offset (nil: none) holds the rows' offsets.
func (m *GLM) Mean(theta []float64, X *mat.Dense, offset, dst []float64) []float64 {
	n := m.rows("Mean", X, offset)
	dst = dstLen("GLM Mean", dst, n)
	x := make([]float64, m.p)
	for i := range dst {
		mat.Row(x, i, X)
		eta := m.linpred(theta, x)
		if offset != nil {
			eta += offset[i]
		}
		switch m.kind {
		case Poisson, NegBin:
			dst[i] = math.Exp(eta)
		case Probit:
			dst[i] = 0.5 * math.Erfc(-eta/math.Sqrt2)
		default:
			dst[i] = eta
		}
	}
	return dst
}

// LogDensity writes log p(yᵢ | xᵢ, θ) for the rows of X and the responses
// y into dst (allocated when nil) and returns it; responses outside the
// support give −Inf. offset (nil: none) holds the rows' offsets. Averages
// over draws (the log predictive density) are package predict's
// (predict.OffsetLogPredictiveDensity).
func (m *GLM) LogDensity(theta []float64, X *mat.Dense, offset, y, dst []float64) []float64 {
	n := m.rows("LogDensity", X, offset)
	if len(y) != n {
		panic(fmt.Sprintf("model: %v LogDensity: %d responses for %d rows", m.kind, len(y), n))
	}
	dst = dstLen("GLM LogDensity", dst, n)
	x := make([]float64, m.p)
	aux, nu := m.auxAt(theta)
	for i := 0; i < n; i++ {
		mat.Row(x, i, X)
		eta := m.linpred(theta, x)
		if offset != nil {
			eta += offset[i]
		}
		dst[i] = m.logDensity(y[i], eta, aux, nu)
	}
	return dst
}

// logDensity returns log p(y | η) of one row with linear predictor η
// (offset included) and the auxiliary parameters of auxAt; −Inf outside the
// support.
func (m *GLM) logDensity(y, eta, aux, nu float64) float64 {
	k := int(y)
	if float64(k) != y && m.kind != Robust {
		k = -1
	}
	var l float64
	switch m.kind {
	case Poisson:
		l, _ = density.PoissonLog(k, eta)
	case NegBin:
		l, _, _ = density.NegBin2Log(k, eta, aux)
	case Probit:
		if y == -1 {
			k = 0
		}
		l, _ = density.BernoulliProbit(k, eta)
	case Robust:
		l, _, _, _, _ = density.StudentT(y, nu, eta, aux)
	}
	return l
}

// ClassProbs writes (1 − Φ(ηᵢ), Φ(ηᵢ)) for the rows of X into dst (n×2);
// it panics unless the model is Probit.
func (m *GLM) ClassProbs(theta []float64, X *mat.Dense, dst *mat.Dense) {
	if m.kind != Probit {
		panic(fmt.Sprintf("model: %v is not a classifier", m.kind))
	}
	p := m.Mean(theta, X, nil, nil)
	for i, v := range p {
		dst.Set(i, 0, 1-v)
		dst.Set(i, 1, v)
	}
}

// NoiseVar returns the variance σ²ν/(ν − 2) of Robust's Student-t noise at
// θ (+Inf for ν ≤ 2); it panics unless the model is Robust.
func (m *GLM) NoiseVar(theta []float64) float64 {
	if m.kind != Robust {
		panic(fmt.Sprintf("model: %v has no additive noise", m.kind))
	}
	s, nu := m.auxAt(theta)
	if nu <= 2 {
		return math.Inf(1)
	}
	return s * s * nu / (nu - 2)
}
