package stan

import (
	"math"
	"strings"

	"github.com/langevin-go/langevin/ad"
)

// unaryFns are Stan's element-wise functions of one real: value and
// derivative.
var unaryFns = map[string]func(x float64) (float64, float64){
	"log1p":      func(x float64) (float64, float64) { return math.Log1p(x), 1 / (1 + x) },
	"logit":      func(x float64) (float64, float64) { return math.Log(x / (1 - x)), 1 / (x * (1 - x)) },
	"expm1":      func(x float64) (float64, float64) { return math.Expm1(x), math.Exp(x) },
	"fabs":       func(x float64) (float64, float64) { return math.Abs(x), sign(x) },
	"abs":        func(x float64) (float64, float64) { return math.Abs(x), sign(x) },
	"lgamma":     func(x float64) (float64, float64) { v, _ := math.Lgamma(x); return v, digamma(x) },
	"tgamma":     func(x float64) (float64, float64) { v := math.Gamma(x); return v, v * digamma(x) },
	"inv":        func(x float64) (float64, float64) { return 1 / x, -1 / (x * x) },
	"inv_sqrt":   func(x float64) (float64, float64) { s := math.Sqrt(x); return 1 / s, -0.5 / (x * s) },
	"inv_square": func(x float64) (float64, float64) { return 1 / (x * x), -2 / (x * x * x) },
	"Phi": func(x float64) (float64, float64) {
		return 0.5 * math.Erfc(-x/math.Sqrt2), math.Exp(-x*x/2) / math.Sqrt(2*math.Pi)
	},
	"Phi_approx":      phiApprox,
	"sinh":            func(x float64) (float64, float64) { return math.Sinh(x), math.Cosh(x) },
	"cosh":            func(x float64) (float64, float64) { return math.Cosh(x), math.Sinh(x) },
	"sin":             func(x float64) (float64, float64) { return math.Sin(x), math.Cos(x) },
	"cos":             func(x float64) (float64, float64) { return math.Cos(x), -math.Sin(x) },
	"tan":             func(x float64) (float64, float64) { t := math.Tan(x); return t, 1 + t*t },
	"asin":            func(x float64) (float64, float64) { return math.Asin(x), 1 / math.Sqrt(1-x*x) },
	"acos":            func(x float64) (float64, float64) { return math.Acos(x), -1 / math.Sqrt(1-x*x) },
	"atan":            func(x float64) (float64, float64) { return math.Atan(x), 1 / (1 + x*x) },
	"log2":            func(x float64) (float64, float64) { return math.Log2(x), 1 / (x * math.Ln2) },
	"log10":           func(x float64) (float64, float64) { return math.Log10(x), 1 / (x * math.Ln10) },
	"exp2":            func(x float64) (float64, float64) { v := math.Exp2(x); return v, v * math.Ln2 },
	"cbrt":            func(x float64) (float64, float64) { v := math.Cbrt(x); return v, 1 / (3 * v * v) },
	"erf":             func(x float64) (float64, float64) { return math.Erf(x), 2 / math.SqrtPi * math.Exp(-x*x) },
	"erfc":            func(x float64) (float64, float64) { return math.Erfc(x), -2 / math.SqrtPi * math.Exp(-x*x) },
	"inv_cloglog":     func(x float64) (float64, float64) { e := math.Exp(x); return -math.Expm1(-e), e * math.Exp(-e) },
	"log_inv_logit":   func(x float64) (float64, float64) { return -softplus(-x), 1 - invLogit(x) },
	"log1m_inv_logit": func(x float64) (float64, float64) { return -softplus(x), -invLogit(x) },
	"log1m_exp":       func(x float64) (float64, float64) { return log1mExp(x), -1 / math.Expm1(-x) },
	"floor":           func(x float64) (float64, float64) { return math.Floor(x), 0 },
	"ceil":            func(x float64) (float64, float64) { return math.Ceil(x), 0 },
	"round":           func(x float64) (float64, float64) { return math.Round(x), 0 },
	"trunc":           func(x float64) (float64, float64) { return math.Trunc(x), 0 },
}

