package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// Activation is the nonlinearity of the hidden layers of an [MLP].
type Activation int

// Activations. The zero value is ReLU.
const (
	ReLU     Activation = iota // max(0, z)
	Tanh                       // tanh z
	Sigmoid                    // 1/(1 + e^(−z))
	Identity                   // z (the network is then linear in its input)
)

var activationNames = [...]string{"relu", "tanh", "sigmoid", "identity"}

func (a Activation) String() string {
	if a < 0 || int(a) >= len(activationNames) {
		return "Activation(" + strconv.Itoa(int(a)) + ")"
	}
	return activationNames[a]
}

// ParseActivation returns the activation named s: relu, tanh, sigmoid or
// identity.
func ParseActivation(s string) (Activation, error) {
	for i, n := range activationNames {
		if strings.EqualFold(s, n) {
			return Activation(i), nil
		}
	}
	return 0, fmt.Errorf("activation %q: expected one of relu, tanh, sigmoid, identity", s)
}

// Likelihood is the observation model of an [MLP] given its output f.
type Likelihood int

// Likelihoods. The zero value is LikGaussian.
const (
	// LikGaussian: y ~ N(f, σ²), one output; σ² fixed or learned.
	LikGaussian Likelihood = iota
	// LikBernoulli: P(y = 1) = σ(f), one output (the logit); labels 0/1 or −1/+1.
	LikBernoulli
	// LikCategorical: P(y = k) = softmax(f)ₖ, K outputs; labels 0, …, K−1.
	LikCategorical
)

var likelihoodNames = [...]string{"gaussian", "bernoulli", "categorical"}

func (l Likelihood) String() string {
	if l < 0 || int(l) >= len(likelihoodNames) {
		return "Likelihood(" + strconv.Itoa(int(l)) + ")"
	}
	return likelihoodNames[l]
}

// ParseLikelihood returns the likelihood named s: gaussian, bernoulli or
// categorical.
func ParseLikelihood(s string) (Likelihood, error) {
	for i, n := range likelihoodNames {
		if strings.EqualFold(s, n) {
			return Likelihood(i), nil
		}
	}
	return 0, fmt.Errorf("likelihood %q: expected one of gaussian, bernoulli, categorical", s)
}

// MLPOptions are the settings of an [MLP]. The zero value is a network with
// no hidden layer, Gaussian likelihood with σ² = 1 and a N(0, 1) prior.
type MLPOptions struct {
	Hidden     []int      // widths of the hidden layers, input to output
	Activation Activation // of every hidden layer; the output layer is linear
	Likelihood Likelihood
	// Classes is K for the categorical likelihood; 0 means the largest label
	// plus one.
	Classes int
	// NoiseVar is the fixed noise variance σ² of the Gaussian likelihood, in
	// y's units; 0 means 1 (with StandardizeY: 1 in the standardised units,
	// the variance of y). With LearnNoise it is only the initial value of σ².
	NoiseVar float64
	// LearnNoise makes γ = log σ² a parameter (the last one, "log_sigma2")
	// with prior γ ~ N(LogNoiseMean, LogNoiseSD²) (LogNoiseSD 0 means 1).
	LearnNoise   bool
	LogNoiseMean float64
	LogNoiseSD   float64
	// PriorScale is the prior standard deviation s of the weights and biases:
	// nil means 1 for all, one value is used for every layer, otherwise one
	// value per layer (len(Hidden)+1), input layer first.
	PriorScale []float64
	// FanIn scales the prior of each layer's weights by its fan-in: W⁽ˡ⁾ ~
	// N(0, sₗ²/inₗ), biases N(0, sₗ²), so that every unit's pre-activation has
	// prior variance about sₗ²(1 + Var a) whatever the width (the scaling of
	// Neal 1996 and of He/Glorot initialisation). See [MLPDefaults].
	FanIn bool
	// ScaleShape a > 0 makes the prior of the weights hierarchical: each
	// group (the weights of a layer; its biases) shares a precision τ ~
	// Gamma(a, a) (mean 1), w | τ ~ N(0, σ₀²/τ) with σ₀ the fixed prior's sd
	// above, so that the data set each layer's scale (MacKay 1992, Neal 1996:
	// the scale of a network's prior is not known in advance). τ is
	// integrated out analytically: the group's prior is the multivariate
	// Student-t
	//
	//	log p(w) = log Γ(a + k/2) − log Γ(a) + a log a − (k/2) log 2π − Σ log σ₀ⱼ
	//	           − (a + k/2) log(a + Q/2),  Q = Σⱼ (wⱼ/σ₀ⱼ)²,
	//
	// k the group's size, so no parameter is added and no sampler sees a
	// funnel. 0 means the fixed Gaussian prior.
	ScaleShape float64
	// PriorWhy is the reason of the prior's scales, printed by
	// [MLP.PriorString] ([MLPDefaults] sets it).
	PriorWhy string
	// StandardizeY (Gaussian likelihood) fits the network to z = (y − ȳ)/s_y,
	// ȳ and s_y the mean and sd of the training responses: f and σ² (and the
	// prior of log σ²) are in z's units inside θ, while LogLik stays the
	// log-density of y (it subtracts n·log s_y) and RegressionMean, Output,
	// NoiseVar and the derived sigma2 are in y's units. s_y is the
	// population sd (divisor n), the rule of data.Scaler.FitTarget, the
	// response standardisation's home (the UCI protocol's numpy std, and
	// scikit-learn's StandardScaler).
	StandardizeY bool
	// Hetero (Gaussian likelihood) makes the noise heteroscedastic: the
	// output layer has two units, the mean μ(x) and s(x) = log σ²(x) (in
	// the standardised units with StandardizeY), and
	//
	//	log p(y|x, θ) = −½ log 2π − ½ s(x) − ½ (y − μ(x))² e^{−s(x)}
	//
	// (Nix & Weigend 1994; the deep ensembles of Lakshminarayanan et al.
	// 2017). The variance head has the prior of the mean head (the output
	// layer's scale, by fan-in): its bias is then N(0, s²), with the
	// regression default s = 2 the prior N(0, 2²) of the homoscedastic
	// model's log σ², and its weights let log σ² vary over the inputs by
	// about as much as the mean does in the standardised units. NoiseVar
	// and LearnNoise are not used (there is no log_sigma2 parameter).
	Hetero bool
	// YStandardized (with StandardizeY) says that the caller has already
	// standardised the responses by that rule (langevin run: data.Scaler,
	// whose Target methods convert the scores back): the model takes them
	// as z, with ȳ = 0 and s_y = 1, instead of standardising them again, and
	// LogLik, the predictions, NoiseVar and sigma2 are in z's units; so is
	// the NoiseVar option (the caller divides y's σ² by s_y²: fit does for
	// --noise-var, and prints sigma2 times s_y²).
	YStandardized bool
}

