// Package transform maps unconstrained real vectors onto constrained
// parameters — positive, bounded, ordered, simplex, Cholesky factors of
// correlation matrices — as Stan does (Stan Reference Manual, "Constraint
// transforms"), and lays out named parameter blocks as Stan's parameters
// block does.
//
// A sampler moves θ ∈ ℝᵈ; a model reads y = f(θ). For the density of θ to
// be the density of y, the log prior gains log|det ∂y/∂θ|, the log Jacobian.
// It belongs in LogPrior, never in LogLik: stochastic-gradient samplers scale
// LogLik by N/|B|, which would count the Jacobian N/|B| times (exact samplers
// such as NUTS would be right either way, SGLD would not).
//
// Every Transform has Forward (θ → y, returning log|J|), Inverse (y → θ)
// and Backward, the reverse-mode chain rule
//
//	ḡθ += (∂y/∂θ)ᵀ ḡy + gj ∇θ log|J|,
//
// which with ḡy = 0 and gj = 1 is the gradient of log|J|; the tests check it
// against finite differences of Forward.
package transform

import (
	"fmt"
	"math"
)

// Transform maps Size unconstrained values onto Len constrained ones.
// Transforms are immutable values, safe for concurrent use.
type Transform interface {
	// Size is the number of unconstrained values.
	Size() int
	// Len is the number of constrained values.
	Len() int
	// Forward writes y = f(x) into y (len Len) and returns log|J|.
	Forward(y, x []float64) float64
	// Backward adds (∂y/∂x)ᵀ gy + gj ∇log|J| at x into gx, where y = f(x)
	// (as Forward wrote it). A nil gy counts as zero.
	Backward(gx, x, y, gy []float64, gj float64)
	// Inverse writes x = f⁻¹(y) into x (len Size), or returns an error
	// naming the first value of y outside the support.
	Inverse(x, y []float64) error
	// Prefix names the unconstrained values: "log_" + name for a lower
	// bound, "" for the identity, "free_" + name for vectors.
	Prefix() string
}

// Identity is n unconstrained reals.
type Identity int

func (t Identity) Size() int                      { return int(t) }
func (t Identity) Len() int                       { return int(t) }
func (t Identity) Prefix() string                 { return "" }
func (t Identity) Forward(y, x []float64) float64 { copy(y[:t], x[:t]); return 0 }
func (t Identity) Inverse(x, y []float64) error   { copy(x[:t], y[:t]); return nil }
func (t Identity) Backward(gx, _, _, gy []float64, _ float64) {
	if gy != nil {
		for i, g := range gy[:t] {
			gx[i] += g
		}
	}
}

// Lower is n values above a lower bound L: y = L + eˣ, log|J| = Σ x.
type Lower struct {
	L float64
	N int
}

// Positive returns n positive values, Lower{0, n}.
func Positive(n int) Lower { return Lower{0, n} }

func (t Lower) Size() int      { return t.N }
func (t Lower) Len() int       { return t.N }
func (t Lower) Prefix() string { return "log_" }
func (t Lower) Forward(y, x []float64) float64 {
	var lj float64
	for i, v := range x[:t.N] {
		y[i] = t.L + math.Exp(v)
		lj += v
	}
	return lj
}
func (t Lower) Backward(gx, x, y, gy []float64, gj float64) {
	for i := range x[:t.N] {
		g := gj
		if gy != nil {
			g += gy[i] * (y[i] - t.L)
		}
		gx[i] += g
	}
}
func (t Lower) Inverse(x, y []float64) error {
	for i, v := range y[:t.N] {
		if !(v > t.L) || math.IsInf(v, 1) {
			return fmt.Errorf("transform: value %d = %v: expected a finite number above %v", i+1, v, t.L)
		}
		x[i] = math.Log(v - t.L)
	}
	return nil
}

// Upper is n values below an upper bound U: y = U − eˣ, log|J| = Σ x.
type Upper struct {
	U float64
	N int
}

func (t Upper) Size() int      { return t.N }
func (t Upper) Len() int       { return t.N }
func (t Upper) Prefix() string { return "log_" }
func (t Upper) Forward(y, x []float64) float64 {
	var lj float64
	for i, v := range x[:t.N] {
		y[i] = t.U - math.Exp(v)
		lj += v
	}
	return lj
}
func (t Upper) Backward(gx, x, y, gy []float64, gj float64) {
	for i := range x[:t.N] {
		g := gj
		if gy != nil {
			g -= gy[i] * (t.U - y[i])
		}
		gx[i] += g
	}
}
func (t Upper) Inverse(x, y []float64) error {
	for i, v := range y[:t.N] {
		if !(v < t.U) || math.IsInf(v, -1) {
			return fmt.Errorf("transform: value %d = %v: expected a finite number below %v", i+1, v, t.U)
		}
		x[i] = math.Log(t.U - v)
	}
	return nil
}

// Bounded is n values in (L, U): y = L + (U − L) σ(x), σ the logistic
// function, log|J| = Σ log(U − L) + log σ(x) + log(1 − σ(x)), with
// ∂/∂x log|J| = 1 − 2σ(x) and ∂y/∂x = (U − L) σ(x)(1 − σ(x)).
type Bounded struct {
	L, U float64
	N    int
}

