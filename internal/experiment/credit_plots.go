package experiment

import (
	"bytes"
	"fmt"
	"github.com/langevin-go/langevin/model"
	"gonum.org/v1/gonum/mat"
	"io"
	"math"
	"os"
	"path/filepath"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/plot"
	"github.com/langevin-go/langevin/report"
)

// creditFigureMethods are the methods drawn: the report's three samplers
// and NUTS as the reference.
var creditFigureMethods = []string{"MALA", "RWM", "SGLD", "NUTS"}

// writeCreditFigures draws the seed report's Figures 3–5 for the credit
// comparison into dir: the traces (credit-traces) and autocorrelations
// (credit-acf) of two coefficients — the intercept and the coefficient
// with the largest posterior mean in absolute value — per method, and the
// posterior predictive probability of every test point, sorted, with its
// 90% band (credit-predictive), each as PNG and SVG, and dir/index.html
// with the figures and the comparison table.
func writeCreditFigures(dir string, res *creditResult, stdout io.Writer) error {
	var meths []*creditMethod
	for _, name := range creditFigureMethods {
		for _, m := range res.Methods {
			if m.Name == name && m.Trace != nil && m.Trace.NumDraws() > 1 {
				meths = append(meths, m)
			}
		}
	}
	if len(meths) == 0 {
		return nil
	}
	// The parameters: the intercept and the largest |mean| under NUTS (or
	// the last method drawn).
	ref := meths[len(meths)-1].Trace
	mean := ref.Mean(nil)
	big := 1
	for j := 1; j < ref.Dim; j++ {
		if math.Abs(mean[j]) > math.Abs(mean[big]) {
			big = j
		}
	}
	params := []int{0, big}
	var traces, acfs [][]*gplot.Plot
	for _, m := range meths {
		var trow, arow []*gplot.Plot
		for _, j := range params {
			name := m.Trace.Names[j]
			chains := m.Trace.Param(j)
			// The burn-in draws first (saved with the run), shaded: the
			// report's Figure 3 shows the burn-in.
			series := make([]plot.Series, len(chains))
			for c, y := range chains {
				if c < len(m.Trace.Warmup) {
					w := m.Trace.Warmup[c]
					for t, th := range w.Theta {
						series[c].Y = append(series[c].Y, th[j])
						series[c].X = append(series[c].X, float64(w.Iters[t]))
					}
				}
				series[c].Y = append(series[c].Y, y...)
				for _, it := range m.Trace.Iters[c] {
					series[c].X = append(series[c].X, float64(it))
				}
			}
			p, err := plot.Trace(name, series, float64(m.BurnIn))
			if err != nil {
				return err
			}
			// The burn-in and the first 1000 kept iterations: a whole run
			// of nearly independent draws (NUTS) is solid ink at this width.
			p.Title.Text = fmt.Sprintf("%s: %s (burn-in and the first 1000 draws)", m.Name, name)
			p.X.Min, p.X.Max = 0, float64(m.BurnIn+1000)
			trow = append(trow, p)
			a, err := plot.Autocorrelation(name, chains, 100)
			if err != nil {
				return err
			}
			a.Title.Text = m.Name + ": autocorrelation of " + name
			arow = append(arow, a)
		}
		traces = append(traces, trow)
		acfs = append(acfs, arow)
	}
	// Report Figure 4: the marginal posteriors, the methods overlaid.
	var margs []*gplot.Plot
	var densWarn []string
	for _, j := range params {
		name := ref.Names[j]
		refDraws := pool(ref.Param(j))
		mu, sd := meanSD(refDraws)
		lo, hi := mu-4.2*sd, mu+4.2*sd
		g := make([]float64, 300)
		for i := range g {
			g[i] = lo + (hi-lo)*float64(i)/float64(len(g)-1)
		}
		p := newPlot("posterior of "+name, name, "density")
		var top float64
		for k, m := range meths {
			dens := kde(pool(m.Trace.Param(j)), g)
			cl := col(k)
			if m.Name == "NUTS" {
				cl = refColor
			}
			l := line(g, dens, cl, m.Name == "NUTS")
			p.Add(l)
			label := m.Name
			if w := densityWarning(m.Name, name, m.Trace.Param(j)); w != "" {
				densWarn = append(densWarn, w)
				label += fmt.Sprintf(" (ESS %.0f: too few for a density)", diag.ESSBulk(m.Trace.Param(j)))
			}
			p.Legend.Add(label, l)
			for _, v := range dens {
				top = math.Max(top, v)
			}
		}
		p.X.Min, p.X.Max = lo, hi
		p.Y.Min, p.Y.Max = 0, 1.45*top
		p.Legend.Top, p.Legend.Left = true, true
		margs = append(margs, p)
	}
	var preds []*gplot.Plot
	for _, m := range meths {
		rows := m.Trace.Rows()
		probs := make([][]float64, len(rows))
		for s, th := range rows {
			probs[s] = res.Model.Predict(th[:res.Model.Dim()], res.Test.X, nil)
		}
		b, err := plot.PredictiveBand(probs, 0.9)
		if err != nil {
			return err
		}
		p, err := plot.SortedPredictive(m.Name+": test points, sorted", b, 0.9, res.Test.Y)
		if err != nil {
			return err
		}
		preds = append(preds, p)
	}
	// Report Figure 10: confusion matrices of the test set predicted with
	// each method's posterior-mean θ (class 1 where P(y = 1 | x, θ̄) > 0.5).
	var confs []*gplot.Plot
	var confBar *gplot.Plot
	for _, m := range meths {
		counts, acc := creditConfusion(res.Model, m.Trace.Mean(nil), res.Test.X, res.Test.Y)
		c, bar, err := confusionMap(fmt.Sprintf("%s, posterior-mean θ: accuracy %.3f", m.Name, acc), counts)
		if err != nil {
			return err
		}
		confs, confBar = append(confs, c), bar
	}
	predTiles := [][]*gplot.Plot{preds}
	if len(preds) == 4 {
		predTiles = [][]*gplot.Plot{preds[:2], preds[2:]}
	}
	h := vg.Length(len(meths)) * 6 * vg.Centimeter
	var figs []report.Figure
	for _, f := range []struct {
		name, title string
		tiles       [][]*gplot.Plot
		w, h        vg.Length
	}{
		{"credit-traces", "Traces with the burn-in shaded (report Figure 3)", traces, 30 * vg.Centimeter, h},
		{"credit-marginals", "Marginal posteriors, kernel density estimates, the methods overlaid (report Figure 4)", [][]*gplot.Plot{margs}, 30 * vg.Centimeter, 10 * vg.Centimeter},
		{"credit-acf", "Autocorrelations", acfs, 30 * vg.Centimeter, h},
		{"credit-predictive", "Posterior predictive P(y = 1 | x) of the test points, sorted by the posterior mean, with 90% bands and the observed labels (report Figure 5)", predTiles, 30 * vg.Centimeter, vg.Length(len(predTiles)) * 9 * vg.Centimeter},
	} {
		png, err := writeTiles(filepath.Join(dir, f.name), f.tiles, f.w, f.h)
		if err != nil {
			return err
		}
		figs = append(figs, report.Figure{Title: f.title, Caption: f.title, PNG: png})
	}
	for _, format := range []string{"png", "svg"} {
		b, err := plot.EncodeTilesBar([][]*gplot.Plot{confs}, confBar, vg.Length(len(confs))*9*vg.Centimeter, 9*vg.Centimeter, format)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "credit-confusion."+format), b, 0o644); err != nil {
			return err
		}
		if format == "png" {
			figs = append(figs, report.Figure{Title: "Confusion matrices (report Figure 10)", Caption: "Test-set confusion matrices of each method's posterior-mean θ (class 1 where P(y = 1 | x, θ̄) > 0.5): rows the true class, columns the predicted one (report Figure 10).", PNG: b})
		}
	}
	var tab bytes.Buffer
	res.print(&tab)
	r := &report.Report{
		Title:    "credit: MALA, RWM, SGLD and NUTS on the Australian credit data (seed report Figures 3–5, Tables 1–2)",
		Intro:    "Bayesian logistic regression with a N(0, I) prior on the standardised Australian credit data; every method starts at the MAP. The table puts the report's numbers beside ours.",
		Pre:      tab.String(),
		Warnings: densWarn,
		Passed:   "every density drawn from a bulk-ESS of at least 100",
		Sections: []report.Section{{Title: "Figures", Figures: figs}},
	}
	for _, w := range densWarn {
		fmt.Fprintf(stdout, "warning:  %s\n", w)
	}
	page := filepath.Join(dir, "index.html")
	if err := writeHTML(page, r); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "figures:  %s, %s, %s, %s (and .svg), %s\n", filepath.Join(dir, "credit-traces.png"), filepath.Join(dir, "credit-marginals.png"), filepath.Join(dir, "credit-acf.png"), filepath.Join(dir, "credit-predictive.png"), page)
	fmt.Fprintf(stdout, "figures:  %s (and .svg): report Figure 10\n", filepath.Join(dir, "credit-confusion.png"))
	return nil
}