// MLP is a Bayesian multilayer perceptron (a fully connected feed-forward
// network) with L = len(Hidden)+1 dense layers
//
//	a⁽⁰⁾ = x,  a⁽ˡ⁾ = h(W⁽ˡ⁾ a⁽ˡ⁻¹⁾ + b⁽ˡ⁾) for l < L,  f = W⁽ᴸ⁾ a⁽ᴸ⁻¹⁾ + b⁽ᴸ⁾,
//
// activation h, and one of the likelihoods
//
//	Gaussian:    log p(y|f) = −½ log(2πσ²) − (y − f)²/(2σ²),
//	Bernoulli:   log p(y|f) = log σ(s f) = −softplus(−s f), s = ±1 the label's sign,
//	Categorical: log p(y=k|f) = fₖ − log Σⱼ exp fⱼ.
//
// The prior is N(0, sₗ² I) on the weights and biases of layer l and, with a
// learned noise, γ = log σ² ~ N(μ_γ, s_γ²). LogPrior includes the normalising
// constants; LogLik includes them for the Gaussian likelihood.
//
// Parameters, in this order: for each layer l = 1, …, L, the weights W⁽ˡ⁾
// row by row, named w.<l>.<out>.<in>, then its biases b.<l>.<out> (all
// 1-based), and finally log_sigma2 when the noise is learned. The weights of
// layer l form a row-major (out × in) matrix inside θ.
//
// The gradient is computed by backpropagation with matrix products on the
// minibatch (gonum BLAS, see gemm):
//
//	δ⁽ᴸ⁾ = ∂ log p(y|f)/∂f, ∇W⁽ˡ⁾ = δ⁽ˡ⁾ᵀ a⁽ˡ⁻¹⁾, ∇b⁽ˡ⁾ = Σᵢ δᵢ⁽ˡ⁾,
//	δ⁽ˡ⁻¹⁾ = (δ⁽ˡ⁾ W⁽ˡ⁾) ⊙ h′(a⁽ˡ⁻¹⁾),
//
// with h′ written in terms of the activation: relu 1[a > 0], tanh 1 − a²,
// sigmoid a(1 − a). Rows are processed in chunks of up to 128.
//
// Concurrency and allocation: an MLP is read-only after construction and safe
// for concurrent use, as langevin.Run needs (chains share the model). The
// forward and backward buffers are workspaces taken from a free list for the
// duration of one call and returned afterwards, so each concurrent caller
// (chain) holds its own workspace while it computes. The list grows to the
// largest number of concurrent callers seen and is then reused; unlike a
// sync.Pool it is not emptied by the garbage collector, so LogLik allocates
// nothing in steady state. Results never depend on which workspace is used.
type MLP struct {
	x    []float64 // n×p row-major
	y    []float64 // Gaussian: response; Bernoulli: ±1; categorical: class index
	n, p int

	sizes []int // p, hidden…, out
	off   []int // off[l-1]: offset of W⁽ˡ⁾ in θ; its biases follow
	dim   int
	act   Activation
	lik   Likelihood
	het   bool // Hetero: output 2 is log σ²(x)

	noiseVar     float64
	learn        bool
	lgMean, lgSD float64
	scale        []float64 // per layer: prior sd of the weights
	bscale       []float64 // per layer: prior sd of the biases
	fanIn        bool
	shape        float64 // ScaleShape a (0: fixed Gaussian prior)
	priorWhy     string
	yMean, ySD   float64 // the responses' standardisation (0, 1 without)
	std          bool    // StandardizeY: the network fits standardised responses
	logSDY       float64 // log ySD
	priorC       float64 // normalising constant of the prior
	maxInner     int     // widest layer after the input
	pool         workPool
}

const mlpChunk = 128

