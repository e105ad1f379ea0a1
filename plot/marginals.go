package plot

import (
	"fmt"
	"math"
	"sort"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Marginals overlays the marginal densities of one parameter from several
// runs: a Gaussian kernel density estimate of each run's pooled draws
// (bandwidth by Silverman's rule, 0.9·min(sd, IQR/1.34)·n^(−1/5)), over the
// range that holds every run's central 99.8%. draws[k] are the chains of
// run k, labelled labels[k]; the first run may be a reference (drawn
// dashed black) when ref is true.
//
// A density from fewer than MinDensityDraws draws is mostly the kernel's
// shape: such a run's legend entry says how many draws it has.
func Marginals(param string, labels []string, draws [][][]float64, ref bool) (*gplot.Plot, error) {
	if len(labels) != len(draws) || len(draws) == 0 {
		return nil, fmt.Errorf("plot: Marginals: %d labels for %d runs", len(labels), len(draws))
	}
	pooledRuns := make([][]float64, len(draws))
	lo, hi := math.Inf(1), math.Inf(-1)
	for k, chains := range draws {
		x := pooled(chains)
		if len(x) < 2 {
			return nil, fmt.Errorf("plot: Marginals: %s of %s has %d finite draws, need 2", param, labels[k], len(x))
		}
		pooledRuns[k] = x
		lo = math.Min(lo, quantileSorted(x, 0.001))
		hi = math.Max(hi, quantileSorted(x, 0.999))
	}
	pad := 0.1 * (hi - lo)
	if pad == 0 {
		pad = 1e-3 * (1 + math.Abs(lo))
	}
	lo, hi = lo-pad, hi+pad
	p := New("posterior of "+param, param, "density")
	var top float64
	for k, x := range pooledRuns {
		g := kdeCurve(x, lo, hi, 300)
		for _, v := range g {
			top = math.Max(top, v.Y)
		}
		l, err := plotter.NewLine(g)
		if err != nil {
			return nil, err
		}
		l.Color = Color(k)
		l.Width = vg.Points(1.3)
		if ref && k == 0 {
			l.Color = refColor
			l.Width = vg.Points(2)
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l)
		label := labels[k]
		if len(x) < MinDensityDraws {
			label += fmt.Sprintf(" (%d draws: too few for a density)", len(x))
		}
		p.Legend.Add(label, l)
	}
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = 0, 1.45*top
	p.Legend.Top, p.Legend.Left = true, true
	return p, nil
}

// kdeCurve returns the Gaussian kernel density estimate of the sorted x at
// n points evenly spaced over [lo, hi], bandwidth by Silverman's rule.
func kdeCurve(x []float64, lo, hi float64, n int) plotter.XYs {
	g := make(plotter.XYs, n)
	h := bandwidth(x)
	c := 1 / (float64(len(x)) * h * math.Sqrt(2*math.Pi))
	for i := range g {
		t := lo + (hi-lo)*float64(i)/float64(n-1)
		// x is sorted: sum over the draws within 8 bandwidths.
		a := sort.SearchFloat64s(x, t-8*h)
		b := sort.SearchFloat64s(x, t+8*h)
		var s float64
		for _, v := range x[a:b] {
			z := (t - v) / h
			s += math.Exp(-0.5 * z * z)
		}
		g[i] = plotter.XY{X: t, Y: s * c}
	}
	return g
}

// bandwidth is Silverman's rule of thumb for sorted x.
func bandwidth(x []float64) float64 {
	var m, ss float64
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	sd := math.Sqrt(ss / float64(len(x)-1))
	iqr := quantileSorted(x, 0.75) - quantileSorted(x, 0.25)
	s := sd
	if iqr > 0 {
		s = math.Min(sd, iqr/1.34)
	}
	if s == 0 {
		s = 1e-9 * (1 + math.Abs(m))
	}
	return 0.9 * s * math.Pow(float64(len(x)), -0.2)
}

// MinDensityDraws is the fewest draws a kernel density estimate is drawn
// from without a warning: with n draws Silverman's bandwidth is ≈ n^(−1/5)
// sd wide (0.4 sd at 100) and the curve's error at the mode ≈ 1/√(n·h)
// relative (≈ 16% at 100 draws), below which the curve shows the kernel
// more than the posterior.
const MinDensityDraws = 100