// binaryFns are Stan's element-wise functions of two reals: the value and
// both partial derivatives.
var binaryFns = map[string]func(x, y float64) (float64, float64, float64){
	"pow": powD,
	"fmin": func(x, y float64) (float64, float64, float64) {
		if x <= y {
			return x, 1, 0
		}
		return y, 0, 1
	},
	"fmax": func(x, y float64) (float64, float64, float64) {
		if x >= y {
			return x, 1, 0
		}
		return y, 0, 1
	},
	"hypot": func(x, y float64) (float64, float64, float64) { h := math.Hypot(x, y); return h, x / h, y / h },
	"atan2": func(y, x float64) (float64, float64, float64) {
		d := x*x + y*y
		return math.Atan2(y, x), x / d, -y / d
	},
	"lbeta": func(a, b float64) (float64, float64, float64) {
		la, _ := math.Lgamma(a)
		lb, _ := math.Lgamma(b)
		lab, _ := math.Lgamma(a + b)
		dab := digamma(a + b)
		return la + lb - lab, digamma(a) - dab, digamma(b) - dab
	},
	"log_diff_exp": func(x, y float64) (float64, float64, float64) {
		v := x + log1mExp(y-x)
		return v, 1 / -math.Expm1(y-x), -1 / math.Expm1(x-y)
	},
	"log_sum_exp": logSumExp2,
	"fdim": func(x, y float64) (float64, float64, float64) {
		if x > y {
			return x - y, 1, -1
		}
		return 0, 0, 0
	},
	"binary_log_loss": nil,
}

func logSumExp2(x, y float64) (float64, float64, float64) {
	m := math.Max(x, y)
	if math.IsInf(m, -1) {
		return m, 0.5, 0.5
	}
	v := m + math.Log(math.Exp(x-m)+math.Exp(y-m))
	return v, math.Exp(x - v), math.Exp(y - v)
}

func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func softplus(t float64) float64 { return max(t, 0) + math.Log1p(math.Exp(-math.Abs(t))) }

func invLogit(t float64) float64 {
	if t >= 0 {
		return 1 / (1 + math.Exp(-t))
	}
	e := math.Exp(t)
	return e / (1 + e)
}

// log1mExp returns log(1 − eˣ), x < 0.
func log1mExp(x float64) float64 {
	if x > -math.Ln2 {
		return math.Log(-math.Expm1(x))
	}
	return math.Log1p(-math.Exp(x))
}

func phiApprox(x float64) (float64, float64) {
	u := 0.07056*x*x*x + 1.5976*x
	p := invLogit(u)
	return p, p * (1 - p) * (3*0.07056*x*x + 1.5976)
}

// digamma returns ψ(x) by recurrence and the asymptotic series.
func digamma(x float64) float64 {
	if x <= 0 && x == math.Floor(x) {
		return math.NaN()
	}
	if x < 0 {
		return digamma(1-x) - math.Pi/math.Tan(math.Pi*x)
	}
	var r float64
	for x < 6 {
		r -= 1 / x
		x++
	}
	f := 1 / (x * x)
	return r + math.Log(x) - 0.5/x - f*(1.0/12-f*(1.0/120-f*(1.0/252-f*(1.0/240-f/132))))
}

// mapUnary applies f element-wise to x.
func (ev *evaluator) mapUnary(f func(float64) (float64, float64), x val) val {
	if x.n() == 0 {
		return like(x, ad.Vec{})
	}
	return like(x, ev.t.Map(func(a, _ float64) (float64, float64, float64) {
		v, d := f(a)
		return v, d, 0
	}, ev.flat(x), zeroVec))
}

var zeroVec = constVec([]float64{0})

// constFns are Stan's functions of no argument.
var constFns = map[string]float64{
	"pi": math.Pi, "e": math.E, "sqrt2": math.Sqrt2, "log2": math.Ln2, "log10": math.Ln10,
	"not_a_number": math.NaN(), "positive_infinity": math.Inf(1), "negative_infinity": math.Inf(-1),
	"machine_precision": 0x1p-52,
}

// isDensity reports whether name is a density call: its distribution and
// whether constants are dropped.
func isDensity(name string) (dist string, drop, ok bool) {
	for _, s := range []string{"_lpdf", "_lpmf", "_log"} {
		if strings.HasSuffix(name, s) {
			return strings.TrimSuffix(name, s), false, true
		}
	}
	for _, s := range []string{"_lupdf", "_lupmf"} {
		if strings.HasSuffix(name, s) {
			return strings.TrimSuffix(name, s), true, true
		}
	}
	return "", false, false
}

// builtins lists the other functions the evaluator knows (for the checker).
var builtins = map[string]bool{}