// NewMLP returns the network for the rows of X (shared when X is contiguous: X must not change while the model is in use) and the responses y:
// real numbers for the Gaussian likelihood, 0/1 or −1/+1 for Bernoulli (a
// *LabelError otherwise), and class indices 0, …, K−1 for categorical.
func NewMLP(X *mat.Dense, y []float64, opt MLPOptions) (*MLP, error) {
	if y == nil {
		return nil, fmt.Errorf("model: MLP: no responses")
	}
	ds, err := newDesign("MLP", X, y, false)
	if err != nil {
		return nil, err
	}
	m := &MLP{x: ds.x, n: ds.n, p: ds.p, act: opt.Activation, lik: opt.Likelihood}
	if opt.Activation < 0 || opt.Activation > Identity {
		return nil, fmt.Errorf("model: MLP: unknown activation %v", opt.Activation)
	}
	out := 1
	m.y = make([]float64, len(y))
	switch opt.Likelihood {
	case LikGaussian:
		copy(m.y, y)
		m.yMean, m.ySD = 0, 1
		m.std = opt.StandardizeY
		if opt.StandardizeY && !opt.YStandardized {
			m.yMean, m.ySD = meanSD(y)
			if !(m.ySD > 0) || math.IsInf(m.ySD, 0) {
				return nil, fmt.Errorf("model: MLP: StandardizeY: the responses have sd %v: expected a positive finite sd (constant responses cannot be standardised)", m.ySD)
			}
			for i, v := range y {
				m.y[i] = (v - m.yMean) / m.ySD
			}
		}
	case LikBernoulli:
		if err := CheckLabels(y); err != nil {
			return nil, err
		}
		for i, v := range y {
			m.y[i] = sign(v)
		}
	case LikCategorical:
		k := 0
		for i, v := range y {
			if v < 0 || v != math.Trunc(v) || v > 1e6 {
				return nil, fmt.Errorf("model: MLP: row %d: label %g: the categorical likelihood expects class indices 0, 1, …, K−1", i+1, v)
			}
			k = max(k, int(v)+1)
		}
		if opt.Classes != 0 {
			if opt.Classes < 2 {
				return nil, fmt.Errorf("model: MLP: Classes = %d: expected at least 2", opt.Classes)
			}
			if k > opt.Classes {
				return nil, fmt.Errorf("model: MLP: label %d: expected class indices 0, …, %d (Classes = %d)", k-1, opt.Classes-1, opt.Classes)
			}
			k = opt.Classes
		}
		if k < 2 {
			return nil, fmt.Errorf("model: MLP: categorical likelihood with %d class: expected at least 2", k)
		}
		copy(m.y, y)
		out = k
	default:
		return nil, fmt.Errorf("model: MLP: unknown likelihood %v", opt.Likelihood)
	}
	if opt.Likelihood != LikGaussian {
		m.yMean, m.ySD = 0, 1
	}
	if opt.Likelihood != LikGaussian && opt.StandardizeY {
		return nil, fmt.Errorf("model: MLP: StandardizeY needs the Gaussian likelihood, not %v", opt.Likelihood)
	}
	if opt.Likelihood != LikGaussian && opt.LearnNoise {
		return nil, fmt.Errorf("model: MLP: LearnNoise needs the Gaussian likelihood, not %v", opt.Likelihood)
	}
	if opt.Hetero {
		if opt.Likelihood != LikGaussian {
			return nil, fmt.Errorf("model: MLP: Hetero needs the Gaussian likelihood, not %v", opt.Likelihood)
		}
		if opt.LearnNoise {
			return nil, fmt.Errorf("model: MLP: Hetero and LearnNoise: the heteroscedastic network's noise is its second output, not a log_sigma2 parameter")
		}
		m.het = true
		out = 2
	}
	m.sizes = append(append([]int{ds.p}, opt.Hidden...), out)
	for l, h := range opt.Hidden {
		if h <= 0 {
			return nil, fmt.Errorf("model: MLP: hidden layer %d has width %d: expected a positive number", l+1, h)
		}
	}
	if _, err := mlpParams(m.sizes); err != nil {
		return nil, err
	}
	L := len(m.sizes) - 1
	m.off = make([]int, L)
	for l := 1; l <= L; l++ {
		m.off[l-1] = m.dim
		m.dim += m.sizes[l]*m.sizes[l-1] + m.sizes[l]
	}
	for _, s := range m.sizes[1:] {
		m.maxInner = max(m.maxInner, s)
	}

	m.noiseVar = opt.NoiseVar
	if m.noiseVar == 0 {
		m.noiseVar = 1
	}
	if !(m.noiseVar > 0) || math.IsInf(m.noiseVar, 0) {
		return nil, fmt.Errorf("model: MLP: NoiseVar = %v: expected a positive finite number (0 for 1)", opt.NoiseVar)
	}
	if opt.NoiseVar != 0 {
		m.noiseVar /= m.ySD * m.ySD // given in y's units
	}
	if opt.LearnNoise {
		m.learn = true
		m.lgMean, m.lgSD = opt.LogNoiseMean, opt.LogNoiseSD
		if m.lgSD == 0 {
			m.lgSD = 1
		}
		if !(m.lgSD > 0) || math.IsInf(m.lgSD, 0) || math.IsNaN(m.lgMean) || math.IsInf(m.lgMean, 0) {
			return nil, fmt.Errorf("model: MLP: log-noise prior N(%v, %v²): expected a finite mean and a positive finite sd", opt.LogNoiseMean, opt.LogNoiseSD)
		}
		m.dim++
	}

	m.scale = make([]float64, L)
	switch len(opt.PriorScale) {
	case 0:
		for l := range m.scale {
			m.scale[l] = 1
		}
	case 1:
		for l := range m.scale {
			m.scale[l] = opt.PriorScale[0]
		}
	case L:
		copy(m.scale, opt.PriorScale)
	default:
		return nil, fmt.Errorf("model: MLP: %d prior scales: expected 1 or one per layer (%d)", len(opt.PriorScale), L)
	}
	m.fanIn = opt.FanIn
	m.bscale = make([]float64, L)
	for l, s := range m.scale {
		if !(s > 0) || math.IsInf(s, 0) {
			return nil, fmt.Errorf("model: MLP: prior scale of layer %d is %v: expected a positive finite number", l+1, s)
		}
		m.bscale[l] = s
		if m.fanIn {
			m.scale[l] = s / math.Sqrt(float64(m.sizes[l]))
		}
		kw, kb := float64(m.sizes[l+1]*m.sizes[l]), float64(m.sizes[l+1])
		m.priorC += -(kw+kb)/2*log2Pi - kw*math.Log(m.scale[l]) - kb*math.Log(m.bscale[l])
		if opt.ScaleShape > 0 {
			for _, k := range [2]float64{kw, kb} {
				a := opt.ScaleShape
				lg1, _ := math.Lgamma(a + k/2)
				lg0, _ := math.Lgamma(a)
				m.priorC += lg1 - lg0 + a*math.Log(a)
			}
		}
	}
	if s := opt.ScaleShape; s < 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return nil, fmt.Errorf("model: MLP: ScaleShape %v: expected a positive finite number (0: a fixed prior)", s)
	}
	m.shape = opt.ScaleShape
	m.priorWhy = opt.PriorWhy
	if m.learn {
		m.priorC += -0.5*log2Pi - math.Log(m.lgSD)
	}
	m.logSDY = math.Log(m.ySD)
	m.pool.m = m
	return m, nil
}

