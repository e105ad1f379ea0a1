package plot

import (
	"fmt"
	"math"
	"sort"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// ReliabilityBin is one bin of a reliability diagram: the points whose
// predicted probability of class 1 lies in [Lo, Hi).
type ReliabilityBin struct {
	Lo, Hi   float64
	N        int     // points in the bin
	MeanProb float64 // mean predicted probability
	Freq     float64 // observed frequency of class 1
}

// ReliabilityBins groups the predicted probabilities p of class 1 into bins
// equal-width bins of [0, 1] and returns, per non-empty bin, the mean
// prediction and the observed frequency of y = 1 (labels other than 1 count
// as class 0). It panics if the lengths differ or bins < 1.
func ReliabilityBins(p, y []float64, bins int) []ReliabilityBin {
	if len(p) != len(y) || bins < 1 {
		panic(fmt.Sprintf("plot: ReliabilityBins with %d probabilities, %d labels, %d bins", len(p), len(y), bins))
	}
	sum := make([]float64, bins)
	pos := make([]float64, bins)
	cnt := make([]int, bins)
	for i, v := range p {
		b := min(int(v*float64(bins)), bins-1)
		b = max(b, 0)
		sum[b] += v
		cnt[b]++
		if y[i] == 1 {
			pos[b]++
		}
	}
	var out []ReliabilityBin
	for b := range cnt {
		if cnt[b] == 0 {
			continue
		}
		n := float64(cnt[b])
		out = append(out, ReliabilityBin{Lo: float64(b) / float64(bins), Hi: float64(b+1) / float64(bins), N: cnt[b], MeanProb: sum[b] / n, Freq: pos[b] / n})
	}
	return out
}

// Reliability draws the reliability diagram of one or more binary
// classifiers: per bin of predicted probability, the observed frequency of
// class 1 against the mean prediction, with ±2 binomial standard errors
// √(f(1 − f)/n) (from the mean prediction when f is 0 or 1), and the
// diagonal of perfect calibration. names[k] labels probs[k].
func Reliability(title string, names []string, probs [][]float64, y []float64, bins int) (*gplot.Plot, error) {
	if len(names) != len(probs) || len(probs) == 0 {
		return nil, fmt.Errorf("plot: Reliability: %d names for %d sets of probabilities", len(names), len(probs))
	}
	p := New(title, "predicted probability of class 1", "observed frequency")
	diag := segment(0, 0, 1, 1, refColor, true)
	p.Add(diag)
	p.Legend.Add("perfect calibration", diag)
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.RingGlyph{}}
	for k, pr := range probs {
		if len(pr) != len(y) {
			return nil, fmt.Errorf("plot: Reliability: %s has %d probabilities for %d labels", names[k], len(pr), len(y))
		}
		c := Color(k)
		var xy plotter.XYs
		for _, b := range ReliabilityBins(pr, y, bins) {
			f := b.Freq
			q := f
			if q == 0 || q == 1 {
				q = b.MeanProb
			}
			se := math.Sqrt(q * (1 - q) / float64(b.N))
			off := (float64(k) - float64(len(probs)-1)/2) * 0.006
			x := b.MeanProb + off
			l := vline(x, math.Max(0, f-2*se), math.Min(1, f+2*se), c, false)
			l.Width = vg.Points(1)
			p.Add(l)
			xy = append(xy, plotter.XY{X: x, Y: f})
		}
		ln, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		ln.Color = c
		ln.Width = vg.Points(1)
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = c
		sc.GlyphStyle.Shape = shapes[k%len(shapes)]
		sc.GlyphStyle.Radius = vg.Points(2.5)
		p.Add(ln, sc)
		p.Legend.Add(names[k], ln, sc)
	}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// Bands draws 1-D regression predictions over x (sorted): for each named
// run the predictive mean and the band [lo, hi], translucent, with the
// observations (xobs, yobs) on top and, if truth is not nil, the true mean
// function dashed.
func Bands(title string, x []float64, names []string, mean, lo, hi [][]float64, xobs, yobs []float64, truth func(float64) float64) (*gplot.Plot, error) {
	if len(names) != len(mean) || len(mean) != len(lo) || len(lo) != len(hi) {
		return nil, fmt.Errorf("plot: Bands: %d names, %d means, %d lower and %d upper bounds", len(names), len(mean), len(lo), len(hi))
	}
	p := New(title, "x", "y")
	for k := range names {
		if len(mean[k]) != len(x) || len(lo[k]) != len(x) || len(hi[k]) != len(x) {
			return nil, fmt.Errorf("plot: Bands: %s does not have one value per x", names[k])
		}
		c := Color(k)
		poly := plotter.XYs{}
		for i := range x {
			poly = append(poly, plotter.XY{X: x[i], Y: lo[k][i]})
		}
		for i := len(x) - 1; i >= 0; i-- {
			poly = append(poly, plotter.XY{X: x[i], Y: hi[k][i]})
		}
		pg, err := plotter.NewPolygon(poly)
		if err != nil {
			return nil, err
		}
		pg.Color = Translucent(c, 60)
		pg.LineStyle.Width = 0
		xy := make(plotter.XYs, len(x))
		for i := range x {
			xy[i] = plotter.XY{X: x[i], Y: mean[k][i]}
		}
		ln, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		ln.Color = c
		ln.Width = vg.Points(1.3)
		p.Add(pg, ln)
		p.Legend.Add(names[k], ln, pg)
	}
	if truth != nil {
		f := plotter.NewFunction(truth)
		f.XMin, f.XMax = x[0], x[len(x)-1]
		f.Color = refColor
		f.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		f.Width = vg.Points(1.2)
		p.Add(f)
		p.Legend.Add("true mean", f)
	}
	if len(xobs) > 0 {
		xy := make(plotter.XYs, len(xobs))
		for i := range xobs {
			xy[i] = plotter.XY{X: xobs[i], Y: yobs[i]}
		}
		sc, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color = Translucent(refColor, 140)
		sc.GlyphStyle.Radius = vg.Points(1.3)
		sc.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("data (%d)", len(xobs)), sc)
	}
	p.X.Min, p.X.Max = x[0], x[len(x)-1]
	// The y range from the data and the bands (not a fixed one, which
	// squashes narrow bands), with room above for the legend.
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for k := range names {
		for i := range x {
			ylo, yhi = math.Min(ylo, lo[k][i]), math.Max(yhi, hi[k][i])
		}
	}
	for _, v := range yobs {
		ylo, yhi = math.Min(ylo, v), math.Max(yhi, v)
	}
	span := yhi - ylo
	p.Y.Min, p.Y.Max = ylo-0.05*span, yhi+0.12*span*float64(len(names)+2)
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// PPCPValue returns the posterior predictive p-value P(T(y_rep) ≥ T(y)) of
// an observed statistic among its replications (ties count one half).
func PPCPValue(observed float64, replicated []float64) float64 {
	var ge float64
	for _, v := range replicated {
		switch {
		case v > observed:
			ge++
		case v == observed:
			ge += 0.5
		}
	}
	return ge / float64(len(replicated))
}

// PPC draws a posterior predictive check of one statistic: the histogram
// of its values on data sets replicated from the posterior predictive
// distribution, the observed value as a vertical line, and the p-value
// P(T(y_rep) ≥ T(y)) in the title ("p < 1/R" when none of the R
// replications reaches T(y)). The legend sits on the side away from the
// observed line.
func PPC(stat string, observed float64, replicated []float64) (*gplot.Plot, error) {
	if len(replicated) < 2 {
		return nil, fmt.Errorf("plot: PPC: %d replications, need 2", len(replicated))
	}
	s := append([]float64(nil), replicated...)
	sort.Float64s(s)
	pv := PPCPValue(observed, replicated)
	ptext := fmt.Sprintf("p = %.3f", pv)
	if pv == 0 || pv == 1 {
		// None (or all) of the replications reached the observed value:
		// the p-value is below (above) the resolution 1/R.
		ptext = fmt.Sprintf("p < %.2g", 1/float64(len(s)))
		if pv == 1 {
			ptext = fmt.Sprintf("p > %.4g", 1-1/float64(len(s)))
		}
	}
	p := New(stat+": "+ptext, stat, "density")
	h, err := plotter.NewHist(plotter.Values(s), 30)
	if err != nil {
		return nil, err
	}
	h.Normalize(1)
	h.FillColor = Translucent(Color(0), 130)
	h.LineStyle.Width = vg.Points(0.3)
	p.Add(h)
	p.Legend.Add(fmt.Sprintf("replicated (%d)", len(s)), h)
	lo, hi := math.Min(s[0], observed), math.Max(s[len(s)-1], observed)
	pad := 0.05 * (hi - lo)
	if pad == 0 {
		pad = 0.5
	}
	p.X.Min, p.X.Max = lo-pad, hi+pad
	p.Y.Max *= 1.6 // room above the bars for the legend
	v := vline(observed, 0, p.Y.Max, refColor, false)
	v.Width = vg.Points(2)
	p.Add(v)
	p.Legend.Add("observed", v)
	p.Legend.Top = true
	// The legend on the side away from the observed line.
	p.Legend.Left = observed > (lo+hi)/2
	return p, nil
}

// BandWidths draws the width hi − lo of each named run's band over x
// (sorted), with the interval gap (no data there) shaded when gap[0] <
// gap[1]: where Bands' narrow bands cannot be told apart on the data's
// scale, their widths can, and a band that widens away from the data
// shows as a bump over the gap.
func BandWidths(title string, x []float64, names []string, lo, hi [][]float64, gap [2]float64) (*gplot.Plot, error) {
	if len(names) != len(lo) || len(lo) != len(hi) {
		return nil, fmt.Errorf("plot: BandWidths: %d names, %d lower and %d upper bounds", len(names), len(lo), len(hi))
	}
	p := New(title, "x", "band width")
	var top float64
	for k := range names {
		if len(lo[k]) != len(x) || len(hi[k]) != len(x) {
			return nil, fmt.Errorf("plot: BandWidths: %s does not have one value per x", names[k])
		}
		xy := make(plotter.XYs, len(x))
		for i := range x {
			xy[i] = plotter.XY{X: x[i], Y: hi[k][i] - lo[k][i]}
			top = math.Max(top, xy[i].Y)
		}
		ln, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		ln.Color = Color(k)
		ln.Width = vg.Points(1.5)
		p.Add(ln)
		p.Legend.Add(names[k], ln)
	}
	if gap[0] < gap[1] {
		g := band(gap[0], gap[1], 0, 1.4*top, Translucent(refColor, 25))
		p.Add(g)
		p.Legend.Add("no data", g)
	}
	p.X.Min, p.X.Max = x[0], x[len(x)-1]
	p.Y.Min, p.Y.Max = 0, 1.4*top
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}
