package experiment

import (
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/langevin-go/langevin/plot"
)

// The helpers of this file build the pieces of the experiments' figures on
// gonum/plot: a plot with a grid and clean tick labels, fixed-range
// histograms, lines, error bars and covariance ellipses.

var refColor = color.Black

// newPlot is plot.New with ticks labelled by tickLabel.
func newPlot(title, xlabel, ylabel string) *gplot.Plot {
	p := plot.New(title, xlabel, ylabel)
	p.X.Tick.Marker = plot.Ticks{Label: tickLabel}
	p.Y.Tick.Marker = plot.Ticks{Label: tickLabel}
	return p
}

// tickLabel writes v plainly (25000, 0.004) between 10⁻⁴ and 10⁶ and with
// a short exponent (5e-6) outside, at most 4 significant digits.
func tickLabel(v float64) string {
	if a := math.Abs(v); a == 0 || (a >= 1e-4 && a < 1e6) {
		s := strconv.FormatFloat(v, 'g', 4, 64)
		if strings.ContainsRune(s, 'e') {
			return strconv.FormatFloat(v, 'f', -1, 64)
		}
		return s
	}
	return num(v)
}

// logTicks labels a log axis at 1, 2, 5 × powers of ten when it spans at
// most 3 decades, at the powers of ten only (2 and 5 unlabelled) when it
// spans more, and linearly when fewer than two of those fall in the range.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []gplot.Tick {
	var ts []gplot.Tick
	wide := math.Log10(hi/lo) > 3
	for e := math.Floor(math.Log10(lo)) - 1; e <= math.Ceil(math.Log10(hi))+1; e++ {
		for _, m := range []float64{1, 2, 5} {
			v, err := strconv.ParseFloat(fmt.Sprintf("%ge%d", m, int(e)), 64)
			if err != nil || v < lo*0.999 || v > hi*1.001 {
				continue
			}
			lab := tickLabel(v)
			if wide && m != 1 {
				lab = ""
			}
			ts = append(ts, gplot.Tick{Value: v, Label: lab})
		}
	}
	labelled := 0
	for _, t := range ts {
		if t.Label != "" {
			labelled++
		}
	}
	if labelled < 2 {
		// Less than a decade with fewer than two of 1, 2, 5 × 10ᵏ
		// inside: linear ticks label the axis (gonum's LogTicks would
		// leave it bare).
		return plot.Ticks{Label: tickLabel}.Ticks(lo, hi)
	}
	return ts
}

func setLog(ax *gplot.Axis) {
	ax.Scale = gplot.LogScale{}
	ax.Tick.Marker = logTicks{}
}

// histogram returns the unit-area histogram of x over [lo, hi] in bins bins;
// values outside the range are dropped (their share still counts in the
// normalisation, so the bars show the density of the whole sample).
func histogram(x []float64, lo, hi float64, bins int, c color.Color) *plotter.Histogram {
	w := (hi - lo) / float64(bins)
	hb := make([]plotter.HistogramBin, bins)
	for i := range hb {
		hb[i].Min = lo + float64(i)*w
		hb[i].Max = lo + float64(i+1)*w
	}
	for _, v := range x {
		if v >= lo && v < hi {
			hb[int((v-lo)/w)].Weight++
		}
	}
	for i := range hb {
		hb[i].Weight /= float64(len(x)) * w
	}
	h := &plotter.Histogram{Bins: hb, Width: w, FillColor: plot.Translucent(c, 110)}
	h.LineStyle.Width = vg.Points(0.3)
	h.LineStyle.Color = c
	return h
}

// function returns f drawn over [lo, hi].
func function(f func(float64) float64, lo, hi float64, c color.Color, dashed bool) *plotter.Function {
	fn := plotter.NewFunction(f)
	fn.XMin, fn.XMax = lo, hi
	fn.Samples = 400
	fn.Color = c
	fn.Width = vg.Points(1.3)
	if dashed {
		fn.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	}
	return fn
}

