package transform

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

var cases = []struct {
	name string
	t    Transform
	free func(y []float64) []float64 // the constrained coordinates that are free (for the determinant)
}{
	{"Identity", Identity(3), nil},
	{"Positive", Positive(3), nil},
	{"Lower", Lower{L: -2, N: 2}, nil},
	{"Upper", Upper{U: 1.5, N: 2}, nil},
	{"Bounded", Bounded{L: -1, U: 3, N: 3}, nil},
	{"Ordered", Ordered(4), nil},
	{"Simplex", Simplex(4), func(y []float64) []float64 { return y[:3] }},
	{"Simplex2", Simplex(2), func(y []float64) []float64 { return y[:1] }},
	{"CholeskyCorr3", CholeskyCorr(3), func(y []float64) []float64 { return strictLower(y, 3) }},
	{"CholeskyCorr4", CholeskyCorr(4), func(y []float64) []float64 { return strictLower(y, 4) }},
}

func strictLower(y []float64, k int) []float64 {
	var out []float64
	for i := 1; i < k; i++ {
		out = append(out, y[i*k:i*k+i]...)
	}
	return out
}

func forward(t Transform, x []float64) ([]float64, float64) {
	y := make([]float64, t.Len())
	lj := t.Forward(y, x)
	return y, lj
}

// TestLogDet checks that log|J| is the log-determinant of the Jacobian of the
// map from θ to the free constrained coordinates, computed by finite
// differences.
func TestLogDet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases {
		n := c.t.Size()
		for rep := 0; rep < 3; rep++ {
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			free := c.free
			if free == nil {
				free = func(y []float64) []float64 { return y }
			}
			J := mat.NewDense(n, n, nil)
			for j := 0; j < n; j++ {
				h := 1e-6
				xp := append([]float64(nil), x...)
				xp[j] += h
				yp, _ := forward(c.t, xp)
				xp[j] -= 2 * h
				ym, _ := forward(c.t, xp)
				fp, fm := free(yp), free(ym)
				for i := 0; i < n; i++ {
					J.Set(i, j, (fp[i]-fm[i])/(2*h))
				}
			}
			var lu mat.LU
			lu.Factorize(J)
			want, _ := lu.LogDet()
			if _, lj := forward(c.t, x); math.Abs(lj-want) > 1e-7 {
				t.Errorf("%s at %.3v: log|J| = %.10g, log|det| of the finite-difference Jacobian %.10g", c.name, x, lj, want)
			}
		}
	}
}

// TestBackward checks Backward against finite differences of the scalar
// gyᵀ f(x) + gj log|J(x)| for random gy.
func TestBackward(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, c := range cases {
		n, m := c.t.Size(), c.t.Len()
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		gy := make([]float64, m)
		for i := range gy {
			gy[i] = rng.NormFloat64()
		}
		const gj = 0.7
		f := func(x []float64) float64 {
			y, lj := forward(c.t, x)
			s := gj * lj
			for i, v := range y {
				s += gy[i] * v
			}
			return s
		}
		y, _ := forward(c.t, x)
		for _, gyv := range [][]float64{gy, nil} {
			g := make([]float64, n)
			for i := range g {
				g[i] = 0.25 // added into, not overwritten
			}
			c.t.Backward(g, x, y, gyv, gj)
			for j := range x {
				fj := f
				if gyv == nil {
					fj = func(x []float64) float64 { _, lj := forward(c.t, x); return gj * lj }
				}
				h := 1e-6
				xp := append([]float64(nil), x...)
				xp[j] += h
				fp := fj(xp)
				xp[j] -= 2 * h
				num := (fp - fj(xp)) / (2 * h)
				if a := g[j] - 0.25; math.Abs(a-num) > 1e-7*math.Max(1, math.Abs(num)) {
					t.Errorf("%s (gy nil: %v): ∂/∂x%d = %.10g, finite difference %.10g", c.name, gyv == nil, j, a, num)
				}
			}
		}
	}
}

func TestInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range cases {
		x := make([]float64, c.t.Size())
		for i := range x {
			x[i] = 2 * rng.NormFloat64()
		}
		y, _ := forward(c.t, x)
		back := make([]float64, len(x))
		if err := c.t.Inverse(back, y); err != nil {
			t.Fatalf("%s: Inverse(Forward(x)): %v", c.name, err)
		}
		for i := range x {
			if math.Abs(back[i]-x[i]) > 1e-8*math.Max(1, math.Abs(x[i])) {
				t.Errorf("%s: Inverse(Forward(x))[%d] = %.12g, want %.12g", c.name, i, back[i], x[i])
			}
		}
	}
	for _, bad := range []struct {
		t Transform
		y []float64
	}{
		{Positive(2), []float64{1, -1}},
		{Bounded{0, 1, 1}, []float64{1}},
		{Ordered(3), []float64{0, 2, 1}},
		{Simplex(3), []float64{0.5, 0.6, 0.1}},
		{CholeskyCorr(2), []float64{1, 0.5, 0.5, 0.5}},
	} {
		if err := bad.t.Inverse(make([]float64, bad.t.Size()), bad.y); err == nil {
			t.Errorf("%T.Inverse(%v): no error", bad.t, bad.y)
		}
	}
}

// TestCholeskyCorrRows checks that LLᵀ is a correlation matrix.
func TestCholeskyCorrRows(t *testing.T) {
	x := []float64{0.3, -2, 1.1, 0.4, -0.2, 3}
	y, _ := forward(CholeskyCorr(4), x)
	L := mat.NewDense(4, 4, y)
	var om mat.Dense
	om.Mul(L, L.T())
	for i := 0; i < 4; i++ {
		if math.Abs(om.At(i, i)-1) > 1e-14 {
			t.Errorf("(LLᵀ)[%d][%d] = %g, want 1", i, i, om.At(i, i))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(mat.NewSymDense(4, om.RawMatrix().Data)) {
		t.Error("LLᵀ is not positive definite")
	}
}

func TestLayout(t *testing.T) {
	var l Layout
	mu := l.Add("mu", Identity(1))
	tau := l.Add("tau", Positive(1))
	w := l.Add("w", Identity(6), 2, 3)
	p := l.Add("p", Simplex(3))
	L := l.Add("L", CholeskyCorr(2))
	if got, want := l.Dim(), 1+1+6+2+1; got != want {
		t.Fatalf("Dim = %d, want %d", got, want)
	}
	names := l.Names()
	want := []string{"mu", "log_tau", "w.1.1", "w.1.2", "w.1.3", "w.2.1", "w.2.2", "w.2.3", "free_p.1", "free_p.2", "free_L.1"}
	if len(names) != len(want) {
		t.Fatalf("Names = %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("Names[%d] = %q, want %q", i, names[i], want[i])
		}
	}
	dn := l.DerivedNames()
	wantD := []string{"tau", "p.1", "p.2", "p.3", "L.1.1", "L.1.2", "L.2.1", "L.2.2"}
	for i := range wantD {
		if dn[i] != wantD[i] {
			t.Errorf("DerivedNames[%d] = %q, want %q", i, dn[i], wantD[i])
		}
	}
	theta := []float64{0.5, math.Log(2), 1, 2, 3, 4, 5, 6, 0, 0, 0}
	y := make([]float64, l.Len())
	lj := l.Constrain(y, theta)
	if math.Abs(lj-(math.Log(2)+Simplex(3).Forward(make([]float64, 3), []float64{0, 0})+CholeskyCorr(2).Forward(make([]float64, 4), []float64{0}))) > 1e-14 {
		t.Errorf("Constrain log|J| = %g", lj)
	}
	if mu.Of(y)[0] != 0.5 || tau.Of(y)[0] != 2 || w.Of(y)[5] != 6 || math.Abs(p.Of(y)[2]-1.0/3) > 1e-15 || L.Of(y)[3] != 1 {
		t.Errorf("Constrain = %v", y)
	}
	d := make([]float64, len(dn))
	l.Derive(theta, d)
	if d[0] != 2 || math.Abs(d[1]-1.0/3) > 1e-15 {
		t.Errorf("Derive = %v", d)
	}
	back := make([]float64, l.Dim())
	if err := l.Unconstrain(back, y); err != nil {
		t.Fatal(err)
	}
	for i := range theta {
		if math.Abs(back[i]-theta[i]) > 1e-12 {
			t.Errorf("Unconstrain[%d] = %g, want %g", i, back[i], theta[i])
		}
	}
	y[1] = -1
	if err := l.Unconstrain(back, y); err == nil {
		t.Error("Unconstrain with tau = −1: no error")
	}
}
