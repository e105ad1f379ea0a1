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

	"github.com/langevin-go/langevin/diag"
)

// Series is one chain's values Y[t] at iterations X[t] (increasing).
type Series struct {
	X, Y []float64
}

var (
	burnInFill = color.NRGBA{R: 120, G: 120, B: 120, A: 50}
	refColor   = color.NRGBA{R: 0, G: 0, B: 0, A: 255}
	markColor  = color.NRGBA{R: 200, G: 30, B: 30, A: 255}
)

// Trace plots every chain of one quantity against the iteration, with the
// iterations up to burnIn shaded (burnIn ≤ 0: no shading), chain c in
// Color(c) (no legend: it would hide the trace). Each chain is reduced by
// Envelope to at most 2·Bins points.
func Trace(name string, chains []Series, burnIn float64) (*gplot.Plot, error) {
	if len(chains) == 0 {
		return nil, errors.New("plot: Trace: no chains")
	}
	p := New("trace of "+name, "iteration", name)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	xmin := math.Inf(1)
	var lines []gplot.Plotter
	for c, s := range chains {
		if len(s.X) != len(s.Y) {
			return nil, fmt.Errorf("plot: Trace: chain %d has %d iterations and %d values", c+1, len(s.X), len(s.Y))
		}
		xy := Envelope(s.X, s.Y, Bins, nil)
		for _, pt := range xy {
			if math.IsInf(pt.Y, 0) {
				continue
			}
			ymin, ymax = math.Min(ymin, pt.Y), math.Max(ymax, pt.Y)
			xmin = math.Min(xmin, pt.X)
		}
		if len(xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, fmt.Errorf("plot: Trace: chain %d: %w", c+1, err)
		}
		l.Color = Translucent(Color(c), 200)
		l.Width = vg.Points(0.6)
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("plot: Trace: %s has no finite values", name)
	}
	if burnIn > xmin {
		p.Add(band(xmin, burnIn, ymin, ymax, burnInFill))
	}
	p.Add(lines...)
	return p, nil
}

// Density plots the histogram (normalised to unit area, bins bins) of the
// draws of all chains pooled, and, when ref is not nil, the reference
// density ref over it, labelled refLabel.
func Density(name string, chains [][]float64, bins int, ref func(float64) float64, refLabel string) (*gplot.Plot, error) {
	all := pooled(chains)
	if len(all) < 2 {
		return nil, fmt.Errorf("plot: Density: %s has %d finite draws, need 2", name, len(all))
	}
	if bins < 1 {
		bins = 40
	}
	p := New("posterior of "+name, name, "density")
	h, err := plotter.NewHist(plotter.Values(all), bins)
	if err != nil {
		return nil, fmt.Errorf("plot: Density: %w", err)
	}
	h.Normalize(1)
	h.FillColor = Translucent(Color(0), 130)
	h.LineStyle.Width = vg.Points(0.3)
	p.Add(h)
	p.Legend.Add(fmt.Sprintf("draws (%d)", len(all)), h)
	if ref != nil {
		lo, hi := all[0], all[len(all)-1]
		pad := 0.05 * (hi - lo)
		f := plotter.NewFunction(ref)
		f.XMin, f.XMax = lo-pad, hi+pad
		f.Samples = 300
		f.Color = refColor
		f.Width = vg.Points(1.5)
		p.Add(f)
		if refLabel == "" {
			refLabel = "reference"
		}
		p.Legend.Add(refLabel, f)
	}
	p.Legend.Top = true
	p.Y.Max *= 1.3 // room for the legend above the mode
	return p, nil
}

// Autocorrelation plots the autocorrelation of every chain at lags 0 …
// maxLag (diag.Autocorrelation) with the ±2/√n band of white noise.
func Autocorrelation(name string, chains [][]float64, maxLag int) (*gplot.Plot, error) {
	p := New("autocorrelation of "+name, "lag (draws)", "autocorrelation")
	n := 0
	for c, x := range chains {
		if len(x) < 2 {
			continue
		}
		acf := diag.Autocorrelation(x, nil)
		if math.IsNaN(acf[0]) {
			continue
		}
		m := min(maxLag+1, len(acf))
		xy := make(plotter.XYs, m)
		for k := range xy {
			xy[k] = plotter.XY{X: float64(k), Y: acf[k]}
		}
		l, err := plotter.NewLine(xy)
		if err != nil {
			return nil, err
		}
		l.Color = Color(c)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("chain %d", c+1), l)
		n = max(n, len(x))
	}
	if n == 0 {
		return nil, fmt.Errorf("plot: Autocorrelation: %s has no chain with two or more finite, varying draws", name)
	}
	lim := 2 / math.Sqrt(float64(n))
	p.Add(hline(0, 0, float64(maxLag), refColor, false))
	p.Add(hline(lim, 0, float64(maxLag), refColor, true), hline(-lim, 0, float64(maxLag), refColor, true))
	p.Y.Min = math.Min(-0.2, p.Y.Min)
	p.Y.Max = 1
	p.Legend.Top = true
	return p, nil
}

