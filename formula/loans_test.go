package formula

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
)

// loansCSV returns n loan applications in natural units, seeded: age in
// years (18–80), income in thousands, the loan amount in currency units
// (correlated with income), a region (text), and default (0/1) from a
// logistic model whose coefficients are of the sizes those units give:
// −0.03 per year, −0.02 per thousand, 0.00012 per unit of loan. The
// columns' spreads differ by a factor of ~500 (age sd ≈ 12, loan
// sd ≈ 6,000), so a sampler on the unscaled coefficients sees curvatures
// ~10⁵ apart.
func loansCSV(n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 0x6c6f616e))
	regions := []string{"north", "south", "east", "west"}
	regionEff := []float64{0, 0.3, -0.2, 0.1}
	var b bytes.Buffer
	b.WriteString("age,income,loan,region,default\n")
	for i := 0; i < n; i++ {
		age := math.Round(math.Min(80, math.Max(18, 42+12*rng.NormFloat64())))
		income := math.Round(math.Exp(math.Log(55)+0.4*rng.NormFloat64())*10) / 10
		loan := math.Round(math.Max(500, 150*income+4000*rng.NormFloat64())/50) * 50
		r := rng.IntN(len(regions))
		eta := -0.8 - 0.03*(age-42) - 0.02*(income-55) + 0.00012*(loan-8500) + regionEff[r]
		y := 0
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y = 1
		}
		fmt.Fprintf(&b, "%g,%g,%g,%s,%d\n", age, income, loan, regions[r], y)
	}
	return b.Bytes()
}

var writeLoans = flag.Bool("write-loans", false, "rewrite testdata/loans.csv from its generator")