func line(x, y []float64, c color.Color, dashed bool) *plotter.Line {
	xy := make(plotter.XYs, len(x))
	for i := range x {
		xy[i].X, xy[i].Y = x[i], y[i]
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		panic(err) // programmer error: NaN in a computed curve
	}
	l.Color = c
	l.Width = vg.Points(1.3)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	}
	return l
}

func points(x, y []float64, c color.Color, shape draw.GlyphDrawer, r vg.Length) *plotter.Scatter {
	xy := make(plotter.XYs, len(x))
	for i := range x {
		xy[i].X, xy[i].Y = x[i], y[i]
	}
	s, err := plotter.NewScatter(xy)
	if err != nil {
		panic(err)
	}
	s.GlyphStyle.Color = c
	s.GlyphStyle.Shape = shape
	s.GlyphStyle.Radius = r
	return s
}

// errorBars returns vertical bars y ± e at x.
func errorBars(x, y, e []float64, c color.Color) []gplot.Plotter {
	var ps []gplot.Plotter
	for i := range x {
		l := line([]float64{x[i], x[i]}, []float64{y[i] - e[i], y[i] + e[i]}, c, false)
		l.Width = vg.Points(1)
		ps = append(ps, l)
	}
	return ps
}

// ellipse returns the k-sd contour of N(mean, cov) in two dimensions.
func ellipse(mx, my float64, cov [2][2]float64, k float64, c color.Color, dashed bool) *plotter.Line {
	s := mat.NewSymDense(2, []float64{cov[0][0], cov[0][1], cov[1][0], cov[1][1]})
	var eig mat.EigenSym
	eig.Factorize(s, true)
	vals := eig.Values(nil)
	var vec mat.Dense
	eig.VectorsTo(&vec)
	n := 120
	x := make([]float64, n+1)
	y := make([]float64, n+1)
	for i := 0; i <= n; i++ {
		t := 2 * math.Pi * float64(i) / float64(n)
		a := k * math.Sqrt(math.Max(vals[0], 0)) * math.Cos(t)
		b := k * math.Sqrt(math.Max(vals[1], 0)) * math.Sin(t)
		x[i] = mx + vec.At(0, 0)*a + vec.At(0, 1)*b
		y[i] = my + vec.At(1, 0)*a + vec.At(1, 1)*b
	}
	return line(x, y, c, dashed)
}

// color of series i, shared with package plot.
func col(i int) color.Color { return plot.Color(i) }

// meanSD returns the mean and the sample sd of x.
func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1))
}

// pool returns the draws of all chains in one slice, chain after chain.
func pool(chains [][]float64) []float64 {
	var x []float64
	for _, c := range chains {
		x = append(x, c...)
	}
	return x
}

