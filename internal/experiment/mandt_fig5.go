package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

func init() {
	Register(Experiment{
		Name:    "mandt-fig5",
		Summary: "Mandt et al. 2017 Fig. 5 / §7.2: marginal-variance estimates of IASG, SGLD and NUTS by passes through the data, from the mode and from a random start, error bars over repeats",
		Run:     runMandtFig5,
	})
}

var fig5Methods = []string{"IASG", "SGLD", "NUTS"}
var fig5Inits = []string{"mode", "random"}

// fig5Curve is one method and initialisation: at each checkpoint (passes),
// the ratio of the estimated to the exact marginal variance averaged over
// the coordinates, per repeat.
type fig5Curve struct {
	method, init string
	passes       []int
	ratio        [][]float64 // [checkpoint][repeat]
}

// meanSE returns the mean over repeats at each checkpoint and its standard
// error.
func (c *fig5Curve) meanSE() (m, se []float64) {
	for _, r := range c.ratio {
		mu, sd := meanSD(r)
		m = append(m, mu)
		se = append(se, sd/math.Sqrt(float64(len(r))))
	}
	return m, se
}

// welford accumulates per-coordinate means and variances.
type welford struct {
	n        int
	mean, m2 []float64
}

func (a *welford) add(x []float64) {
	if a.mean == nil {
		a.mean, a.m2 = make([]float64, len(x)), make([]float64, len(x))
	}
	a.n++
	for j, v := range x {
		d := v - a.mean[j]
		a.mean[j] += d / float64(a.n)
		a.m2[j] += d * (v - a.mean[j])
	}
}

// ratio returns the variance estimates over the exact ones, averaged over
// the coordinates (NaN with fewer than 2 draws).
func (a *welford) ratio(exact []float64) float64 {
	if a.n < 2 {
		return math.NaN()
	}
	var s float64
	for j, v := range exact {
		s += a.m2[j] / float64(a.n-1) / v
	}
	return s / float64(len(exact))
}

// mandtFig5 runs §7.2 of Mandt et al. for each repeat r (seed + r): IASG
// (S = 10, window T = N/S, η = 0.05/λmax), SGLD (S = 10, Welling & Teh's
// εₜ = ε₀/√(1000 + t), ε₀ = 0.2√1000/λmax, ηₜ = εₜ/2) and NUTS (full data,
// one leapfrog step = one pass, 100 warm-up iterations of step adaptation,
// identity metric), each from the posterior mean ("mode") and from a draw
// of the prior ("random"), the first pass (NUTS: its warm-up) discarded,
// for passes passes; the variance estimates are read at passes 2, 2, 4, 5, 8, … (×√2).
func mandtFig5(ctx context.Context, passes, repeats int, seed uint64) ([]*fig5Curve, error) {
	m, err := iasgData(1)
	if err != nil {
		return nil, err
	}
	mode, post := m.Posterior()
	d, n := m.Dim(), m.Len()
	exact := make([]float64, d)
	for j := range exact {
		exact[j] = post.At(j, j)
	}
	lap, err := approx.LaplaceAt(m, mode)
	if err != nil {
		return nil, err
	}
	lmax := maxEig(lap.Prec)
	const s = 10
	T := n / s
	var checks []int
	for p := 2.0; int(p) <= passes; p *= math.Sqrt2 {
		if len(checks) == 0 || int(p) > checks[len(checks)-1] {
			checks = append(checks, int(p))
		}
	}
	if checks[len(checks)-1] != passes {
		checks = append(checks, passes)
	}
	var curves []*fig5Curve
	for _, meth := range fig5Methods {
		for _, ini := range fig5Inits {
			c := &fig5Curve{method: meth, init: ini, passes: checks, ratio: make([][]float64, len(checks))}
			curves = append(curves, c)
			for r := 0; r < repeats; r++ {
				sd := seed + uint64(r)
				theta0 := mode
				if ini == "random" {
					theta0 = make([]float64, d)
					m.SamplePrior(theta0, langevin.ChainRNG(sd, 900))
				}
				// Each start its own random numbers: with common ones the
				// linear recursions from the two starts couple within a
				// few passes and the curves would coincide.
				cs := sd
				if ini == "random" {
					cs += 1 << 32
				}
				ratios, err := fig5Run(ctx, m, meth, theta0, lmax, T, s, checks, exact, cs)
				if err != nil {
					return nil, fmt.Errorf("%s from the %s, repeat %d: %w", meth, ini, r+1, err)
				}
				for k, v := range ratios {
					c.ratio[k] = append(c.ratio[k], v)
				}
			}
		}
	}
	return curves, nil
}

