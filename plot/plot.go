// Package plot draws the figures a Bayesian user reads before the tables:
// traces, marginal densities against exact ones, autocorrelations, pair
// scatters, the SGLD step-size schedule and noise crossover, sorted
// posterior predictive probabilities with credible bands, 2-D predictive maps
// and 2-D sample densities. Every function returns a *plot.Plot of
// gonum.org/v1/plot, which Encode and Save write as PNG or SVG.
//
// Long traces are reduced before drawing by Envelope: the draws are split into
// Bins groups of consecutive draws (about one per pixel column) and only the
// minimum and the maximum of each group are drawn, in their order. The drawn
// line then covers exactly the vertical extent the full trace would cover in
// each column, and a 100,000-draw trace renders in milliseconds rather than
// seconds.
//
// The functions take plain slices (one per chain, as package diag does) so
// that they work on langevin's traces and on any CmdStan CSV file.
package plot

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Default figure size.
const (
	Width  = 16 * vg.Centimeter
	Height = 9 * vg.Centimeter
)

// Bins is the number of groups Envelope reduces a trace to: about one per
// pixel column of a Width-wide PNG at the default 96 dpi.
const Bins = 600

// Encode renders p at size w×h in the given format ("png" or "svg").
func Encode(p *gplot.Plot, w, h vg.Length, format string) ([]byte, error) {
	switch format {
	case "png", "svg":
	default:
		return nil, fmt.Errorf("plot: format %q: expected png or svg", format)
	}
	if format == "png" {
		c := vgimg.New(w, h)
		p.Draw(draw.New(c))
		return encodePNG(c, png.DefaultCompression)
	}
	wt, err := p.WriterTo(w, h, format)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodePNG writes the canvas as PNG at the given compression level.
func encodePNG(c *vgimg.Canvas, level png.CompressionLevel) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: level}
	if err := enc.Encode(&buf, c.Image()); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Save writes p at size w×h to path, as PNG or SVG by the path's extension.
func Save(p *gplot.Plot, w, h vg.Length, path string) error {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	if ext != "png" && ext != "svg" {
		return fmt.Errorf("plot: %s: expected a .png or .svg file name", path)
	}
	return p.Save(w, h, path)
}

// Color returns the colour of chain or series i.
func Color(i int) color.Color { return plotutil.Color(i) }

// Translucent returns c with alpha a (0–255), as non-premultiplied NRGBA,
// which gonum/plot's fills need for transparency.
func Translucent(c color.Color, a uint8) color.NRGBA {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: a}
}

// Envelope reduces the series (x[i], y[i]), taken at increasing x, to at most
// 2·bins points: the series is split into bins groups of consecutive points,
// and of each group the point with the smallest and the point with the
// largest y are kept, in their original order. Drawn as a line, the result
// spans in every group exactly the range of y the full series spans there.
// Series of at most 2·bins points are returned whole. NaN values are
// skipped. The result is appended to dst[:0].
func Envelope(x, y []float64, bins int, dst plotter.XYs) plotter.XYs {
	dst = dst[:0]
	n := min(len(x), len(y))
	if bins < 1 || n <= 2*bins {
		for i := 0; i < n; i++ {
			if !math.IsNaN(y[i]) {
				dst = append(dst, plotter.XY{X: x[i], Y: y[i]})
			}
		}
		return dst
	}
	for b := 0; b < bins; b++ {
		lo, hi := b*n/bins, (b+1)*n/bins
		imin, imax := -1, -1
		for i := lo; i < hi; i++ {
			v := y[i]
			if math.IsNaN(v) {
				continue
			}
			if imin < 0 || v < y[imin] {
				imin = i
			}
			if imax < 0 || v > y[imax] {
				imax = i
			}
		}
		switch {
		case imin < 0:
		case imin == imax:
			dst = append(dst, plotter.XY{X: x[imin], Y: y[imin]})
		case imin < imax:
			dst = append(dst, plotter.XY{X: x[imin], Y: y[imin]}, plotter.XY{X: x[imax], Y: y[imax]})
		default:
			dst = append(dst, plotter.XY{X: x[imax], Y: y[imax]}, plotter.XY{X: x[imin], Y: y[imin]})
		}
	}
	return dst
}

// pooled returns the finite values of all chains, sorted.
func pooled(chains [][]float64) []float64 {
	var all []float64
	for _, c := range chains {
		for _, v := range c {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				all = append(all, v)
			}
		}
	}
	sort.Float64s(all)
	return all
}

// quantileSorted is the type-7 quantile of sorted x.
func quantileSorted(x []float64, p float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	h := p * float64(len(x)-1)
	lo := int(math.Floor(h))
	if lo >= len(x)-1 {
		return x[len(x)-1]
	}
	return x[lo] + (h-float64(lo))*(x[lo+1]-x[lo])
}

// New returns an empty plot with a title, axis labels and a grid, and
// Ticks{} on both axes: the frame of every figure of this package.
func New(title, xlabel, ylabel string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.X.Tick.Marker = Ticks{}
	p.Y.Tick.Marker = Ticks{}
	return p
}

