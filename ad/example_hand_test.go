package ad_test

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
)

// The hand-gradient twins of the worked examples: what a user had to write
// before package ad, used as the reference of the examples.

const halfLog2Pi = 0.91893853320467274178

type handEightSchools struct{}

var esY = []float64{28, 8, -3, 7, -1, 1, 18, 12}
var esS = []float64{15, 10, 16, 11, 9, 11, 10, 18}

func (handEightSchools) Dim() int { return 10 }
func (handEightSchools) Len() int { return 8 }

// θ = (μ, log τ, θ̃₁…θ̃₈).
func (handEightSchools) LogPrior(th, g []float64) float64 {
	mu, u := th[0], th[1]
	tau := math.Exp(u)
	q := (tau / 5) * (tau / 5)
	lp := -0.5*mu*mu/25 - math.Log(5) - halfLog2Pi +
		math.Ln2 - math.Log(math.Pi) - math.Log(5) - math.Log1p(q) + u
	for _, e := range th[2:] {
		lp += -0.5*e*e - halfLog2Pi
	}
	if g != nil {
		g[0] -= mu / 25
		g[1] += -2*q/(1+q) + 1
		for j, e := range th[2:] {
			g[2+j] -= e
		}
	}
	return lp
}

func (handEightSchools) LogLik(th []float64, batch []int, g []float64) float64 {
	mu, tau := th[0], math.Exp(th[1])
	var lp float64
	term := func(j int) {
		theta := mu + tau*th[2+j]
		z := (esY[j] - theta) / esS[j]
		lp += -0.5*z*z - math.Log(esS[j]) - halfLog2Pi
		if g != nil {
			r := z / esS[j]
			g[0] += r
			g[1] += r * tau * th[2+j]
			g[2+j] += r * tau
		}
	}
	if batch == nil {
		for j := range esY {
			term(j)
		}
	}
	for _, j := range batch {
		term(j)
	}
	return lp
}

type handHier struct {
	x          []float64
	y, group   []int
	n, p, grps int
}

func newHandHier(X *mat.Dense, y, group []int, groups int) handHier {
	n, p := X.Dims()
	h := handHier{x: make([]float64, n*p), y: y, group: group, n: n, p: p, grps: groups}
	for i := 0; i < n; i++ {
		mat.Row(h.x[i*p:(i+1)*p], i, X)
	}
	return h
}

func (h handHier) Dim() int { return 2 + h.grps + h.p }
func (h handHier) Len() int { return h.n }

// θ = (μ_α, log σ_α, z₁…z_G, β₁…β_p).
func (h handHier) LogPrior(th, g []float64) float64 {
	mu, u := th[0], th[1]
	s := math.Exp(u)
	lp := -0.5*mu*mu/6.25 - math.Log(2.5) - halfLog2Pi + math.Ln2 - halfLog2Pi - 0.5*s*s + u
	for _, z := range th[2 : 2+h.grps] {
		lp += -0.5*z*z - halfLog2Pi
	}
	for _, b := range th[2+h.grps:] {
		lp += -0.5*b*b/6.25 - math.Log(2.5) - halfLog2Pi
	}
	if g != nil {
		g[0] -= mu / 6.25
		g[1] += -s*s + 1
		for j, z := range th[2 : 2+h.grps] {
			g[2+j] -= z
		}
		for j, b := range th[2+h.grps:] {
			g[2+h.grps+j] -= b / 6.25
		}
	}
	return lp
}

func (h handHier) LogLik(th []float64, batch []int, g []float64) float64 {
	mu, s := th[0], math.Exp(th[1])
	z, beta := th[2:2+h.grps], th[2+h.grps:]
	var lp float64
	term := func(i int) {
		k := h.group[i]
		x := h.x[i*h.p : (i+1)*h.p]
		eta := mu + s*z[k]
		for j, v := range x {
			eta += v * beta[j]
		}
		yi := float64(h.y[i])
		lp += yi*eta - (max(eta, 0) + math.Log1p(math.Exp(-math.Abs(eta))))
		if g != nil {
			c := yi - 1/(1+math.Exp(-eta))
			g[0] += c
			g[1] += c * s * z[k]
			g[2+k] += c * s
			for j, v := range x {
				g[2+h.grps+j] += c * v
			}
		}
	}
	if batch == nil {
		for i := 0; i < h.n; i++ {
			term(i)
		}
	}
	for _, i := range batch {
		term(i)
	}
	return lp
}

