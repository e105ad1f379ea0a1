package approx_test

import (
	"context"
	"slices"
	"testing"

	"github.com/langevin-go/langevin/approx"
)

// TestMAPProblemOnePassPerPoint: gonum asks Func then Grad at the same
// point; MAPProblem evaluates the log posterior once there (value and
// gradient), and again only at a new point, with the same gradient bits as
// a direct evaluation. Before, every point cost two passes.
func TestMAPProblemOnePassPerPoint(t *testing.T) {
	calls := 0
	// log p(x) = −Σ c_j x_j⁴/4 − x₁x₂, gradient −c_j x_j³ − (x₂, x₁, 0).
	c := []float64{1, 2, 3}
	logPost := func(x, grad []float64) float64 {
		calls++
		var f float64
		for j, v := range x {
			f -= c[j] * v * v * v * v / 4
			if grad != nil {
				grad[j] = -c[j] * v * v * v
			}
		}
		f -= x[0] * x[1]
		if grad != nil {
			grad[0] -= x[1]
			grad[1] -= x[0]
		}
		return f
	}
	p := approx.MAPProblem(context.Background(), logPost)
	x := []float64{0.3, -1.1, 0.7}
	want := make([]float64, 3)
	f := logPost(x, want)
	for j := range want {
		want[j] = -want[j]
	}
	calls = 0
	if got := p.Func(x); got != -f {
		t.Fatalf("Func = %v, want %v", got, -f)
	}
	g := make([]float64, 3)
	p.Grad(g, x)
	if calls != 1 || !slices.Equal(g, want) {
		t.Errorf("Func then Grad at one point: %d passes, gradient %v; want 1 pass and %v", calls, g, want)
	}
	y := []float64{0.3, -1.1, 0.8}
	p.Grad(g, y)
	logPost(y, want)
	for j := range want {
		want[j] = -want[j]
	}
	if calls != 3 || !slices.Equal(g, want) {
		t.Errorf("Grad at a new point: gradient %v, want %v (a fresh pass)", g, want)
	}
}
