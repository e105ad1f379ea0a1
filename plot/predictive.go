package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"sort"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Band is the posterior predictive summary of test points: Mean[i] is the
// posterior mean of P(y = 1 | xᵢ) and [Lo[i], Hi[i]] its central credible
// interval. Order lists the points by increasing mean.
type Band struct {
	Mean, Lo, Hi []float64
	Order        []int
}

// PredictiveBand summarises probs[s][i] = P(y = 1 | xᵢ, θₛ) over the draws s:
// the mean over draws and the type-7 quantiles (1 − level)/2 and (1 + level)/2
// of every point i, and the order of the points by increasing mean.
func PredictiveBand(probs [][]float64, level float64) (Band, error) {
	if len(probs) == 0 {
		return Band{}, errors.New("plot: PredictiveBand: no draws")
	}
	if !(level > 0 && level < 1) {
		return Band{}, fmt.Errorf("plot: PredictiveBand: level %v: expected a probability in (0, 1)", level)
	}
	n := len(probs[0])
	for s, row := range probs {
		if len(row) != n {
			return Band{}, fmt.Errorf("plot: PredictiveBand: draw %d has %d points, draw 1 has %d", s+1, len(row), n)
		}
	}
	b := Band{Mean: make([]float64, n), Lo: make([]float64, n), Hi: make([]float64, n), Order: make([]int, n)}
	col := make([]float64, len(probs))
	for i := 0; i < n; i++ {
		var sum float64
		for s, row := range probs {
			col[s] = row[i]
			sum += row[i]
		}
		sort.Float64s(col)
		b.Mean[i] = sum / float64(len(probs))
		b.Lo[i] = quantileSorted(col, (1-level)/2)
		b.Hi[i] = quantileSorted(col, (1+level)/2)
		b.Order[i] = i
	}
	sort.SliceStable(b.Order, func(a, c int) bool { return b.Mean[b.Order[a]] < b.Mean[b.Order[c]] })
	return b, nil
}

// SortedPredictive plots a Band: the test points sorted by their posterior
// mean probability, the mean as a line and the credible interval as a shaded
// band (report Figure 5). When y is not nil, each point's observed label
// (0 or 1) is drawn at the bottom or the top.
func SortedPredictive(title string, b Band, level float64, y []float64) (*gplot.Plot, error) {
	n := len(b.Order)
	if n == 0 {
		return nil, errors.New("plot: SortedPredictive: no points")
	}
	if y != nil && len(y) != n {
		return nil, fmt.Errorf("plot: SortedPredictive: %d labels for %d points", len(y), n)
	}
	p := New(title, "test point (sorted by predictive mean)", "P(y = 1 | x, data)")
	poly := make(plotter.XYs, 0, 2*n)
	mean := make(plotter.XYs, n)
	for k, i := range b.Order {
		poly = append(poly, plotter.XY{X: float64(k + 1), Y: b.Hi[i]})
		mean[k] = plotter.XY{X: float64(k + 1), Y: b.Mean[i]}
	}
	for k := n - 1; k >= 0; k-- {
		poly = append(poly, plotter.XY{X: float64(k + 1), Y: b.Lo[b.Order[k]]})
	}
	pg, err := plotter.NewPolygon(poly)
	if err != nil {
		return nil, err
	}
	pg.Color = Translucent(Color(0), 90)
	pg.LineStyle.Width = 0
	p.Add(pg)
	p.Legend.Add(fmt.Sprintf("%.0f%% credible interval", 100*level), pg)
	l, err := plotter.NewLine(mean)
	if err != nil {
		return nil, err
	}
	l.Color = Color(0)
	l.Width = vg.Points(1.5)
	p.Add(l)
	p.Legend.Add("posterior mean", l)
	if y != nil {
		var ones, zeros plotter.XYs
		for k, i := range b.Order {
			if y[i] > 0.5 {
				ones = append(ones, plotter.XY{X: float64(k + 1), Y: 1.02})
			} else {
				zeros = append(zeros, plotter.XY{X: float64(k + 1), Y: -0.02})
			}
		}
		for c, xy := range []plotter.XYs{zeros, ones} {
			if len(xy) == 0 {
				continue
			}
			s, _ := plotter.NewScatter(xy)
			s.GlyphStyle.Shape = draw.BoxGlyph{}
			s.GlyphStyle.Radius = vg.Points(1.3)
			s.GlyphStyle.Color = classColor(c)
			p.Add(s)
			p.Legend.Add(fmt.Sprintf("observed y = %d", c), s)
		}
	}
	p.Y.Min, p.Y.Max = -0.05, 1.05
	// Bottom right, above the row of y = 0 labels: the sorted means are
	// near 1 there, and the observed labels mostly 1.
	p.Legend.YOffs = vg.Points(12)
	return p, nil
}

