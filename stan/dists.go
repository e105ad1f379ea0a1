package stan

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/ad"
)

// dists are the distributions the evaluator knows, by name, with the
// number of arguments after the variate.
var dists = map[string]int{
	"normal": 2, "std_normal": 0, "student_t": 3, "cauchy": 2, "exponential": 1, "gamma": 2, "inv_gamma": 2,
	"lognormal": 2, "beta": 2, "uniform": 2, "double_exponential": 2, "logistic": 2,
	"bernoulli": 1, "bernoulli_logit": 1, "binomial": 2, "binomial_logit": 2, "poisson": 1, "poisson_log": 1,
	"neg_binomial_2": 2, "neg_binomial_2_log": 2,
	"multi_normal": 2, "multi_normal_cholesky": 2, "lkj_corr_cholesky": 1, "dirichlet": 1,
	"bernoulli_logit_glm": 3, "poisson_log_glm": 3, "normal_id_glm": 4, "neg_binomial_2_log_glm": 4,
}

// glms are the GLM densities: the base density of the linear predictor
// α + xβ.
var glms = map[string]string{
	"bernoulli_logit_glm": "bernoulli_logit", "poisson_log_glm": "poisson_log",
	"normal_id_glm": "normal", "neg_binomial_2_log_glm": "neg_binomial_2_log",
}

const halfLog2Pi = 0.91893853320467274178

