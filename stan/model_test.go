package stan

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// built are posteriordb posteriors without reference draws whose programs
// are checked for gradients only.
var built = []struct{ model, data string }{
	{"wells_dist", "wells_data"},
	{"radon_hierarchical_intercept_noncentered", "radon_mn"},
	{"radon_hierarchical_intercept_centered", "radon_mn"},
}

func load(t testing.TB, model, data string) *Model {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", model+".stan"))
	if err != nil {
		t.Fatal(err)
	}
	prog, err := Parse(model+".stan", string(src))
	if err != nil {
		t.Fatal(err)
	}
	var d *Data
	if data != "" {
		b, err := os.ReadFile(filepath.Join("testdata", data+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if d, err = ParseData(data+".json", b); err != nil {
			t.Fatal(err)
		}
	}
	m, err := New(prog, d)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func loadSrc(t testing.TB, src, data string) (*Model, error) {
	t.Helper()
	prog, err := Parse("test.stan", src)
	if err != nil {
		return nil, err
	}
	var d *Data
	if data != "" {
		if d, err = ParseData("test.json", []byte(data)); err != nil {
			return nil, err
		}
	}
	return New(prog, d)
}

// checkGrad compares the gradient of LogPrior with central finite
// differences at a few random points.
func checkGrad(t *testing.T, m *Model, scale float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	d := m.Dim()
	reps := 3
	if testing.Short() {
		reps = 1
	}
	for rep := 0; rep < reps; rep++ {
		theta := make([]float64, d)
		for i := range theta {
			theta[i] = scale * (2*rng.Float64() - 1)
		}
		g := make([]float64, d)
		lp := m.LogPrior(theta, g)
		if math.IsNaN(lp) || math.IsInf(lp, 0) {
			t.Fatalf("log density %v at %v", lp, theta)
		}
		for i := range theta {
			h := 1e-6 * math.Max(1, math.Abs(theta[i]))
			x := append([]float64(nil), theta...)
			x[i] += h
			up := m.LogPrior(x, nil)
			x[i] -= 2 * h
			dn := m.LogPrior(x, nil)
			fd := (up - dn) / (2 * h)
			if math.Abs(fd-g[i]) > 1e-4*math.Max(1, math.Abs(fd)) {
				t.Errorf("∂/∂%s = %v, finite differences %v", m.ParamNames()[i], g[i], fd)
			}
		}
	}
}

func TestGradPosteriors(t *testing.T) {
	for _, p := range built {
		t.Run(p.model, func(t *testing.T) {
			checkGrad(t, load(t, p.model, p.data), 0.5)
		})
	}
}
