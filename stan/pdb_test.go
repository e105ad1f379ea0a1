package stan

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// pdbPosterior is one of posteriordb's posteriors with reference draws, as
// testdata/posteriordb.sh copied it: program, data and reference summary.
type pdbPosterior struct{ Name, Model, Data string }

// pdbIndex lists testdata/posteriordb/index.json.
func pdbIndex(t testing.TB) []pdbPosterior {
	t.Helper()
	var ps []pdbPosterior
	if err := json.Unmarshal(mustRead(t, filepath.Join("testdata", "posteriordb", "index.json")), &ps); err != nil {
		t.Fatal(err)
	}
	return ps
}

// pdbLoad parses the posterior's program and data (a zipped JSON file) and
// builds the model; the error is the front end's (a refused construct).
func pdbLoad(t testing.TB, p pdbPosterior) (*Model, error) {
	t.Helper()
	dir := filepath.Join("testdata", "posteriordb")
	src := mustRead(t, filepath.Join(dir, p.Model+".stan"))
	z := mustRead(t, filepath.Join(dir, p.Data+".json.zip"))
	zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil || len(zr.File) != 1 {
		t.Fatalf("%s.json.zip: %v", p.Data, err)
	}
	f, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := Parse(p.Model+".stan", string(src))
	if err != nil {
		return nil, err
	}
	d, err := ParseData(p.Data+".json", b)
	if err != nil {
		return nil, err
	}
	return New(prog, d)
}

// pdbRef reads the posterior's reference summary; ok is false when the
// mirror lacked its draws.
func pdbRef(t testing.TB, name string) (ref reference, ok bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "posteriordb", name+".ref.json"))
	if os.IsNotExist(err) {
		return ref, false
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	return ref, true
}

// TestGradPosteriordb checks the gradient of every posteriordb posterior
// with reference draws that builds against central finite differences; the
// ones refused must be refused by name (ODE solvers, dims).
func TestGradPosteriordb(t *testing.T) {
	for _, p := range pdbIndex(t) {
		t.Run(p.Name, func(t *testing.T) {
			m, err := pdbLoad(t, p)
			if err != nil {
				if !strings.Contains(err.Error(), "not supported") {
					t.Fatal(err)
				}
				t.Skip(err)
			}
			checkGradAt(t, m, 0.5)
		})
	}
}

// checkGradAt compares the gradient of LogPrior with central finite
// differences (step h = 10⁻⁶·max(1, |θᵢ|)) at a few random points of
// [−scale, scale]^d where the log density and its gradient are finite (a
// point where Stan's gradient is not finite either, such as the derivative
// of sqrt at an underflowed 0, is drawn again). The tolerance is 10⁻⁴
// relative plus the rounding error of the difference, 10·ε·|log p|/h.
// With -short one point and four coordinates at random are checked.
func checkGradAt(t *testing.T, m *Model, scale float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	d := m.Dim()
	reps := 3
	if testing.Short() {
		reps = 1
	}
	theta, g := make([]float64, d), make([]float64, d)
	for rep, tries := 0, 0; rep < reps; tries++ {
		if tries == 100 {
			t.Fatalf("no point with a finite gradient in 100 tries")
		}
		for i := range theta {
			theta[i] = scale * (2*rng.Float64() - 1)
			g[i] = 0
		}
		lp := m.LogPrior(theta, g)
		if !finite(lp) || !finite(floats.Sum(g)) {
			continue
		}
		rep++
		coords := rng.Perm(d)
		if testing.Short() && d > 4 { // -short: four coordinates at random
			coords = coords[:4]
		}
		for _, i := range coords {
			h := 1e-6 * math.Max(1, math.Abs(theta[i]))
			x := append([]float64(nil), theta...)
			x[i] += h
			up := m.LogPrior(x, nil)
			x[i] -= 2 * h
			dn := m.LogPrior(x, nil)
			fd := (up - dn) / (2 * h)
			if math.Abs(fd-g[i]) > 1e-4*math.Max(1, math.Abs(fd))+10*0x1p-52*math.Abs(lp)/h {
				t.Errorf("θ = %v: ∂/∂%s = %v, finite differences %v", theta, m.ParamNames()[i], g[i], fd)
			}
		}
	}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