// meanSD returns the mean and the sd (divisor n) of v.
// meanSD returns the mean and the population sd (divisor n) of v: the rule
// of data.Scaler.FitTarget (a model does not import data).
func meanSD(v []float64) (mean, sd float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(v)))
}

// MaxMLPParams bounds the weights and biases of an MLP: 2³⁰ (8 GiB for one
// θ in float64; a sampler holds several, a run many draws).
const MaxMLPParams = 1 << 30

// mlpParams returns the weights and biases of a network with layer widths
// sizes (input first), or an error when they pass MaxMLPParams (widths
// read from a file must not overflow int into a negative dimension).
func mlpParams(sizes []int) (int, error) {
	n := 0
	for l := 1; l < len(sizes); l++ {
		a, b := sizes[l-1], sizes[l]
		if a < 0 || b < 0 || b > MaxMLPParams || (a > 0 && b > (MaxMLPParams-n)/a) || n+a*b+b > MaxMLPParams {
			return 0, fmt.Errorf("model: MLP: layer widths %v: more than 2^30 = %d weights and biases", sizes, MaxMLPParams)
		}
		n += a*b + b
	}
	return n, nil
}

// layerLen is the number of parameters of layer l (1-based).
func (m *MLP) layerLen(l int) int { return m.sizes[l]*m.sizes[l-1] + m.sizes[l] }

// Dim returns the number of parameters.
func (m *MLP) Dim() int { return m.dim }

// Len returns the number of observations n.
func (m *MLP) Len() int { return m.n }

// Layers returns the layer widths: inputs, hidden widths, outputs.
func (m *MLP) Layers() []int { return append([]int(nil), m.sizes...) }

// Outputs returns the number of outputs: 1, or K for the categorical likelihood.
func (m *MLP) Outputs() int { return m.sizes[len(m.sizes)-1] }

// Activation returns the hidden layers' activation.
func (m *MLP) Activation() Activation { return m.act }

// Likelihood returns the likelihood.
func (m *MLP) Likelihood() Likelihood { return m.lik }

// LearnsNoise reports whether log σ² is a parameter.
func (m *MLP) LearnsNoise() bool { return m.learn }

// ParamNames returns w.<l>.<out>.<in> and b.<l>.<out> layer by layer, then
// log_sigma2 when the noise is learned.
func (m *MLP) ParamNames() []string {
	names := make([]string, 0, m.dim)
	for l := 1; l < len(m.sizes); l++ {
		ls := strconv.Itoa(l)
		for o := 1; o <= m.sizes[l]; o++ {
			os := strconv.Itoa(o)
			for i := 1; i <= m.sizes[l-1]; i++ {
				names = append(names, "w."+ls+"."+os+"."+strconv.Itoa(i))
			}
		}
		for o := 1; o <= m.sizes[l]; o++ {
			names = append(names, "b."+ls+"."+strconv.Itoa(o))
		}
	}
	if m.learn {
		names = append(names, "log_sigma2")
	}
	return names
}

// DerivedNames returns sigma2 when the noise is learned, and nothing
// otherwise.
func (m *MLP) DerivedNames() []string {
	if m.learn {
		return []string{"sigma2"}
	}
	return nil
}

// Derive writes σ² = exp(log_sigma2) when the noise is learned.
func (m *MLP) Derive(theta, dst []float64) {
	if m.learn {
		dst[0] = math.Exp(theta[m.dim-1]) * m.ySD * m.ySD
	}
}

