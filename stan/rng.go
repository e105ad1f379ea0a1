package stan

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// rngs are the distributions with an _rng function, with their number of
// arguments.
var rngs = map[string]int{
	"normal": 2, "student_t": 3, "cauchy": 2, "exponential": 1, "gamma": 2, "inv_gamma": 2, "lognormal": 2,
	"beta": 2, "uniform": 2, "bernoulli": 1, "bernoulli_logit": 1, "binomial": 2, "binomial_logit": 2,
	"poisson": 1, "poisson_log": 1,
}

// seedFrom seeds the random numbers of the generated quantities from θ:
// a draw's generated quantities are a function of the draw (the same θ
// gives the same numbers, whatever chain or worker computes them), and
// independent across draws as far as a hash can tell.
func (ev *evaluator) seedFrom(theta []float64) {
	h1, h2 := uint64(14695981039346656037), uint64(0x9e3779b97f4a7c15)
	for _, v := range theta {
		b := math.Float64bits(v)
		h1 = (h1 ^ b) * 1099511628211
		h2 = (h2 ^ b) * 0xbf58476d1ce4e5b9
		h2 ^= h2 >> 31
	}
	if ev.pcg == nil {
		ev.pcg = rand.NewPCG(0, 0)
		ev.rng = rand.New(ev.pcg)
	}
	ev.pcg.Seed(h1, h2)
}

// rngCall draws from name_rng's distribution, element-wise over its
// arguments (a scalar broadcasts).
func (ev *evaluator) rngCall(e *Call, args []val) val {
	dist := e.Name[:len(e.Name)-len("_rng")]
	na := rngs[dist]
	if len(args) != na {
		ev.fail(e.Pos, "%s takes %d arguments, found %d", e.Name, na, len(args))
	}
	if ev.rng == nil {
		ev.seedFrom(nil)
	}
	n, container := 1, false
	var xs [3][]float64
	for k, a := range args {
		xs[k] = ev.values(a)
		if !a.scalar() {
			if container && len(xs[k]) != n {
				ev.fail(e.Pos, "%s: argument %d has %d elements, others %d", e.Name, k+1, len(xs[k]), n)
			}
			n, container = len(xs[k]), true
		}
	}
	discrete := false
	switch dist {
	case "bernoulli", "bernoulli_logit", "binomial", "binomial_logit", "poisson", "poisson_log":
		discrete = true
	}
	out := ev.floats(n)
	src := ev.pcg
	for i := range out {
		var a [3]float64
		for k := 0; k < na; k++ {
			a[k] = pick(xs[k], i)
		}
		var v float64
		switch dist {
		case "normal":
			v = a[0] + a[1]*ev.rng.NormFloat64()
		case "student_t":
			v = a[1] + a[2]*distuv.StudentsT{Mu: 0, Sigma: 1, Nu: a[0], Src: src}.Rand()
		case "cauchy":
			v = a[0] + a[1]*math.Tan(math.Pi*(ev.rng.Float64()-0.5))
		case "exponential":
			v = ev.rng.ExpFloat64() / a[0]
		case "gamma":
			v = distuv.Gamma{Alpha: a[0], Beta: a[1], Src: src}.Rand()
		case "inv_gamma":
			v = 1 / distuv.Gamma{Alpha: a[0], Beta: a[1], Src: src}.Rand()
		case "lognormal":
			v = math.Exp(a[0] + a[1]*ev.rng.NormFloat64())
		case "beta":
			v = distuv.Beta{Alpha: a[0], Beta: a[1], Src: src}.Rand()
		case "uniform":
			v = a[0] + (a[1]-a[0])*ev.rng.Float64()
		case "bernoulli", "bernoulli_logit":
			p := a[0]
			if dist == "bernoulli_logit" {
				p = invLogit(p)
			}
			if ev.rng.Float64() < p {
				v = 1
			}
		case "binomial", "binomial_logit":
			p := a[1]
			if dist == "binomial_logit" {
				p = invLogit(p)
			}
			v = distuv.Binomial{N: a[0], P: p, Src: src}.Rand()
		case "poisson", "poisson_log":
			l := a[0]
			if dist == "poisson_log" {
				l = math.Exp(l)
			}
			v = distuv.Poisson{Lambda: l, Src: src}.Rand()
		}
		out[i] = v
	}
	// Stan's vectorised _rng functions return arrays
	if discrete {
		if !container {
			return val{b: bInt, i: int(out[0])}
		}
		ints := ev.ints(n)
		for i, v := range out {
			ints[i] = int(v)
		}
		return val{b: bInt, dims: []int{n}, ints: ints}
	}
	if !container {
		return val{b: bReal, v: constVec(out)}
	}
	return val{b: bReal, dims: []int{n}, v: constVec(out)}
}
