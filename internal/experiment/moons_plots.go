package experiment

import (
	"fmt"
	"io"
	"math"
	"path/filepath"

	"gonum.org/v1/gonum/mat"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/plot"
	"github.com/langevin-go/langevin/report"
)

// moonsFigureRange is the square the maps of the two-moons experiment show,
// as [x0, x1]×[y0, y1]; it is the grid on which the entropies are scored.
var moonsFigureRange = [4]float64{-3.5, 4.5, -3, 3.5}

// writeMoonsFigures draws the report's Figure 8 for a binary 2-D
// classifier: maps of the posterior mean probability P(y = 1 | x) and of the
// predictive entropy, for the BNN's draws and for the MAP network, with the
// training points on top (DIR/maps.png and .svg); the display of the
// report's Figure 5 (drawn there for credit) for the test points, sorted by their mean probability with a 90% credible
// band (DIR/predictive.png); and DIR/index.html with both and the printed
// results.
func writeMoonsFigures(dir string, m *model.MLP, mapTheta []float64, draws [][]float64, train, test *data.Dataset, text string, stdout io.Writer) error {
	if m.NumClasses() != 2 {
		return fmt.Errorf("moons figures: %d classes: the maps show P(y = 1), two classes only", m.NumClasses())
	}
	r := moonsFigureRange
	const nx, ny = 120, 100
	g := plot.NewGrid(r[0], r[1], r[2], r[3], nx, ny, nil)
	X := mat.NewDense(nx*ny, 2, nil)
	for row := 0; row < ny; row++ {
		for c := 0; c < nx; c++ {
			X.Set(row*nx+c, 0, g.Xs[c])
			X.Set(row*nx+c, 1, g.Ys[row])
		}
	}
	// meanGrid is the grid of P(y = 1 | x) averaged over the draws.
	meanGrid := func(thetas [][]float64) plot.Grid {
		out := plot.NewGrid(r[0], r[1], r[2], r[3], nx, ny, nil)
		p := mat.NewDense(nx*ny, 2, nil)
		for _, th := range thetas {
			m.ClassProbs(th, X, p)
			for row := 0; row < ny; row++ {
				for c := 0; c < nx; c++ {
					out.Values[row][c] += p.At(row*nx+c, 1) / float64(len(thetas))
				}
			}
		}
		for _, row := range out.Values {
			for c, v := range row {
				row[c] = min(max(v, 0), 1) // rounding of the average may step past 1
			}
		}
		return out
	}
	pts := plot.Points{X: mat.Col(nil, 0, train.X), Y: mat.Col(nil, 1, train.X), Label: train.Y}
	var tiles [][]*gplot.Plot
	for _, who := range []struct {
		name   string
		thetas [][]float64
	}{
		{fmt.Sprintf("BNN (%d draws)", len(draws)), draws},
		{"MAP network", [][]float64{mapTheta}},
	} {
		mean := meanGrid(who.thetas)
		pm, err := plot.Map(who.name+": P(y = 1 | x)", mean, 0, 1, pts)
		if err != nil {
			return err
		}
		pe, err := plot.Map(who.name+": predictive entropy", plot.EntropyGrid(mean), 0, math.Ln2, pts)
		if err != nil {
			return err
		}
		tiles = append(tiles, []*gplot.Plot{pm, pe})
	}
	mapsBase := filepath.Join(dir, "maps")
	mapsPNG, err := writeTiles(mapsBase, tiles, 2*12*vg.Centimeter, 2*10*vg.Centimeter)
	if err != nil {
		return err
	}

	// The display of the report's Figure 5: per-draw probabilities at the test points.
	nt := test.Len()
	probs := make([][]float64, len(draws))
	p := mat.NewDense(nt, 2, nil)
	for s, th := range draws {
		m.ClassProbs(th, test.X, p)
		probs[s] = mat.Col(nil, 1, p)
	}
	band, err := plot.PredictiveBand(probs, 0.9)
	if err != nil {
		return err
	}
	ps, err := plot.SortedPredictive("BNN: test points sorted by P(y = 1 | x), 90% band", band, 0.9, test.Y)
	if err != nil {
		return err
	}
	predBase := filepath.Join(dir, "predictive")
	predPNG, err := writeTiles(predBase, [][]*gplot.Plot{{ps}}, 16*vg.Centimeter, 10*vg.Centimeter)
	if err != nil {
		return err
	}

	rep := &report.Report{
		Title: "moons: a Bayesian neural network on two moons (report §5.2, Figure 8, and the display of Figure 5, which the report draws for credit)",
		Intro: "2-100-10-1 ReLU network, prior N(0, I), MAP start by Adam, cyclical SGLD with one draw per cycle. Maps over the grid on which the entropies are scored; circles and crosses are the training points of classes 0 and 1.",
		Pre:   text,
		Sections: []report.Section{{Title: "Figures", Figures: []report.Figure{
			{Title: "predictive mean probability and entropy (report Figure 8)", Caption: "top: the BNN's model average; bottom: the MAP network. The BNN's entropy grows away from the data; the MAP network stays confident.", PNG: mapsPNG},
			{Title: "sorted predictive probabilities (the display of the report's Figure 5, drawn there for credit)", Caption: "test points sorted by the BNN's mean P(y = 1 | x), with the 90% credible band of the per-draw probabilities and the observed labels.", PNG: predPNG},
		}}},
		NoWarnings: true,
	}
	page := filepath.Join(dir, "index.html")
	if err := writeHTML(page, rep); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "figures:  %s.png, %s.png (and .svg), %s\n", mapsBase, predBase, page)
	return nil
}