func (t Bounded) Size() int      { return t.N }
func (t Bounded) Len() int       { return t.N }
func (t Bounded) Prefix() string { return "logit_" }
func (t Bounded) Forward(y, x []float64) float64 {
	w := t.U - t.L
	lw := math.Log(w)
	var lj float64
	for i, v := range x[:t.N] {
		y[i] = t.L + w*sigmoid(v)
		// log σ(v) + log(1 − σ(v)) = −|v| − 2 log(1 + e^(−|v|)).
		lj += lw - math.Abs(v) - 2*math.Log1p(math.Exp(-math.Abs(v)))
	}
	return lj
}
func (t Bounded) Backward(gx, x, y, gy []float64, gj float64) {
	w := t.U - t.L
	for i, v := range x[:t.N] {
		s := sigmoid(v)
		g := gj * (1 - 2*s)
		if gy != nil {
			g += gy[i] * w * s * (1 - s)
		}
		gx[i] += g
	}
}
func (t Bounded) Inverse(x, y []float64) error {
	for i, v := range y[:t.N] {
		if !(v > t.L && v < t.U) {
			return fmt.Errorf("transform: value %d = %v: expected a number in (%v, %v)", i+1, v, t.L, t.U)
		}
		u := (v - t.L) / (t.U - t.L)
		x[i] = math.Log(u) - math.Log1p(-u)
	}
	return nil
}

func sigmoid(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}

// Ordered is K increasing values: y₁ = x₁, yₖ = yₖ₋₁ + e^(xₖ), log|J| =
// Σ_{k≥2} xₖ.
type Ordered int

func (t Ordered) Size() int      { return int(t) }
func (t Ordered) Len() int       { return int(t) }
func (t Ordered) Prefix() string { return "free_" }
func (t Ordered) Forward(y, x []float64) float64 {
	var lj float64
	for k, v := range x[:t] {
		if k == 0 {
			y[0] = v
			continue
		}
		y[k] = y[k-1] + math.Exp(v)
		lj += v
	}
	return lj
}
func (t Ordered) Backward(gx, x, y, gy []float64, gj float64) {
	var suffix float64 // Σ_{j≥k} gy_j
	for k := int(t) - 1; k >= 0; k-- {
		if gy != nil {
			suffix += gy[k]
		}
		if k == 0 {
			gx[0] += suffix
			continue
		}
		gx[k] += suffix*math.Exp(x[k]) + gj
	}
}
func (t Ordered) Inverse(x, y []float64) error {
	for k, v := range y[:t] {
		if k == 0 {
			x[0] = v
			continue
		}
		if !(v > y[k-1]) {
			return fmt.Errorf("transform: ordered value %d = %v: expected more than value %d = %v", k+1, v, k, y[k-1])
		}
		x[k] = math.Log(v - y[k-1])
	}
	return nil
}

// Simplex is K non-negative values summing to one, from K − 1 unconstrained
// values by Stan's stick-breaking: with s₁ = 1,
//
//	zₖ = σ(xₖ − log(K − k)),  yₖ = sₖ zₖ,  sₖ₊₁ = sₖ (1 − zₖ),  y_K = s_K,
//	log|J| = Σₖ log zₖ + log(1 − zₖ) + log sₖ,   k = 1, …, K − 1,
//
// so that x = 0 gives the uniform simplex.
type Simplex int

func (t Simplex) Size() int      { return int(t) - 1 }
func (t Simplex) Len() int       { return int(t) }
func (t Simplex) Prefix() string { return "free_" }
func (t Simplex) Forward(y, x []float64) float64 {
	k := int(t)
	s := 1.0
	var lj float64
	for i, v := range x[:k-1] {
		a := v - math.Log(float64(k-1-i))
		z := sigmoid(a)
		y[i] = s * z
		lj += -math.Abs(a) - 2*math.Log1p(math.Exp(-math.Abs(a))) + math.Log(s)
		s *= 1 - z
	}
	y[k-1] = s
	return lj
}
func (t Simplex) Backward(gx, x, y, gy []float64, gj float64) {
	k := int(t)
	var sbar float64 // adjoint of s_{i+1}
	if gy != nil {
		sbar = gy[k-1]
	}
	// s_{i+1} = y_K + Σ_{j>i, j<K} y_j: recover sₖ backwards.
	snext := y[k-1]
	for i := k - 2; i >= 0; i-- {
		s := snext + y[i]
		z := sigmoid(x[i] - math.Log(float64(k-1-i)))
		var yb float64
		if gy != nil {
			yb = gy[i]
		}
		zbar := yb*s - sbar*s + gj*(1-2*z)/(z*(1-z))
		sbar = yb*z + sbar*(1-z) + gj/s
		gx[i] += zbar * z * (1 - z)
		snext = s
	}
}
func (t Simplex) Inverse(x, y []float64) error {
	k := int(t)
	var sum float64
	for i, v := range y[:k] {
		if !(v > 0) {
			return fmt.Errorf("transform: simplex value %d = %v: expected a positive number", i+1, v)
		}
		sum += v
	}
	if math.Abs(sum-1) > 1e-8 {
		return fmt.Errorf("transform: simplex values sum to %v: expected 1", sum)
	}
	s := 1.0
	for i := 0; i < k-1; i++ {
		z := y[i] / s
		x[i] = math.Log(z) - math.Log1p(-z) + math.Log(float64(k-1-i))
		s -= y[i]
	}
	return nil
}