// NoiseVar returns the Gaussian noise variance σ² at θ (fixed, or
// exp(log_sigma2) when learned), in y's units (times s_y² with
// StandardizeY); it is 0 for the other likelihoods.
func (m *MLP) NoiseVar(theta []float64) float64 {
	switch {
	case m.lik != LikGaussian:
		return 0
	case m.learn:
		return math.Exp(theta[m.dim-1]) * m.ySD * m.ySD
	case m.het:
		// The mean of σ²(x) over the training rows: a summary (one
		// forward pass over the data); predictions use NoiseVars.
		v := make([]float64, m.n)
		m.NoiseVars(theta, m.Inputs(nil), v)
		var s float64
		for _, x := range v {
			s += x
		}
		return s / float64(m.n)
	}
	return m.noiseVar * m.ySD * m.ySD
}

// checkRegression panics unless the likelihood is Gaussian and dst has one
// value per row of X (programmer errors of the regression predictions).
func (m *MLP) checkRegression(who string, X *mat.Dense, dst []float64) {
	if m.lik != LikGaussian {
		panic("model: " + who + ": needs the Gaussian likelihood, not " + m.lik.String())
	}
	if n, _ := X.Dims(); len(dst) != n {
		panic(fmt.Sprintf("model: %s: len(dst) = %d, want %d", who, len(dst), n))
	}
}

// Hetero reports whether the noise is heteroscedastic (MLPOptions.Hetero).
func (m *MLP) Hetero() bool { return m.het }

// NoiseVars writes the Gaussian noise variance σ²(xᵢ) at θ of each row of X
// into dst, in y's units: exp of the second output with Hetero, else
// NoiseVar(θ) on every row (package predict's per-point noise). It panics
// for the other likelihoods.
func (m *MLP) NoiseVars(theta []float64, X *mat.Dense, dst []float64) {
	m.checkRegression("MLP NoiseVars", X, dst)
	if !m.het {
		v := m.NoiseVar(theta)
		for i := range dst {
			dst[i] = v
		}
		return
	}
	s2 := m.ySD * m.ySD
	m.outputs("MLP NoiseVars", theta, X, func(i0, r int, f []float64) {
		for k := 0; k < r; k++ {
			dst[i0+k] = math.Exp(f[2*k+1]) * s2
		}
	})
}

// NoiseString says what the noise of a Gaussian network is, for a run's
// header: "σ² learned", "σ² fixed at v" or the heteroscedastic head.
func (m *MLP) NoiseString() string {
	switch {
	case m.lik != LikGaussian:
		return ""
	case m.het:
		return "heteroscedastic noise: log σ²(x) is the network's second output"
	case m.learn:
		return "homoscedastic noise: log σ² a parameter (log_sigma2)"
	}
	return fmt.Sprintf("homoscedastic noise: σ² fixed at %g", m.noiseVar*m.ySD*m.ySD)
}

// LogPrior returns Σₗ log N(Wₗ; 0, sₗ² I) + log N(bₗ; 0, sₗ² I) (sₗ/√inₗ for
// the weights with FanIn) (+ log N(γ; μ_γ, s_γ²)) and adds its gradient
// (−θⱼ/sⱼ², −(γ − μ_γ)/s_γ²) into grad.
func (m *MLP) LogPrior(theta, grad []float64) float64 {
	lp := m.priorC
	for l := 1; l < len(m.sizes); l++ {
		lo, mid, hi := m.off[l-1], m.off[l-1]+m.sizes[l]*m.sizes[l-1], m.off[l-1]+m.layerLen(l)
		for _, part := range [2]struct {
			lo, hi int
			s      float64
		}{{lo, mid, m.scale[l-1]}, {mid, hi, m.bscale[l-1]}} {
			c := 1 / (part.s * part.s)
			var ss float64
			for _, v := range theta[part.lo:part.hi] {
				ss += v * v
			}
			if m.shape > 0 {
				// Student-t of the group: −(a + k/2) log(a + Q/2); its
				// gradient is that of a Gaussian of precision c·(a + k/2)/(a + Q/2).
				k := float64(part.hi - part.lo)
				r := m.shape + 0.5*c*ss
				lp -= (m.shape + k/2) * math.Log(r)
				c *= (m.shape + k/2) / r
				if grad != nil {
					g := grad[part.lo:part.hi]
					for j, v := range theta[part.lo:part.hi] {
						g[j] -= c * v
					}
				}
				continue
			}
			lp -= 0.5 * c * ss
			if grad != nil {
				g := grad[part.lo:part.hi]
				for j, v := range theta[part.lo:part.hi] {
					g[j] -= c * v
				}
			}
		}
	}
	if m.learn {
		z := (theta[m.dim-1] - m.lgMean) / m.lgSD
		lp -= 0.5 * z * z
		if grad != nil {
			grad[m.dim-1] -= z / m.lgSD
		}
	}
	return lp
}

// workPool is a mutex-guarded free list of workspaces.
type workPool struct {
	m    *MLP
	mu   sync.Mutex
	free []*mlpWork
}

func (p *workPool) get() *mlpWork {
	p.mu.Lock()
	if k := len(p.free); k > 0 {
		w := p.free[k-1]
		p.free = p.free[:k-1]
		p.mu.Unlock()
		return w
	}
	p.mu.Unlock()
	return p.m.newWork()
}

func (p *workPool) put(w *mlpWork) {
	p.mu.Lock()
	p.free = append(p.free, w)
	p.mu.Unlock()
}

