package experiment

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/plot"
	"github.com/langevin-go/langevin/report"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

func init() {
	Register(Experiment{
		Name:    "lecture-sgd",
		Summary: "SGD traces against the exact MLE for batch sizes 10, 100, 1000 (lecture notes Fig. 4.1)",
		Run:     cliRun(runLectureSGD),
	})
	Register(Experiment{
		Name:    "lecture-sgld",
		Summary: "SGLD histograms against the exact (tempered) posterior: B = 10, 100, 1000 at τ = 1 with η ∝ B (no batch effect by design; Fig. 4.2's is lecture-fixed-step); τ = 0.1, 1, 2, 10 at B = 100 (Fig. 4.3)",
		Run:     cliRun(runLectureSGLD),
	})
}

// The lecture notes' conjugate example: n = 10,000 pairs (x, y) from a
// bivariate normal with unit variances and correlation 0.9, y regressed on x
// with an intercept; prior β | σ² ~ N(0, 100σ²I), σ² ~ IG(1, 1).
const (
	lectureN    = 10000
	lectureRho  = 0.9
	lectureSeed = 42
)

var lectureBatches = []int{10, 100, 1000}

func lectureData() *data.Dataset { return data.CorrelatedNormal(lectureN, lectureRho, lectureSeed) }

type lectureFlags struct {
	out   string
	seed  uint64
	quick bool
}

func parseLectureFlags(name string, args []string, stdout io.Writer) (lectureFlags, error) {
	var f lectureFlags
	fs := flag.NewFlagSet("experiment "+name, flag.ContinueOnError)
	fs.StringVar(&f.out, "out", filepath.Join("out", name), "write the figures and index.html into `DIR`")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the chains (the data set is fixed: seed 42)")
	fs.BoolVar(&f.quick, "quick", false, "runs 20× shorter, for a smoke test (noisier histograms)")
	if err := ParseFlags(fs, args, stdout); err != nil {
		return f, err
	}
	return f, makeOut(f.out)
}

// lectureSGDStep is SGD's constant step: η = 0.1/N. The log-likelihood's
// curvature is about N/σ̂² ≈ 5·10⁴ in β and N/2 in log σ², so ηλ ≤ 0.6 and
// the iterates settle within about 100 steps, then fluctuate around the MLE
// with a spread that grows as the batch shrinks.
const lectureSGDStep = 0.1 / lectureN

