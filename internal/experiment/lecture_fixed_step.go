package experiment

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/mat"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

func init() {
	Register(Experiment{
		Name:    "lecture-fixed-step",
		Summary: "SGLD at one fixed step for batch sizes 10, 100, 1000: a small batch widens the spread (lecture notes Fig. 4.2)",
		Run:     runLectureFixedStep,
	})
}

// lectureFixedEta is the one step of every batch size: η = 5·10⁻⁶ = 0.05/N.
// The likelihood's curvature in β is about N/σ² ≈ 5.3·10⁴, so ηλmax ≈ 0.26:
// stable, and the injected noise alone inflates the variance by only
// 1/(1 − ηλ/2) ≈ 1.15. The minibatch noise adds ≈ ηN/(B(2 − ηλ)) to the
// variance of each β, which is 0.0029 at B = 10 against the posterior's
// 1.9·10⁻⁵: the sd grows by a factor of about 12.
const lectureFixedEta = 5e-6

var lectureFixedBatches = []int{10, 100, 1000}

// fixedStepRun is one batch size's run with the numbers the figure shows.
type fixedStepRun struct {
	B         int
	Trace     *langevin.Trace // batches in shuffled epochs (the default)
	SD, SE    []float64       // per parameter: sd of the draws and its MCSE
	Replace   *langevin.Trace // batches drawn with replacement
	SDR, SER  []float64       // the same with replacement
	Predicted []float64       // per parameter: √diag of the Lyapunov covariance
}

type fixedStepResult struct {
	Names   []string
	Exact   []float64 // exact posterior sd per parameter
	Mean    []float64 // exact posterior mean
	Post    *model.LinearPosterior
	Eta     float64
	Runs    []fixedStepRun
	Elapsed time.Duration
}