// mlpWork holds the buffers of one forward and backward pass over a chunk
// of up to mlpChunk rows.
type mlpWork struct {
	in     []float64   // mlpChunk × p: gathered input rows
	a      [][]float64 // a[l]: mlpChunk × sizes[l] activations, l = 1…L (a[0] unused)
	d1, d2 []float64   // mlpChunk × maxWidth: δ buffers
}

func (m *MLP) newWork() *mlpWork {
	w := &mlpWork{
		in: make([]float64, mlpChunk*m.p),
		a:  make([][]float64, len(m.sizes)),
		d1: make([]float64, mlpChunk*m.maxInner),
		d2: make([]float64, mlpChunk*m.maxInner),
	}
	for l := 1; l < len(m.sizes); l++ {
		w.a[l] = make([]float64, mlpChunk*m.sizes[l])
	}
	return w
}

// forward runs the network on r rows whose inputs are x (r × p, row-major)
// and leaves the activations in w.a; w.a[L] holds the outputs f.
func (m *MLP) forward(theta []float64, x []float64, r int, w *mlpWork) {
	prev, in := m.forwardHidden(theta, x, r, w)
	m.affine(theta, len(m.sizes)-1, prev, in, r, w)
}

// forwardHidden runs the hidden layers of the network on r rows whose
// inputs are x, leaving their activations in w.a[1…L−1] (forward without
// the output layer), and returns the last hidden layer's activations (x
// for a network without hidden layers) and their width.
func (m *MLP) forwardHidden(theta []float64, x []float64, r int, w *mlpWork) (prev []float64, in int) {
	prev, in = x, m.p
	for l := 1; l < len(m.sizes)-1; l++ {
		z := m.affine(theta, l, prev, in, r, w)
		activate(m.act, z)
		prev, in = z, m.sizes[l]
	}
	return prev, in
}

// affine computes layer l's pre-activations on r rows into w.a[l]:
// Z = A Wᵀ + 1 bᵀ, (r × in)(in × out), A the r × in activations of layer
// l − 1 (the inputs x for l = 1). It returns Z.
func (m *MLP) affine(theta []float64, l int, prev []float64, in, r int, w *mlpWork) []float64 {
	out := m.sizes[l]
	W := theta[m.off[l-1] : m.off[l-1]+out*in]
	b := theta[m.off[l-1]+out*in : m.off[l-1]+out*in+out]
	z := w.a[l][:r*out]
	for i := 0; i < r; i++ {
		copy(z[i*out:(i+1)*out], b)
	}
	gemm(blas.NoTrans, blas.Trans, r, out, in, prev, in, W, in, 1, z, out)
	return z
}

// activate applies h in place.
func activate(h Activation, z []float64) {
	switch h {
	case ReLU:
		// max, not a conditional store: the signs of a layer's
		// pre-activations are random, so a branch is mispredicted half the
		// time. max(−0, 0) = +0 where the branch kept −0: equal as numbers.
		for i, v := range z {
			z[i] = max(v, 0)
		}
	case Tanh:
		for i, v := range z {
			z[i] = math.Tanh(v)
		}
	case Sigmoid:
		for i, v := range z {
			z[i] = sigmoid(v)
		}
	}
}

// activateDeriv multiplies d by h′ written in terms of the activations a.
func activateDeriv(h Activation, d, a []float64) {
	a = a[:len(d)]
	switch h {
	case ReLU:
		// h′ = 0 where a ≤ 0, else 1 (NaN keeps d): a bit mask chosen by a
		// conditional move instead of a conditional store (see activate);
		// it writes +0 where the branch wrote 0.
		for i, v := range a {
			mask := ^uint64(0)
			if v <= 0 {
				mask = 0
			}
			d[i] = math.Float64frombits(math.Float64bits(d[i]) & mask)
		}
	case Tanh:
		for i, v := range a {
			d[i] *= 1 - v*v
		}
	case Sigmoid:
		for i, v := range a {
			d[i] *= v * (1 - v)
		}
	}
}

// LogLik returns Σ_{i∈batch} log p(yᵢ | f(xᵢ; θ)) and adds its gradient,
// computed by backpropagation, into grad. A nil batch means all observations.
// It allocates nothing in steady state.
func (m *MLP) LogLik(theta []float64, batch []int, grad []float64) float64 {
	w := m.pool.get()
	defer m.pool.put(w)
	var ll float64
	if batch == nil {
		for i0 := 0; i0 < m.n; i0 += mlpChunk {
			r := min(mlpChunk, m.n-i0)
			ll += m.chunk(theta, m.x[i0*m.p:(i0+r)*m.p], nil, i0, r, grad, w)
		}
		return ll
	}
	for i0 := 0; i0 < len(batch); i0 += mlpChunk {
		rows := batch[i0:min(len(batch), i0+mlpChunk)]
		p := m.p
		for k, i := range rows {
			copy(w.in[k*p:(k+1)*p], m.x[i*p:(i+1)*p])
		}
		ll += m.chunk(theta, w.in[:len(rows)*p], rows, 0, len(rows), grad, w)
	}
	return ll
}