func runLectureSGD(args []string, stdout, stderr io.Writer) error {
	f, err := parseLectureFlags("lecture-sgd", args, stdout)
	if err != nil {
		return err
	}
	start := time.Now()
	d := lectureData()
	m, err := model.NewLinear(d.X, d.Y, model.LinearOptions{Flat: true})
	if err != nil {
		return err
	}
	mle := m.Posterior().MLE()
	names := m.ParamNames()
	iters := 2000
	if f.quick {
		iters = 500
	}
	var tiles [][]*gplot.Plot
	var tab bytes.Buffer
	tw := tabwriter.NewWriter(&tab, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "batch\tparameter\tMLE\tmean of last half\t|mean − MLE|\tsd of last half\t\n")
	for _, b := range lectureBatches {
		s := sampler.SGD{Step: schedule.Constant(lectureSGDStep), Batch: sampler.Minibatch{Size: b}}
		tr, err := langevin.Run(context.Background(), m, s, langevin.Options{
			Chains: 1, Iters: iters, Thin: 1, Seed: f.seed, Init: langevin.InitZero{},
		})
		if err != nil {
			return err
		}
		var row []*gplot.Plot
		for j, name := range names {
			y := tr.Param(j)[0]
			x := make([]float64, len(y))
			for t := range x {
				x[t] = float64(tr.Iters[0][t])
			}
			p, err := plot.Trace(name, []plot.Series{{X: x, Y: y}}, 0)
			if err != nil {
				return err
			}
			plot.HLine(p, mle[j], 1, float64(iters), "exact MLE")
			p.Title.Text = fmt.Sprintf("B = %d: %s", b, name)
			lo, hi := quantileRange(y[len(y)/10:], mle[j])
			p.Y.Min, p.Y.Max = lo, hi
			row = append(row, p)
			half := y[len(y)/2:]
			mean, sd := meanSD(half)
			fmt.Fprintf(tw, "%d\t%s\t%.5f\t%.5f\t%.2g\t%.2g\t\n", b, name, mle[j], mean, math.Abs(mean-mle[j]), sd)
		}
		tiles = append(tiles, row)
	}
	tw.Flush()
	fig := filepath.Join(f.out, "sgd-traces")
	png, err := writeTiles(fig, tiles, 30*vg.Centimeter, 20*vg.Centimeter)
	if err != nil {
		return err
	}
	fig += ".png"
	r := &report.Report{
		Title:      "lecture-sgd: SGD against the exact MLE (lecture notes Fig. 4.1)",
		Intro:      fmt.Sprintf("Linear regression of y on x with an intercept, n = %d pairs from a bivariate normal with correlation %.1f (data seed %d), flat prior: the exact MLE is the least-squares fit (β̂, log RSS/n). SGD with constant step η = %g (θ ← θ + η ĝ, ĝ = (N/|B|) Σ ∇log p(zᵢ|θ)) from θ = 0, %d iterations, batch sizes 10, 100, 1000. The smaller the batch, the wider SGD fluctuates around the MLE.", lectureN, lectureRho, lectureSeed, lectureSGDStep, iters),
		Settings:   [][2]string{{"data", "data.CorrelatedNormal(10000, 0.9, 42)"}, {"step", fmt.Sprint(lectureSGDStep)}, {"iters", fmt.Sprint(iters)}, {"seed", fmt.Sprint(f.seed)}},
		Pre:        tab.String(),
		NoWarnings: true,
		Sections:   []report.Section{{Title: "SGD iterates (rows: batch size; dashed: exact MLE)", Figures: []report.Figure{{Title: "SGD traces", PNG: png}}}},
	}
	page := filepath.Join(f.out, "index.html")
	if err := writeHTML(page, r); err != nil {
		return err
	}
	fmt.Fprint(stdout, tab.String())
	fmt.Fprintf(stdout, "\nwritten:  %s (and .svg), %s (%.1f s)\n", fig, page, time.Since(start).Seconds())
	return nil
}

// writeTiles writes the panels as base.png and base.svg and returns the PNG.
func writeTiles(base string, tiles [][]*gplot.Plot, w, h vg.Length) ([]byte, error) {
	var png []byte
	for _, format := range []string{"png", "svg"} {
		b, err := plot.EncodeTiles(tiles, w, h, format)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(base+"."+format, b, 0o644); err != nil {
			return nil, err
		}
		if format == "png" {
			png = b
		}
	}
	return png, nil
}