// Pair plots the draws of two quantities against each other, chain by chain,
// with at most maxPoints points in all (every chain thinned alike).
func Pair(xname, yname string, x, y [][]float64, maxPoints int) (*gplot.Plot, error) {
	if len(x) != len(y) || len(x) == 0 {
		return nil, fmt.Errorf("plot: Pair: %d and %d chains", len(x), len(y))
	}
	total := 0
	for c := range x {
		if len(x[c]) != len(y[c]) {
			return nil, fmt.Errorf("plot: Pair: chain %d has %d and %d draws", c+1, len(x[c]), len(y[c]))
		}
		total += len(x[c])
	}
	stride := 1
	if maxPoints > 0 && total > maxPoints {
		stride = (total + maxPoints - 1) / maxPoints
	}
	p := New(yname+" against "+xname, xname, yname)
	for c := range x {
		var xy plotter.XYs
		for t := 0; t < len(x[c]); t += stride {
			if isFinite(x[c][t]) && isFinite(y[c][t]) {
				xy = append(xy, plotter.XY{X: x[c][t], Y: y[c][t]})
			}
		}
		if len(xy) == 0 {
			continue
		}
		s, err := plotter.NewScatter(xy)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Color = Translucent(Color(c), 110)
		s.GlyphStyle.Radius = vg.Points(1.2)
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		p.Add(s)
		p.Legend.Add(fmt.Sprintf("chain %d", c+1), s)
	}
	return p, nil
}

func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// StepSize plots the step-size schedule ηₜ against the iteration on a log
// scale, with the burn-in shaded.
func StepSize(iters, eta []float64, burnIn float64) (*gplot.Plot, error) {
	xy := positive(iters, eta)
	if len(xy) == 0 {
		return nil, errors.New("plot: StepSize: no positive step sizes")
	}
	p := New("step-size schedule", "iteration", "step size η")
	lo, hi := yRange(xy)
	lo, hi = lo/1.5, hi*1.5
	setLogY(p)
	if burnIn > xy[0].X {
		p.Add(band(xy[0].X, burnIn, lo, hi, burnInFill))
	}
	l, err := plotter.NewLine(Envelope(xsOf(xy), ysOf(xy), Bins, nil))
	if err != nil {
		return nil, err
	}
	l.Color = Color(0)
	l.Width = vg.Points(1.5)
	p.Add(l)
	p.Y.Min, p.Y.Max = lo, hi
	return p, nil
}

// NoiseCrossover plots, on a log scale against the iteration, the variance
// per coordinate of the injected noise (inj, SGLD's noise_inj__) and of the
// stochastic-gradient noise as it enters the update (grad, noise_grad__),
// both averaged over windows of 1/200 of the series, with the burn-in
// shaded and the crossover at iteration cross marked (cross ≤ 0: none).
// Where the gradient noise dominates, SGLD is still optimising; after the
// crossover the injected noise dominates and it samples (Welling & Teh §4).
func NoiseCrossover(iters, inj, grad []float64, burnIn, cross float64) (*gplot.Plot, error) {
	if len(iters) != len(inj) || len(iters) != len(grad) {
		return nil, fmt.Errorf("plot: NoiseCrossover: %d iterations, %d and %d noise values", len(iters), len(inj), len(grad))
	}
	wi, wg := windowMeans(iters, inj, grad, 200)
	if len(wi) == 0 {
		return nil, errors.New("plot: NoiseCrossover: no positive noise estimates")
	}
	p := New("noise crossover", "iteration", "variance per coordinate")
	setLogY(p)
	lo, hi := yRange(append(append(plotter.XYs(nil), wi...), wg...))
	lo, hi = lo/2, hi*20 // room for the legend above the lines
	if burnIn > iters[0] {
		p.Add(band(iters[0], burnIn, lo, hi, burnInFill))
	}
	for k, s := range []struct {
		xy    plotter.XYs
		label string
	}{{wi, "injected noise 2ητM"}, {wg, "gradient noise η²M²Var(ĝ)"}} {
		if len(s.xy) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return nil, err
		}
		l.Color = Color(k)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.label, l)
	}
	if cross > 0 {
		v := vline(cross, lo, hi, markColor, true)
		p.Add(v)
		p.Legend.Add(fmt.Sprintf("crossover (iteration %.0f)", cross), v)
	}
	p.Y.Min, p.Y.Max = lo, hi
	p.Legend.Top = true
	return p, nil
}

// windowMeans averages the positive, finite entries of a and b over windows
// of 1/w of the series, at the window's mean iteration.
func windowMeans(iters, a, b []float64, w int) (plotter.XYs, plotter.XYs) {
	n := len(iters)
	win := max(1, n/w)
	var xa, xb plotter.XYs
	for lo := 0; lo < n; lo += win {
		hi := min(n, lo+win)
		var sa, sb, sx float64
		var na, nb int
		for t := lo; t < hi; t++ {
			sx += iters[t]
			if a[t] > 0 && !math.IsInf(a[t], 0) {
				sa += a[t]
				na++
			}
			if b[t] > 0 && !math.IsInf(b[t], 0) {
				sb += b[t]
				nb++
			}
		}
		x := sx / float64(hi-lo)
		if na > 0 {
			xa = append(xa, plotter.XY{X: x, Y: sa / float64(na)})
		}
		if nb > 0 {
			xb = append(xb, plotter.XY{X: x, Y: sb / float64(nb)})
		}
	}
	return xa, xb
}

func positive(x, y []float64) plotter.XYs {
	var xy plotter.XYs
	for i := range min(len(x), len(y)) {
		if y[i] > 0 && !math.IsInf(y[i], 0) {
			xy = append(xy, plotter.XY{X: x[i], Y: y[i]})
		}
	}
	return xy
}

func yRange(xy plotter.XYs) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, p := range xy {
		lo, hi = math.Min(lo, p.Y), math.Max(hi, p.Y)
	}
	return lo, hi
}

func xsOf(xy plotter.XYs) []float64 {
	out := make([]float64, len(xy))
	for i, p := range xy {
		out[i] = p.X
	}
	return out
}

func ysOf(xy plotter.XYs) []float64 {
	out := make([]float64, len(xy))
	for i, p := range xy {
		out[i] = p.Y
	}
	return out
}

func setLogY(p *gplot.Plot) {
	p.Y.Scale = gplot.LogScale{}
	p.Y.Tick.Marker = gplot.LogTicks{Prec: 1}
}