// density returns the log density dist(args[0] | args[1:]) summed over
// the elements, as a scalar on the tape. With drop (a ~ statement or an
// _lupdf call) the terms that depend on constants only are left out, as
// Stan leaves them out; the result is then empty when every argument is a
// constant.
func (ev *evaluator) density(p Pos, dist string, args []val, drop bool) ad.Vec {
	na, ok := dists[dist]
	if !ok {
		ev.fail(p, "distribution %s is not supported", dist)
	}
	if len(args) != na+1 {
		ev.fail(p, "%s takes %d arguments after the variate, found %d", dist, na, len(args)-1)
	}
	if base, ok := glms[dist]; ok { // y | x, α, β, … = base(y | α + xβ, …)
		x, beta := args[1], args[3]
		if x.b == bRow && len(x.dims) == 0 {
			x = val{b: bMat, r: 1, c: x.c, v: x.v, es: x.es}
		}
		if x.b != bMat || len(x.dims) > 0 || beta.b != bVec {
			ev.fail(p, "%s: want a matrix x and a vector β, found %s and %s", dist, x.typeString(), beta.typeString())
		}
		eta := ev.binary(p, "+", ev.matmul(p, x, beta), args[2])
		rest := ev.vals(len(args) - 2)
		rest[0], rest[1] = args[0], eta
		copy(rest[2:], args[4:])
		return ev.density(p, base, rest, drop)
	}
	var vsa [5]ad.Vec
	var csa [5]bool
	vs, cs := vsa[:len(args)], csa[:len(args)]
	allConst := true
	n := 1
	for k, a := range args {
		if a.n() == 0 {
			return ad.Vec{}
		}
		if dist != "multi_normal" && dist != "multi_normal_cholesky" && dist != "lkj_corr_cholesky" && dist != "dirichlet" {
			vs[k] = ev.flat(a)
			if m := vs[k].Len(); m > 1 {
				if n > 1 && m != n {
					ev.fail(p, "%s: argument %d has %d elements, others %d", dist, k+1, m, n)
				}
				n = m
			}
		} else {
			vs[k] = ev.flat(a)
		}
		cs[k] = a.b == bInt || isConst(vs[k])
		allConst = allConst && cs[k]
	}
	if drop && allConst {
		return ad.Vec{}
	}
	t := ev.t
	val := func(k int) []float64 { return t.Values(vs[k]) }
	// sumOver returns Σ f over the n broadcast elements of the arguments ks.
	sumOver := func(f func(x []float64) float64, ks ...int) float64 {
		var s float64
		var xa [4]float64
		x := xa[:len(ks)]
		for i := 0; i < n; i++ {
			for j, k := range ks {
				v := val(k)
				if len(v) == 1 {
					x[j] = v[0]
				} else {
					x[j] = v[i]
				}
			}
			s += f(x)
		}
		return s
	}
	positive := func(k int, what string) {
		for i, v := range val(k) {
			if !(v > 0) || math.IsInf(v, 1) {
				ev.reject(p, "%s: %s (element %d) is %v, must be positive and finite", dist, what, i+1, v)
			}
		}
	}
	ints := func(k int) []int {
		a := args[k]
		if a.b != bInt {
			ev.fail(p, "%s: the variate must be an int or int array, found %s", dist, a.typeString())
		}
		if a.ints != nil {
			return a.ints
		}
		s := ev.ints(1)
		s[0] = a.i
		return s
	}
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	var lp ad.Vec
	var c float64 // the terms of constants only, dropped with drop
	switch dist {
	case "normal":
		positive(2, "the scale")
		lp = t.Normal(vs[0], vs[1], vs[2])
		c = -halfLog2Pi * float64(n)
		if cs[2] {
			c -= sumOver(func(x []float64) float64 { return math.Log(x[0]) }, 2)
		}
	case "std_normal":
		lp = t.Normal(vs[0], zeroVec, oneVec)
		c = -halfLog2Pi * float64(n)
	case "student_t":
		positive(1, "the degrees of freedom")
		positive(3, "the scale")
		lp = t.StudentT(vs[0], vs[1], vs[2], vs[3])
		c = -0.5 * math.Log(math.Pi) * float64(n)
		if cs[1] {
			c += sumOver(func(x []float64) float64 { return lg((x[0]+1)/2) - lg(x[0]/2) - 0.5*math.Log(x[0]) }, 1)
		}
		if cs[3] {
			c -= sumOver(func(x []float64) float64 { return math.Log(x[0]) }, 3)
		}
	case "cauchy":
		positive(2, "the scale")
		lp = t.Cauchy(vs[0], vs[1], vs[2])
		c = -math.Log(math.Pi) * float64(n)
		if cs[2] {
			c -= sumOver(func(x []float64) float64 { return math.Log(x[0]) }, 2)
		}
	case "double_exponential":
		positive(2, "the scale")
		lp = t.Sub(t.Neg(t.Sum(t.Div(t.Map(absD, t.Sub(vs[0], vs[1]), zeroVec), vs[2]))),
			t.Mul(ev.cnst(float64(n)/float64(vs[2].Len())), t.Sum(t.Log(t.Mul(ev.cnst(2), vs[2])))))
		c = -math.Ln2 * float64(n)
		if cs[2] {
			c -= sumOver(func(x []float64) float64 { return math.Log(x[0]) }, 2)
		}
	case "logistic":
		positive(2, "the scale")
		z := t.Div(t.Sub(vs[0], vs[1]), vs[2])
		terms := t.Sub(t.Neg(z), t.Mul(ev.cnst(2), t.Softplus(t.Neg(z))))
		lp = t.Sub(t.Sum(terms), t.Mul(ev.cnst(float64(n)/float64(vs[2].Len())), t.Sum(t.Log(vs[2]))))
		if cs[2] {
			c -= sumOver(func(x []float64) float64 { return math.Log(x[0]) }, 2)
		}
	case "exponential":
		positive(1, "the rate")
		lp = t.Exponential(vs[0], vs[1])
		if cs[1] {
			c = sumOver(func(x []float64) float64 { return math.Log(x[0]) }, 1)
		}
	case "gamma", "inv_gamma":
		positive(1, "the shape")
		positive(2, "the scale")
		if dist == "gamma" {
			lp = t.Gamma(vs[0], vs[1], vs[2])
		} else {
			lp = t.InvGamma(vs[0], vs[1], vs[2])
		}
		if cs[1] {
			c -= sumOver(func(x []float64) float64 { return lg(x[0]) }, 1)
		}
		if cs[1] && cs[2] {
			c += sumOver(func(x []float64) float64 { return x[0] * math.Log(x[1]) }, 1, 2)
		}
		if cs[0] && cs[1] {
			if dist == "gamma" {
				c += sumOver(func(x []float64) float64 { return (x[1] - 1) * math.Log(x[0]) }, 0, 1)
			} else {
				c -= sumOver(func(x []float64) float64 { return (x[1] + 1) * math.Log(x[0]) }, 0, 1)
			}
		}
		if cs[0] && cs[2] {
			if dist == "gamma" {
				c -= sumOver(func(x []float64) float64 { return x[1] * x[0] }, 0, 2)
			} else {
				c -= sumOver(func(x []float64) float64 { return x[1] / x[0] }, 0, 2)
			}
		}
	case "lognormal":
		positive(2, "the scale")
		lp = t.LogNormal(vs[0], vs[1], vs[2])
		c = -halfLog2Pi * float64(n)
		if cs[2] {
			c -= sumOver(func(x []float64) float64 { return math.Log(x[0]) }, 2)
		}
		if cs[0] {
			c -= sumOver(func(x []float64) float64 { return math.Log(x[0]) }, 0)
		}
	case "beta":
		positive(1, "the first shape")
		positive(2, "the second shape")
		lp = t.Beta(vs[0], vs[1], vs[2])
		if cs[1] && cs[2] {
			c += sumOver(func(x []float64) float64 { return lg(x[0]+x[1]) - lg(x[0]) - lg(x[1]) }, 1, 2)
		}
		if cs[0] && cs[1] {
			c += sumOver(func(x []float64) float64 { return (x[1] - 1) * math.Log(x[0]) }, 0, 1)
		}
		if cs[0] && cs[2] {
			c += sumOver(func(x []float64) float64 { return (x[1] - 1) * math.Log1p(-x[0]) }, 0, 2)
		}
	case "uniform":
		lo, hi, y := val(1), val(2), val(0)
		for i := 0; i < n; i++ {
			yi, li, hi := pick(y, i), pick(lo, i), pick(hi, i)
			if !(yi >= li && yi <= hi) {
				ev.reject(p, "uniform: the variate %v (element %d) is outside [%v, %v]", yi, i+1, li, hi)
			}
		}
		w := t.Sub(vs[2], vs[1])
		lp = t.Neg(t.Mul(ev.cnst(float64(n)/float64(w.Len())), t.Sum(t.Log(w))))
		if cs[1] && cs[2] {
			c = -sumOver(func(x []float64) float64 { return math.Log(x[1] - x[0]) }, 1, 2)
		}
	case "bernoulli", "bernoulli_logit", "binomial", "binomial_logit", "poisson", "poisson_log":
		k := ints(0)
		for i, v := range k {
			if v < 0 || (dist == "bernoulli" || dist == "bernoulli_logit") && v > 1 {
				ev.reject(p, "%s: the variate (element %d) is %d", dist, i+1, v)
			}
		}
		switch dist {
		case "bernoulli_logit":
			lp = t.BernoulliLogit(k, vs[1])
		case "poisson_log":
			lp = t.PoissonLog(k, vs[1])
			c = -sumOver(func(x []float64) float64 { return lg(x[0] + 1) }, 0)
		case "binomial_logit":
			lp = t.BinomialLogit(k, ints(1), vs[2])
			c = sumOver(func(x []float64) float64 { return lchoose(x[1], x[0]) }, 0, 1)
		case "poisson":
			positive(1, "the rate")
			lp = t.Sub(t.Sum(t.Mul(vs[0], t.Log(vs[1]))), t.Mul(ev.cnst(float64(n)/float64(vs[1].Len())), t.Sum(vs[1])))
			lp = t.Sub(lp, ev.cnst(sumOver(func(x []float64) float64 { return lg(x[0] + 1) }, 0)))
			c = -sumOver(func(x []float64) float64 { return lg(x[0] + 1) }, 0)
		case "bernoulli", "binomial":
			th := vs[len(vs)-1]
			for i, v := range t.Values(th) {
				if !(v >= 0 && v <= 1) {
					ev.reject(p, "%s: the probability (element %d) is %v", dist, i+1, v)
				}
			}
			kc := vs[0]
			var fail ad.Vec
			if dist == "bernoulli" {
				fail = t.Sub(oneVec, kc)
			} else {
				fail = t.Sub(vs[1], kc)
				c = sumOver(func(x []float64) float64 { return lchoose(x[1], x[0]) }, 0, 1)
			}
			if th.Len() == 1 && n > 1 {
				lp = t.Add(t.Mul(t.Sum(kc), t.Log(th)), t.Mul(t.Sum(fail), t.Log1m(th)))
			} else {
				lp = t.Sum(t.Add(t.Mul(kc, t.Log(th)), t.Mul(fail, t.Log1m(th))))
			}
			if c != 0 {
				lp = t.Add(lp, ev.cnst(c))
			}
		}
	case "neg_binomial_2", "neg_binomial_2_log":
		k := ints(0)
		positive(2, "the precision")
		eta := vs[1]
		if dist == "neg_binomial_2" {
			positive(1, "the mean")
			eta = t.Log(eta)
		}
		lp = t.NegBin2Log(k, eta, vs[2])
	case "multi_normal", "multi_normal_cholesky":
		L := args[2]
		if L.b != bMat || L.r != L.c || len(L.dims) > 0 {
			ev.fail(p, "%s: the covariance must be a square matrix, found %s", dist, L.typeString())
		}
		K := L.r
		x, mu := vs[0], vs[1]
		if x.Len()%K != 0 || mu.Len() != K && mu.Len() != x.Len() {
			ev.fail(p, "%s of %s with mean %s and a %d×%d matrix", dist, args[0].typeString(), args[1].typeString(), K, K)
		}
		Lv := vs[2]
		if dist == "multi_normal" {
			if !cs[2] { // a covariance of parameters: its factor on the tape
				Lv = ev.flat(ev.cholesky(p, L))
			} else {
				var ch mat.Cholesky
				if !ch.Factorize(mat.NewSymDense(K, append([]float64(nil), t.Values(Lv)...))) {
					ev.reject(p, "multi_normal: the covariance matrix is not positive definite")
				}
				var l mat.TriDense
				ch.LTo(&l)
				f := ev.floats(K * K)
				for i := 0; i < K; i++ {
					for j := 0; j <= i; j++ {
						f[i*K+j] = l.At(i, j)
					}
				}
				Lv = constVec(f)
			}
		}
		lp = t.MultiNormalCholesky(x, mu, Lv)
		rows := x.Len() / K
		c = -halfLog2Pi * float64(rows*K)
		if cs[2] {
			lv := t.Values(Lv)
			for i := 0; i < K; i++ {
				c -= float64(rows) * math.Log(lv[i*K+i])
			}
		}
	case "lkj_corr_cholesky":
		if !cs[1] {
			ev.fail(p, "lkj_corr_cholesky with a shape of parameters is not supported yet")
		}
		L := args[0]
		if L.b != bMat || L.r != L.c {
			ev.fail(p, "lkj_corr_cholesky of %s", L.typeString())
		}
		eta := val(1)[0]
		positive(1, "the shape")
		lp = t.LKJCorrCholesky(vs[0], eta)
		c = -ad.LKJLogNormaliser(L.r, eta)
	case "dirichlet":
		th, al := vs[0], vs[1]
		if th.Len() != al.Len() {
			ev.fail(p, "dirichlet of %s with %s", args[0].typeString(), args[1].typeString())
		}
		positive(1, "the concentration")
		lgD := func(x, _ float64) (float64, float64, float64) { v, _ := math.Lgamma(x); return v, digamma(x), 0 }
		lp = t.Sum(t.Mul(t.Sub(al, oneVec), t.Log(th)))
		norm := t.Sub(t.Map(lgD, t.Sum(al), zeroVec), t.Sum(t.Map(lgD, al, zeroVec)))
		lp = t.Add(lp, norm)
		if cs[1] {
			av := t.Values(al)
			s := 0.0
			for _, a := range av {
				s += a
				c -= lg(a)
			}
			c += lg(s)
		}
	}
	if drop && c != 0 {
		lp = t.Sub(lp, ev.cnst(c))
	}
	return lp
}

var oneVec = constVec([]float64{1})

func pick(x []float64, i int) float64 {
	if len(x) == 1 {
		return x[0]
	}
	return x[i]
}

func absD(x, _ float64) (float64, float64, float64) { return math.Abs(x), sign(x), 0 }

// lchoose returns log C(n, k).
func lchoose(n, k float64) float64 {
	a, _ := math.Lgamma(n + 1)
	b, _ := math.Lgamma(k + 1)
	c, _ := math.Lgamma(n - k + 1)
	return a - b - c
}
