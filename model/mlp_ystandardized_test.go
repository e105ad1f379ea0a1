package model_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/langevin-go/langevin/model"
)

// TestMLPYStandardized: responses that the caller standardised (the
// command: data.Scaler.FitTarget, divisor n) are not standardised again —
// the model's log-likelihood and predictions are those of the plain network
// on z — while the model still counts as standardised: log σ² starts at 0
// (σ² = z's variance 1) whatever NoiseVar, and the prior says so. The
// model's own standardisation of raw y gives z with the same rule (mean
// 0, population variance 1), so both paths fit the same z.
func TestMLPYStandardized(t *testing.T) {
	t.Parallel()
	X, y := mlpData(3, 100, 2, model.LikGaussian, 2)
	var mean, sd float64
	for i := range y {
		y[i] = 10 + 5*y[i]
		mean += y[i] / 100
	}
	for _, v := range y {
		sd += (v - mean) * (v - mean) / 100
	}
	sd = math.Sqrt(sd)
	z := make([]float64, len(y))
	for i, v := range y {
		z[i] = (v - mean) / sd
	}
	opt := model.MLPOptions{Hidden: []int{3}, Activation: model.Tanh, LearnNoise: true, NoiseVar: 1e-6}
	plain := mustMLP(t, X, z, opt)
	opt.StandardizeY, opt.YStandardized = true, true
	given := mustMLP(t, X, z, opt)
	opt.YStandardized = false
	own := mustMLP(t, X, y, opt)
	th := make([]float64, given.Dim())
	given.SamplePrior(th, rand.New(rand.NewPCG(3, 3)))
	if a, b := given.LogLik(th, nil, nil), plain.LogLik(th, nil, nil); a != b {
		t.Errorf("LogLik of the standardised responses %v, of the plain network %v: standardised again", a, b)
	}
	if a, b := own.LogLik(th, nil, nil)+100*math.Log(sd), given.LogLik(th, nil, nil); math.Abs(a-b) > 1e-9*math.Abs(b) {
		t.Errorf("the model's own standardisation: LogLik + n log s_y = %v, the caller's %v (another divisor?)", a, b)
	}
	init := make([]float64, given.Dim())
	given.FanInInit(init, rand.New(rand.NewPCG(4, 4)))
	if init[len(init)-1] != 0 {
		t.Errorf("log σ² starts at %v, want 0 (the standardised response's variance)", init[len(init)-1])
	}
	plain.FanInInit(init, rand.New(rand.NewPCG(4, 4)))
	if got := init[len(init)-1]; math.Abs(got-math.Log(1e-6)) > 1e-12 {
		t.Errorf("unstandardised: log σ² starts at %v, want log NoiseVar", got)
	}
}
