package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/plot"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

func init() {
	Register(Experiment{
		Name:    "probai",
		Summary: "ProbAI 2025 hands-on: SGD as a sampler at N = 256 with S = 8, 16, 32; SGLD against MALA on the same network; the gradient noise; MALA's cumulative acceptance",
		Run:     runProbAI,
	})
}

// The hands-on's setting: 1-D regression y = sin(2x) + x/2 + N(0, 0.1²)
// (data.Gap1D: N points on [−2, 2] without (−0.5, 0.5)), a 1-20-20-1 tanh
// network with the known noise σ = 0.1 and a N(0, I) prior, MAP by Adam.
const (
	probaiN     = 256
	probaiNoise = 0.1
)

var probaiBatches = []int{8, 16, 32}

type probaiSetup struct {
	m      *model.MLP
	train  *data.Dataset
	mapT   []float64
	grads  *mat.Dense // N×D per-observation log-likelihood gradients at the MAP
	trV    float64    // Tr V, V their covariance
	grid   *mat.Dense // x values of the bands
	factor float64    // the stability factor f of the SGD rates
	lmax   float64    // λmax of the negative Hessian at the MAP
}

func newProbAI(ctx context.Context, seed uint64) (*probaiSetup, error) {
	train, err := data.Gap1D(probaiN, probaiNoise, 1)
	if err != nil {
		return nil, err
	}
	m, err := model.NewMLP(train.X, train.Y, model.MLPOptions{Hidden: []int{20, 20}, Activation: model.Tanh, NoiseVar: probaiNoise * probaiNoise})
	if err != nil {
		return nil, err
	}
	theta := make([]float64, m.Dim())
	rng := langevin.ChainRNG(seed, 1000)
	m.GlorotInit(theta, rng)
	mp, err := sampler.FitAdam(ctx, m, theta, sampler.AdamFit{Iters: 8000, Batch: 32, LR: 3e-3}, rng)
	if err != nil {
		return nil, fmt.Errorf("MAP: %w", err)
	}
	p := &probaiSetup{m: m, train: train, mapT: mp}
	d := m.Dim()
	p.grads = mat.NewDense(probaiN, d, nil)
	rows := make([]int, probaiN)
	for i := range rows {
		rows[i] = i
	}
	langevin.RowGrads(m, mp, rows, langevin.RowTerms{}, make([]float64, d), nil, func(i int, g []float64) error {
		copy(p.grads.RawRowView(i), g)
		return nil
	})
	for j := 0; j < d; j++ {
		_, sd := meanSD(mat.Col(nil, j, p.grads))
		p.trV += sd * sd * float64(probaiN-1) / probaiN
	}
	const k = 101
	p.grid = mat.NewDense(k, 1, nil)
	for i := 0; i < k; i++ {
		p.grid.Set(i, 0, -2.5+5*float64(i)/(k-1))
	}
	return p, nil
}

// etaStar is the gradient-noise formula for batch s: Mandt et al.'s
// KL-optimal constant rate η* = 2SD/(N² Tr V) (sampler.OptimalStep).
func (p *probaiSetup) etaStar(s int) float64 {
	return 2 * float64(s) * float64(p.m.Dim()) / (probaiN * probaiN * p.trV)
}

// stabilise sets the factor f ≤ 1 of the rates f·η*(S): η* ignores the
// stability limit ηλmax < 2 of the network's curvature (it diverges here),
// and near that limit the discretisation inflates the variance along the
// stiff directions by 1/(1 − ηλ/2), differently for each rate. f keeps the
// largest rate at ηλmax = 0.2 (inflation ≤ 11%), λmax by power iteration at
// the MAP (approx.MaxCurvature). One factor for all S keeps η/S, and with it
// the stationary spread ηCov(ĝ)/2 ∝ η/S, the same for every S.
func (p *probaiSetup) stabilise(sMax int, seed uint64) {
	p.lmax = approx.MaxCurvature(p.m, p.mapT, 200, langevin.ChainRNG(seed, 501))
	p.factor = math.Min(1, 0.2/(p.etaStar(sMax)*p.lmax))
}