// lectureFixedStep runs unpreconditioned SGLD θ ← θ + ηĝ + √(2η)ξ at the
// step η = step(B) (one value for all, in the experiment) for every batch size (shuffled epochs), 2 chains from the MAP,
// iters iterations each (10% burn-in), and predicts each run's sd from the
// discrete Lyapunov equation with the minibatch-gradient covariance at the
// MAP.
func lectureFixedStep(ctx context.Context, batches []int, step func(b int) float64, iters int, seed uint64) (*fixedStepResult, error) {
	start := time.Now()
	d := data.Lecture()
	m, err := model.NewLinear(d.X, d.Y, model.LinearOptions{V: 100, Phi: 1, Psi: 1})
	if err != nil {
		return nil, err
	}
	post := m.Posterior()
	mp := post.MAP()
	res := &fixedStepResult{Names: m.ParamNames(), Exact: post.SD(), Mean: post.Mean(), Post: post, Eta: step(batches[0])}
	h := negHessian(m, mp)
	cov := obsGradCov(m, mp)
	for _, b := range batches {
		eta := step(b)
		run := func(replace bool) (*langevin.Trace, error) {
			s := sampler.SGLD{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: b, Replace: replace}}
			tr, err := langevin.Run(ctx, m, s, langevin.Options{
				Chains: 2, Iters: iters, BurnIn: iters / 10, Thin: max(1, iters/10000), Seed: seed,
				Init: langevin.InitAt{Points: [][]float64{mp}},
			})
			if err != nil {
				return nil, fmt.Errorf("B = %d: %w", b, err)
			}
			return tr, nil
		}
		tr, err := run(false)
		if err != nil {
			return nil, err
		}
		trR, err := run(true)
		if err != nil {
			return nil, err
		}
		// With replacement the batch gradients are independent draws
		// with covariance (N²/B)·cov.
		var c mat.SymDense
		c.ScaleSym(float64(m.Len())*float64(m.Len())/float64(b), cov)
		sig, err := sgldStationaryCov(h, &c, eta, 1, nil)
		if err != nil {
			return nil, err
		}
		r := fixedStepRun{B: b, Trace: tr, Replace: trR}
		for j := range res.Names {
			sd, se := sdMCSE(tr.Param(j))
			r.SD = append(r.SD, sd)
			r.SE = append(r.SE, se)
			sd, se = sdMCSE(trR.Param(j))
			r.SDR = append(r.SDR, sd)
			r.SER = append(r.SER, se)
			r.Predicted = append(r.Predicted, math.Sqrt(sig.At(j, j)))
		}
		res.Runs = append(res.Runs, r)
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// checkWidening returns an error unless, for every parameter and both
// batch samplings, the sd of the draws grows strictly as the batch shrinks
// (each step by more than 3 combined MCSEs) and the largest batch is still
// wider than the exact posterior for the coefficients (log σ² at B = 1000 in
// epochs is within 3% of it); and unless the sd with replacement agrees
// with the Lyapunov prediction (which assumes independent batches) within 4
// MCSEs plus 3% (the posterior is Gaussian only approximately in log σ²).
func checkWidening(r *fixedStepResult) error {
	if err := checkWider(r, false); err != nil {
		return err
	}
	return checkWider(r, true)
}

func checkWider(r0 *fixedStepResult, replace bool) error {
	r := *r0
	if replace {
		r.Runs = nil
		for _, a := range r0.Runs {
			a.SD, a.SE = a.SDR, a.SER
			r.Runs = append(r.Runs, a)
		}
	}
	how := "in epochs"
	if replace {
		how = "with replacement"
	}
	for j, name := range r.Names {
		for k := range r.Runs {
			a := r.Runs[k]
			if dev := math.Abs(a.SD[j] - a.Predicted[j]); replace && dev > 4*a.SE[j]+0.03*a.Predicted[j] {
				return fmt.Errorf("%s, B = %d with replacement: sd %.4g ± %.2g, predicted %.4g", name, a.B, a.SD[j], a.SE[j], a.Predicted[j])
			}
			if k == 0 {
				continue
			}
			p := r.Runs[k-1] // smaller batch
			if p.B >= a.B {
				return fmt.Errorf("batches not increasing: %d then %d", p.B, a.B)
			}
			if p.SD[j]-a.SD[j] <= 3*math.Hypot(p.SE[j], a.SE[j]) {
				return fmt.Errorf("%s, batches %s: sd %.4g ± %.2g at B = %d is not wider than %.4g ± %.2g at B = %d", name, how, p.SD[j], p.SE[j], p.B, a.SD[j], a.SE[j], a.B)
			}
		}
		last := r.Runs[len(r.Runs)-1]
		if name != "log_sigma2" && last.SD[j]-r.Exact[j] <= 3*last.SE[j] {
			return fmt.Errorf("%s, batches %s: sd %.4g ± %.2g at B = %d is not wider than the exact %.4g", name, how, last.SD[j], last.SE[j], last.B, r.Exact[j])
		}
	}
	return nil
}

func runLectureFixedStep(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := NewFlags("lecture-fixed-step", "4× longer runs (MCSE of the sds halves); ≈ 4× the time")
	eta := c.Float64("step", lectureFixedEta, "the step η of every batch size (θ ← θ + ηĝ + √(2η)ξ)")
	if err := c.Parse(args, stdout); err != nil {
		return err
	}
	if !(*eta > 0) {
		return Usagef("--step %g: expected η > 0", *eta)
	}
	pg, err := c.Page("lecture-fixed-step: a small batch at a fixed step widens the spread (lecture notes Fig. 4.2)")
	if err != nil {
		return err
	}
	iters := 40000
	if c.Full {
		iters *= 4
	}
	r, err := lectureFixedStep(ctx, lectureFixedBatches, func(int) float64 { return *eta }, iters, c.Seed)
	if err != nil {
		return err
	}
	var tab bytes.Buffer
	tw := tabwriter.NewWriter(&tab, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "batch\tparameter\texact sd\tsd, epochs\tMCSE\tsd, replacement\tMCSE\tpredicted\tepochs/exact\t\n")
	for _, run := range r.Runs {
		for j, n := range r.Names {
			fmt.Fprintf(tw, "%d\t%s\t%.3g\t%.3g\t%.1g\t%.3g\t%.1g\t%.3g\t%.2f\t\n", run.B, n, r.Exact[j], run.SD[j], run.SE[j], run.SDR[j], run.SER[j], run.Predicted[j], run.SD[j]/r.Exact[j])
		}
	}
	tw.Flush()

	// Figure 1: histograms of the slope on one axis for every batch size.
	j := 1 // beta.1
	lo := r.Mean[j] - 4*r.Runs[0].Predicted[j]
	hi := r.Mean[j] + 4*r.Runs[0].Predicted[j]
	var row []*gplot.Plot
	for k, run := range r.Runs {
		p := newPlot(fmt.Sprintf("B = %d: sd %.2g (exact %.2g)", run.B, run.SD[j], r.Exact[j]), r.Names[j], "density")
		hist := histogram(pool(run.Trace.Param(j)), lo, hi, 60, col(k))
		p.Add(hist)
		ex := function(func(x float64) float64 { return r.Post.BetaPDF(j, x) }, lo, hi, refColor, false)
		ex.Samples = 2000
		mu, sd := r.Mean[j], run.Predicted[j]
		pr := function(func(x float64) float64 {
			return math.Exp(-0.5*(x-mu)*(x-mu)/(sd*sd)) / (sd * math.Sqrt(2*math.Pi))
		}, lo, hi, col(3), true)
		p.Add(ex, pr)
		if k == len(r.Runs)-1 {
			// One legend, top right of the last panel, where only the
			// narrowest histogram's empty flank lies under it.
			p.Legend.Add("SGLD draws", hist)
			p.Legend.Add("exact posterior", ex)
			p.Legend.Add("predicted, indep. batches", pr)
			p.Legend.Top, p.Legend.Left = true, false
			p.Legend.XOffs, p.Legend.YOffs = -vg.Millimeter, -vg.Millimeter
		}
		p.X.Min, p.X.Max = lo, hi
		p.Y.Min = 0
		// The exact density peaks far above the wide histograms: cap the
		// y axis at 1.6× the tallest bar so the bars stay visible.
		var top float64
		for _, b := range hist.Bins {
			top = math.Max(top, b.Weight)
		}
		p.Y.Max = 1.6 * top
		row = append(row, p)
	}
	if err := pg.Tiles("histograms", fmt.Sprintf("Draws of the slope %s by SGLD at one step η = %s for B = 10, 100, 1000 (one x axis): the smaller the batch, the wider. Solid: exact posterior (clipped at the top); dashed: the Gaussian with the sd predicted by the discrete Lyapunov equation.", r.Names[j], num(r.Eta)), [][]*gplot.Plot{row}, 36*vg.Centimeter, 10*vg.Centimeter); err != nil {
		return err
	}

	p := fixedStepSDPlot(r)
	if err := pg.Figure("sd-vs-batch", "The sd of the draws over the exact posterior sd against the batch size at one step: measured (markers, ±2 MCSE; filled: batches in shuffled epochs, open: with replacement) and predicted for independent batches by the discrete Lyapunov equation (dashed).", p, 16*vg.Centimeter, 11*vg.Centimeter); err != nil {
		return err
	}

	pg.Printf("Command: `langevin experiment lecture-fixed-step --out DIR` (`--full`: 4× longer runs).\n\n")
	pg.Printf("The lecture notes' conjugate example (`--data lecture`: n = 10,000 pairs from a bivariate normal with correlation 0.9, data seed 42; prior β | σ² ~ N(0, 100σ²I), σ² ~ IG(1, 1)) sampled by plain SGLD θ ← θ + ηĝ + √(2η)ξ, ĝ = ∇log p(θ) + (N/B) Σ_{i∈B} ∇log p(zᵢ|θ), at **one** step η = %s for every batch size (batches in shuffled epochs, and again drawn with replacement), 2 chains of %d iterations from the MAP, 10%% burn-in. Unlike `lecture-sgld`, which scales η with B so that every batch size matches the posterior, here the minibatch noise η²C (C ≈ N²/B times the per-observation gradient covariance) is not scaled away, and the spread grows as B shrinks. The predicted sd solves the discrete Lyapunov equation Σ = (I − ηH)Σ(I − ηH) + η²C + 2ηI with H the negative Hessian and C = (N²/B)·Cov(∇log p(zᵢ|θ)) the covariance of independent batches, at the MAP.\n\n", num(r.Eta), iters)
	pg.Printf("```\n%s```\n\n", tab.String())
	pg.Printf("The lecture's figure (as measured with `run` in issue 16) has sd 0.053 / 0.017 / 0.0061 for B = 10 / 100 / 1000 against an exact ≈ 0.0044; the runs in epochs (the default of `run`) give %.3g / %.3g / %.3g for the slope, the same within the MCSE. The Lyapunov prediction assumes independent batches and matches the runs **with** replacement (%.3g / %.3g / %.3g against %.3g / %.3g / %.3g predicted). In shuffled epochs the N/B batches of an epoch add up to the full gradient, so their noise is negatively correlated; when the epoch (N/B steps) is not long against the relaxation time 1/(ηλ) ≈ 4 steps in β and ≈ 40 in log σ², that cancels part of the noise: 13%% less sd at B = 1000 for β, and for log σ² already at B = 100.\n\nRun time %.1f s (2 cores).\n", r.Runs[0].SD[1], r.Runs[1].SD[1], r.Runs[2].SD[1], r.Runs[0].SDR[1], r.Runs[1].SDR[1], r.Runs[2].SDR[1], r.Runs[0].Predicted[1], r.Runs[1].Predicted[1], r.Runs[2].Predicted[1], r.Elapsed.Seconds())
	fmt.Fprint(stdout, tab.String())
	if err := checkWidening(r); err != nil {
		fmt.Fprintf(stdout, "\nwarning: %v\n", err)
		pg.Printf("\n**Warning:** %v\n", err)
	}
	return pg.Write(stdout)
}

// fixedStepSDPlot draws the sd ratio against B, measured and predicted.
func fixedStepSDPlot(r *fixedStepResult) *gplot.Plot {
	p := newPlot("spread against batch size at η = "+num(r.Eta), "batch size B", "sd / exact sd")
	setLog(&p.X)
	setLog(&p.Y)
	bs := make([]float64, len(r.Runs))
	for k, run := range r.Runs {
		bs[k] = float64(run.B)
	}
	for k, jj := range []int{1, 2} { // beta.1 and log_sigma2 (the intercept follows beta.1)
		n := r.Names[jj]
		ratio := make([]float64, len(r.Runs))
		ratioR := make([]float64, len(r.Runs))
		pred := make([]float64, len(r.Runs))
		e := make([]float64, len(r.Runs))
		eR := make([]float64, len(r.Runs))
		for i, run := range r.Runs {
			ratio[i] = run.SD[jj] / r.Exact[jj]
			ratioR[i] = run.SDR[jj] / r.Exact[jj]
			pred[i] = run.Predicted[jj] / r.Exact[jj]
			e[i] = 2 * run.SE[jj] / r.Exact[jj]
			eR[i] = 2 * run.SER[jj] / r.Exact[jj]
		}
		// Offset the two samplings a little along x.
		xs := make([]float64, len(bs))
		xsR := make([]float64, len(bs))
		for i := range bs {
			xs[i], xsR[i] = bs[i]/1.06, bs[i]*1.06
		}
		c := col(k)
		sc := points(xs, ratio, c, draw.CircleGlyph{}, vg.Points(3))
		scR := points(xsR, ratioR, c, draw.RingGlyph{}, vg.Points(3))
		l := line(bs, pred, c, true)
		p.Add(l, sc, scR)
		p.Add(errorBars(xs, ratio, e, c)...)
		p.Add(errorBars(xsR, ratioR, eR, c)...)
		p.Legend.Add(n+", batches in epochs", sc)
		p.Legend.Add(n+", with replacement", scR)
		p.Legend.Add(n+", predicted", l)
	}
	one := line([]float64{7, 1400}, []float64{1, 1}, refColor, false)
	p.Add(one)
	p.Legend.Add("exact posterior", one)
	p.X.Min, p.X.Max = 7, 1400
	p.Y.Min = 0.1
	p.Y.Max = 20
	p.Legend.Top = false
	p.Legend.Left = true
	p.Legend.XOffs = vg.Millimeter
	p.Legend.YOffs = vg.Millimeter
	return p
}
