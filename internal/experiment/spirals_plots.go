package experiment

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	"gonum.org/v1/gonum/mat"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/langevin-go/langevin/plot"
)

// spiralsFigureRange is the square the spirals maps show.
var spiralsFigureRange = [4]float64{-1.3, 1.3, -1.3, 1.3}

// writeSpiralsFigures draws the report's Figures 9 and 10 for a K-class 2-D
// classifier: maps of the confidence maxₖ p̄ₖ(x) and of the predictive
// entropy of the BNN's model average and of the MAP network, with the
// training points by class (spirals.png), and the confusion matrices of
// both on the test set (confusion.png), each also as SVG, and index.md.
func writeSpiralsFigures(dir string, r *moonsResult, text string, stdout io.Writer) error {
	pg, err := NewPage(dir, "spirals: a Bayesian neural network on interleaved spirals (report Figures 9 and 10)")
	if err != nil {
		return err
	}
	m := r.model
	k := m.NumClasses()
	rg := spiralsFigureRange
	// The grid spans the data: scale the square to the training points.
	var rmax float64
	for i := 0; i < r.train.Len(); i++ {
		rmax = math.Max(rmax, math.Hypot(r.train.X.At(i, 0), r.train.X.At(i, 1)))
	}
	for j := range rg {
		rg[j] *= rmax
	}
	const nx, ny = 110, 110
	X := mat.NewDense(nx*ny, 2, nil)
	g0 := plot.NewGrid(rg[0], rg[1], rg[2], rg[3], nx, ny, nil)
	for row := 0; row < ny; row++ {
		for c := 0; c < nx; c++ {
			X.Set(row*nx+c, 0, g0.Xs[c])
			X.Set(row*nx+c, 1, g0.Ys[row])
		}
	}
	avg := func(thetas [][]float64) *mat.Dense {
		out := mat.NewDense(nx*ny, k, nil)
		p := mat.NewDense(nx*ny, k, nil)
		for _, th := range thetas {
			m.ClassProbs(th, X, p)
			out.Add(out, p)
		}
		out.Scale(1/float64(len(thetas)), out)
		return out
	}
	var tiles [][]*gplot.Plot
	for _, who := range []struct {
		name   string
		thetas [][]float64
	}{{fmt.Sprintf("BNN (%d draws)", len(r.draws)), r.draws}, {"MAP network", [][]float64{r.mapTheta}}} {
		p := avg(who.thetas)
		conf := plot.NewGrid(rg[0], rg[1], rg[2], rg[3], nx, ny, nil)
		ent := plot.NewGrid(rg[0], rg[1], rg[2], rg[3], nx, ny, nil)
		for row := 0; row < ny; row++ {
			for c := 0; c < nx; c++ {
				var mx, h float64
				for j := 0; j < k; j++ {
					v := p.At(row*nx+c, j)
					mx = math.Max(mx, v)
					if v > 0 {
						h -= v * math.Log(v)
					}
				}
				conf.Values[row][c] = mx
				ent.Values[row][c] = h
			}
		}
		pc, err := plot.Map(who.name+": confidence max p", conf, 1/float64(k), 1, plot.Points{})
		if err != nil {
			return err
		}
		pe, err := plot.Map(who.name+": entropy", ent, 0, math.Log(float64(k)), plot.Points{})
		if err != nil {
			return err
		}
		for _, pl := range []*gplot.Plot{pc, pe} {
			addClassPoints(pl, r.train.X, r.train.Y, k)
		}
		tiles = append(tiles, []*gplot.Plot{pc, pe})
	}
	if err := pg.Tiles("spirals", "Top: the BNN's model average; bottom: the MAP network. Left: the confidence maxₖ p̄ₖ(x) (from 1/K, blue, to 1, red); right: the predictive entropy (0 to log K nats). Points: the training data by class. The table of the run gives the mean entropy far from the data for each (report Figure 9; with the run's default flags the two are close — `--burnin-cycles -1 --chains 4` is the setting whose BNN/MAP ratio README reports).", tiles, 26*vg.Centimeter, 24*vg.Centimeter); err != nil {
		return err
	}
	cr := r.classifierReport
	bc, bar, err := confusionMap(fmt.Sprintf("BNN: test accuracy %.3f", cr.bnnTest.Accuracy), cr.bnnTest.Confusion)
	if err != nil {
		return err
	}
	mc, _, err := confusionMap(fmt.Sprintf("MAP: test accuracy %.3f", cr.mapTest.Accuracy), cr.mapTest.Confusion)
	if err != nil {
		return err
	}
	if err := pg.TilesBar("confusion", "Confusion matrices on the test set of the BNN's model average and of the MAP network: rows the true class, columns the predicted one, each cell its count and its share of the true class, coloured by that share (colour bar). The report's Figure 10 shows this display for its credit classifiers; here it is for spirals.", [][]*gplot.Plot{{bc, mc}}, bar, 27*vg.Centimeter, 11*vg.Centimeter); err != nil {
		return err
	}
	pg.Printf("Command: `langevin experiment spirals --out DIR` (with the flags of the run below).\n\n```\n%s```\n", text)
	return pg.Write(stdout)
}

