package sampler

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/schedule"
)

// The Γ correction of pSGLD equals ∂Gⱼⱼ/∂θⱼ, with G as a function of θ
// through this step's V = αV₀ + (1−α)ḡ(θ)², differentiated by central
// differences of that function (full batch, so ḡ is deterministic).
func TestPSGLDGammaIsDivergenceOfG(t *testing.T) {
	train, _ := data.TrainTest(data.Australian(), 0.2, 1)
	data.FitScaler(train.X).Transform(train.X)
	m, err := model.NewLogistic(train.X, train.Y, model.LogisticOptions{PriorScale: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := m.Dim()
	theta0 := make([]float64, d)
	v0 := make([]float64, d)
	for j := range theta0 {
		theta0[j] = 0.1 * float64(j%5-2)
		v0[j] = 0.01 * float64(j+1)
	}
	const alpha, lambda = 0.9, 1e-5
	s := PSGLD{Step: schedule.Constant(1e-6), Alpha: alpha, Lambda: lambda, V0: v0, Correction: true}
	ch, err := s.NewChain(m, theta0, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	c := ch.(*psgldChain)
	c.Step()
	n := float64(m.Len())
	g := make([]float64, d)
	th := append([]float64(nil), theta0...)
	gjj := func(j int, x float64) float64 {
		th[j] = theta0[j] + x
		clear(g)
		m.LogLik(th, nil, g)
		th[j] = theta0[j]
		gb := g[j] / n
		return 1 / (lambda + math.Sqrt(alpha*v0[j]+(1-alpha)*gb*gb))
	}
	var largest float64
	for j := 0; j < d; j++ {
		const h = 1e-5
		want := (gjj(j, h) - gjj(j, -h)) / (2 * h)
		if got := c.gamma[j]; math.Abs(got-want) > 1e-5*math.Max(1, math.Abs(want)) {
			t.Errorf("Γ[%d] = %.8g, finite difference of G %.8g", j, got, want)
		}
		largest = math.Max(largest, math.Abs(want))
	}
	if largest < 1e-2 {
		t.Errorf("largest |Γ| %g: the test point does not exercise the correction", largest)
	}
	t.Logf("largest |Γⱼ| = %.3g", largest)
}