// Ticks places the ticks where Ticker does (nil: gonum's DefaultTicks) and
// labels every major one with Label (nil: at most 6 significant digits and no
// trailing zeros, "25000", not "25000.00").
type Ticks struct {
	Ticker gplot.Ticker
	Label  func(v float64) string
}

// Ticks implements gplot.Ticker.
func (t Ticks) Ticks(lo, hi float64) []gplot.Tick {
	tk := t.Ticker
	if tk == nil {
		tk = gplot.DefaultTicks{}
	}
	ts := tk.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label == "" {
			continue
		}
		if t.Label != nil {
			ts[i].Label = t.Label(ts[i].Value)
		} else {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

// vline returns a vertical line at x from y0 to y1.
func vline(x, y0, y1 float64, c color.Color, dashed bool) *plotter.Line {
	return segment(x, y0, x, y1, c, dashed)
}

// hline returns a horizontal line at y from x0 to x1.
func hline(y, x0, x1 float64, c color.Color, dashed bool) *plotter.Line {
	return segment(x0, y, x1, y, c, dashed)
}

// segment returns the line from (x0, y0) to (x1, y1), 1.2 points wide, dashed
// 4-3 if dashed.
func segment(x0, y0, x1, y1 float64, c color.Color, dashed bool) *plotter.Line {
	l, _ := plotter.NewLine(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y1}})
	l.Color = c
	l.Width = vg.Points(1.2)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	return l
}

// band returns the shaded rectangle [x0, x1] × [y0, y1].
func band(x0, x1, y0, y1 float64, c color.NRGBA) *plotter.Polygon {
	pg, _ := plotter.NewPolygon(plotter.XYs{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
	pg.Color = c
	pg.LineStyle.Width = 0
	return pg
}

// EncodeTiles renders a grid of plots, rows[r][c] (nil leaves a tile
// empty), aligned on one w×h canvas, in the given format ("png" or "svg").
func EncodeTiles(rows [][]*gplot.Plot, w, h vg.Length, format string) ([]byte, error) {
	return EncodeTilesBar(rows, nil, w, h, format)
}

// BarWidth is the width of the strip EncodeTilesBar gives a colour bar.
const BarWidth = 3 * vg.Centimeter

// EncodeTilesBar is EncodeTiles with a colour bar (ColorBar; nil: none)
// drawn in a strip BarWidth wide at the right of the canvas, beside the
// tiles, spanning their height less a title's and an axis's room.
func EncodeTilesBar(rows [][]*gplot.Plot, bar *gplot.Plot, w, h vg.Length, format string) ([]byte, error) {
	if len(rows) == 0 || len(rows[0]) == 0 {
		return nil, errors.New("plot: EncodeTiles: no plots")
	}
	cols := len(rows[0])
	for r, row := range rows {
		if len(row) != cols {
			return nil, fmt.Errorf("plot: EncodeTiles: row %d has %d plots, row 1 has %d", r+1, len(row), cols)
		}
	}
	var c vg.CanvasWriterTo
	var img *vgimg.Canvas
	switch format {
	case "png":
		img = vgimg.New(w, h)
		c = vgimg.PngCanvas{Canvas: img}
	case "svg":
		c = vgsvg.New(w, h)
	default:
		return nil, fmt.Errorf("plot: format %q: expected png or svg", format)
	}
	dc := draw.New(c)
	if bar != nil {
		bar.Draw(draw.Crop(dc, w-BarWidth+3*vg.Millimeter, -3*vg.Millimeter, 12*vg.Millimeter, -8*vg.Millimeter))
		dc = draw.Crop(dc, 0, -BarWidth, 0, 0)
	}
	t := draw.Tiles{Rows: len(rows), Cols: cols, PadX: 2 * vg.Millimeter, PadY: 2 * vg.Millimeter,
		PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
	canvases := gplot.Align(rows, t, dc)
	for r, row := range rows {
		for k, p := range row {
			if p != nil {
				p.Draw(canvases[r][k])
			}
		}
	}
	if img != nil {
		// Tiled figures are few and large: compress them hard.
		return encodePNG(img, png.BestCompression)
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// HLine adds to p a dashed horizontal reference line at y across [x0, x1],
// labelled in the legend unless label is empty.
func HLine(p *gplot.Plot, y, x0, x1 float64, label string) {
	l := hline(y, x0, x1, refColor, true)
	p.Add(l)
	if label != "" {
		p.Legend.Add(label, l)
		p.Legend.Top = true
	}
}

// ColorBar returns the key of a heat map: a narrow plot of the colour map cm
// over [cm.Min(), cm.Max()] with labelled ticks, its axis titled label. Draw
// it beside the heat maps with EncodeTilesBar.
func ColorBar(cm palette.ColorMap, label string) *gplot.Plot {
	p := gplot.New()
	p.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	p.HideX()
	p.Y.Label.Text = label
	p.Y.Tick.Marker = Ticks{}
	p.Y.Padding = 0
	return p
}