// bandStats holds the predictive f(x) over a run's draws at the grid: per
// point the mean, sd and the sd's MCSE.
type bandStats struct {
	label        string
	eta          float64
	mean, sd, se []float64
	lo, hi       []float64 // 95% interval
	draws        int
}

func (p *probaiSetup) bands(label string, eta float64, tr *langevin.Trace) *bandStats {
	k, _ := p.grid.Dims()
	b := &bandStats{label: label, eta: eta, mean: make([]float64, k), sd: make([]float64, k), se: make([]float64, k), lo: make([]float64, k), hi: make([]float64, k)}
	// f[c][t][i]: chain c, draw t, grid point i.
	f := make([][][]float64, len(tr.Draws))
	for c, ch := range tr.Draws {
		f[c] = make([][]float64, len(ch))
		for t, x := range ch {
			f[c][t] = make([]float64, k)
			p.m.RegressionMean(x[:p.m.Dim()], p.grid, f[c][t])
			b.draws++
		}
	}
	chains := make([][]float64, len(f))
	for i := 0; i < k; i++ {
		for c := range f {
			chains[c] = chains[c][:0]
			for t := range f[c] {
				chains[c] = append(chains[c], f[c][t][i])
			}
		}
		all := pool(chains)
		b.mean[i], _ = meanSD(all)
		b.sd[i], b.se[i] = sdMCSE(chains)
		b.lo[i], b.hi[i] = quantile(all, 0.025), quantile(all, 0.975)
	}
	return b
}

// sgdSampler runs constant SGD at f·η*(S) for each batch size, 2 chains from
// the MAP, steps32·32/S steps (the same ηT, the same time of the limiting
// diffusion, and the same number of gradient evaluations), 10% burn-in, 400
// draws a chain.
func (p *probaiSetup) sgdSampler(ctx context.Context, batches []int, eta func(s int) float64, steps32 int, seed uint64) ([]*bandStats, error) {
	var out []*bandStats
	for k, s := range batches {
		iters := steps32 * 32 / s
		e := eta(s)
		tr, err := langevin.Run(ctx, p.m, sampler.ConstSGD{Eta: e, Batch: sampler.Minibatch{Size: s}}, langevin.Options{
			Chains: 2, Iters: iters, BurnIn: iters / 10, Thin: max(1, iters*9/10/400), Seed: seed + uint64(k),
			Init: langevin.InitAt{Points: [][]float64{p.mapT}},
		})
		if err != nil {
			return nil, fmt.Errorf("constant SGD, S = %d: %w", s, err)
		}
		out = append(out, p.bands(fmt.Sprintf("S = %d, η = %s", s, num(e)), e, tr))
	}
	return out, nil
}

// gapWidths returns the mean width of the 95% band of f(x) over the middle
// of the gap, |x| < 0.25, and over the data, 0.5 ≤ |x| ≤ 2.
func (p *probaiSetup) gapWidths(b *bandStats) (gap, data float64) {
	var ng, nd int
	for i := range b.lo {
		x := math.Abs(p.grid.At(i, 0))
		switch {
		case x < 0.25:
			gap += b.hi[i] - b.lo[i]
			ng++
		case x >= 0.5 && x <= 2:
			data += b.hi[i] - b.lo[i]
			nd++
		}
	}
	return gap / float64(ng), data / float64(nd)
}

