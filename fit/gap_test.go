package fit

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/data"
)

// gapReg is a regressor with f(x; θ) = θ₀ for |x| < 0.5 and 0 elsewhere,
// and σ = 0.1.
type gapReg struct{}

func (gapReg) RegressionMean(theta []float64, X *mat.Dense, dst []float64) {
	for i := range dst {
		dst[i] = 0
		if math.Abs(X.At(i, 0)) < 0.5 {
			dst[i] = theta[0]
		}
	}
}
func (gapReg) NoiseVar([]float64) float64 { return 0.01 }

// TestGap1DBands: with f ~ N(0, 1) in the gap and f = 0 over the data, the
// 90% band is 2·1.645·√(1 + σ²) in the gap and 2·1.645·σ over the data; f's
// band over the data is 0; a response scale multiplies the widths, and the
// grid goes through the feature scaling.
//
// The band's Monte Carlo error: a 5% or 95% quantile of n draws has sd
// √(0.05·0.95/n)/φ(1.645) ≈ 0.034 at n = 4000 (0.015 at 20000), the width
// at most twice that; the tolerance is 3% of the width (3.3 sd) at 20000
// draws and, with -short, 8% (4 sd) at 4000 (a fifth of the CPU).
func TestGap1DBands(t *testing.T) {
	n, tol := 20000, 0.03
	if testing.Short() {
		n, tol = 4000, 0.08
	}
	rng := rand.New(rand.NewPCG(1, 1))
	draws := make([][]float64, n)
	for i := range draws {
		draws[i] = []float64{rng.NormFloat64()}
	}
	b, err := Gap1DBands(gapReg{}, draws, nil, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	z := 1.6448536269514722
	if want := 2 * z * math.Sqrt(1.01); math.Abs(b.Gap-want) > tol*want {
		t.Errorf("band in the gap %v, want %v", b.Gap, want)
	}
	if want := 2 * z * 0.1; math.Abs(b.Data-want) > 1e-6 || b.FData != 0 {
		t.Errorf("band over the data %v (f's %v), want %v (0)", b.Data, b.FData, want)
	}
	if r := b.Ratio(); math.Abs(r-math.Sqrt(101)) > tol*math.Sqrt(101) {
		t.Errorf("ratio %v, want √101", r)
	}
	// Features standardised by 2 (the grid's x = 1 is the model's 0.5, out of
	// its gap) and the response by 3.
	sc := &data.Scaler{Mean: []float64{0}, Scale: []float64{2}, TargetScale: 3}
	b2, err := Gap1DBands(gapReg{}, draws, sc, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(b2.Gap-3*b.Gap) > 1e-9 {
		t.Errorf("response scale 3: gap band %v, want %v", b2.Gap, 3*b.Gap)
	}
	// Over the data (0.5 ≤ |x| ≤ 2) the model sees |x|/2 < 0.5 for |x| < 1:
	// part of the data range is in its gap, so the band there is wider.
	if b2.Data <= 3*b.Data*1.5 {
		t.Errorf("feature scale 2: data band %v, want well above %v (x < 1 maps into the model's gap)", b2.Data, 3*b.Data)
	}
}