func fig5Run(ctx context.Context, m langevin.Model, meth string, theta0 []float64, lmax float64, T, s int, checks []int, exact []float64, seed uint64) ([]float64, error) {
	var acc welford
	var out []float64
	next := 0
	record := func(p int) {
		for next < len(checks) && checks[next] == p {
			out = append(out, acc.ratio(exact))
			next++
		}
	}
	last := checks[len(checks)-1]
	switch meth {
	case "IASG", "SGLD":
		var ch langevin.Chain
		var err error
		if meth == "IASG" {
			ch, err = sampler.IASG{Eta: 0.05 / lmax, Batch: sampler.Minibatch{Size: s}}.NewChain(m, theta0, langevin.ChainRNG(seed, 1))
		} else {
			eps0 := 0.2 * math.Sqrt(1000) / lmax
			ch, err = sampler.SGLD{Step: schedule.Polynomial{A: eps0 / 2, B: 1000, Gamma: 0.5}, Batch: sampler.Minibatch{Size: s}}.NewChain(m, theta0, langevin.ChainRNG(seed, 2))
		}
		if err != nil {
			return nil, err
		}
		for p := 1; p <= last; p++ {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			steps := 1 // IASG: one draw per pass
			if meth == "SGLD" {
				steps = T
			}
			for k := 0; k < steps; k++ {
				if err := ch.Step(); err != nil {
					return nil, err
				}
				if p > 1 {
					acc.add(ch.Position())
				}
			}
			record(p)
		}
	case "NUTS":
		const warm = 100
		nuts := sampler.NUTS{Step: 1 / math.Sqrt(lmax), Adapt: sampler.Adapt{Warmup: warm, Metric: sampler.MetricFixed}}
		ch, err := nuts.NewChain(m, theta0, langevin.ChainRNG(seed, 3))
		if err != nil {
			return nil, err
		}
		st := make([]float64, len(nuts.StatNames()))
		leap := indexOf(nuts.StatNames(), "n_leapfrog__")
		used, it := 0, 0
		for used < last {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err := ch.Step(); err != nil {
				return nil, err
			}
			ch.Stats(st)
			before := used
			used += int(st[leap])
			if it++; it > warm {
				acc.add(ch.Position())
			}
			for p := before + 1; p <= min(used, last); p++ {
				record(p)
			}
		}
	}
	return out, nil
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	panic("experiment: no statistic " + name)
}

