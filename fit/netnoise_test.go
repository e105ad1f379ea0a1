package fit

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
)

// TestChooseNoise: the noise rule picks the heteroscedastic network on
// data whose noise sd grows from 0.05 to 1.05 over x (y = sin 2x + 0.5x +
// (0.05 + 0.5|x|)ξ), and the homoscedastic one on gap1d (sd 0.1 everywhere,
// its default 200 points, seed 1) and on the same curve with constant sd
// 0.3; the choice follows the printed numbers (difference beyond 2 SE).
func TestChooseNoise(t *testing.T) {
	t.Parallel()
	curve := func(n int, sd func(x float64) float64) (*mat.Dense, []float64) {
		rng := rand.New(rand.NewPCG(5, 6))
		X := mat.NewDense(n, 1, nil)
		y := make([]float64, n)
		for i := range y {
			x := 4*rng.Float64() - 2
			X.Set(i, 0, x)
			y[i] = data.Gap1DMean(x) + sd(x)*rng.NormFloat64()
		}
		return X, y
	}
	gap, err := data.Gap1D(200, 0.1, 1)
	if err != nil {
		t.Fatal(err)
	}
	Xh, yh := curve(400, func(x float64) float64 { return 0.05 + 0.5*math.Abs(x) })
	Xc, yc := curve(400, func(float64) float64 { return 0.3 })
	for _, tc := range []struct {
		name string
		X    *mat.Dense
		y    []float64
		want bool
	}{
		{"heteroscedastic curve", Xh, yh, true},
		{"gap1d", gap.X, gap.Y, false},
		{"homoscedastic curve", Xc, yc, false},
	} {
		spec := model.Spec{Kind: "mlp", Hidden: []int{50}, Activation: "tanh", Likelihood: "gaussian", LearnNoise: true, NetDefaults: true}
		c, err := ChooseNoise(context.Background(), spec, tc.X, tc.y, 1, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		t.Logf("%s: %v", tc.name, c)
		if c.Hetero != tc.want {
			t.Errorf("%s: heteroscedastic %v, want %v: %v", tc.name, c.Hetero, tc.want, c)
		}
		if c.Hetero != (c.Diff > 2*c.SE) || c.Held != len(tc.y)/5 || c.Fit != len(tc.y)-c.Held {
			t.Errorf("%s: choice, held-out or fitted rows not by the rule: %v", tc.name, c)
		}
	}
}
