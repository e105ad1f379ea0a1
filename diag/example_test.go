package diag_test

import (
	"fmt"
	"os"

	"github.com/langevin-go/langevin/diag"
)

// lcg is a small deterministic uniform generator for the examples.
type lcg uint64

func (s *lcg) uniform() float64 {
	*s = *s*6364136223846793005 + 1442695040888963407
	return float64(uint64(*s)>>11) / (1 << 53)
}

// ar1 returns m chains of n draws of x_t = phi*x_{t-1} + e_t + mu, with
// uniform innovations e_t on [-1, 1].
func ar1(s *lcg, m, n int, phi float64, mu []float64) [][]float64 {
	chains := make([][]float64, m)
	for j := range chains {
		c := make([]float64, n)
		var x float64
		for i := range c {
			x = phi*x + 2*s.uniform() - 1
			c[i] = x + mu[j]
		}
		chains[j] = c
	}
	return chains
}

func ExampleSummarize() {
	s := lcg(1)
	mixed := ar1(&s, 4, 1000, 0.9, []float64{0, 0, 0, 0})
	stuck := ar1(&s, 4, 1000, 0.9, []float64{0, 0, 0, 3})
	constant := [][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}}

	t := diag.Summarize(
		[]string{"mixed", "stuck", "constant"},
		[][][]float64{mixed, stuck, constant},
	)
	fmt.Print(t)
	// Output:
	// variable    mean    sd    mcse     q5      q50   q95  ess_bulk  ess_tail   rhat
	// mixed     0.0457  1.22  0.0725  -1.91  -0.0216  2.15       286       618  1.015
	// stuck      0.840  1.81   0.639  -1.89    0.653  4.17         9        30  1.396
	// constant    1.00     0      NA   1.00     1.00  1.00        NA        NA     NA
}

func ExampleTable_WriteCSV() {
	t := diag.Table{{Name: "mu", Mean: 0.25, SD: 1, MCSEMean: 0.03125,
		Q5: -1.5, Q50: 0.25, Q95: 2, ESSBulk: 1024, ESSTail: 900.5, RHat: 1.0009765625}}
	t.WriteCSV(os.Stdout)
	// Output:
	// variable,mean,sd,mcse_mean,q5,q50,q95,ess_bulk,ess_tail,rhat
	// mu,0.25,1,0.03125,-1.5,0.25,2,1024,900.5,1.0009765625
}

func ExampleRHat() {
	s := lcg(2)
	good := ar1(&s, 4, 500, 0.5, []float64{0, 0, 0, 0})
	bad := ar1(&s, 4, 500, 0.5, []float64{0, 0, 0, 2})
	fmt.Printf("good: R̂ = %.3f, bulk ESS = %.0f\n", diag.RHat(good), diag.ESSBulk(good))
	fmt.Printf("bad:  R̂ = %.3f, bulk ESS = %.0f\n", diag.RHat(bad), diag.ESSBulk(bad))
	// Output:
	// good: R̂ = 1.003, bulk ESS = 605
	// bad:  R̂ = 1.495, bulk ESS = 8
}

func ExampleAutocorrelation() {
	s := lcg(3)
	x := ar1(&s, 1, 10000, 0.8, []float64{0})[0]
	rho := diag.Autocorrelation(x, nil)
	for t := 0; t < 4; t++ {
		fmt.Printf("ρ_%d = %.2f\n", t, rho[t])
	}
	// Output:
	// ρ_0 = 1.00
	// ρ_1 = 0.80
	// ρ_2 = 0.63
	// ρ_3 = 0.51
}