func classColor(c int) color.Color {
	if c == 0 {
		return color.NRGBA{R: 30, G: 60, B: 200, A: 255}
	}
	return color.NRGBA{R: 210, G: 40, B: 30, A: 255}
}

// Grid is a regular grid of values: Values[r][c] at (Xs[c], Ys[r]). It
// implements plotter.GridXYZ.
type Grid struct {
	Xs, Ys []float64
	Values [][]float64
}

// NewGrid returns an nx×ny grid over [x0, x1]×[y0, y1] with Values[r][c] =
// f(Xs[c], Ys[r]) (all zero if f is nil).
func NewGrid(x0, x1, y0, y1 float64, nx, ny int, f func(x, y float64) float64) Grid {
	g := Grid{Xs: linspace(x0, x1, nx), Ys: linspace(y0, y1, ny), Values: make([][]float64, ny)}
	for r := range g.Values {
		g.Values[r] = make([]float64, nx)
		if f != nil {
			for c := range g.Values[r] {
				g.Values[r][c] = f(g.Xs[c], g.Ys[r])
			}
		}
	}
	return g
}

func linspace(a, b float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		if n == 1 {
			out[i] = (a + b) / 2
		} else {
			out[i] = a + (b-a)*float64(i)/float64(n-1)
		}
	}
	return out
}

// Dims, Z, X and Y implement plotter.GridXYZ.
func (g Grid) Dims() (c, r int)   { return len(g.Xs), len(g.Ys) }
func (g Grid) Z(c, r int) float64 { return g.Values[r][c] }
func (g Grid) X(c int) float64    { return g.Xs[c] }
func (g Grid) Y(r int) float64    { return g.Ys[r] }

func (g Grid) check() error {
	if len(g.Xs) < 2 || len(g.Ys) < 2 {
		return fmt.Errorf("plot: grid of %d×%d: need at least 2×2", len(g.Xs), len(g.Ys))
	}
	if len(g.Values) != len(g.Ys) {
		return fmt.Errorf("plot: grid has %d rows of values for %d y coordinates", len(g.Values), len(g.Ys))
	}
	for r, row := range g.Values {
		if len(row) != len(g.Xs) {
			return fmt.Errorf("plot: grid row %d has %d values for %d x coordinates", r, len(row), len(g.Xs))
		}
	}
	return nil
}

// Points are labelled points drawn over a map: (X[i], Y[i]) with class
// Label[i] (0 or 1; nil labels draw all points alike).
type Points struct {
	X, Y, Label []float64
}

// Map draws the grid g as a heat map (rasterised) with colours from zmin
// (lowest) to zmax, the points pts on top, and the colour range in the
// title. Use it for the predictive mean probability (zmin 0, zmax 1) and
// the predictive entropy (0 to log 2) of a classifier (report Figures 8–9).
func Map(title string, g Grid, zmin, zmax float64, pts Points) (*gplot.Plot, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	if !(zmax > zmin) {
		return nil, fmt.Errorf("plot: Map: colour range [%v, %v] is empty", zmin, zmax)
	}
	key := ""
	if pts.Label != nil {
		// The classes' key in the title: a legend drawn over the map is
		// dark text on the map's own colours.
		key = "; rings: y = 0, crosses: y = 1"
	}
	p := New(fmt.Sprintf("%s\n(colour: %.3g to %.3g%s)", title, zmin, zmax, key), "x₁", "x₂")
	p.Add(heat(g, zmin, zmax, moreland.SmoothBlueRed()))
	addPoints(p, pts)
	p.Legend = gplot.NewLegend()
	return p, nil
}

func heat(g Grid, zmin, zmax float64, cm interface {
	SetMin(float64)
	SetMax(float64)
	Palette(int) palette.Palette
}) *plotter.HeatMap {
	cm.SetMin(zmin)
	cm.SetMax(zmax)
	h := plotter.NewHeatMap(g, cm.Palette(128))
	h.Min, h.Max = zmin, zmax
	h.Rasterized = true
	h.Underflow = h.Palette.Colors()[0]
	h.Overflow = h.Palette.Colors()[len(h.Palette.Colors())-1]
	h.NaN = color.Transparent
	return h
}

