package diag_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distmv"

	"github.com/langevin-go/langevin/diag"
)

func TestKLGaussian(t *testing.T) {
	// One dimension: KL(N(m0,s0²)‖N(m1,s1²)) = log(s1/s0) + (s0² + (m0−m1)²)/(2s1²) − ½.
	s0 := mat.NewSymDense(1, []float64{0.5})
	s1 := mat.NewSymDense(1, []float64{2})
	got, err := diag.KLGaussian([]float64{1}, s0, []float64{-1}, s1)
	want := math.Log(math.Sqrt(2/0.5)) + (0.5+4)/(2*2) - 0.5
	if err != nil || math.Abs(got-want) > 1e-14 {
		t.Errorf("1-d KL = %v (%v), want %v", got, err, want)
	}
	back, _ := diag.KLGaussian([]float64{-1}, s1, []float64{1}, s0)
	if math.Abs(back-got) < 0.1 {
		t.Errorf("KL is not symmetric: both directions %v, %v", got, back)
	}
	// d = 3 against a Monte Carlo estimate E_p0[log p0 − log p1].
	c0 := mat.NewSymDense(3, []float64{1, 0.3, 0, 0.3, 2, -0.4, 0, -0.4, 0.5})
	c1 := mat.NewSymDense(3, []float64{1.5, 0, 0.2, 0, 1, 0, 0.2, 0, 1})
	m0, m1 := []float64{0, 1, 2}, []float64{0.5, 0.5, 1.5}
	kl, err := diag.KLGaussian(m0, c0, m1, c1)
	if err != nil {
		t.Fatal(err)
	}
	p0, _ := distmv.NewNormal(m0, c0, rand.NewPCG(1, 1))
	p1, _ := distmv.NewNormal(m1, c1, nil)
	const n = 200000
	var s, ss float64
	x := make([]float64, 3)
	for i := 0; i < n; i++ {
		p0.Rand(x)
		v := p0.LogProb(x) - p1.LogProb(x)
		s += v
		ss += v * v
	}
	mc := s / n
	se := math.Sqrt((ss/n - mc*mc) / n)
	if math.Abs(kl-mc) > 4*se {
		t.Errorf("KL = %.5f, Monte Carlo %.5f ± %.5f", kl, mc, 4*se)
	}
	if self, _ := diag.KLGaussian(m0, c0, m0, c0); math.Abs(self) > 1e-12 {
		t.Errorf("KL(p‖p) = %v", self)
	}
	if _, err := diag.KLGaussian(m0, c0, m1[:2], c1); err == nil {
		t.Error("dimension mismatch accepted")
	}
	if _, err := diag.KLGaussian(m0, mat.NewSymDense(3, nil), m1, c1); err == nil {
		t.Error("singular covariance accepted")
	}
	// FitGaussian recovers a covariance from draws.
	draws := make([][]float64, 50000)
	for i := range draws {
		draws[i] = make([]float64, 3)
		p0.Rand(draws[i])
	}
	mean, cov, err := diag.FitGaussian(draws)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if se := math.Sqrt(c0.At(i, i) / 50000); math.Abs(mean[i]-m0[i]) > 4*se {
			t.Errorf("fitted mean[%d] = %v, want %v", i, mean[i], m0[i])
		}
		for j := 0; j < 3; j++ {
			se := math.Sqrt((c0.At(i, i)*c0.At(j, j) + c0.At(i, j)*c0.At(i, j)) / 50000)
			if math.Abs(cov.At(i, j)-c0.At(i, j)) > 4*se {
				t.Errorf("fitted cov[%d,%d] = %v, want %v", i, j, cov.At(i, j), c0.At(i, j))
			}
		}
	}
	if _, _, err := diag.FitGaussian(draws[:1]); err == nil {
		t.Error("one draw accepted")
	}
}