func init() {
	for _, n := range []string{"exp", "log", "sqrt", "square", "inv_logit", "log1p_exp", "tanh", "log1m",
		"sum", "mean", "sd", "variance", "log_sum_exp", "max", "min", "dot_product", "dot_self", "rows_dot_product",
		"columns_dot_product", "num_elements", "size", "dims", "rows", "cols", "cumulative_sum", "softmax", "log_softmax",
		"rep_vector", "rep_row_vector", "rep_array", "rep_matrix", "to_vector", "to_row_vector", "to_array_1d",
		"to_matrix", "append_row", "head", "tail", "segment", "col", "row", "diag_matrix", "diagonal",
		"diag_pre_multiply", "diag_post_multiply", "multiply_lower_tri_self_transpose", "crossprod", "tcrossprod",
		"log_mix", "fma", "int_step", "step", "is_inf", "is_nan", "squared_distance", "prod", "transpose",
		"inv_logit", "to_int", "quad_form_diag", "sum_square", "append_col", "sub_col", "sub_row", "block", "gp_exp_quad_cov", "cholesky_decompose"} {
		builtins[n] = true
	}
	for n := range unaryFns {
		builtins[n] = true
	}
	for n, f := range binaryFns {
		if f != nil {
			builtins[n] = true
		}
	}
	for n := range constFns {
		builtins[n] = true
	}
}

