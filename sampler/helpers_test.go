package sampler_test

import (
	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/internal/testmodel"
)

type meanModel = testmodel.Mean

func newMeanModel(n int, seed uint64) *meanModel { return testmodel.NewMean(n, seed) }

// scaledLik multiplies a model's likelihood by f: with f = |B|/N it turns the
// estimator's N/|B| scale into 1, the slip the tests must catch.
type scaledLik struct {
	langevin.Model
	f float64
}

func (m scaledLik) LogLik(th []float64, batch []int, g []float64) float64 {
	if g == nil {
		return m.f * m.Model.LogLik(th, batch, nil)
	}
	d := len(g)
	tmp := make([]float64, d)
	v := m.Model.LogLik(th, batch, tmp)
	for j := range g {
		g[j] += m.f * tmp[j]
	}
	return m.f * v
}

// moments runs a chain for burn+n steps and returns the mean and variance of
// coordinate j over the last n.
func moments(ch langevin.Chain, burn, n, j int) (mean, variance float64) {
	for i := 0; i < burn; i++ {
		ch.Step()
	}
	var s, ss float64
	for i := 0; i < n; i++ {
		ch.Step()
		x := ch.Position()[j]
		s += x
		ss += x * x
	}
	mean = s / float64(n)
	return mean, ss/float64(n) - mean*mean
}
