package diag

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ar1 returns m chains of n draws of x_t = ρ x_{t−1} + √(1−ρ²) ε_t (unit
// marginal variance), started from the stationary distribution.
func ar1(rng *rand.Rand, m, n int, rho float64) [][]float64 {
	chains := make([][]float64, m)
	s := math.Sqrt(1 - rho*rho)
	for c := range chains {
		x := rng.NormFloat64()
		chains[c] = make([]float64, n)
		for t := range chains[c] {
			x = rho*x + s*rng.NormFloat64()
			chains[c][t] = x
		}
	}
	return chains
}

// TestMCSESDSimulation checks MCSESD against the spread of the sd estimate
// over independent replications: for independent draws and for AR(1)
// chains with ρ = 0.8, the mean reported MCSE must match the standard
// deviation of the sd estimates within the simulation's own error.
func TestMCSESDSimulation(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, rho := range []float64{0, 0.8} {
		const reps = 400
		sds := make([]float64, reps)
		var mcse float64
		for r := range sds {
			ch := ar1(rng, 4, 500, rho)
			var all []float64
			for _, c := range ch {
				all = append(all, c...)
			}
			sds[r] = math.Sqrt(varR(all))
			mcse += MCSESD(ch)
		}
		mcse /= reps
		emp := math.Sqrt(varR(sds))
		// The sd of an sd estimate from 400 replications is known to about
		// 1/√(2·400) = 3.5% relative; allow 4 of those.
		if math.Abs(mcse-emp) > 0.14*emp {
			t.Errorf("ρ = %g: mean MCSESD %.5f, sd of the sd estimates over %d replications %.5f", rho, mcse, reps, emp)
		}
		if rho == 0 {
			if want := 1 / math.Sqrt(2*2000); math.Abs(mcse-want) > 0.05*want {
				t.Errorf("independent draws: MCSESD %.5f, want sd/√(2S) = %.5f", mcse, want)
			}
		}
	}
	if v := MCSESD([][]float64{{1, 1, 1, 1, 1}}); !math.IsNaN(v) {
		t.Errorf("MCSESD of constant draws = %g, want NaN", v)
	}
}