func (ev *evaluator) call(e *Call) val {
	if e.fn != nil {
		args := ev.vals(len(e.Args))
		for k, a := range e.Args {
			args[k] = ev.eval(a)
		}
		return ev.callUser(e.Pos, e.fn, args)
	}
	if strings.HasSuffix(e.Name, "_rng") {
		args := ev.vals(len(e.Args))
		for k, a := range e.Args {
			args[k] = ev.eval(a)
		}
		return ev.rngCall(e, args)
	}
	if strings.HasSuffix(e.Name, "cdf") {
		args := ev.vals(len(e.Args))
		for k, a := range e.Args {
			args[k] = ev.eval(a)
		}
		if v, ok := ev.cdf(e.Pos, e.Name, args); ok {
			return val{b: bReal, v: v}
		}
	}
	if dist, drop, ok := isDensity(e.Name); ok {
		args := ev.vals(len(e.Args))
		for k, a := range e.Args {
			args[k] = ev.eval(a)
		}
		v := ev.density(e.Pos, dist, args, drop)
		if v.Len() == 0 {
			v = zeroVec
		}
		return val{b: bReal, v: v}
	}
	if c, ok := constFns[e.Name]; ok && len(e.Args) == 0 {
		return val{b: bReal, v: ev.cnst(c)}
	}
	args := ev.vals(len(e.Args))
	for k, a := range e.Args {
		args[k] = ev.eval(a)
	}
	want := func(n int) {
		if len(args) != n {
			ev.fail(e.Pos, "%s takes %d arguments, found %d", e.Name, n, len(args))
		}
	}
	t := ev.t
	switch e.Name {
	case "exp", "log", "sqrt", "square", "inv_logit", "log1p_exp", "tanh", "log1m":
		want(1)
		x := args[0]
		if x.n() == 0 {
			return like(x, ad.Vec{})
		}
		v := ev.flat(x)
		switch e.Name {
		case "exp":
			v = t.Exp(v)
		case "log":
			v = t.Log(v)
		case "sqrt":
			v = t.Sqrt(v)
		case "square":
			if x.b == bInt && x.scalar() {
				return val{b: bInt, i: x.i * x.i}
			}
			v = t.Square(v)
		case "inv_logit":
			v = t.Sigmoid(v)
		case "log1p_exp":
			v = t.Softplus(v)
		case "tanh":
			v = t.Tanh(v)
		case "log1m":
			v = t.Log1m(v)
		}
		return like(x, v)
	case "abs":
		want(1)
		if args[0].b == bInt && args[0].scalar() {
			i := ev.intv(args[0])
			if i < 0 {
				i = -i
			}
			return val{b: bInt, i: i}
		}
	case "sum", "sum_square":
		want(1)
		x := args[0]
		if x.b == bInt {
			if e.Name == "sum" {
				return val{b: bInt, i: ev.sumInts(x)}
			}
		}
		if x.n() == 0 {
			return val{b: bReal, v: ev.cnst(0)}
		}
		v := ev.flat(x)
		if e.Name == "sum_square" {
			return val{b: bReal, v: t.Dot(v, v)}
		}
		return val{b: bReal, v: t.Sum(v)}
	case "prod":
		want(1)
		xs := ev.values(args[0])
		p := 1.0
		for _, v := range xs {
			p *= v
		}
		if args[0].b == bInt {
			return val{b: bInt, i: int(p)}
		}
		return val{b: bReal, v: t.Exp(t.Sum(t.Log(ev.flat(args[0]))))}
	case "mean":
		want(1)
		n := args[0].n()
		if n == 0 {
			ev.fail(e.Pos, "mean of an empty container")
		}
		return val{b: bReal, v: t.Div(t.Sum(ev.flat(args[0])), ev.cnst(float64(n)))}
	case "variance", "sd":
		want(1)
		n := args[0].n()
		if n < 2 {
			ev.fail(e.Pos, "%s of fewer than two values", e.Name)
		}
		v := ev.flat(args[0])
		m := t.Div(t.Sum(v), ev.cnst(float64(n)))
		d := t.Sub(v, m)
		s := t.Div(t.Dot(d, d), ev.cnst(float64(n-1)))
		if e.Name == "sd" {
			s = t.Sqrt(s)
		}
		return val{b: bReal, v: s}
	case "log_sum_exp":
		if len(args) == 2 {
			break
		}
		want(1)
		return val{b: bReal, v: ev.logSumExp(ev.flat(args[0]))}
	case "max", "min":
		if len(args) == 2 && args[0].scalar() && args[1].scalar() {
			if args[0].b == bInt && args[1].b == bInt {
				a, b := ev.intv(args[0]), ev.intv(args[1])
				if (a > b) == (e.Name == "max") {
					return val{b: bInt, i: a}
				}
				return val{b: bInt, i: b}
			}
			f := binaryFns["fmax"]
			if e.Name == "min" {
				f = binaryFns["fmin"]
			}
			return val{b: bReal, v: t.Map(f, ev.flat(args[0]), ev.flat(args[1]))}
		}
		want(1)
		x := args[0]
		if x.n() == 0 {
			ev.fail(e.Pos, "%s of an empty container", e.Name)
		}
		if x.b == bInt {
			b := x.ints[0]
			for _, v := range x.ints {
				if (v > b) == (e.Name == "max") && v != b {
					b = v
				}
			}
			return val{b: bInt, i: b}
		}
		xs := ev.values(x)
		k := 0
		for j, v := range xs {
			if (v > xs[k]) == (e.Name == "max") && v != xs[k] {
				k = j
			}
		}
		return val{b: bReal, v: ev.at(x, k)}
	case "dot_product":
		want(2)
		if args[0].n() != args[1].n() {
			ev.fail(e.Pos, "dot_product of %s and %s", args[0].typeString(), args[1].typeString())
		}
		return val{b: bReal, v: t.Dot(ev.flat(args[0]), ev.flat(args[1]))}
	case "dot_self":
		want(1)
		v := ev.flat(args[0])
		return val{b: bReal, v: t.Dot(v, v)}
	case "squared_distance":
		want(2)
		d := t.Sub(ev.flat(args[0]), ev.flat(args[1]))
		return val{b: bReal, v: t.Dot(d, d)}
	case "rows_dot_product", "columns_dot_product":
		want(2)
		a, b := args[0], args[1]
		if !sameShape(a, b) || len(a.dims) > 0 || a.b < bVec {
			ev.fail(e.Pos, "%s of %s and %s", e.Name, a.typeString(), b.typeString())
		}
		p := t.Mul(ev.flat(a), ev.flat(b))
		if e.Name == "rows_dot_product" {
			if a.c == 1 {
				return val{b: bVec, r: a.r, c: 1, v: p}
			}
			return val{b: bVec, r: a.r, c: 1, v: t.MatMul(p, ev.ones(a.c), a.c)}
		}
		if a.r == 1 {
			return val{b: bRow, r: 1, c: a.c, v: p}
		}
		return val{b: bRow, r: 1, c: a.c, v: t.MatMul(ev.ones(a.r), p, a.r)}
	case "num_elements":
		want(1)
		return val{b: bInt, i: args[0].n()}
	case "dims":
		want(1)
		x := args[0]
		md := x.matDims()
		out := ev.ints(len(x.dims) + len(md))
		copy(out, x.dims)
		copy(out[len(x.dims):], md)
		dm := ev.ints(1)
		dm[0] = len(out)
		return val{b: bInt, dims: dm, ints: out}
	case "size":
		want(1)
		x := args[0]
		if len(x.dims) > 0 {
			return val{b: bInt, i: x.dims[0]}
		}
		return val{b: bInt, i: x.n()}
	case "rows", "cols":
		want(1)
		x := args[0]
		if e.Name == "rows" {
			return val{b: bInt, i: x.r}
		}
		return val{b: bInt, i: x.c}
	case "cumulative_sum":
		want(1)
		x := args[0]
		if x.b == bInt {
			y := x
			y.ints = ev.ints(len(x.ints))
			s := 0
			for k, v := range x.ints {
				s += v
				y.ints[k] = s
			}
			return y
		}
		if x.n() == 0 {
			return x
		}
		return like(x, t.CumSum(ev.flat(x)))
	case "softmax", "log_softmax":
		want(1)
		v := ev.flat(args[0])
		lse := ev.logSumExp(v)
		ls := t.Sub(v, lse)
		if e.Name == "softmax" {
			ls = t.Exp(ls)
		}
		return val{b: bVec, r: v.Len(), c: 1, v: ls}
	case "rep_vector", "rep_row_vector":
		want(2)
		n := ev.intOf(e, args[1])
		x := ev.at(args[0], 0)
		es := ev.vecs(ev.mulSize(e.Pos, n, 1))
		for k := range es {
			es[k] = x
		}
		if e.Name == "rep_vector" {
			return val{b: bVec, r: n, c: 1, es: es}
		}
		return val{b: bRow, r: 1, c: n, es: es}
	case "rep_matrix":
		if len(args) == 3 {
			r, c := ev.intOf(e, args[1]), ev.intOf(e, args[2])
			x := ev.at(args[0], 0)
			es := ev.vecs(ev.mulSize(e.Pos, r, c))
			for k := range es {
				es[k] = x
			}
			return val{b: bMat, r: r, c: c, es: es}
		}
		want(2)
		x, m := args[0], ev.intOf(e, args[1])
		if x.b == bVec { // m copies of the column
			es := ev.vecs(ev.mulSize(e.Pos, x.r, m))
			for i := 0; i < x.r; i++ {
				for j := 0; j < m; j++ {
					es[i*m+j] = ev.at(x, i)
				}
			}
			return val{b: bMat, r: x.r, c: m, es: es}
		}
		if x.b == bRow {
			es := ev.vecs(ev.mulSize(e.Pos, x.c, m))
			for i := 0; i < m; i++ {
				for j := 0; j < x.c; j++ {
					es[i*x.c+j] = ev.at(x, j)
				}
			}
			return val{b: bMat, r: m, c: x.c, es: es}
		}
	case "rep_array":
		if len(args) < 2 || len(args) > 4 {
			ev.fail(e.Pos, "rep_array takes 2 to 4 arguments")
		}
		x := args[0]
		dims := make([]int, len(args)-1)
		total := 1
		for k := range dims {
			dims[k] = ev.intOf(e, args[k+1])
			total = ev.mulSize(e.Pos, total, dims[k])
		}
		y := x
		y.dims = append(dims, x.dims...)
		m := x.n()
		ev.mulSize(e.Pos, total, m)
		if x.b == bInt {
			y.ints = ev.ints(total * m)
			for k := 0; k < total; k++ {
				if x.ints == nil {
					y.ints[k] = x.i
				} else {
					copy(y.ints[k*m:], x.ints)
				}
			}
			return y
		}
		y.v, y.es = ad.Vec{}, ev.vecs(total*m)
		for k := 0; k < total; k++ {
			for j := 0; j < m; j++ {
				y.es[k*m+j] = ev.at(x, j)
			}
		}
		return y
	case "to_vector", "to_row_vector", "to_array_1d":
		want(1)
		x := args[0]
		n := x.n()
		var y val
		if x.b == bMat && len(x.dims) == 0 { // column-major
			y = ev.transpose(e.Pos, x)
			y = val{b: bVec, r: n, c: 1, v: y.v, es: y.es}
		} else if x.b == bInt {
			y = val{b: bVec, r: n, c: 1, v: ev.flat(x)}
		} else {
			y = val{b: bVec, r: n, c: 1, v: x.v, es: x.es}
		}
		switch e.Name {
		case "to_row_vector":
			y.b, y.r, y.c = bRow, 1, n
		case "to_array_1d":
			if x.b == bInt {
				return val{b: bInt, dims: []int{n}, ints: x.ints}
			}
			y.b, y.r, y.c, y.dims = bReal, 0, 0, []int{n}
		}
		return y
	case "to_int":
		want(1)
		return val{b: bInt, i: int(ev.num(args[0]))}
	case "to_matrix":
		x := args[0]
		if len(args) == 1 {
			return x
		}
		want(3)
		r, c := ev.intOf(e, args[1]), ev.intOf(e, args[2])
		if r*c != x.n() {
			ev.fail(e.Pos, "to_matrix of %d values into %d×%d", x.n(), r, c)
		}
		idx := ev.ints(r * c) // column-major fill
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				idx[i*c+j] = j*r + i
			}
		}
		return val{b: bMat, r: r, c: c, v: t.Index(ev.flat(x), idx, nil)}
	case "append_row":
		want(2)
		a, b := args[0], args[1]
		if len(a.dims) > 0 || len(b.dims) > 0 {
			break
		}
		cols := max(a.c, b.c)
		if a.b == bMat || b.b == bMat || a.b == bRow || b.b == bRow {
			if a.c != b.c {
				ev.fail(e.Pos, "append_row of %s and %s: column counts differ", a.typeString(), b.typeString())
			}
			return val{b: bMat, r: a.r + b.r, c: cols, v: t.Concat(ev.flat(a), ev.flat(b))}
		}
		ra, rb := max(a.r, 1), max(b.r, 1)
		return val{b: bVec, r: ra + rb, c: 1, v: t.Concat(ev.flat(a), ev.flat(b))}
	case "append_col":
		want(2)
		a, b := args[0], args[1]
		if len(a.dims) > 0 || len(b.dims) > 0 {
			break
		}
		if a.b == bInt {
			a = like(a, ev.flat(a))
		}
		if b.b == bInt {
			b = like(b, ev.flat(b))
		}
		// append_col(A, B) = (append_row(Aᵀ, Bᵀ))ᵀ
		at, bt := ev.transpose(e.Pos, asCol(a)), ev.transpose(e.Pos, asCol(b))
		if at.c != bt.c {
			ev.fail(e.Pos, "append_col of %s and %s: row counts differ", a.typeString(), b.typeString())
		}
		st := val{b: bMat, r: at.r + bt.r, c: at.c, v: t.Concat(ev.flat(at), ev.flat(bt))}
		r := ev.transpose(e.Pos, st)
		if r.r == 1 {
			r.b = bRow
		}
		return r
	case "sub_col", "sub_row", "block":
		n := 4
		if e.Name == "block" {
			n = 5
		}
		want(n)
		i, j := ev.intOf(e, args[1]), ev.intOf(e, args[2])
		var ri, ci Index
		switch e.Name {
		case "sub_col":
			k := ev.intOf(e, args[3])
			ri = Index{Pos: e.Pos, Range: true, Lo: &IntLit{V: i}, Hi: &IntLit{V: i + k - 1}}
			ci = Index{Pos: e.Pos, E: &IntLit{V: j}}
		case "sub_row":
			k := ev.intOf(e, args[3])
			ri = Index{Pos: e.Pos, E: &IntLit{V: i}}
			ci = Index{Pos: e.Pos, Range: true, Lo: &IntLit{V: j}, Hi: &IntLit{V: j + k - 1}}
		default:
			nr, nc := ev.intOf(e, args[3]), ev.intOf(e, args[4])
			ri = Index{Pos: e.Pos, Range: true, Lo: &IntLit{V: i}, Hi: &IntLit{V: i + nr - 1}}
			ci = Index{Pos: e.Pos, Range: true, Lo: &IntLit{V: j}, Hi: &IntLit{V: j + nc - 1}}
		}
		return ev.index(e.Pos, args[0], []Index{ri, ci})
	case "gp_exp_quad_cov":
		want(3)
		x := args[0]
		if len(x.dims) != 1 || x.b != bReal && x.b != bInt {
			ev.fail(e.Pos, "gp_exp_quad_cov of %s: only an array of reals is supported", x.typeString())
		}
		n := x.dims[0]
		ii, jj := ev.ints(n*n), ev.ints(n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				ii[i*n+j], jj[i*n+j] = i, j
			}
		}
		xv := ev.flat(x)
		d := t.Sub(t.Index(xv, ii, nil), t.Index(xv, jj, nil))
		alpha, rho := ev.flat(args[1]), ev.flat(args[2])
		if alpha.Len() != 1 || rho.Len() != 1 {
			ev.fail(e.Pos, "gp_exp_quad_cov: the magnitude and length scale must be reals")
		}
		s := t.Div(ev.cnst(-0.5), t.Square(rho))
		k := t.Mul(t.Square(alpha), t.Exp(t.Mul(t.Square(d), s)))
		return val{b: bMat, r: n, c: n, v: k}
	case "cholesky_decompose":
		want(1)
		return ev.cholesky(e.Pos, args[0])
	case "head", "tail":
		want(2)
		x, n := args[0], ev.intOf(e, args[1])
		m := x.n()
		if len(x.dims) > 0 {
			m = x.dims[0]
		}
		if n < 0 || n > m {
			ev.fail(e.Pos, "%s of %d elements of a container of %d", e.Name, n, m)
		}
		lo := 1
		if e.Name == "tail" {
			lo = m - n + 1
		}
		return ev.index(e.Pos, x, []Index{{Pos: e.Pos, Range: true, Lo: &IntLit{V: lo}, Hi: &IntLit{V: lo + n - 1}}})
	case "segment":
		want(3)
		i, n := ev.intOf(e, args[1]), ev.intOf(e, args[2])
		return ev.index(e.Pos, args[0], []Index{{Pos: e.Pos, Range: true, Lo: &IntLit{V: i}, Hi: &IntLit{V: i + n - 1}}})
	case "col":
		want(2)
		return ev.index(e.Pos, args[0], []Index{{Pos: e.Pos, Range: true}, {Pos: e.Pos, E: &IntLit{V: ev.intOf(e, args[1])}}})
	case "row":
		want(2)
		return ev.index(e.Pos, args[0], []Index{{Pos: e.Pos, E: &IntLit{V: ev.intOf(e, args[1])}}})
	case "diag_matrix":
		want(1)
		x := args[0]
		n := x.n()
		es := ev.vecs(n * n)
		for k := range es {
			es[k] = zeroVec
		}
		for i := 0; i < n; i++ {
			es[i*n+i] = ev.at(x, i)
		}
		return val{b: bMat, r: n, c: n, es: es}
	case "diagonal":
		want(1)
		x := args[0]
		n := min(x.r, x.c)
		idx := ev.ints(n)
		for i := range idx {
			idx[i] = i*x.c + i
		}
		return val{b: bVec, r: n, c: 1, v: t.Index(ev.flat(x), idx, nil)}
	case "diag_pre_multiply", "diag_post_multiply":
		want(2)
		d, m := args[0], args[1]
		if e.Name == "diag_post_multiply" {
			d, m = args[1], args[0]
		}
		if m.b != bMat || d.n() != map[bool]int{true: m.r, false: m.c}[e.Name == "diag_pre_multiply"] {
			ev.fail(e.Pos, "%s of %s and %s", e.Name, args[0].typeString(), args[1].typeString())
		}
		idx := ev.ints(m.r * m.c)
		for i := 0; i < m.r; i++ {
			for j := 0; j < m.c; j++ {
				if e.Name == "diag_pre_multiply" {
					idx[i*m.c+j] = i
				} else {
					idx[i*m.c+j] = j
				}
			}
		}
		return like(m, t.Mul(t.Index(ev.flat(d), idx, nil), ev.flat(m)))
	case "quad_form_diag":
		want(2)
		m, d := args[0], args[1]
		l := ev.call2("diag_pre_multiply", e, d, m)
		return ev.call2("diag_post_multiply", e, l, d)
	case "multiply_lower_tri_self_transpose", "tcrossprod", "crossprod":
		want(1)
		x := args[0]
		if x.b != bMat {
			ev.fail(e.Pos, "%s of %s", e.Name, x.typeString())
		}
		if e.Name == "multiply_lower_tri_self_transpose" {
			idx := ev.ints(x.r * x.c)
			n := 0
			for i := 0; i < x.r; i++ {
				for j := 0; j < x.c; j++ {
					if j <= i {
						idx[n] = i*x.c + j
					} else {
						idx[n] = -1
					}
					n++
				}
			}
			es := ev.vecs(x.r * x.c)
			for k, o := range idx {
				if o < 0 {
					es[k] = zeroVec
				} else {
					es[k] = ev.at(x, o)
				}
			}
			x = val{b: bMat, r: x.r, c: x.c, es: es}
		}
		xt := ev.transpose(e.Pos, x)
		if e.Name == "crossprod" {
			return ev.matmul(e.Pos, xt, x)
		}
		return ev.matmul(e.Pos, x, xt)
	case "transpose":
		want(1)
		return ev.transpose(e.Pos, args[0])
	case "log_mix":
		want(3)
		th := ev.flat(args[0])
		if th.Len() != 1 {
			ev.fail(e.Pos, "log_mix with a vector of weights is not supported yet")
		}
		a := t.Add(t.Log(th), ev.flat(args[1]))
		b := t.Add(t.Log1m(th), ev.flat(args[2]))
		return val{b: bReal, v: t.Map(logSumExp2, a, b)}
	case "fma":
		want(3)
		return like(args[0], t.Add(t.Mul(ev.flat(args[0]), ev.flat(args[1])), ev.flat(args[2])))
	case "int_step", "step":
		want(1)
		x := ev.num(args[0])
		if e.Name == "step" {
			return boolInt(x >= 0)
		}
		return boolInt(x > 0)
	case "is_inf", "is_nan":
		want(1)
		x := ev.num(args[0])
		if e.Name == "is_inf" {
			return boolInt(math.IsInf(x, 0))
		}
		return boolInt(math.IsNaN(x))
	}
	if f, ok := unaryFns[e.Name]; ok && len(args) == 1 {
		return ev.mapUnary(f, args[0])
	}
	if f := binaryFns[e.Name]; f != nil && len(args) == 2 {
		a, b := args[0], args[1]
		shape := a
		if a.scalar() {
			shape = b
		}
		if shape.n() == 0 {
			return like(shape, ad.Vec{})
		}
		return like(shape, t.Map(f, ev.flat(a), ev.flat(b)))
	}
	ev.fail(e.Pos, "function %s: unsupported arguments (%d given)", e.Name, len(args))
	return val{}
}

