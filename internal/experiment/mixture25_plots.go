package experiment

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"time"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/plot"
	"github.com/langevin-go/langevin/report"
)

// mixture25Range is the square [−6, 6]² the figures show: the modes sit at
// (2i, 2j), i, j ∈ {−2, …, 2}, with sd √0.03 ≈ 0.17.
const mixture25Range = 6

// writeMixture25Figures draws Zhang et al.'s Fig. 7 (report Figure 7): the
// target density and the 2-D density of the kept draws of each method, all
// seeds pooled, with the 25 mode centres marked, as DIR/density.png and
// .svg, and DIR/index.html with the figure and the modes table.
func writeMixture25Figures(dir string, res []mixture25Method, iters int, stdout io.Writer) error {
	mix := model.NewMixture25()
	var marks plot.Points
	for k := 0; k < mix.K(); k++ {
		c := mix.Center(k)
		marks.X = append(marks.X, c[0])
		marks.Y = append(marks.Y, c[1])
	}
	const r, n = mixture25Range, 150
	cell := 2 * float64(r) / n
	target := plot.NewGrid(-r+cell/2, r-cell/2, -r+cell/2, r-cell/2, n, n, func(x, y float64) float64 {
		return math.Exp(mix.LogLik([]float64{x, y}, nil, nil))
	})
	p, err := plot.DensityMap("target: 25 Gaussians", target, plot.Points{})
	if err != nil {
		return err
	}
	row := []*gplot.Plot{p}
	for _, m := range res {
		var x, y []float64
		for _, d := range m.Draws {
			for _, th := range d {
				x = append(x, th[0])
				y = append(y, th[1])
			}
		}
		p, err := plot.Density2D(fmt.Sprintf("%s (%.1f modes per seed)", m.Name, m.MeanModes()), x, y, -r, r, -r, r, n, n, marks)
		if err != nil {
			return err
		}
		row = append(row, p)
	}
	base := filepath.Join(dir, "density")
	png, err := writeTiles(base, [][]*gplot.Plot{row}, vg.Length(len(row))*10*vg.Centimeter, 10*vg.Centimeter)
	if err != nil {
		return err
	}
	var tab bytes.Buffer
	printMixture25(&tab, res, iters, time.Duration(0))
	r0 := &report.Report{
		Title: "mixture25: SGLD and cyclical SGLD on a mixture of 25 Gaussians (Zhang et al. 2020, Fig. 7)",
		Intro: fmt.Sprintf("Densities of the kept draws of %d seeds pooled (%d steps each, one chain per seed from a uniform start in [−10, 10]²), on a %d×%d histogram over [−%d, %d]²; crosses mark the 25 modes.", len(res[0].Draws), iters, n, n, r, r),
		Pre:   tab.String(),
		Sections: []report.Section{{Title: "Figure", Figures: []report.Figure{{
			Title: "target and sample densities", Caption: "left: the target density; then each method's draws.", PNG: png}}}},
		NoWarnings: true,
	}
	page := filepath.Join(dir, "index.html")
	if err := writeHTML(page, r0); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "figures:  %s.png (and .svg), %s\n", base, page)
	return nil
}
