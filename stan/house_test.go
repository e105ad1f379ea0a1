package stan

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

// TestAgainstLogistic checks a logistic regression written in Stan against
// the hand-written model.Logistic: the same log posterior, to rounding, at
// random points (posteriordb's wells data, with a N(0, 10²) prior added).
func TestAgainstLogistic(t *testing.T) {
	m, err := loadSrc(t, `
data { int<lower=0> N; array[N] int<lower=0, upper=1> switched; vector[N] dist; }
parameters { vector[2] beta; }
model {
  target += normal_lpdf(beta | 0, 10);
  target += bernoulli_logit_lpmf(switched | beta[1] + beta[2] * dist);
}`, string(mustRead(t, "testdata/wells_data.json")))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := ParseData("wells_data.json", mustRead(t, "testdata/wells_data.json"))
	_, dist, _ := d.read("dist", []int{3020}, false)
	sw, _, _ := d.read("switched", []int{3020}, true)
	y := make([]float64, len(sw))
	for i, v := range sw {
		y[i] = float64(v)
	}
	h, err := model.NewLogistic(mat.NewDense(len(dist), 1, dist), y, model.LogisticOptions{PriorScale: 10})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 5; k++ {
		th := []float64{rng.NormFloat64(), 0.02 * rng.NormFloat64()}
		g1, g2 := make([]float64, 2), make([]float64, 2)
		a := m.LogPrior(th, g1)
		b := langevin.LogPosterior(h, th, g2)
		if math.Abs(a-b) > 1e-9*math.Abs(b) {
			t.Errorf("θ = %v: Stan program %v, model.Logistic %v", th, a, b)
		}
		for j := range g1 {
			if math.Abs(g1[j]-g2[j]) > 1e-8*math.Max(1, math.Abs(g2[j])) {
				t.Errorf("θ = %v: gradient %d: Stan program %v, model.Logistic %v", th, j, g1[j], g2[j])
			}
		}
	}
}