func addPoints(p *gplot.Plot, pts Points) {
	if len(pts.X) == 0 {
		return
	}
	groups := map[int]plotter.XYs{}
	for i := range min(len(pts.X), len(pts.Y)) {
		c := -1
		if pts.Label != nil {
			c = 0
			if pts.Label[i] > 0.5 {
				c = 1
			}
		}
		groups[c] = append(groups[c], plotter.XY{X: pts.X[i], Y: pts.Y[i]})
	}
	for _, c := range []int{-1, 0, 1} {
		xy, ok := groups[c]
		if !ok {
			continue
		}
		s, _ := plotter.NewScatter(xy)
		s.GlyphStyle.Radius = vg.Points(2)
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		switch c {
		case -1:
			s.GlyphStyle.Color = color.White
		case 0:
			s.GlyphStyle.Color = color.NRGBA{R: 255, G: 255, B: 255, A: 255}
			s.GlyphStyle.Shape = draw.RingGlyph{}
		case 1:
			s.GlyphStyle.Color = color.NRGBA{A: 255}
			s.GlyphStyle.Shape = draw.CrossGlyph{}
		}
		p.Add(s)
		if c >= 0 {
			p.Legend.Add(fmt.Sprintf("y = %d", c), s)
		}
	}
	p.Legend.Top = true
}

// Histogram2D counts the points (x[i], y[i]) in nx×ny equal cells over
// [x0, x1]×[y0, y1] and returns the density estimate (count / (n · cell
// area), n the number of all points) at the cell centres; points outside are
// counted in n only.
func Histogram2D(x, y []float64, x0, x1, y0, y1 float64, nx, ny int) (Grid, error) {
	if len(x) != len(y) {
		return Grid{}, fmt.Errorf("plot: Histogram2D: %d x and %d y values", len(x), len(y))
	}
	if !(x1 > x0) || !(y1 > y0) || nx < 2 || ny < 2 {
		return Grid{}, fmt.Errorf("plot: Histogram2D: range [%v, %v]×[%v, %v] with %d×%d cells: expected a non-empty range and at least 2×2 cells", x0, x1, y0, y1, nx, ny)
	}
	dx, dy := (x1-x0)/float64(nx), (y1-y0)/float64(ny)
	g := NewGrid(x0+dx/2, x1-dx/2, y0+dy/2, y1-dy/2, nx, ny, nil)
	if len(x) == 0 {
		return g, nil
	}
	w := 1 / (float64(len(x)) * dx * dy)
	for i := range x {
		c := int(math.Floor((x[i] - x0) / dx))
		r := int(math.Floor((y[i] - y0) / dy))
		if c >= 0 && c < nx && r >= 0 && r < ny {
			g.Values[r][c] += w
		}
	}
	return g, nil
}

// Density2D draws the 2-D density of samples (x, y) over [x0, x1]×[y0, y1]
// as a rasterised heat map of an nx×ny histogram (report Figure 7: samples
// of a toy target), with the points marks (e.g. the target's modes) on top.
func Density2D(title string, x, y []float64, x0, x1, y0, y1 float64, nx, ny int, marks Points) (*gplot.Plot, error) {
	g, err := Histogram2D(x, y, x0, x1, y0, y1, nx, ny)
	if err != nil {
		return nil, err
	}
	return DensityMap(title, g, marks)
}

// DensityMap draws a grid of density values (a target's density, or
// Histogram2D of samples) as a rasterised heat map from 0 (black) to the
// 99th percentile of its positive values (white; higher values saturate, so
// that a few dense cells do not darken the rest), with the points marks on
// top (crosses, e.g. a target's modes).
func DensityMap(title string, g Grid, marks Points) (*gplot.Plot, error) {
	if err := g.check(); err != nil {
		return nil, err
	}
	var pos []float64
	for _, row := range g.Values {
		for _, v := range row {
			if v > 0 && !math.IsInf(v, 0) {
				pos = append(pos, v)
			}
		}
	}
	sort.Float64s(pos)
	zmax := quantileSorted(pos, 0.99)
	if !(zmax > 0) {
		zmax = 1
	}
	p := New(title, "x₁", "x₂")
	p.Add(heat(g, 0, zmax, moreland.BlackBody()))
	if len(marks.X) > 0 {
		s, _ := plotter.NewScatter(plotter.XYs(xyPairs(marks.X, marks.Y)))
		s.GlyphStyle.Shape = draw.CrossGlyph{}
		s.GlyphStyle.Color = color.NRGBA{R: 80, G: 160, B: 255, A: 255}
		s.GlyphStyle.Radius = vg.Points(3)
		p.Add(s)
	}
	// The heat map's cells are centred on the grid points.
	dx := (g.Xs[len(g.Xs)-1] - g.Xs[0]) / float64(len(g.Xs)-1) / 2
	dy := (g.Ys[len(g.Ys)-1] - g.Ys[0]) / float64(len(g.Ys)-1) / 2
	p.X.Min, p.X.Max = g.Xs[0]-dx, g.Xs[len(g.Xs)-1]+dx
	p.Y.Min, p.Y.Max = g.Ys[0]-dy, g.Ys[len(g.Ys)-1]+dy
	return p, nil
}