func (ev *evaluator) call2(name string, e *Call, a, b val) val {
	return ev.callVals(&Call{Pos: e.Pos, Name: name}, a, b)
}

// callVals calls a builtin on values already evaluated.
func (ev *evaluator) callVals(c *Call, args ...val) val {
	slot := len(ev.env)
	for _, a := range args {
		ev.env = append(ev.env, a)
	}
	c.Args = make([]Expr, len(args))
	for k := range args {
		c.Args[k] = &Ident{Pos: c.Pos, slot: slot + k}
	}
	r := ev.call(c)
	ev.env = ev.env[:slot]
	return r
}

func (ev *evaluator) intOf(e *Call, x val) int {
	if x.b != bInt || !x.scalar() {
		ev.fail(e.Pos, "%s: expected an int, found %s", e.Name, x.typeString())
	}
	return ev.intv(x)
}

func (ev *evaluator) ones(n int) ad.Vec {
	f := ev.floats(n)
	for k := range f {
		f[k] = 1
	}
	return constVec(f)
}

// logSumExp returns log Σ exp(vᵢ), shifted by the maximum (a constant: the
// gradient is exact).
func (ev *evaluator) logSumExp(v ad.Vec) ad.Vec {
	m := math.Inf(-1)
	for _, x := range ev.t.Values(v) {
		m = math.Max(m, x)
	}
	if math.IsInf(m, 0) {
		return ev.cnst(m)
	}
	c := ev.cnst(m)
	return ev.t.Add(ev.t.Log(ev.t.Sum(ev.t.Exp(ev.t.Sub(v, c)))), c)
}