// TestLoansData checks that testdata/loans.csv (2,800 rows, read by the
// command's tests too) is what its generator writes; -write-loans rewrites it.
func TestLoansData(t *testing.T) {
	want := loansCSV(2800, 1)
	if *writeLoans {
		if err := os.WriteFile("testdata/loans.csv", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("testdata/loans.csv")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("testdata/loans.csv differs from loansCSV(2800, 1): run go test ./formula -run TestLoansData -write-loans")
	}
}

// loansModel builds the natural-units loans GLM (2,800 rows).
func loansModel(t *testing.T, text string, opt Options) *Model {
	t.Helper()
	fr, err := ReadCSVFile("testdata/loans.csv")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	opt.Family = "bernoulli"
	m, err := New(f, fr, opt)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// condition returns the condition number of −∇² log p at θ (finite
// differences of the gradient).
func condition(t *testing.T, m *Model, th []float64) float64 {
	t.Helper()
	d := m.Dim()
	h := make([]float64, d*d)
	langevin.HessianFD(m, th, h)
	s := mat.NewSymDense(d, nil)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			s.SetSym(i, j, -(h[i*d+j]+h[j*d+i])/2)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(s, false) {
		t.Fatal("eigen decomposition failed")
	}
	ev := eig.Values(nil)
	if ev[0] <= 0 {
		t.Fatalf("−H not positive definite: eigenvalues %v", ev)
	}
	return ev[d-1] / ev[0]
}

// TestScaledDesign: the population-level design is scaled inside the
// model, so the sampler's coordinates are as well conditioned in the
// data's natural units as after scale(): on the loans data (age in years,
// income in thousands, the loan in units) the condition number of −H at
// θ = 0 is 5.3 scaled and 4.3·10⁸ unscaled (13.7 and 4.2·10⁷ with a
// normal(0, 0.05) prior on b; measured), and the model is the same
// posterior in the data's units as the unscaled one: at θ with b·s in the
// scaled model and b in the unscaled one the log densities are equal,
// under the flat prior and under a normal prior on b set in the data's
// units (the prior is evaluated at b = θ_b/s; the constant −Σ log s of the
// change of variables is dropped, as Stan's ~ drops constants); the
// derived b_… and b_Intercept are equal. A varying slope of the loan
// (centred and non-centred effects, correlated or not) is scaled the same
// way: the log densities differ by a constant (the Jacobians of log sd and
// of a centred term's effects), sd_region__loan and r_region[…,loan] are
// equal. The gradient of every scaled model is checked against finite
// differences.
func TestScaledDesign(t *testing.T) {
	for _, c := range []struct{ text, pri, centring string }{
		{"default ~ age + income + loan + region", "", ""},
		{"default ~ age + income + loan + region", "b ~ normal(0, 0.05)", ""},
		{"default ~ age + income + (1 + loan | region)", "sd ~ normal(0, 0.001)", ""},
		{"default ~ age + income + (1 + loan || region)", "", ""},
		{"default ~ age + income + (1 + loan | region)", "", "noncentred"},
	} {
		text, pri := c.text, c.pri
		priors, err := ParsePriors(pri)
		if err != nil {
			t.Fatal(err)
		}
		sc := loansModel(t, text, Options{Priors: priors, Centring: c.centring})
		un := loansModel(t, text, Options{Priors: priors, Centring: c.centring, Unscaled: true})
		if !sc.HasGroups() { // (with groups −H is not positive definite at θ = 0)
			th0 := make([]float64, sc.Dim())
			cs, cu := condition(t, sc, th0), condition(t, un, th0)
			t.Logf("%s, %q: condition number of −H at θ = 0: scaled %.3g, unscaled %.3g", text, pri, cs, cu)
			if cs > 100 {
				t.Errorf("%q: condition number %.3g > 100 in the data's units: the design is not scaled inside the model", pri, cs)
			}
		}
		rng := rand.New(rand.NewPCG(7, 7))
		for rep := 0; rep < 3; rep++ {
			thu := make([]float64, un.Dim())
			for j := range thu {
				thu[j] = 0.3 * rng.NormFloat64()
			}
			ths := append([]float64(nil), thu...)
			for j, s := range sc.scales {
				thu[un.bB.Off+j] /= s // b in the data's units: coefficients of the size the units give
				ths[sc.bB.Off+j] = thu[un.bB.Off+j] * s
			}
			for gi, g := range sc.groups {
				for k, s := range g.scales {
					thu[g.sd.Off+k] -= math.Log(s) // log sd in the data's units
					ths[g.sd.Off+k] = thu[g.sd.Off+k] + math.Log(s)
					if !g.centred {
						continue // z is the same; r = diag(sd)·L·z scales with sd
					}
					for j := 0; j < g.J; j++ {
						thu[un.groups[gi].zb.Off+j*g.K+k] /= s
						ths[g.zb.Off+j*g.K+k] = thu[un.groups[gi].zb.Off+j*g.K+k] * s
					}
				}
			}
			ls, lu := langevin.LogPosterior(sc, ths, nil), langevin.LogPosterior(un, thu, nil)
			// The log-Jacobian of θ's log sd adds Σₖ log sₖ, and a centred
			// term's prior N(0, diag(sd)·Ω·diag(sd)) on the scaled effects
			// r·s the constant −J·Σₖ log sₖ: constants, the same posterior.
			var want float64
			for _, g := range sc.groups {
				for _, s := range g.scales {
					want += math.Log(s)
					if g.centred {
						want -= float64(g.J) * math.Log(s)
					}
				}
			}
			if math.Abs(ls-lu-want) > 1e-9*math.Abs(lu) {
				t.Errorf("%s, %q: log posterior %.12g scaled, %.12g unscaled: differ by %.10g, want %.10g", text, pri, ls, lu, ls-lu, want)
			}
			ds, du := make([]float64, len(sc.DerivedNames())), make([]float64, len(un.DerivedNames()))
			sc.Derive(ths, ds)
			un.Derive(thu, du)
			for j, n := range sc.DerivedNames() {
				if math.Abs(ds[j]-du[j]) > 1e-10*(1+math.Abs(du[j])) {
					t.Errorf("%q: %s = %g scaled, %g unscaled", pri, n, ds[j], du[j])
				}
			}
			if err := langevin.CheckGradient(sc, ths, nil, 1e-6); err != nil {
				t.Errorf("%q: %v", pri, err)
			}
		}
	}
}