type handPoisson struct {
	x, off []float64
	y      []int
	n, p   int
}

func newHandPoisson(X *mat.Dense, y []int, u []float64) handPoisson {
	n, p := X.Dims()
	h := handPoisson{x: make([]float64, n*p), off: make([]float64, n), y: y, n: n, p: p}
	for i := 0; i < n; i++ {
		mat.Row(h.x[i*p:(i+1)*p], i, X)
		h.off[i] = math.Log(u[i])
	}
	return h
}

func (h handPoisson) Dim() int { return 1 + h.p }
func (h handPoisson) Len() int { return h.n }

func (h handPoisson) LogPrior(th, g []float64) float64 {
	lp := -0.5*th[0]*th[0]/100 - math.Log(10) - halfLog2Pi
	for _, b := range th[1:] {
		lp += -0.5*b*b/6.25 - math.Log(2.5) - halfLog2Pi
	}
	if g != nil {
		g[0] -= th[0] / 100
		for j, b := range th[1:] {
			g[1+j] -= b / 6.25
		}
	}
	return lp
}

func (h handPoisson) LogLik(th []float64, batch []int, g []float64) float64 {
	var lp float64
	term := func(i int) {
		x := h.x[i*h.p : (i+1)*h.p]
		eta := h.off[i] + th[0]
		for j, v := range x {
			eta += v * th[1+j]
		}
		k := float64(h.y[i])
		lf, _ := math.Lgamma(k + 1)
		mu := math.Exp(eta)
		lp += k*eta - mu - lf
		if g != nil {
			c := k - mu
			g[0] += c
			for j, v := range x {
				g[1+j] += c * v
			}
		}
	}
	if batch == nil {
		for i := 0; i < h.n; i++ {
			term(i)
		}
	}
	for _, i := range batch {
		term(i)
	}
	return lp
}

// hierData draws n rows with p features in G groups from a varying-intercept
// logistic model.
func hierData(n, p, G int) (*mat.Dense, []int, []int) {
	rng := rand.New(rand.NewPCG(4, 5))
	X := mat.NewDense(n, p, nil)
	y, group := make([]int, n), make([]int, n)
	alpha := make([]float64, G)
	for k := range alpha {
		alpha[k] = 0.3 + 0.8*rng.NormFloat64()
	}
	for i := 0; i < n; i++ {
		group[i] = i % G
		eta := alpha[group[i]]
		for j := 0; j < p; j++ {
			v := rng.NormFloat64()
			X.Set(i, j, v)
			eta += v * (0.7 - 0.5*float64(j))
		}
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	return X, y, group
}

// poissonData draws n rows with p features, exposures in (0.5, 2) and
// Poisson counts.
func poissonData(n, p int) (*mat.Dense, []int, []float64) {
	rng := rand.New(rand.NewPCG(6, 7))
	X := mat.NewDense(n, p, nil)
	y, u := make([]int, n), make([]float64, n)
	for i := 0; i < n; i++ {
		u[i] = 0.5 + 1.5*rng.Float64()
		eta := math.Log(u[i]) + 0.5
		for j := 0; j < p; j++ {
			v := rng.NormFloat64()
			X.Set(i, j, v)
			eta += v * 0.3 * float64(j-1)
		}
		mu := math.Exp(eta)
		l, k, q := math.Exp(-mu), 0, 1.0
		for {
			q *= rng.Float64()
			if q <= l {
				break
			}
			k++
		}
		y[i] = k
	}
	return X, y, u
}
