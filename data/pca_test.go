package data

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestPCAWhitener checks that the whitened training components have mean 0
// and identity covariance, that they are the leading components (explained
// variance), and that bad component counts are errors.
func TestPCAWhitener(t *testing.T) {
	t.Parallel()
	const n, p, q = 500, 6, 4
	rng := rand.New(rand.NewPCG(5, 5))
	X := mat.NewDense(n, p, nil)
	for i := 0; i < n; i++ {
		z := rng.NormFloat64()
		for j := 0; j < p; j++ {
			X.Set(i, j, 3+float64(j+1)*rng.NormFloat64()+2*z) // correlated, uneven scales
		}
	}
	w, err := FitPCAWhitener(X, q, 0)
	if err != nil {
		t.Fatal(err)
	}
	Z := w.Transform(X)
	for a := 0; a < q; a++ {
		var m float64
		for i := 0; i < n; i++ {
			m += Z.At(i, a)
		}
		m /= n
		if math.Abs(m) > 1e-10 {
			t.Errorf("component %d: mean %v, want 0", a, m)
		}
		for b := 0; b < q; b++ {
			var c float64
			for i := 0; i < n; i++ {
				c += Z.At(i, a) * Z.At(i, b)
			}
			c /= n - 1
			want := 0.0
			if a == b {
				want = 1
			}
			if math.Abs(c-want) > 1e-9 {
				t.Errorf("covariance (%d, %d) = %v, want %v", a, b, c, want)
			}
		}
	}
	for j := 1; j < p; j++ {
		if w.eig[j] > w.eig[j-1] {
			t.Fatalf("eigenvalues not descending: %v", w.eig)
		}
	}
	if e := w.Explained(p); math.Abs(e-1) > 1e-12 {
		t.Errorf("explained(p) = %v, want 1", e)
	}
	for _, bad := range []int{0, p + 1} {
		if _, err := FitPCAWhitener(X, bad, 0); err == nil {
			t.Errorf("%d components: no error", bad)
		}
	}
	for _, f := range []float64{0.5, 0.9, 0.99} {
		wf, err := FitPCAWhitener(X, 0, f)
		if err != nil {
			t.Fatal(err)
		}
		k := wf.Components()
		if wf.Explained(k) < f || (k > 1 && wf.Explained(k-1) >= f) {
			t.Errorf("fraction %v: %d components explain %v (%d: %v)", f, k, wf.Explained(k), k-1, wf.Explained(k-1))
		}
	}
	if _, err := FitPCAWhitener(X, 0, 1.5); err == nil {
		t.Error("fraction 1.5: no error")
	}
	const0 := mat.NewDense(n, 2, nil) // no variance at all
	if _, err := FitPCAWhitener(const0, 1, 0); err == nil {
		t.Error("constant features: no error")
	}
}
