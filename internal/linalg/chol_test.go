package linalg

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCholLower checks L Lᵀ = A and agreement with gonum's mat.Cholesky on
// random SPD matrices, in place and out of place, and the refusals.
func TestCholLower(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 5, 17} {
		b := make([]float64, n*n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		a := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				for k := 0; k < n; k++ {
					a[i*n+j] += b[i*n+k] * b[j*n+k]
				}
			}
			a[i*n+i] += 0.1
		}
		l := make([]float64, n*n)
		if !CholLower(l, a, n) {
			t.Fatalf("n=%d: refused an SPD matrix", n)
		}
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(n, append([]float64(nil), a...))) {
			t.Fatal("gonum refused")
		}
		var lg mat.TriDense
		ch.LTo(&lg)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				if d := math.Abs(l[i*n+j] - lg.At(i, j)); d > 1e-12*(1+math.Abs(lg.At(i, j))) {
					t.Errorf("n=%d: L[%d,%d] = %v, gonum %v", n, i, j, l[i*n+j], lg.At(i, j))
				}
			}
			for j := i + 1; j < n; j++ {
				if l[i*n+j] != 0 {
					t.Errorf("n=%d: wrote the upper triangle at (%d,%d)", n, i, j)
				}
			}
		}
		in := append([]float64(nil), a...)
		if !CholLower(in, in, n) {
			t.Fatal("in place refused")
		}
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				if in[i*n+j] != l[i*n+j] {
					t.Fatalf("n=%d: in place differs at (%d,%d)", n, i, j)
				}
			}
		}
	}
	for _, a := range [][]float64{{1, 2, 2, 1}, {0}, {math.NaN()}, {math.Inf(1)}} {
		n := int(math.Sqrt(float64(len(a))))
		if CholLower(make([]float64, n*n), a, n) {
			t.Errorf("%v: accepted", a)
		}
	}
}

func BenchmarkCholLower(b *testing.B) {
	n := 50
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		a[i*n+i] = 2
		if i > 0 {
			a[i*n+i-1] = 0.5
		}
	}
	l := make([]float64, n*n)
	b.ReportAllocs()
	for b.Loop() {
		CholLower(l, a, n)
	}
}

// TestSolveLower checks L x = b and Lᵀ x = b for the factor of a random SPD
// matrix, in place and out of place (the same bits).
func TestSolveLower(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 3, 12} {
		a := make([]float64, n*n)
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				v := 0.3 * rng.NormFloat64()
				a[i*n+j], a[j*n+i] = v, v
			}
			a[i*n+i] = float64(n) + rng.Float64()
		}
		l := make([]float64, n*n)
		if !CholLower(l, a, n) {
			t.Fatalf("n=%d: not SPD", n)
		}
		b := make([]float64, n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		for _, tc := range []struct {
			name  string
			solve func(x, l, b []float64, n int)
			at    func(i, k int) float64 // the matrix solved with
		}{
			{"L", SolveLower, func(i, k int) float64 { return l[i*n+k] }},
			{"Lᵀ", SolveLowerT, func(i, k int) float64 { return l[k*n+i] }},
		} {
			x := make([]float64, n)
			tc.solve(x, l, b, n)
			for i := 0; i < n; i++ {
				var s float64
				for k := 0; k < n; k++ {
					if (tc.name == "L" && k <= i) || (tc.name != "L" && k >= i) {
						s += tc.at(i, k) * x[k]
					}
				}
				if math.Abs(s-b[i]) > 1e-12*(1+math.Abs(b[i])) {
					t.Errorf("n=%d %s: row %d gives %v, want %v", n, tc.name, i, s, b[i])
				}
			}
			in := append([]float64(nil), b...)
			tc.solve(in, l, in, n)
			for i := range in {
				if in[i] != x[i] {
					t.Errorf("n=%d %s: in place differs at %d", n, tc.name, i)
				}
			}
		}
	}
}

func BenchmarkSolveLower(b *testing.B) {
	n := 50
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		a[i*n+i] = 2
		if i > 0 {
			a[i*n+i-1] = 0.5
		}
	}
	l := make([]float64, n*n)
	CholLower(l, a, n)
	x, rhs := make([]float64, n), make([]float64, n)
	for i := range rhs {
		rhs[i] = 1
	}
	b.ReportAllocs()
	for b.Loop() {
		SolveLower(x, l, rhs, n)
		SolveLowerT(x, l, x, n)
	}
}