// checkSGDAgree returns an error unless at every grid point the predictive
// sd of every run agrees with the last one's within 4 combined MCSEs plus
// 10% (the O(ηλ) discretisation term differs between the rates), and the
// means within 4 MCSEs of the sds' scale. It returns the largest deviation
// of the sds in combined MCSEs.
func checkSGDAgree(runs []*bandStats) (float64, error) {
	ref := runs[len(runs)-1]
	var worst float64
	for _, r := range runs[:len(runs)-1] {
		for i := range r.sd {
			se := math.Hypot(r.se[i], ref.se[i])
			d := math.Abs(r.sd[i] - ref.sd[i])
			worst = math.Max(worst, d/se)
			if d > 4*se+0.1*ref.sd[i] {
				return worst, fmt.Errorf("%s against %s at grid point %d: sd %.4g ± %.2g against %.4g ± %.2g", r.label, ref.label, i, r.sd[i], r.se[i], ref.sd[i], ref.se[i])
			}
		}
	}
	return worst, nil
}

func runProbAI(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := NewFlags("probai", "4× longer runs")
	pg, err := c.ParsePage(args, stdout, "probai: the ProbAI 2025 hands-on — SGD as a sampler, SGLD against MALA, gradient noise")
	if err != nil {
		return err
	}
	start := time.Now()
	scale := 1
	if c.Full {
		scale = 4
	}
	p, err := newProbAI(ctx, c.Seed)
	if err != nil {
		return err
	}
	p.stabilise(32, c.Seed)
	fmt.Fprintf(stderr, "probai: MAP and rates (%.1f s)\n", time.Since(start).Seconds())
	sgd, err := p.sgdSampler(ctx, probaiBatches, func(s int) float64 { return p.factor * p.etaStar(s) }, 20000*scale, c.Seed)
	if err != nil {
		return err
	}
	worst, agreeErr := checkSGDAgree(sgd)
	fmt.Fprintf(stderr, "probai: constant SGD done (%.1f s)\n", time.Since(start).Seconds())

	// MALA from the MAP, its step adapted in the first 20%; SGLD with
	// batches of 32 at ηλmax = 0.2, as many steps as give it MALA's ηT.
	malaIters := 10000 * scale
	mala, err := langevin.Run(ctx, p.m, sampler.MALA{Adapt: sampler.Adapt{Warmup: malaIters / 5}}, langevin.Options{
		Chains: 2, Iters: malaIters, BurnIn: malaIters / 5, Thin: max(1, malaIters/500), Seed: c.Seed + 20, SaveWarmup: true,
		Init: langevin.InitAt{Points: [][]float64{p.mapT}},
	})
	if err != nil {
		return fmt.Errorf("MALA: %w", err)
	}
	malaStep := mala.Stats[0][len(mala.Stats[0])-1][mala.StatIndex("stepsize__")]
	sgldStep := 0.2 / p.lmax
	sgldIters := int(malaStep / sgldStep * float64(malaIters))
	sgld, err := langevin.Run(ctx, p.m, sampler.SGLD{Step: schedule.Constant(sgldStep), Batch: sampler.Minibatch{Size: 32}}, langevin.Options{
		Chains: 2, Iters: sgldIters, BurnIn: sgldIters / 10, Thin: max(1, sgldIters/500), Seed: c.Seed + 21,
		Init: langevin.InitAt{Points: [][]float64{p.mapT}},
	})
	if err != nil {
		return fmt.Errorf("SGLD: %w", err)
	}
	bMALA := p.bands("MALA", malaStep, mala)
	bSGLD := p.bands("SGLD, B = 32", sgldStep, sgld)
	fmt.Fprintf(stderr, "probai: MALA and SGLD done (%.1f s)\n", time.Since(start).Seconds())

	xs := mat.Col(nil, 0, p.grid)
	bandPlot := func(title string, runs []*bandStats) *gplot.Plot {
		pl := newPlot(title, "x", "f(x)")
		for k, r := range runs {
			poly := bandPolygon(xs, r.lo, r.hi, plot.Translucent(col(k), 50))
			mid := line(xs, r.mean, col(k), false)
			lo := line(xs, r.lo, col(k), true)
			hi := line(xs, r.hi, col(k), true)
			lo.Width, hi.Width = vg.Points(0.8), vg.Points(0.8)
			pl.Add(poly, mid, lo, hi)
			pl.Legend.Add(r.label+": mean, 95%", mid)
		}
		truth := function(data.Gap1DMean, -2.5, 2.5, refColor, true)
		pts := points(mat.Col(nil, 0, p.train.X), p.train.Y, plot.Translucent(refColor, 120), circle, vg.Points(1.2))
		pl.Add(truth, pts)
		pl.Legend.Add("true f", truth)
		pl.Legend.Add("data (N = 256)", pts)
		pl.Legend.Top, pl.Legend.Left = true, true
		pl.X.Min, pl.X.Max = -2.5, 2.5
		// The y range from the bands and the data, room above for the legend.
		ylo, yhi := floats.Min(p.train.Y), floats.Max(p.train.Y)
		for _, r := range runs {
			ylo, yhi = math.Min(ylo, floats.Min(r.lo)), math.Max(yhi, floats.Max(r.hi))
		}
		pl.Y.Min, pl.Y.Max = ylo-0.05*(yhi-ylo), yhi+0.45*(yhi-ylo)
		return pl
	}
	// Figure 1: the three SGD samplers' bands around the S = 32 mean (on
	// the data's scale they are ±0.01 wide: invisible) and their sds.
	ref := sgd[len(sgd)-1].mean
	left := newPlot(fmt.Sprintf("constant SGD: f(x) − the S = %d mean", probaiBatches[len(probaiBatches)-1]), "x", "f(x) − mean")
	var dlo, dhi float64
	for k, r := range sgd {
		lo, hi, mid := make([]float64, len(xs)), make([]float64, len(xs)), make([]float64, len(xs))
		for i := range xs {
			lo[i], hi[i], mid[i] = r.lo[i]-ref[i], r.hi[i]-ref[i], r.mean[i]-ref[i]
			dlo, dhi = math.Min(dlo, lo[i]), math.Max(dhi, hi[i])
		}
		left.Add(bandPolygon(xs, lo, hi, plot.Translucent(col(k), 50)))
		ml := line(xs, mid, col(k), false)
		l1, l2 := line(xs, lo, col(k), true), line(xs, hi, col(k), true)
		l1.Width, l2.Width = vg.Points(0.8), vg.Points(0.8)
		left.Add(ml, l1, l2)
		left.Legend.Add(r.label+": mean, 95%", ml)
	}
	gap := bandPolygon([]float64{data.Gap1DGap[0], data.Gap1DGap[1]}, []float64{dlo * 1.1, dlo * 1.1}, []float64{dhi * 1.6, dhi * 1.6}, plot.Translucent(refColor, 20))
	left.Add(gap)
	left.Legend.Add("no data", gap)
	left.Legend.Top, left.Legend.Left = true, true
	left.X.Min, left.X.Max = -2.5, 2.5
	left.Y.Min, left.Y.Max = dlo*1.1, dhi*1.6
	right := newPlot("predictive sd of f(x)", "x", "sd of f(x)")
	var top float64
	for k, r := range sgd {
		l := line(xs, r.sd, col(k), false)
		e := make([]float64, len(r.se))
		for i := range e {
			e[i] = 2 * r.se[i]
			top = math.Max(top, r.sd[i]+e[i])
		}
		right.Add(l)
		right.Add(errorBars(xs, r.sd, e, plot.Translucent(col(k), 120))...)
		right.Legend.Add(r.label, l)
	}
	right.Legend.Top, right.Legend.Left = true, true
	right.X.Min, right.X.Max = -2.5, 2.5
	right.Y.Min, right.Y.Max = 0, 1.5*top
	if err := pg.Tiles("sgd-sampler", fmt.Sprintf("Constant SGD as a sampler at N = %d for S = 8, 16, 32, rates η = f·η*(S), η*(S) = 2SD/(N² Tr V) and one stability factor f = %s: predictive mean and 95%% band of f(x) relative to the S = 32 mean, the gap without data shaded (left; on the data's scale the bands are too narrow to see), and the predictive sd with ±2 MCSE (right).", probaiN, num(p.factor)), [][]*gplot.Plot{{left, right}}, 36*vg.Centimeter, 12*vg.Centimeter); err != nil {
		return err
	}
	// Figure 2: SGLD against MALA.
	widths, err := plot.BandWidths("width of the 95% band of f(x)", xs, []string{bSGLD.label, bMALA.label}, [][]float64{bSGLD.lo, bMALA.lo}, [][]float64{bSGLD.hi, bMALA.hi}, data.Gap1DGap)
	if err != nil {
		return err
	}
	if err := pg.Tiles("sgld-mala", fmt.Sprintf("SGLD (B = 32, η = %s, ηλmax = 0.2) and MALA (full data, adapted η = %s) on the same network, 2 chains each from the MAP over the same ηT: predictive means and 95%% bands of f(x), the y range from the data (left), and the width of each band by x, the gap without data shaded (right).", num(sgldStep), num(malaStep)), [][]*gplot.Plot{{bandPlot("SGLD against MALA", []*bandStats{bSGLD, bMALA}), widths}}, 34*vg.Centimeter, 12*vg.Centimeter); err != nil {
		return err
	}
	// Figure 3: the gradient noise at the MAP.
	gn, err := p.gradientNoisePlot(c.Seed)
	if err != nil {
		return err
	}
	if err := pg.Figure("gradient-noise", "The log-likelihood gradient at the MAP in the two coordinates of largest per-observation variance: the full-data gradient (black) and 300 minibatch estimates (N/B)Σ_{i∈B}∇log p(yᵢ|θ) for B = 8 and 32, with the 2-sd ellipses of their predicted covariance (N²/B)V.", gn, 18*vg.Centimeter, 14*vg.Centimeter); err != nil {
		return err
	}
	// Figure 4: MALA's cumulative acceptance.
	acc := newPlot("MALA: cumulative acceptance", "iteration", "mean acceptance so far")
	k := mala.StatIndex("accept_stat__")
	for ch := range mala.Draws {
		var it, cum []float64
		var s float64
		var n int
		for _, part := range []struct {
			iters []int
			stats [][]float64
		}{{mala.Warmup[ch].Iters, mala.Warmup[ch].Stats}, {mala.Iters[ch], mala.Stats[ch]}} {
			for t, st := range part.stats {
				s += st[k]
				n++
				it = append(it, float64(part.iters[t]))
				cum = append(cum, s/float64(n))
			}
		}
		l := line(it, cum, col(ch), false)
		acc.Add(l)
		acc.Legend.Add(fmt.Sprintf("chain %d", ch+1), l)
	}
	tgt := line([]float64{0, float64(malaIters)}, []float64{0.574, 0.574}, refColor, true)
	we := line([]float64{float64(malaIters / 5), float64(malaIters / 5)}, []float64{0, 1}, plot.Translucent(refColor, 120), true)
	acc.Add(tgt, we)
	acc.Legend.Add("target 0.574", tgt)
	acc.Legend.Add("end of warm-up", we)
	acc.Y.Min, acc.Y.Max = 0, 1
	acc.X.Min, acc.X.Max = 0, float64(malaIters)
	acc.Legend.Top = false
	if err := pg.Figure("mala-acceptance", "MALA's cumulative mean acceptance probability over the iterations (thinned), warm-up with dual averaging of the step toward 0.574 included.", acc, 16*vg.Centimeter, 9*vg.Centimeter); err != nil {
		return err
	}

	elapsed := time.Since(start).Seconds()
	pg.Printf("Command: `langevin experiment probai --out DIR` (%.0f s on 2 cores; `--full`: 4× longer runs).\n\n", elapsed)
	pg.Printf("The ProbAI 2025 hands-on's regression: y = sin(2x) + x/2 + N(0, 0.1²) on [−2, 2] without (−0.5, 0.5) (`data.Gap1D`, N = %d), a 1-20-20-1 tanh network (%d parameters) with the known noise and a N(0, I) prior; MAP by Adam (8000 steps, batch 32).\n\n", probaiN, p.m.Dim())
	pg.Printf("**SGD as a sampler.** Rates from the gradient-noise formula η*(S) = 2SD/(N² Tr V) (Mandt et al. 2017, Theorem 1; V the per-observation gradient covariance at the MAP, Tr V = %s): η* itself diverges on this network (it ignores the stability limit ηλmax < 2 along stiff directions with little gradient noise; λmax = %s at the MAP), so every rate is multiplied by one factor f = %s, which puts the largest rate at ηλmax = 0.2 (the discretisation then inflates a stiff direction's variance by at most 1/(1 − ηλ/2) = 11%%). One factor keeps η/S, hence the stationary spread ηCov(ĝ)/2 ∝ η/S, equal for all S; each S runs 20000·32/S steps (the same ηT and the same number of gradient evaluations), 2 chains from the MAP.\n\n", num(p.trV), num(p.lmax), num(p.factor))
	pg.Printf("| S | η | draws | mean predictive sd of f(x) over the grid |\n|---|---|---|---|\n")
	for i, r := range sgd {
		var ms float64
		for _, v := range r.sd {
			ms += v
		}
		pg.Printf("| %d | %s | %d | %.4f |\n", probaiBatches[i], num(r.eta), r.draws, ms/float64(len(r.sd)))
		fmt.Fprintf(stdout, "constant SGD S = %2d: η = %-8s mean predictive sd %.4f\n", probaiBatches[i], num(r.eta), ms/float64(len(r.sd)))
	}
	if agreeErr != nil {
		pg.Printf("\n**The runs do not agree:** %v\n\n", agreeErr)
		fmt.Fprintf(stdout, "warning: %v\n", agreeErr)
	} else {
		pg.Printf("\nThe three runs are \"highly similar\", as the slides say: at every grid point the predictive sds agree within 4 Monte Carlo standard errors plus 10%% (largest deviation %.1f MCSE; `checkSGDAgree`).\n\n", worst)
		fmt.Fprintf(stdout, "S = 8, 16, 32 agree: largest deviation of the predictive sd %.1f MCSE\n", worst)
	}
	pg.Printf("**SGLD against MALA.** MALA (exact, full data) adapts its step to η = %s (ηλmax = %.2f: the Metropolis correction keeps it exact); SGLD with batches of 32 cannot take that step without a large discretisation bias (its variance along the stiffest direction would be inflated by 1/(1 − ηλ/2)), so it runs at ηλmax = 0.2, η = %s, for %d steps — the same ηT as MALA's %d. Both start at the MAP; in that time neither leaves the MAP's basin, so the bands describe that mode.\n\n", num(malaStep), malaStep*p.lmax, num(sgldStep), sgldIters, malaIters)
	pg.Printf("| run | mean 95%% width of f, gap (|x| < 0.25) | over the data (0.5 ≤ |x| ≤ 2) | ratio |\n|---|---|---|---|\n")
	for _, b := range append(append([]*bandStats{}, sgd...), bSGLD, bMALA) {
		g, d := p.gapWidths(b)
		pg.Printf("| %s | %.4f | %.4f | %.2f |\n", b.label, g, d, g/d)
		fmt.Fprintf(stdout, "band widths %-28s gap %.4f data %.4f ratio %.2f\n", b.label+":", g, d, g/d)
	}
	pg.Printf("\nA ratio above 1 means the band widens where there are no data, as a posterior should; constant SGD's noise lives only where the data constrain f (`gap1d` found the same), so its band narrows there.\n\n")
	pg.Printf("Run time %.0f s.\n", elapsed)
	fmt.Fprintf(stdout, "MALA step %s, SGLD step %s (%.0f s)\n", num(malaStep), num(sgldStep), elapsed)
	return pg.Write(stdout)
}