// densityWarning says why a kernel density of one method's draws of param
// (chains[c][t]) is not its posterior's shape: a bulk-ESS below
// plot.MinDensityDraws (the curve shows the kernel and the few independent
// draws), worse with one chain, whose R̂ cannot be checked. "" when the
// density is drawn from enough.
func densityWarning(method, param string, chains [][]float64) string {
	ess := diag.ESSBulk(chains)
	if ess >= plot.MinDensityDraws {
		return ""
	}
	one := ""
	if len(chains) == 1 {
		one = " from one chain (R̂ not checked: --chains 4)"
	}
	return fmt.Sprintf("credit-marginals: %s's density of %s rests on a bulk-ESS of %.0f%s, below %d: the curve is mostly the kernel's shape, not the posterior's; a longer run (--draws) or a better-mixing sampler", method, param, ess, one, plot.MinDensityDraws)
}

// creditConfusion returns the confusion counts [true][predicted] of the
// logistic model at θ on the rows of X (class 1 where P(y = 1 | x, θ) > 0.5)
// and the accuracy.
func creditConfusion(m *model.Logistic, theta []float64, X *mat.Dense, y []float64) ([][]int, float64) {
	p := m.Predict(theta[:m.Dim()], X, nil)
	counts := [][]int{{0, 0}, {0, 0}}
	right := 0
	for i, v := range p {
		pred, truth := 0, 0
		if v > 0.5 {
			pred = 1
		}
		if y[i] > 0.5 {
			truth = 1
		}
		counts[truth][pred]++
		if pred == truth {
			right++
		}
	}
	return counts, float64(right) / float64(len(p))
}
