package fit

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/predict"
)

// GapBands is the width of a regression's predictive band on the gap1d data
// (data.Gap1D: no data for |x| < 0.5) in the gap and over the data: what a
// posterior over functions should show is a band that widens where there
// are no data.
type GapBands struct {
	Level     float64 // the band's probability (0.9)
	Gap, Data float64 // mean width of the band for |x| < 0.25 and for 0.5 ≤ |x| ≤ 2, in y's units
	FGap      float64 // the same for f's band (no observation noise)
	FData     float64
}

// Ratio is Gap/Data.
func (b *GapBands) Ratio() float64 { return b.Gap / b.Data }

// String prints the widths and the ratio.
func (b *GapBands) String() string {
	return fmt.Sprintf("%g%% predictive band (with the noise): %.3f in the gap (|x| < 0.25), %.3f over the data (0.5 ≤ |x| ≤ 2), ratio %.2f; f's band %.3f and %.3f, ratio %.2f",
		100*b.Level, b.Gap, b.Data, b.Ratio(), b.FGap, b.FData, b.FGap/b.FData)
}

// Gap1DBands returns the widths of the posterior predictive band at the
// given level (the quantiles of the mixture over the draws of N(fₛ(x), σₛ²),
// predict.Regress) on a grid of x in [−2, 2] with step 0.01: the mean width
// over the gap's middle |x| < 0.25 and over the data 0.5 ≤ |x| ≤ 2 (the
// widths of langevin experiment gap1d). sc (nil: none) is the standardisation
// the model was fitted with: the grid is transformed by it and the widths
// returned in y's units.
func Gap1DBands(r predict.Regressor, draws [][]float64, sc *data.Scaler, level float64) (*GapBands, error) {
	var xs []float64
	for i := -200; i <= 200; i++ {
		xs = append(xs, float64(i)/100)
	}
	X := mat.NewDense(len(xs), 1, append([]float64(nil), xs...))
	if sc != nil && len(sc.Mean) == 1 {
		sc.Transform(X)
	}
	reg, err := Regress(r, draws, X, level, sc)
	if err != nil {
		return nil, err
	}
	b := &GapBands{Level: level}
	var ng, nd float64
	for i, x := range xs {
		w, fw := reg.ObsUpper[i]-reg.ObsLower[i], reg.Upper[i]-reg.Lower[i]
		switch ax := max(x, -x); {
		case ax < 0.25:
			b.Gap += w
			b.FGap += fw
			ng++
		case ax >= 0.5:
			b.Data += w
			b.FData += fw
			nd++
		}
	}
	b.Gap, b.FGap, b.Data, b.FData = b.Gap/ng, b.FGap/ng, b.Data/nd, b.FData/nd
	return b, nil
}