// gradientNoisePlot draws the full-data log-likelihood gradient at the MAP
// and minibatch estimates of it in the two coordinates with the largest
// per-observation gradient variance.
func (p *probaiSetup) gradientNoisePlot(seed uint64) (*gplot.Plot, error) {
	d := p.m.Dim()
	var a, b int
	var va, vb float64
	vars := make([]float64, d)
	for j := 0; j < d; j++ {
		_, sd := meanSD(mat.Col(nil, j, p.grads))
		vars[j] = sd * sd
		switch {
		case vars[j] > va:
			b, vb = a, va
			a, va = j, vars[j]
		case vars[j] > vb:
			b, vb = j, vars[j]
		}
	}
	ga, gb := mat.Col(nil, a, p.grads), mat.Col(nil, b, p.grads)
	ma, _ := meanSD(ga)
	mb, _ := meanSD(gb)
	var cab float64
	for i := range ga {
		cab += (ga[i] - ma) * (gb[i] - mb)
	}
	cab /= float64(len(ga))
	n := float64(probaiN)
	names := p.m.ParamNames()
	pl := newPlot("gradient noise at the MAP", "∂/∂"+names[a], "∂/∂"+names[b])
	rng := langevin.ChainRNG(seed, 777)
	for k, bs := range []int{8, 32} {
		xs, ys := make([]float64, 300), make([]float64, 300)
		for t := range xs {
			var sa, sb float64
			for r := 0; r < bs; r++ {
				i := rng.IntN(probaiN)
				sa += ga[i]
				sb += gb[i]
			}
			xs[t], ys[t] = n/float64(bs)*sa, n/float64(bs)*sb
		}
		sc := points(xs, ys, plot.Translucent(col(k), 130), circle, vg.Points(1.5))
		f := n * n / float64(bs) * float64(probaiN-1) / float64(probaiN) // population → sample convention aside, (N²/B)V
		_ = f
		cov := [2][2]float64{{n * n / float64(bs) * va * float64(probaiN-1) / probaiN, n * n / float64(bs) * cab}, {n * n / float64(bs) * cab, n * n / float64(bs) * vb * float64(probaiN-1) / probaiN}}
		el := ellipse(n*ma, n*mb, cov, 2, col(k), false)
		pl.Add(sc, el)
		pl.Legend.Add(fmt.Sprintf("B = %d: estimates", bs), sc)
		pl.Legend.Add(fmt.Sprintf("B = %d: 2-sd ellipse, (N²/B)V", bs), el)
	}
	full := points([]float64{n * ma}, []float64{n * mb}, refColor, plotter.DefaultGlyphStyle.Shape, vg.Points(4))
	pl.Add(full)
	pl.Legend.Add("full-data gradient", full)
	pl.Legend.Top, pl.Legend.Left = true, true
	// Room for the legend above the points.
	sa, sb := math.Sqrt(n*n/8*va), math.Sqrt(n*n/8*vb)
	pl.X.Min, pl.X.Max = n*ma-3.5*sa, n*ma+3.5*sa
	pl.Y.Min, pl.Y.Max = n*mb-3.2*sb, n*mb+5.5*sb
	return pl, nil
}

// bandPolygon returns the filled region between lo and hi over x.
func bandPolygon(x, lo, hi []float64, c interface{ RGBA() (r, g, b, a uint32) }) *plotter.Polygon {
	xy := make(plotter.XYs, 0, 2*len(x))
	for i := range x {
		xy = append(xy, plotter.XY{X: x[i], Y: lo[i]})
	}
	for i := len(x) - 1; i >= 0; i-- {
		xy = append(xy, plotter.XY{X: x[i], Y: hi[i]})
	}
	pg, err := plotter.NewPolygon(xy)
	if err != nil {
		panic(err)
	}
	pg.Color = c
	pg.LineStyle.Width = 0
	return pg
}