// quantile returns the p-quantile of x (sorted copy, linear interpolation).
func quantile(x []float64, p float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	h := p * float64(len(s)-1)
	i := int(h)
	if i >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// num formats v with 3 significant digits and a short exponent: 5e-6, 0.0173,
// 1.2e+04 → 1.2e4.
func num(v float64) string {
	s := strconv.FormatFloat(v, 'g', 3, 64)
	s = strings.Replace(s, "e-0", "e-", 1)
	s = strings.Replace(s, "e+0", "e", 1)
	return strings.Replace(s, "e+", "e", 1)
}

// matrixMap draws the d×d matrix a as a heat map on the colour range
// [−zmax, zmax] (blue to red), entry (1, 1) at the top left, axes numbered
// 1…d (every index up to d = 15, else 1 and the multiples of 5).
func matrixMap(title string, a mat.Symmetric, zmax float64) *gplot.Plot {
	p, _ := matrixMapBar(title, a, zmax, "")
	return p
}

// matrixMapBar is matrixMap and its colour bar (plot.ColorBar), the axis of
// the bar titled label: draw it with Page.TilesBar.
func matrixMapBar(title string, a mat.Symmetric, zmax float64, label string) (*gplot.Plot, *gplot.Plot) {
	d := a.SymmetricDim()
	g := plot.Grid{Xs: make([]float64, d), Ys: make([]float64, d), Values: make([][]float64, d)}
	for i := 0; i < d; i++ {
		g.Xs[i] = float64(i + 1)
		g.Ys[i] = float64(i + 1)
	}
	for r := 0; r < d; r++ {
		g.Values[r] = make([]float64, d)
		for c := 0; c < d; c++ {
			g.Values[r][c] = a.At(d-1-r, c) // row d−1−r of a at height r+1
		}
	}
	cm := moreland.SmoothBlueRed()
	cm.SetMin(-zmax)
	cm.SetMax(zmax)
	h := plotter.NewHeatMap(g, cm.Palette(128))
	h.Min, h.Max = -zmax, zmax
	h.Underflow = h.Palette.Colors()[0]
	h.Overflow = h.Palette.Colors()[len(h.Palette.Colors())-1]
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = "column"
	p.Y.Label.Text = "row"
	p.Add(h)
	var xt, yt []gplot.Tick
	for i := 1; i <= d; i++ {
		lab := ""
		if d <= 15 || i == 1 || i%5 == 0 {
			lab = strconv.Itoa(i)
		}
		xt = append(xt, gplot.Tick{Value: float64(i), Label: lab})
		yt = append(yt, gplot.Tick{Value: float64(d + 1 - i), Label: lab})
	}
	p.X.Tick.Marker = gplot.ConstantTicks(xt)
	p.Y.Tick.Marker = gplot.ConstantTicks(yt)
	return p, plot.ColorBar(cm, label)
}

// indexTicks labels an axis of indices 1…d at every integer (d ≤ 15) or
// at 1 and the multiples of 5.
func indexTicks(d int) gplot.ConstantTicks {
	var ts []gplot.Tick
	for i := 1; i <= d; i++ {
		lab := ""
		if d <= 15 || i == 1 || i%5 == 0 {
			lab = strconv.Itoa(i)
		}
		ts = append(ts, gplot.Tick{Value: float64(i), Label: lab})
	}
	return ts
}

var (
	circle = draw.CircleGlyph{}
	ring   = draw.RingGlyph{}
)

// whiteTo is a sequential colour map from white at Min to the colour C at
// Max, linear in RGB: counts and shares, where 0 is "nothing" (moreland's
// luminance maps must grow lighter, not darker).
type whiteTo struct {
	C        color.NRGBA
	min, max float64
	alpha    float64
}

func newWhiteTo(c color.NRGBA) *whiteTo { return &whiteTo{C: c, max: 1, alpha: 1} }

func (m *whiteTo) At(v float64) (color.Color, error) {
	if m.max <= m.min {
		return nil, fmt.Errorf("colour map: empty range [%v, %v]", m.min, m.max)
	}
	t := math.Max(0, math.Min(1, (v-m.min)/(m.max-m.min)))
	mix := func(c uint8) uint8 { return uint8(math.Round(255 + t*(float64(c)-255))) }
	return color.NRGBA{R: mix(m.C.R), G: mix(m.C.G), B: mix(m.C.B), A: uint8(255 * m.alpha)}, nil
}
func (m *whiteTo) Min() float64       { return m.min }
func (m *whiteTo) Max() float64       { return m.max }
func (m *whiteTo) SetMin(v float64)   { m.min = v }
func (m *whiteTo) SetMax(v float64)   { m.max = v }
func (m *whiteTo) Alpha() float64     { return m.alpha }
func (m *whiteTo) SetAlpha(a float64) { m.alpha = a }
func (m *whiteTo) Palette(n int) palette.Palette {
	cs := make([]color.Color, n)
	for i := range cs {
		cs[i], _ = m.At(m.min + (m.max-m.min)*float64(i)/float64(max(n-1, 1)))
	}
	return plainPalette(cs)
}

type plainPalette []color.Color

func (p plainPalette) Colors() []color.Color { return p }