// asCol returns a scalar or vector as a matrix column (a row vector as a
// 1-row matrix), a matrix as it is.
func asCol(x val) val {
	switch x.b {
	case bInt, bReal:
		return val{b: bMat, r: 1, c: 1, v: x.v, es: x.es, i: x.i}
	case bVec, bRow:
		x.b = bMat
	}
	return x
}

// cholesky returns the lower Cholesky factor L of the symmetric positive
// definite matrix a (only its lower triangle is read), one scalar
// operation at a time (O(n³) nodes: for the small matrices of applied
// models), rejecting a matrix that is not positive definite.
func (ev *evaluator) cholesky(p Pos, a val) val {
	if a.b != bMat || a.r != a.c || len(a.dims) > 0 {
		ev.fail(p, "cholesky_decompose of %s (want a square matrix)", a.typeString())
	}
	n := a.r
	t := ev.t
	L := ev.vecs(n * n)
	for k := range L {
		L[k] = zeroVec
	}
	av := ev.flat(a)
	for j := 0; j < n; j++ {
		for i := j; i < n; i++ {
			s := av.At(i*n + j)
			if j > 0 {
				s = t.Sub(s, t.Dot(t.Stack(L[i*n:i*n+j]), t.Stack(L[j*n:j*n+j])))
			}
			if i == j {
				if v := t.Values(s)[0]; !(v > 0) {
					ev.reject(p, "cholesky_decompose: the matrix is not positive definite (pivot %d is %v)", j+1, v)
				}
				L[j*n+j] = t.Sqrt(s)
			} else {
				L[i*n+j] = t.Div(s, L[j*n+j])
			}
		}
	}
	return val{b: bMat, r: n, c: n, es: L}
}

// callUser calls the user-defined function f. Its arguments' and locals'
// slots are saved and restored around the call, so that it may recurse.
func (ev *evaluator) callUser(p Pos, f *FuncDef, args []val) val {
	if len(args) != len(f.Args) {
		ev.fail(p, "%s takes %d arguments, found %d", f.Name, len(f.Args), len(args))
	}
	ev.depth++
	if ev.depth > 1000 {
		ev.fail(p, "%s: calls nested deeper than 1000", f.Name)
	}
	save := ev.vals(f.hi - f.lo)
	copy(save, ev.env[f.lo:f.hi])
	for k, s := range f.slots {
		ev.env[s] = args[k]
	}
	ev.execBlock(f.Body)
	r, returned := ev.ret, ev.loop == 3
	ev.loop, ev.ret = 0, val{}
	copy(ev.env[f.lo:f.hi], save)
	ev.depth--
	if !returned && f.Return != "void" {
		ev.fail(f.Pos, "%s ended without returning a value", f.Name)
	}
	return r
}
