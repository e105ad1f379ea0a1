package predict

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bisectQuantile is the plain bisection mixtureQuantile replaced: the
// reference of TestMixtureQuantile.
func bisectQuantile(mu, sd []float64, p float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for s, m := range mu {
		lo = min(lo, m-9*sd[s])
		hi = max(hi, m+9*sd[s])
	}
	cdf := func(q float64) float64 {
		var c float64
		for s, m := range mu {
			if sd[s] == 0 {
				if q >= m {
					c++
				}
				continue
			}
			c += 0.5 * math.Erfc(-(q-m)/(sd[s]*math.Sqrt2))
		}
		return c / float64(len(mu))
	}
	for it := 0; it < 200 && hi-lo > 1e-13*max(1, math.Abs(lo)+math.Abs(hi)); it++ {
		mid := 0.5 * (lo + hi)
		if cdf(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return 0.5 * (lo + hi)
}

// TestMixtureQuantile: the safeguarded Newton root of F(q) = p equals
// bisection's to 1e-10 (relative) on mixtures that are one normal, well
// separated components (F nearly flat between them), point masses, and
// both mixed, at tail and central levels.
func TestMixtureQuantile(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cases := map[string]func() ([]float64, []float64){
		"one normal": func() ([]float64, []float64) { return []float64{2}, []float64{3} },
		"wide means": func() ([]float64, []float64) {
			mu, sd := make([]float64, 200), make([]float64, 200)
			for i := range mu {
				mu[i], sd[i] = 5*rng.NormFloat64(), 0.1
			}
			return mu, sd
		},
		"two modes": func() ([]float64, []float64) {
			mu, sd := make([]float64, 100), make([]float64, 100)
			for i := range mu {
				mu[i], sd[i] = float64(100*(i%2)), 0.01+rng.Float64()
			}
			return mu, sd
		},
		"point masses": func() ([]float64, []float64) { return []float64{-1, 1, 3}, []float64{0, 0, 0} },
		"mixed":        func() ([]float64, []float64) { return []float64{-1, 1, 3, 4}, []float64{0, 2, 0, 1e-3} },
	}
	for name, mk := range cases {
		mu, sd := mk()
		for _, p := range []float64{0.005, 0.025, 0.05, 0.3, 0.5, 0.95, 0.975} {
			got, want := mixtureQuantile(mu, sd, p), bisectQuantile(mu, sd, p)
			if math.Abs(got-want) > 1e-10*max(1, math.Abs(want)) {
				t.Errorf("%s, p = %v: %v, bisection %v", name, p, got, want)
			}
		}
	}
}