// chunk evaluates r rows with inputs x; the responses are y[rows[k]], or
// y[i0+k] when rows is nil.
func (m *MLP) chunk(theta, x []float64, rows []int, i0, r int, grad []float64, w *mlpWork) float64 {
	m.forward(theta, x, r, w)
	L := len(m.sizes) - 1
	out := m.sizes[L]
	f := w.a[L][:r*out]
	var delta []float64
	if grad != nil {
		delta = w.d1[:r*out]
	}
	var ll, dgamma float64
	sigma2 := m.noiseVar
	if m.learn {
		sigma2 = math.Exp(theta[m.dim-1])
	}
	for k := 0; k < r; k++ {
		i := i0 + k
		if rows != nil {
			i = rows[k]
		}
		y := m.y[i]
		switch m.lik {
		case LikGaussian:
			if m.het {
				// s = log σ²(x): δμ = r e^{−s}, δs = ½(r² e^{−s} − 1).
				s := f[2*k+1]
				res := y - f[2*k]
				e := math.Exp(-s)
				ll -= 0.5*(log2Pi+s+res*res*e) + m.logSDY
				if delta != nil {
					delta[2*k] = res * e
					delta[2*k+1] = 0.5 * (res*res*e - 1)
				}
				continue
			}
			res := y - f[k]
			ll -= 0.5*(log2Pi+math.Log(sigma2)+res*res/sigma2) + m.logSDY
			if delta != nil {
				delta[k] = res / sigma2
				dgamma += 0.5 * (res*res/sigma2 - 1)
			}
		case LikBernoulli:
			t := y * f[k]
			e := math.Exp(-math.Abs(t))
			ll -= max(-t, 0) + math.Log(1+e)
			if delta != nil {
				c := y / (1 + e) // y σ(−t)
				if t >= 0 {
					c *= e
				}
				delta[k] = c
			}
		case LikCategorical:
			fk := f[k*out : (k+1)*out]
			mx := fk[0]
			for _, v := range fk[1:] {
				mx = max(mx, v)
			}
			var s float64
			for _, v := range fk {
				s += math.Exp(v - mx)
			}
			lse := mx + math.Log(s)
			c := int(y)
			ll += fk[c] - lse
			if delta != nil {
				dk := delta[k*out : (k+1)*out]
				for j, v := range fk {
					dk[j] = -math.Exp(v - lse)
				}
				dk[c]++
			}
		}
	}
	if grad == nil {
		return ll
	}
	if m.learn {
		grad[m.dim-1] += dgamma
	}
	m.backward(theta, x, r, w, grad)
	return ll
}

// backward propagates δ⁽ᴸ⁾ (in w.d1) down the network and adds the weight
// and bias gradients into grad.
func (m *MLP) backward(theta, x []float64, r int, w *mlpWork, grad []float64) {
	d, spare := w.d1, w.d2
	for l := len(m.sizes) - 1; l >= 1; l-- {
		out, in := m.sizes[l], m.sizes[l-1]
		prev := x
		if l > 1 {
			prev = w.a[l-1][:r*in]
		}
		dl := d[:r*out]
		o := m.off[l-1]
		// ∇W += δᵀ A: (out × r)(r × in).
		gemm(blas.Trans, blas.NoTrans, out, in, r, dl, out, prev, in, 1, grad[o:o+out*in], in)
		gb := grad[o+out*in : o+out*in+out]
		for k := 0; k < r; k++ {
			for j, v := range dl[k*out : (k+1)*out] {
				gb[j] += v
			}
		}
		if l == 1 {
			break
		}
		// δ⁽ˡ⁻¹⁾ = (δ W) ⊙ h′: (r × out)(out × in).
		next := spare[:r*in]
		gemm(blas.NoTrans, blas.NoTrans, r, in, out, dl, out, theta[o:o+out*in], in, 0, next, in)
		activateDeriv(m.act, next, prev)
		d, spare = spare, d
	}
}

// Output writes the network outputs f(xᵢ; θ) of the rows of X into dst (n ×
// Outputs(), allocated when nil) and returns it: the mean for the Gaussian
// likelihood (then, with Hetero, log σ²(x), both in y's units), the logit
// for Bernoulli, the K logits for categorical.
func (m *MLP) Output(theta []float64, X *mat.Dense, dst *mat.Dense) *mat.Dense {
	n, _ := X.Dims()
	out := m.Outputs()
	if dst == nil {
		dst = mat.NewDense(n, out, nil)
	} else if r, c := dst.Dims(); r != n || c != out {
		panic(fmt.Sprintf("model: MLP Output: dst is %d×%d, want %d×%d", r, c, n, out))
	}
	m.outputs("MLP Output", theta, X, func(i0, r int, f []float64) {
		for k := 0; k < r; k++ {
			dst.SetRow(i0+k, f[k*out:(k+1)*out])
			if m.lik == LikGaussian {
				dst.Set(i0+k, 0, m.yMean+m.ySD*f[k*out])
			}
			if m.het {
				dst.Set(i0+k, 1, f[k*out+1]+2*m.logSDY)
			}
		}
	})
	return dst
}

// GlorotInit writes a Glorot (Xavier) uniform initialisation into dst:
// weights of layer l ~ U(−a, a), a = √(6/(in + out)), biases 0, and log σ² =
// log NoiseVar when the noise is learned.
func (m *MLP) GlorotInit(dst []float64, rng *rand.Rand) {
	for l := 1; l < len(m.sizes); l++ {
		out, in := m.sizes[l], m.sizes[l-1]
		a := math.Sqrt(6 / float64(in+out))
		o := m.off[l-1]
		for j := range dst[o : o+out*in] {
			dst[o+j] = a * (2*rng.Float64() - 1)
		}
		clear(dst[o+out*in : o+out*in+out])
	}
	if m.learn {
		dst[m.dim-1] = math.Log(m.noiseVar)
	}
}