func writeHTML(path string, r *report.Report) error {
	var buf bytes.Buffer
	if err := r.WriteHTML(&buf); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// quantileRange returns a y range that holds the central 99.8% of y and the
// reference value, padded by 10%.
func quantileRange(y []float64, ref float64) (lo, hi float64) {
	s := append([]float64(nil), y...)
	sort.Float64s(s)
	lo = math.Min(s[len(s)/1000], ref)
	hi = math.Max(s[len(s)-1-len(s)/1000], ref)
	pad := 0.1 * (hi - lo)
	if pad == 0 {
		pad = 1e-3 * (1 + math.Abs(ref))
	}
	return lo - pad, hi + pad
}

// temperedLinear is the exact tempered posterior p(β, γ | y)^(1/τ) of the
// linear model in SGLD's coordinates (β, γ = log σ²), normalised. With
// f(β, γ) = N(β; μₙ, e^γ Vₙ) IG(e^γ; φₙ, ψₙ) e^γ,
//
//	log f^(1/τ) = −(d/2 + φₙ)γ/τ − ((β − μₙ)ᵀVₙ⁻¹(β − μₙ)/2 + ψₙ) e^(−γ)/τ + const,
//
// so β | σ² ~ N(μₙ, τσ²Vₙ); integrating β out leaves (τσ²)^(d/2), and
// σ² ~ IG(a, b) with a = φₙ/τ + (d/2)(1/τ − 1) and b = ψₙ/τ. Marginally βⱼ
// is Student-t with 2a degrees of freedom, location μₙ,ⱼ and scale
// √(τ b/a · Vₙ,ⱼⱼ) = √(ψₙ Vₙ,ⱼⱼ / a). At τ = 1 this is LinearPosterior's.
type temperedLinear struct {
	a, b  float64
	mu    []float64
	scale []float64
}

func newTemperedLinear(p *model.LinearPosterior, tau float64) temperedLinear {
	d := float64(p.D)
	t := temperedLinear{a: p.Phi/tau + d/2*(1/tau-1), b: p.Psi / tau, mu: p.Mu}
	for j := 0; j < p.D; j++ {
		t.scale = append(t.scale, math.Sqrt(p.Psi*p.V.At(j, j)/t.a))
	}
	return t
}

func (t temperedLinear) beta(j int) distuv.StudentsT {
	return distuv.StudentsT{Mu: t.mu[j], Sigma: t.scale[j], Nu: 2 * t.a}
}

func (t temperedLinear) sigma2() distuv.InverseGamma {
	return distuv.InverseGamma{Alpha: t.a, Beta: t.b}
}

// pdf and cdf return the marginal density and distribution function of
// parameter j (βⱼ for j < d, γ = log σ² for j = d).
func (t temperedLinear) pdf(j int) func(float64) float64 {
	if j < len(t.mu) {
		return t.beta(j).Prob
	}
	ig := t.sigma2()
	return func(g float64) float64 { return ig.Prob(math.Exp(g)) * math.Exp(g) }
}

func (t temperedLinear) cdf(j int) func(float64) float64 {
	if j < len(t.mu) {
		return t.beta(j).CDF
	}
	ig := t.sigma2()
	return func(g float64) float64 { return ig.CDF(math.Exp(g)) }
}

// lectureSGLDRun runs 4 chains of SGLD with batch b at temperature tau on
// the lecture example as the sampler tests do: the Laplace diagonal
// preconditioner at the MAP, chains started at the MAP, and the constant step
// η = 0.1·B·min(1, τ)/N, at which the gradient noise as it enters the update
// (≈ η²N²/B per preconditioned coordinate) is about ηN/(2Bτ) ≤ 5% of the
// injected noise 2ητ. The preconditioned posterior has unit scale, so the
// autocorrelation time is about 2/η steps: steps/η iterations give a bulk-ESS
// of about steps. 10% burn-in; 2000 draws per chain are kept.
func lectureSGLDRun(m *model.Linear, b int, tau, steps float64, seed uint64) (*langevin.Trace, error) {
	exact := m.Posterior()
	pre, err := approx.LaplacePrecond(m, exact.MAP())
	if err != nil {
		return nil, err
	}
	eta := 0.1 * float64(b) * math.Min(1, tau) / float64(m.Len())
	iters := int(steps / eta)
	s := sampler.SGLD{Step: schedule.Constant(eta), Batch: sampler.Minibatch{Size: b}, Precond: pre, Temperature: tau}
	return langevin.Run(context.Background(), m, s, langevin.Options{
		Chains: 4, Iters: iters, BurnIn: iters / 10, Thin: max(1, iters/2000), Seed: seed,
		Init: langevin.InitAt{Points: [][]float64{exact.MAP()}},
	})
}

// ksDistance is the Kolmogorov–Smirnov distance sup |F̂ₙ(x) − F(x)| between
// the empirical distribution of the pooled draws and cdf.
func ksDistance(chains [][]float64, cdf func(float64) float64) float64 {
	var x []float64
	for _, c := range chains {
		x = append(x, c...)
	}
	sort.Float64s(x)
	n := float64(len(x))
	var d float64
	for i, v := range x {
		f := cdf(v)
		d = math.Max(d, math.Max(float64(i+1)/n-f, f-float64(i)/n))
	}
	return d
}

func lectureLinear() (*model.Linear, error) {
	d := lectureData()
	return model.NewLinear(d.X, d.Y, model.LinearOptions{V: 100, Phi: 1, Psi: 1})
}

func runLectureSGLD(args []string, stdout, stderr io.Writer) error {
	f, err := parseLectureFlags("lecture-sgld", args, stdout)
	if err != nil {
		return err
	}
	start := time.Now()
	m, err := lectureLinear()
	if err != nil {
		return err
	}
	post := m.Posterior()
	names := m.ParamNames()
	scale := 1.0
	if f.quick {
		scale = 0.05
	}
	type job struct {
		b   int
		tau float64
	}
	jobs42 := []job{{10, 1}, {100, 1}, {1000, 1}}
	jobs43 := []job{{100, 0.1}, {100, 1}, {100, 2}, {100, 10}}
	var tab bytes.Buffer
	tw := tabwriter.NewWriter(&tab, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "batch\tτ\tparameter\texact mean\tSGLD mean\texact sd\tSGLD sd\tbulk-ESS\tKS distance\t\n")
	traces := map[job]*langevin.Trace{}
	figure := func(jobs []job, title func(job) string) ([][]*gplot.Plot, error) {
		var tiles [][]*gplot.Plot
		for _, jb := range jobs {
			tr, ok := traces[jb]
			if !ok {
				// Bulk-ESS ≈ 900 per run; batch 1000 runs twice as long
				// (≈ 2000: its KS distance is checked in a test).
				steps := 500.0
				if jb.b == 1000 {
					steps = 1000
				}
				tr, err = lectureSGLDRun(m, jb.b, jb.tau, steps*scale, f.seed)
				if err != nil {
					return nil, err
				}
				traces[jb] = tr
				fmt.Fprintf(stderr, "lecture-sgld: B = %d, τ = %g done (%.1f s)\n", jb.b, jb.tau, time.Since(start).Seconds())
			}
			ex := newTemperedLinear(post, jb.tau)
			var row []*gplot.Plot
			for j, name := range names {
				chains := tr.Param(j)
				label := "exact posterior"
				if jb.tau != 1 {
					label = fmt.Sprintf("exact p^(1/τ), τ = %g", jb.tau)
				}
				p, err := plot.Density(name, chains, 40, ex.pdf(j), label)
				if err != nil {
					return nil, err
				}
				p.Title.Text = title(jb) + ": " + name
				row = append(row, p)
				if !(jb.b == 100 && jb.tau == 1 && len(tiles) > 0 && len(jobs) == 4) {
					mean, sd := meanSD(pool(chains))
					exMean, exSD := distMeanSD(ex, j)
					fmt.Fprintf(tw, "%d\t%g\t%s\t%.5f\t%.5f\t%.3g\t%.3g\t%.0f\t%.4f\t\n", jb.b, jb.tau, name, exMean, mean, exSD, sd, diag.ESSBulk(chains), ksDistance(chains, ex.cdf(j)))
				}
			}
			tiles = append(tiles, row)
		}
		return tiles, nil
	}
	t42, err := figure(jobs42, func(j job) string { return fmt.Sprintf("B = %d, η = %.0e", j.b, 0.1*float64(j.b)/lectureN) })
	if err != nil {
		return err
	}
	t43, err := figure(jobs43, func(j job) string { return fmt.Sprintf("τ = %g", j.tau) })
	if err != nil {
		return err
	}
	tw.Flush()
	var figs []report.Figure
	for _, fg := range []struct {
		name, title string
		tiles       [][]*gplot.Plot
	}{
		{"sgld-batch.png", "SGLD at τ = 1 for batch sizes 10, 100, 1000 at η = 0.1·B/N: the step scaled with the batch keeps η·Cov(ĝ) and the spread the same, so the batch leaves no trace (the lecture notes' Fig. 4.2, at one step, is lecture-fixed-step)", t42},
		{"sgld-temperature.png", "SGLD at batch 100 for τ = 0.1, 1, 2, 10 (Fig. 4.3)", t43},
	} {
		png, err := writeTiles(filepath.Join(f.out, strings.TrimSuffix(fg.name, ".png")), fg.tiles, 30*vg.Centimeter, vg.Length(len(fg.tiles))*6.5*vg.Centimeter)
		if err != nil {
			return err
		}
		figs = append(figs, report.Figure{Title: fg.title, Caption: fg.title + "; histograms of the draws of 4 chains, curves: the exact marginal densities.", PNG: png})
	}
	r := &report.Report{
		Title:    "lecture-sgld: SGLD against the exact posterior at every batch size and temperature (lecture notes Fig. 4.3; Fig. 4.2 at one step: lecture-fixed-step)",
		Intro:    fmt.Sprintf("The conjugate linear regression of the lecture notes (n = %d, correlation %.1f, prior β | σ² ~ N(0, 100σ²I), σ² ~ IG(1, 1)) sampled by SGLD θ ← θ + η M ĝ + √(2ητM) ξ with the Laplace diagonal preconditioner M, 4 chains from the MAP, constant η = 0.1·B·min(1, τ)/N. The exact marginals are Student-t for β and inverse-gamma for σ² (drawn on γ = log σ²); at τ ≠ 1 the chain targets p(θ|D)^(1/τ), whose marginals are of the same families (β | σ² ~ N(μₙ, τσ²Vₙ), σ² ~ IG(φₙ/τ + (d/2)(1/τ − 1), ψₙ/τ)).", lectureN, lectureRho),
		Settings: [][2]string{{"data", "data.CorrelatedNormal(10000, 0.9, 42)"}, {"seed", fmt.Sprint(f.seed)}, {"quick", fmt.Sprint(f.quick)}},
		Pre:      tab.String(),
		Notes: []string{"The KS distance is sup |F̂(x) − F(x)| between the pooled draws and the exact marginal; for independent draws it is about 0.87/√n, so with the bulk-ESS in place of n a correct sampler gives roughly 0.87/√ESS (≈ 0.02–0.03 here).",
			"The τ = 1, B = 100 run appears in both figures and once in the table."},
		NoWarnings: true,
		Sections:   []report.Section{{Title: "Figures", Figures: figs}},
	}
	page := filepath.Join(f.out, "index.html")
	if err := writeHTML(page, r); err != nil {
		return err
	}
	fmt.Fprint(stdout, tab.String())
	fmt.Fprintf(stdout, "\nwritten:  %s, %s (and .svg), %s (%.1f s)\n", filepath.Join(f.out, "sgld-batch.png"), filepath.Join(f.out, "sgld-temperature.png"), page, time.Since(start).Seconds())
	return nil
}

// distMeanSD returns the exact mean and sd of parameter j.
func distMeanSD(t temperedLinear, j int) (float64, float64) {
	if j < len(t.mu) {
		d := t.beta(j)
		return d.Mean(), d.StdDev()
	}
	// γ = log σ²: moments of its density by the trapezoid rule on ±12 sd
	// (sd ≈ 1/√a) around the mode log(b/a).
	var mean, m2 float64
	pdf := t.pdf(j)
	mode := math.Log(t.b / (t.a))
	w := 12 / math.Sqrt(t.a)
	n := 4000
	h := 2 * w / float64(n)
	var z float64
	for i := 0; i <= n; i++ {
		g := mode - w + float64(i)*h
		p := pdf(g)
		z += p
		mean += p * g
		m2 += p * g * g
	}
	mean /= z
	return mean, math.Sqrt(m2/z - mean*mean)
}