func xyPairs(x, y []float64) []plotter.XY {
	out := make([]plotter.XY, min(len(x), len(y)))
	for i := range out {
		out[i] = plotter.XY{X: x[i], Y: y[i]}
	}
	return out
}

// BinaryEntropy returns the entropy −p log p − (1 − p) log(1 − p) in nats of
// a Bernoulli(p) prediction, in [0, log 2]; 0 at p = 0 or 1, NaN outside
// [0, 1].
func BinaryEntropy(p float64) float64 {
	switch {
	case !(p >= 0 && p <= 1):
		return math.NaN()
	case p == 0 || p == 1:
		return 0
	}
	return -p*math.Log(p) - (1-p)*math.Log1p(-p)
}

// EntropyGrid returns the grid of the predictive entropy BinaryEntropy(p̄)
// of a grid of posterior mean probabilities p̄ (report Figure 9; draw it with
// Map over [0, log 2]).
func EntropyGrid(mean Grid) Grid {
	g := Grid{Xs: mean.Xs, Ys: mean.Ys, Values: make([][]float64, len(mean.Values))}
	for r, row := range mean.Values {
		g.Values[r] = make([]float64, len(row))
		for c, p := range row {
			g.Values[r][c] = BinaryEntropy(p)
		}
	}
	return g
}

// SortedRegression plots a regression's posterior predictive at test
// points: the points sorted by their predictive mean (the line), the
// central interval of a new observation y (light band: the draws' f and
// their noise) and of f(x) alone (dark band), and the observed y as dots
// when y is not nil. Every slice is indexed by test point and has the same
// length.
func SortedRegression(title, ylabel string, mean, obsLo, obsHi, fLo, fHi []float64, level float64, y []float64) (*gplot.Plot, error) {
	n := len(mean)
	if n == 0 {
		return nil, errors.New("plot: SortedRegression: no points")
	}
	for _, v := range [][]float64{obsLo, obsHi, fLo, fHi} {
		if len(v) != n {
			return nil, fmt.Errorf("plot: SortedRegression: an interval has %d points, the mean %d", len(v), n)
		}
	}
	if y != nil && len(y) != n {
		return nil, fmt.Errorf("plot: SortedRegression: %d observations for %d points", len(y), n)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return mean[order[a]] < mean[order[b]] })
	p := New(title, "test point (sorted by predictive mean)", ylabel)
	band := func(lo, hi []float64, alpha uint8, label string) error {
		poly := make(plotter.XYs, 0, 2*n)
		for k, i := range order {
			poly = append(poly, plotter.XY{X: float64(k + 1), Y: hi[i]})
		}
		for k := n - 1; k >= 0; k-- {
			poly = append(poly, plotter.XY{X: float64(k + 1), Y: lo[order[k]]})
		}
		pg, err := plotter.NewPolygon(poly)
		if err != nil {
			return err
		}
		pg.Color = Translucent(Color(0), alpha)
		pg.LineStyle.Width = 0
		p.Add(pg)
		p.Legend.Add(label, pg)
		return nil
	}
	if err := band(obsLo, obsHi, 60, fmt.Sprintf("%.0f%% interval of a new y", 100*level)); err != nil {
		return nil, err
	}
	if err := band(fLo, fHi, 140, fmt.Sprintf("%.0f%% interval of f(x)", 100*level)); err != nil {
		return nil, err
	}
	line := make(plotter.XYs, n)
	for k, i := range order {
		line[k] = plotter.XY{X: float64(k + 1), Y: mean[i]}
	}
	l, err := plotter.NewLine(line)
	if err != nil {
		return nil, err
	}
	l.Color = Color(0)
	l.Width = vg.Points(1.5)
	p.Add(l)
	p.Legend.Add("predictive mean", l)
	if y != nil {
		obs := make(plotter.XYs, n)
		for k, i := range order {
			obs[k] = plotter.XY{X: float64(k + 1), Y: y[i]}
		}
		s, err := plotter.NewScatter(obs)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Radius = vg.Points(1.2)
		s.GlyphStyle.Color = classColor(1)
		p.Add(s)
		p.Legend.Add("observed y", s)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return p, nil
}