func runMandtFig5(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := NewFlags("mandt-fig5", "8192 passes and 10 repeats (≈ 16× the time; NUTS then matches IASG)")
	pg, err := c.ParsePage(args, stdout, "mandt-fig5: variance estimates by method and initialisation (Mandt et al. 2017, Fig. 5, §7.2)")
	if err != nil {
		return err
	}
	passes, repeats := 1024, 5
	if c.Full {
		passes, repeats = 8192, 10
	}
	start := time.Now()
	curves, err := mandtFig5(ctx, passes, repeats, c.Seed)
	if err != nil {
		return err
	}
	var row []*gplot.Plot
	for _, ini := range fig5Inits {
		p := newPlot("start: "+map[string]string{"mode": "posterior mode", "random": "a draw from the prior"}[ini], "passes through the data", "variance / exact")
		setLog(&p.X)
		setLog(&p.Y)
		var k int
		for _, cv := range curves {
			if cv.init != ini {
				continue
			}
			m, se := cv.meanSE()
			var xs, ys, es []float64
			for i, v := range m {
				if !math.IsNaN(v) && v > 0 {
					xs = append(xs, float64(cv.passes[i])*math.Pow(1.05, float64(k-1)))
					ys = append(ys, v)
					es = append(es, 2*se[i])
				}
			}
			if len(xs) == 0 {
				k++
				continue
			}
			l := line(xs, ys, col(k), false)
			sc := points(xs, ys, col(k), circle, vg.Points(2))
			p.Add(l, sc)
			p.Add(errorBars(xs, ys, es, col(k))...)
			p.Legend.Add(cv.method, l)
			k++
		}
		one := line([]float64{1.5, float64(passes) * 1.3}, []float64{1, 1}, refColor, true)
		p.Add(one)
		p.Legend.Add("exact", one)
		p.X.Min, p.X.Max = 1.5, float64(passes)*1.3
		p.Y.Min, p.Y.Max = 0.2, 50
		p.Legend.Top = false
		p.Legend.XOffs, p.Legend.YOffs = -vg.Millimeter, vg.Millimeter
		row = append(row, p)
	}
	if err := pg.Tiles("variance-by-passes", fmt.Sprintf("Marginal posterior variances estimated by IASG, SGLD and NUTS on §7.2's regression (N = 10⁴, D = 10), over the exact ones and averaged over the 10 coordinates, by passes through the data; mean of %d repeats with ±2 standard errors. Left: every chain starts at the posterior mode; right: at a draw from the prior. The first pass (NUTS: its 100 warm-up iterations) is discarded.", repeats), [][]*gplot.Plot{row}, 36*vg.Centimeter, 12*vg.Centimeter); err != nil {
		return err
	}
	elapsed := time.Since(start).Seconds()
	pg.Printf("Command: `langevin experiment mandt-fig5 --out DIR` (%.0f s on 2 cores; `--full`: 8192 passes and 10 repeats, ≈ 16× the time).\n\n", elapsed)
	pg.Printf("Mandt et al. (2017), §7.2: N = 10⁴, D = 10, prior precision 1, unit noise. IASG: S = 10, window T = N/S = 1000 (one draw per pass), η = 0.05/λmax. SGLD: S = 10, εₜ = ε₀/√(1000 + t) with ε₀ = 0.2√1000/λmax (ηₜ = εₜ/2). NUTS: full-data gradients (one leapfrog step costs one pass), 100 warm-up iterations adapting the step, identity metric. %d repeats (seeds %d…%d) of each method from the mode and from a prior draw.\n\n", repeats, c.Seed, c.Seed+uint64(repeats)-1)
	pg.Printf("| method | start | estimated/exact variance after %d passes (mean ± se over repeats) |\n|---|---|---|\n", passes)
	fmt.Fprintf(stdout, "%-5s %-7s  ratio after %d passes (mean ± se over %d repeats)\n", "", "", passes, repeats)
	for _, cv := range curves {
		m, se := cv.meanSE()
		pg.Printf("| %s | %s | %.3f ± %.3f |\n", cv.method, cv.init, m[len(m)-1], se[len(se)-1])
		fmt.Fprintf(stdout, "%-5s %-7s  %.3f ± %.3f\n", cv.method, cv.init, m[len(m)-1], se[len(se)-1])
	}
	pg.Printf("\nIASG's estimate is within a few per cent after a few dozen passes. SGLD's decaying step keeps its early, large-step draws in the running variance, which stays several times too large after 1000 passes (the table in README's `mandt-iasg` section: +54%% after 8000). NUTS is exact but pays one pass per leapfrog step: its warm-up alone takes several hundred passes, so its curve starts late. The start does not matter on this problem: with constant or slowly decaying steps whose ηλmax ≈ 0.05–0.1 every method forgets a start 100 posterior sds away within the discarded first pass (NUTS: within its warm-up), and the curves from the mode and from a prior draw agree within their error bars. The paper's Fig. 5 shows the same ordering of the methods; its exact numbers depend on its random data set.\n")
	fmt.Fprintf(stdout, "(%.0f s)\n", elapsed)
	return pg.Write(stdout)
}