// addClassPoints draws the points of X coloured by their class label.
func addClassPoints(p *gplot.Plot, X *mat.Dense, y []float64, k int) {
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.CrossGlyph{}, draw.TriangleGlyph{}, draw.SquareGlyph{}, draw.PlusGlyph{}}
	for c := 0; c < k; c++ {
		var xs, ys []float64
		for i, v := range y {
			if int(v) == c {
				xs = append(xs, X.At(i, 0))
				ys = append(ys, X.At(i, 1))
			}
		}
		if len(xs) == 0 {
			continue
		}
		sc := points(xs, ys, color.Black, shapes[c%len(shapes)], vg.Points(1.6))
		p.Add(sc)
	}
}

// confusionMap draws a confusion matrix (rows: true class) as a heat map
// of each cell's share of its true class, 0 (white) to 1 (blue), with the
// count and the share written in the cell, and returns its colour bar.
func confusionMap(title string, counts [][]int) (*gplot.Plot, *gplot.Plot, error) {
	k := len(counts)
	if k == 0 {
		return nil, nil, fmt.Errorf("confusion matrix: no classes")
	}
	g := plot.Grid{Xs: make([]float64, k), Ys: make([]float64, k), Values: make([][]float64, k)}
	for i := 0; i < k; i++ {
		g.Xs[i], g.Ys[i] = float64(i), float64(i)
		g.Values[i] = make([]float64, k)
	}
	var labels plotter.XYLabels
	for t := 0; t < k; t++ {
		var row float64
		for _, v := range counts[t] {
			row += float64(v)
		}
		for c := 0; c < k; c++ {
			share := float64(counts[t][c]) / math.Max(row, 1)
			g.Values[k-1-t][c] = share // true class 0 at the top
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(c), Y: float64(k - 1 - t)})
			labels.Labels = append(labels.Labels, fmt.Sprintf("%d (%.0f%%)", counts[t][c], 100*share))
		}
	}
	cm := newWhiteTo(color.NRGBA{R: 70, G: 130, B: 200, A: 255})
	cm.SetMin(0)
	cm.SetMax(1)
	h := plotter.NewHeatMap(g, cm.Palette(64))
	h.Min, h.Max = 0, 1
	p := gplot.New()
	p.Title.Text = title
	p.X.Label.Text = "predicted class"
	p.Y.Label.Text = "true class"
	p.Add(h)
	l, err := plotter.NewLabels(labels)
	if err != nil {
		return nil, nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].XAlign = draw.XCenter
		l.TextStyle[i].YAlign = draw.YCenter
	}
	p.Add(l)
	var xt, yt []gplot.Tick
	for i := 0; i < k; i++ {
		xt = append(xt, gplot.Tick{Value: float64(i), Label: strconv.Itoa(i)})
		yt = append(yt, gplot.Tick{Value: float64(k - 1 - i), Label: strconv.Itoa(i)})
	}
	p.X.Tick.Marker = gplot.ConstantTicks(xt)
	p.Y.Tick.Marker = gplot.ConstantTicks(yt)
	return p, plot.ColorBar(cm, "share of the true class"), nil
}
