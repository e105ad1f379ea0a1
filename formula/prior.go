package formula

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/langevin-go/langevin/ad"
)

// Prior is a prior distribution of one class of parameters, as brms writes
// it: normal(0, 2.5), student_t(3, 0, 2.5), cauchy(0, 5), exponential(1),
// gamma(2, 0.1), lkj(1), or flat.
type Prior struct {
	Dist string
	Args []float64
}

func (p Prior) String() string {
	if p.Dist == "flat" || p.Dist == "" {
		return "flat"
	}
	a := make([]string, len(p.Args))
	for i, v := range p.Args {
		a[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return p.Dist + "(" + strings.Join(a, ", ") + ")"
}

var priorArgs = map[string]int{"normal": 2, "student_t": 3, "cauchy": 2, "exponential": 1, "gamma": 2, "lkj": 1, "flat": 0}

// ParsePrior parses "dist(a, b, …)" or "flat".
func ParsePrior(s string) (Prior, error) {
	s = strings.TrimSpace(s)
	if s == "flat" || s == "" {
		return Prior{Dist: "flat"}, nil
	}
	i := strings.IndexByte(s, '(')
	if i < 0 || !strings.HasSuffix(s, ")") {
		return Prior{}, fmt.Errorf("prior %q: expected dist(args), e.g. normal(0, 2.5), or flat", s)
	}
	name := strings.TrimSpace(s[:i])
	want, ok := priorArgs[name]
	if !ok {
		return Prior{}, fmt.Errorf("prior %q: unknown distribution %q: expected normal, student_t, cauchy, exponential, gamma, lkj or flat", s, name)
	}
	var args []float64
	for _, a := range strings.Split(s[i+1:len(s)-1], ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return Prior{}, fmt.Errorf("prior %q: argument %q: expected a finite number", s, strings.TrimSpace(a))
		}
		args = append(args, v)
	}
	if len(args) != want {
		return Prior{}, fmt.Errorf("prior %q: %s takes %d arguments, got %d", s, name, want, len(args))
	}
	for k, v := range args {
		scaleArg := (name == "normal" || name == "cauchy") && k == 1 || name == "student_t" && k != 1 || name == "exponential" || name == "gamma" || name == "lkj"
		if scaleArg && !(v > 0) {
			return Prior{}, fmt.Errorf("prior %q: argument %d must be positive", s, k+1)
		}
	}
	return Prior{Dist: name, Args: args}, nil
}

// ParsePriors parses "class ~ dist(args); class ~ …" (classes Intercept, b,
// sd, cor, sigma, nu, shape).
func ParsePriors(s string) (map[string]Prior, error) {
	out := map[string]Prior{}
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k := strings.IndexByte(part, '~')
		if k < 0 {
			return nil, fmt.Errorf("prior %q: expected class ~ distribution, e.g. b ~ normal(0, 1)", part)
		}
		class := strings.TrimSpace(part[:k])
		if !validClass[class] {
			return nil, fmt.Errorf("prior %q: unknown class %q: expected one of Intercept, b, sd, cor, sigma, nu, shape", part, class)
		}
		p, err := ParsePrior(part[k+1:])
		if err != nil {
			return nil, err
		}
		if class == "cor" && p.Dist != "lkj" || class != "cor" && p.Dist == "lkj" {
			return nil, fmt.Errorf("prior %q: lkj(η) is the prior of cor, and cor takes only lkj(η)", part)
		}
		out[class] = p
	}
	return out, nil
}

var validClass = map[string]bool{"Intercept": true, "b": true, "sd": true, "cor": true, "sigma": true, "nu": true, "shape": true}

// logDensity returns the prior's log density of x on the tape (positive:
// the density truncated to (lower, ∞), as brms does for scales).
func (p Prior) logDensity(t *ad.Tape, x ad.Vec, lower float64, positive bool) ad.Vec {
	c := t.Const
	var lp ad.Vec
	var logMass float64 // log of the prior mass above lower (truncation)
	switch p.Dist {
	case "flat", "":
		return c(0)
	case "normal":
		lp = t.Normal(x, c(p.Args[0]), c(p.Args[1]))
		if positive {
			logMass = math.Log(0.5 * math.Erfc((lower-p.Args[0])/(p.Args[1]*math.Sqrt2)))
		}
	case "student_t":
		lp = t.StudentT(x, c(p.Args[0]), c(p.Args[1]), c(p.Args[2]))
		if positive && lower == 0 && p.Args[1] == 0 {
			logMass = -math.Ln2
		}
	case "cauchy":
		lp = t.Cauchy(x, c(p.Args[0]), c(p.Args[1]))
		if positive && lower == 0 {
			logMass = math.Log(0.5 - math.Atan(-p.Args[0]/p.Args[1])/math.Pi)
		}
	case "exponential":
		lp = t.Exponential(x, c(p.Args[0]))
		logMass = -p.Args[0] * lower
	case "gamma":
		lp = t.Gamma(x, c(p.Args[0]), c(p.Args[1]))
		if lower > 0 {
			logMass = math.Log(gammaQ(p.Args[0], p.Args[1]*lower))
		}
	default:
		panic("formula: prior " + p.Dist + " on a vector")
	}
	if logMass != 0 {
		lp = t.Sub(lp, c(float64(x.Len())*logMass))
	}
	return lp
}

// gammaQ is the regularised upper incomplete gamma function Q(a, x), by
// series for small x and a continued fraction otherwise.
func gammaQ(a, x float64) float64 {
	lg, _ := math.Lgamma(a)
	if x < a+1 {
		sum, term := 1/a, 1/a
		for n := 1; n < 500; n++ {
			term *= x / (a + float64(n))
			sum += term
			if term < sum*1e-16 {
				break
			}
		}
		return 1 - sum*math.Exp(-x+a*math.Log(x)-lg)
	}
	b := x + 1 - a
	cc, d := 1/1e-300, 1/b
	h := d
	for i := 1; i < 500; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < 1e-300 {
			d = 1e-300
		}
		cc = b + an/cc
		if math.Abs(cc) < 1e-300 {
			cc = 1e-300
		}
		d = 1 / d
		del := d * cc
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return math.Exp(-x+a*math.Log(x)-lg) * h
}

// median and mad as R computes them (mad scaled by 1.4826).
func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func mad(x []float64) float64 {
	m := median(x)
	d := make([]float64, len(x))
	for i, v := range x {
		d[i] = math.Abs(v - m)
	}
	return 1.4826 * median(d)
}

// round1 rounds to one decimal, as brms rounds its default prior's
// location and scale.
func round1(x float64) float64 { return math.RoundToEven(x*10) / 10 }