// InitGlorot is a langevin.Initializer that starts each chain at its own
// Glorot initialisation; the model must be an *MLP.
type InitGlorot struct{}

// Init implements langevin.Initializer.
func (InitGlorot) Init(_ context.Context, m langevin.Model, _ int, rng *rand.Rand, dst []float64) error {
	mlp, ok := m.(*MLP)
	if !ok {
		return fmt.Errorf("model: Glorot initialisation needs an MLP, not %T", m)
	}
	mlp.GlorotInit(dst, rng)
	return nil
}

// SamplePrior draws θ from the prior into dst.
func (m *MLP) SamplePrior(dst []float64, rng *rand.Rand) {
	for l := 1; l < len(m.sizes); l++ {
		o, nw := m.off[l-1], m.sizes[l]*m.sizes[l-1]
		tw, tb := 1.0, 1.0 // the groups' precisions (hierarchical prior)
		if m.shape > 0 {
			tw, tb = gammaRand(m.shape, rng)/m.shape, gammaRand(m.shape, rng)/m.shape
		}
		for j := range dst[o : o+m.layerLen(l)] {
			s := m.scale[l-1] / math.Sqrt(tw)
			if j >= nw {
				s = m.bscale[l-1] / math.Sqrt(tb)
			}
			dst[o+j] = s * rng.NormFloat64()
		}
	}
	if m.learn {
		dst[m.dim-1] = m.lgMean + m.lgSD*rng.NormFloat64()
	}
}

// gammaRand draws from Gamma(a, 1) (Marsaglia & Tsang 2000; for a < 1 the
// boost U^{1/a}).
func gammaRand(a float64, rng *rand.Rand) float64 {
	boost := 1.0
	if a < 1 {
		boost = math.Pow(rng.Float64(), 1/a)
		a++
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return boost * d * v
		}
	}
}

// outputs runs the network on the rows of X chunk by chunk and calls fn with
// the first row index and the outputs (r × Outputs(), row-major) of each
// chunk.
func (m *MLP) outputs(who string, theta []float64, X *mat.Dense, fn func(i0, r int, f []float64)) {
	checkTheta(who, theta, m.dim)
	n, p := X.Dims()
	if p != m.p {
		panic(fmt.Sprintf("model: %s: feature matrix has %d columns, model has %d features", who, p, m.p))
	}
	w := m.pool.get()
	defer m.pool.put(w)
	out := m.Outputs()
	L := len(m.sizes) - 1
	for i0 := 0; i0 < n; i0 += mlpChunk {
		r := min(mlpChunk, n-i0)
		for k := 0; k < r; k++ {
			mat.Row(w.in[k*p:(k+1)*p], i0+k, X)
		}
		m.forward(theta, w.in[:r*p], r, w)
		fn(i0, r, w.a[L][:r*out])
	}
}

// NumClasses returns 2 for the Bernoulli likelihood, K for categorical and
// 0 for Gaussian.
func (m *MLP) NumClasses() int {
	switch m.lik {
	case LikBernoulli:
		return 2
	case LikCategorical:
		return m.Outputs()
	}
	return 0
}

// ClassProbs writes the class probabilities p(y = k | xᵢ, θ) of the rows of
// X into dst (n × NumClasses): (1 − σ(f), σ(f)) for Bernoulli, softmax(f)
// for categorical. It panics for the Gaussian likelihood.
func (m *MLP) ClassProbs(theta []float64, X *mat.Dense, dst *mat.Dense) {
	k := m.NumClasses()
	if k == 0 {
		panic("model: MLP ClassProbs: the Gaussian likelihood has no classes")
	}
	n, _ := X.Dims()
	if r, c := dst.Dims(); r != n || c != k {
		panic(fmt.Sprintf("model: MLP ClassProbs: dst is %d×%d, want %d×%d", r, c, n, k))
	}
	m.outputs("MLP ClassProbs", theta, X, func(i0, r int, f []float64) {
		for i := 0; i < r; i++ {
			row := dst.RawRowView(i0 + i)
			if m.lik == LikBernoulli {
				q := sigmoid(f[i])
				row[0], row[1] = 1-q, q
				continue
			}
			softmax(row, f[i*k:(i+1)*k])
		}
	})
}

// softmax writes exp(fₖ − log Σⱼ exp fⱼ) into dst.
func softmax(dst, f []float64) {
	mx := f[0]
	for _, v := range f[1:] {
		mx = max(mx, v)
	}
	var s float64
	for j, v := range f {
		dst[j] = math.Exp(v - mx)
		s += dst[j]
	}
	for j := range dst {
		dst[j] /= s
	}
}

// RegressionMean writes the network output f(xᵢ; θ), the predictive mean of
// the Gaussian likelihood, for the rows of X into dst. It panics for the
// other likelihoods.
func (m *MLP) RegressionMean(theta []float64, X *mat.Dense, dst []float64) {
	m.checkRegression("MLP RegressionMean", X, dst)
	out := m.Outputs()
	m.outputs("MLP RegressionMean", theta, X, func(i0, r int, f []float64) {
		for k := 0; k < r; k++ {
			dst[i0+k] = m.yMean + m.ySD*f[k*out]
		}
	})
}
