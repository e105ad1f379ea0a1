package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// LOOPIT draws a histogram of LOO-PIT values (loo.PIT, each in [0, 1]; NaN
// values are left out) against the uniform distribution they follow when
// the model is calibrated: the expected count n/bins as a line and its
// central 95% band under binomial sampling, n·p ± 1.96·√(n·p(1 − p)),
// p = 1/bins, shaded. Too many values near 0 and 1 (a U) mean predictive
// distributions too narrow; a hump in the middle, too wide; a slope, a
// shift. bins is 20, fewer for fewer than 200 values (n/10, at least 5).
func LOOPIT(title string, pit []float64) (*gplot.Plot, error) {
	var v plotter.Values
	for _, x := range pit {
		if !math.IsNaN(x) {
			if x < 0 || x > 1 {
				return nil, fmt.Errorf("plot: LOOPIT: value %v outside [0, 1]", x)
			}
			v = append(v, x)
		}
	}
	n := len(v)
	if n == 0 {
		return nil, errors.New("plot: LOOPIT: no values")
	}
	bins := min(20, max(5, n/10))
	p := New(title, "LOO-PIT", "rows")
	fp := 1 / float64(bins)
	mean := float64(n) * fp
	half := 1.96 * math.Sqrt(float64(n)*fp*(1-fp))
	p.Add(band(0, 1, math.Max(0, mean-half), mean+half, Translucent(refColor, 50)))
	counts := make([]float64, bins)
	for _, x := range v {
		counts[min(int(x*float64(bins)), bins-1)]++
	}
	var top float64
	for b, c := range counts {
		bar, _ := plotter.NewPolygon(plotter.XYs{{X: float64(b) * fp, Y: 0}, {X: float64(b+1) * fp, Y: 0}, {X: float64(b+1) * fp, Y: c}, {X: float64(b) * fp, Y: c}})
		bar.Color = Translucent(Color(0), 150)
		bar.LineStyle.Width = vg.Points(0.3)
		p.Add(bar)
		top = math.Max(top, c)
		if b == 0 {
			p.Legend.Add(fmt.Sprintf("rows (%d)", n), bar)
		}
	}
	l := hline(mean, 0, 1, refColor, true)
	p.Add(l)
	p.Legend.Add("uniform, 95% band", l)
	p.X.Min, p.X.Max = 0, 1
	p.Y.Min, p.Y.Max = 0, 1.3*math.Max(top, mean+half)
	p.Legend.Top = true
	return p, nil
}

// ParetoK draws the Pareto k̂ of every row against the row's index (the
// k̂ plot of loo and ArviZ), with dashed lines at 0.5 and 0.7 and, when
// lower, at threshold (loo.KThreshold of the draws): rows above the
// threshold (drawn red) have leave-one-out estimates PSIS cannot be trusted
// with. rows, when not nil, are the rows' 1-based indices (a subsample).
func ParetoK(title string, k []float64, rows []int, threshold float64) (*gplot.Plot, error) {
	if len(k) == 0 {
		return nil, errors.New("plot: ParetoK: no values")
	}
	if rows != nil && len(rows) != len(k) {
		return nil, fmt.Errorf("plot: ParetoK: %d rows for %d values", len(rows), len(k))
	}
	p := New(title, "row", "Pareto k̂")
	var good, bad plotter.XYs
	lo, hi := 0.0, 0.8
	for i, v := range k {
		x := float64(i + 1)
		if rows != nil {
			x = float64(rows[i])
		}
		y := v
		if math.IsInf(v, 1) || math.IsNaN(v) {
			y = 1.5 // off the scale: drawn at the top
		}
		lo, hi = math.Min(lo, y), math.Max(hi, y)
		if v > threshold || math.IsNaN(v) {
			bad = append(bad, plotter.XY{X: x, Y: y})
		} else {
			good = append(good, plotter.XY{X: x, Y: y})
		}
	}
	xmax := float64(len(k))
	if rows != nil {
		xmax = float64(rows[len(rows)-1])
	}
	for _, t := range []float64{0.5, 0.7} {
		p.Add(hline(t, 0, xmax+1, refColor, true))
	}
	if threshold < 0.7 {
		p.Add(hline(threshold, 0, xmax+1, Color(2), true))
	}
	for j, pts := range []plotter.XYs{good, bad} {
		if len(pts) == 0 {
			continue
		}
		s, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Radius = vg.Points(1.5)
		s.GlyphStyle.Color = color.RGBA{R: 40, G: 90, B: 160, A: 255}
		label := fmt.Sprintf("k̂ ≤ %.2f (%d)", threshold, len(pts))
		if j == 1 {
			s.GlyphStyle.Color = color.RGBA{R: 200, A: 255}
			label = fmt.Sprintf("k̂ > %.2f (%d)", threshold, len(pts))
		}
		p.Add(s)
		p.Legend.Add(label, s)
	}
	p.X.Min, p.X.Max = 0, xmax+1
	p.Y.Min, p.Y.Max = math.Min(lo-0.05, -0.1), hi+0.25
	p.Legend.Top = true
	return p, nil
}
