package experiment

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/optimize"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/sampler"
)

func init() {
	Register(Experiment{
		Name:    "mandt-hyper",
		Summary: "Mandt et al. §7.3: softmax prior precision on Fashion-MNIST — MAP validation loss over a λ grid, variational EM's λ, BBVI's λ",
		Run:     cliRun(runMandtHyper),
	})
}

// hyperOpts are the settings of the mandt-hyper experiment.
type hyperOpts struct {
	train, valid int       // rows used for training and validation
	grid         []float64 // λ values of the validation curve
	batch        int       // minibatch of VEM and BBVI
	vemIters     int       // VEM iterations
	viIters      int       // BBVI iterations per EM round
	viRounds     int       // BBVI-EM rounds
	seed         uint64
	diag         bool    // also run VEM with per-coordinate rates
	pca          int     // whitened principal components as features; 0: by pcaVar
	pcaVar       float64 // else the fewest components explaining this fraction of the variance; 0: raw pixels
	flat         bool    // VEM takes the class-shift subspace exactly (approx.VEM.Flat)
}

// hyperResult is the outcome: the validation curve and the selected λ's.
type hyperResult struct {
	grid, loss, acc         []float64 // validation loss (mean cross-entropy) and accuracy of the MAP per λ
	best                    int       // index of the grid's best loss
	vemLambda, vemLoss      float64
	vemAcc                  float64
	viLambda, viLoss, viAcc float64
	diagLambda, diagLoss    float64 // VEM with per-coordinate rates (Corollary 3)
	diagAcc                 float64
	vemTrace                []float64 // λ along VEM
	vemTraceIters           []int     // at these iterations
	vemStep, vemOpt, vemMax float64   // η used, η* (eq. 15), 1/a_max
	times                   map[string]time.Duration
}

func runMandtHyper(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("experiment mandt-hyper", flag.ContinueOnError)
	dir := fs.String("data", data.FashionMNISTDir, "`DIR` holding the Fashion-MNIST IDX files (Debian package dataset-fashion-mnist)")
	o := hyperOpts{}
	fs.IntVar(&o.train, "train", 10000, "training rows `N` (a seeded subset of the 60,000; 60000 for all)")
	fs.IntVar(&o.valid, "valid", 10000, "validation rows `N`, held out from the 60,000 training images (the test set is not touched)")
	gridStr := fs.String("grid", "0.1,0.3,1,3,10,30,100", "comma-separated prior precisions λ of the validation curve")
	fs.IntVar(&o.batch, "batch", 100, "minibatch size `S` of variational EM and BBVI")
	fs.IntVar(&o.vemIters, "vem-iters", 20000, "variational EM iterations")
	fs.IntVar(&o.viIters, "vi-iters", 3000, "BBVI iterations per EM round")
	fs.IntVar(&o.viRounds, "vi-rounds", 4, "BBVI-EM rounds (fit q at λ, then λ ← D / E_q‖θ‖²)")
	fs.BoolVar(&o.diag, "diag", false, "also run variational EM with per-coordinate rates (Corollary 3, batch 10, 3×--vem-iters iterations)")
	fs.Float64Var(&o.pcaVar, "pca-var", 0.95, "features: the fewest principal components of the training pixels that explain this `FRACTION` of their variance, whitened (0: the 784 raw pixels in [0, 1])")
	fs.IntVar(&o.pca, "pca", 0, "features: the first `Q` principal components, whitened (overrides --pca-var; 0: use --pca-var)")
	fs.BoolVar(&o.flat, "flat", true, "variational EM integrates the softmax's class-shift subspace out exactly (approx.VEM.Flat); false: plain eq. 22")
	fs.Uint64Var(&o.seed, "seed", 1, "random `seed` (subset, split, minibatches)")
	out := fs.String("out", "", "write the validation curve to `DIR`/mandt-hyper.csv and its figure (validation.png, .svg) with index.md")
	if err := ParseFlags(fs, args, stdout); err != nil {
		return err
	}
	grid, err := parseGrid(*gridStr)
	if err != nil {
		return err
	}
	o.grid = grid
	switch {
	case o.train < 10:
		return Usagef("--train %d: expected at least 10 rows", o.train)
	case o.valid < 10:
		return Usagef("--valid %d: expected at least 10 rows", o.valid)
	case o.batch < 1 || o.batch >= o.train:
		return Usagef("--batch %d: expected 1 ≤ S < --train (%d)", o.batch, o.train)
	case o.vemIters < 100:
		return Usagef("--vem-iters %d: expected at least 100", o.vemIters)
	case o.viIters < 100:
		return Usagef("--vi-iters %d: expected at least 100", o.viIters)
	case o.viRounds < 1:
		return Usagef("--vi-rounds %d: expected at least 1", o.viRounds)
	case o.pca < 0 || o.pca > 784:
		return Usagef("--pca %d: expected 0 (use --pca-var) or 1 … 784 principal components", o.pca)
	case !(o.pcaVar >= 0 && o.pcaVar <= 1):
		return Usagef("--pca-var %v: expected a fraction in [0, 1] (0: raw pixels)", o.pcaVar)
	}
	start := time.Now()
	full, err := data.FashionMNIST(*dir, true)
	if err != nil {
		return Usagef("--data %s: %v (install the Debian package dataset-fashion-mnist, or point --data at the IDX files)", *dir, err)
	}
	if o.train+o.valid > full.Len() {
		return Usagef("--train %d + --valid %d: the training file has only %d rows", o.train, o.valid, full.Len())
	}
	nf := float64(full.Len())
	parts := data.Split(full, []float64{float64(o.train) / nf, float64(o.valid) / nf, float64(full.Len()-o.train-o.valid) / nf}, o.seed)
	train, valid := parts[0], parts[1]
	if o.pca == 0 && o.pcaVar == 0 {
		fmt.Fprintf(stdout, "Fashion-MNIST (%s): softmax regression, 784 pixel features in [0, 1] + intercept, 10 classes (D = 7850)\n", *dir)
	} else {
		w, err := data.FitPCAWhitener(train.X, o.pca, o.pcaVar)
		if err != nil {
			return Usagef("--pca %d, --pca-var %v: %v", o.pca, o.pcaVar, err)
		}
		o.pca = w.Components()
		train = &data.Dataset{X: w.Transform(train.X), Y: train.Y, Source: train.Source}
		valid = &data.Dataset{X: w.Transform(valid.X), Y: valid.Y, Source: valid.Source}
		fmt.Fprintf(stdout, "Fashion-MNIST (%s): softmax regression on the first %d principal components of the training pixels, whitened\n", *dir, o.pca)
		fmt.Fprintf(stdout, "(%.1f%% of the pixel variance), + intercept, 10 classes (D = %d)\n", 100*w.Explained(o.pca), 10*(o.pca+1))
	}
	fmt.Fprintf(stdout, "training rows %d, validation rows %d (seeded split of the 60,000 training images; read in %.1f s)\n\n",
		train.Len(), valid.Len(), time.Since(start).Seconds())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	res, err := hyperExperiment(ctx, train, valid, o, stderr)
	if err != nil {
		return err
	}
	printHyper(stdout, res, o)
	if *out != "" {
		pg, err := NewPage(*out, "mandt-hyper: validation loss against the prior precision on Fashion-MNIST (Mandt et al. 2017, §7.3, Fig. 6)")
		if err != nil {
			return err
		}
		var sb strings.Builder
		sb.WriteString("lambda,valid_loss,valid_accuracy,selected_by\n")
		for i, l := range res.grid {
			fmt.Fprintf(&sb, "%g,%.6f,%.4f,grid\n", l, res.loss[i], res.acc[i])
		}
		fmt.Fprintf(&sb, "%g,%.6f,%.4f,vem\n", res.vemLambda, res.vemLoss, res.vemAcc)
		if o.diag {
			fmt.Fprintf(&sb, "%g,%.6f,%.4f,vem-diag\n", res.diagLambda, res.diagLoss, res.diagAcc)
		}
		fmt.Fprintf(&sb, "%g,%.6f,%.4f,bbvi\n", res.viLambda, res.viLoss, res.viAcc)
		path := filepath.Join(*out, "mandt-hyper.csv")
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "written:  %s\n", path)
		if err := hyperFigure(pg, res, fmt.Sprintf("Fashion-MNIST softmax regression, N = %d, %d validation rows", o.train, o.valid)); err != nil {
			return err
		}
		pg.Printf("The numbers are in `mandt-hyper.csv`; variational EM's λ = %.4g (validation loss %+.2f%% from the grid's best), BBVI-EM's λ = %.4g (%+.2f%%).\n", res.vemLambda, 100*(res.vemLoss/res.loss[res.best]-1), res.viLambda, 100*(res.viLoss/res.loss[res.best]-1))
		if err := pg.Write(stdout); err != nil {
			return err
		}
	}
	return nil
}

func parseGrid(s string) ([]float64, error) {
	var grid []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, Usagef("--grid %q: entry %q: expected positive numbers separated by commas", s, f)
		}
		grid = append(grid, v)
	}
	if len(grid) < 2 {
		return nil, Usagef("--grid %q: expected at least two precisions", s)
	}
	sort.Float64s(grid)
	return grid, nil
}

// hyperExperiment computes the validation curve of the MAP over o.grid and
// the precisions chosen by variational EM and by BBVI-EM, logging progress to
// logw.
//
// The features are, by default, the leading principal components of the
// training pixels (95% of the variance), each scaled to unit variance
// (runMandtHyper). Theorem 1's scalar rate makes SGD's stationary covariance
// the KL-best isotropic-noise fit of the posterior, which is close to the
// posterior only when the curvature is roughly even across directions. On
// raw pixels it spans five orders of magnitude (a_max ≈ 8·10⁴ against ≈ λ
// along rarely active pixels), so η* is unstable and any stable scalar rate
// leaves the weakly identified directions with far less than their
// posterior variance, and VEM's λ = D/E‖θ‖² runs away. Whitening makes the
// design's covariance the identity, the likelihood's curvature comparable
// in every retained direction, and eq. 15 stable; dropping the last 5% of
// the variance drops the near-constant pixel directions, which whitening
// would otherwise blow up into rare, huge features.
func hyperExperiment(ctx context.Context, train, valid *data.Dataset, o hyperOpts, logw io.Writer) (*hyperResult, error) {
	kv, err := model.CheckClassLabels(valid.Y, 0)
	if err != nil {
		return nil, Usagef("validation labels: %v", err)
	}
	kt, err := model.CheckClassLabels(train.Y, 0)
	if err != nil {
		return nil, Usagef("training labels: %v", err)
	}
	base, err := model.NewSoftmax(train.X, train.Y, model.SoftmaxOptions{Classes: max(kt, kv)})
	if err != nil {
		return nil, &UsageError{err}
	}
	res := &hyperResult{grid: o.grid, times: map[string]time.Duration{}}
	d := base.Dim()
	score := func(theta []float64) (loss, acc float64) {
		c, err := predict.Classify(base, [][]float64{theta}, valid.X, predict.ClassifyOptions{})
		if err != nil {
			return math.NaN(), math.NaN()
		}
		met, err := predict.Evaluate(c.Probs, valid.Y, 0)
		if err != nil {
			return math.NaN(), math.NaN()
		}
		return met.NLL, met.Accuracy
	}
	// The MAP over the grid, from the largest λ down, each warm-started at
	// the previous MAP.
	t0 := time.Now()
	maps := make([][]float64, len(o.grid))
	res.loss = make([]float64, len(o.grid))
	res.acc = make([]float64, len(o.grid))
	theta := make([]float64, d)
	for i := len(o.grid) - 1; i >= 0; i-- {
		m := base.WithPrecision(o.grid[i])
		th, err := softmaxMAP(ctx, m, theta)
		if err != nil {
			return nil, fmt.Errorf("MAP at λ = %g: %w", o.grid[i], err)
		}
		maps[i], theta = th, th
		res.loss[i], res.acc[i] = score(th)
		fmt.Fprintf(logw, "mandt-hyper: λ = %-8g validation loss %.5f, accuracy %.4f (%.1f s)\n", o.grid[i], res.loss[i], res.acc[i], time.Since(t0).Seconds())
	}
	res.times["grid"] = time.Since(t0)
	for i, l := range res.loss {
		if l < res.loss[res.best] {
			res.best = i
		}
	}
	nearest := func(lambda float64) []float64 {
		best := 0
		for i, l := range o.grid {
			if math.Abs(math.Log(l/lambda)) < math.Abs(math.Log(o.grid[best]/lambda)) {
				best = i
			}
		}
		return maps[best]
	}

	// Variational EM (eq. 22): constant SGD at η* on θ, Robbins–Monro on
	// log λ, from the MAP at the grid point nearest λ₀ = 1. With o.flat the
	// softmax's class-shift subspace, where the likelihood is constant and
	// the posterior is the prior, is integrated out exactly (approx.VEM.Flat)
	// instead of being represented by SGD iterates that have no noise there.
	t0 = time.Now()
	vem := approx.VEM{Batch: sampler.Minibatch{Size: o.batch}, Lambda0: 1}
	if o.flat {
		vem.Flat = base
	}
	vr, err := vem.Run(ctx, base, nearest(1), o.vemIters, langevin.ChainRNG(o.seed, 0))
	if err != nil {
		return nil, fmt.Errorf("variational EM: %w", err)
	}
	res.vemLambda, res.vemTrace, res.vemTraceIters, res.vemStep, res.vemOpt, res.vemMax = vr.Lambda, vr.TraceLambda, vr.TraceIters, vr.Step, vr.OptimalStep, vr.MaxStep
	th, err := softmaxMAP(ctx, base.WithPrecision(vr.Lambda), nearest(vr.Lambda))
	if err != nil {
		return nil, fmt.Errorf("MAP at VEM's λ = %g: %w", vr.Lambda, err)
	}
	res.vemLoss, res.vemAcc = score(th)
	res.times["vem"] = time.Since(t0)
	fmt.Fprintf(logw, "mandt-hyper: variational EM λ = %.4g (η = %.3g, η* = %.3g, 1/a_max = %.3g), validation loss %.5f (%.1f s)\n", vr.Lambda, vr.Step, vr.OptimalStep, vr.MaxStep, res.vemLoss, res.times["vem"].Seconds())

	// Variational EM with per-coordinate rates (Corollary 3), batch 10 (the
	// diagonal rates are stable only for small batches on correlated pixels).
	if o.diag {
		t0 = time.Now()
		dv := approx.VEM{Batch: sampler.Minibatch{Size: 10}, Lambda0: 1, Diagonal: true, NoiseRows: base.Len()}
		dr, err := dv.Run(ctx, base, nearest(1), o.vemIters*3, langevin.ChainRNG(o.seed, 100))
		if err != nil {
			return nil, fmt.Errorf("variational EM (diagonal): %w", err)
		}
		res.diagLambda = dr.Lambda
		th, err = softmaxMAP(ctx, base.WithPrecision(dr.Lambda), nearest(dr.Lambda))
		if err != nil {
			return nil, fmt.Errorf("MAP at diagonal VEM's λ = %g: %w", dr.Lambda, err)
		}
		res.diagLoss, res.diagAcc = score(th)
		res.times["vem-diag"] = time.Since(t0)
		fmt.Fprintf(logw, "mandt-hyper: variational EM, diagonal rates: λ = %.4g, validation loss %.5f (%.1f s)\n", dr.Lambda, res.diagLoss, res.times["vem-diag"].Seconds())
	}

	// BBVI-EM: fit mean-field q at λ by BBVI, then the M-step
	// λ ← D / E_q‖θ‖² = D / (‖μ‖² + Σ σⱼ²); repeat.
	t0 = time.Now()
	lambda := 1.0
	mu := nearest(lambda)
	for r := 0; r < o.viRounds; r++ {
		vi := approx.VI{Batch: sampler.Minibatch{Size: o.batch}, AverageFrom: o.viIters / 2}
		q, err := approx.FitVI(ctx, base.WithPrecision(lambda), vi, mu, o.viIters, langevin.ChainRNG(o.seed, r+1))
		if err != nil {
			return nil, fmt.Errorf("BBVI: %w", err)
		}
		var e2 float64
		for j, m := range q.Mean {
			e2 += m*m + q.SD[j]*q.SD[j]
		}
		lambda, mu = float64(d)/e2, q.Mean
		fmt.Fprintf(logw, "mandt-hyper: BBVI-EM round %d: λ = %.4g (%.1f s)\n", r+1, lambda, time.Since(t0).Seconds())
	}
	res.viLambda = lambda
	th, err = softmaxMAP(ctx, base.WithPrecision(lambda), nearest(lambda))
	if err != nil {
		return nil, fmt.Errorf("MAP at BBVI's λ = %g: %w", lambda, err)
	}
	res.viLoss, res.viAcc = score(th)
	res.times["bbvi"] = time.Since(t0)
	return res, nil
}

func printHyper(w io.Writer, res *hyperResult, o hyperOpts) {
	best := res.loss[res.best]
	fmt.Fprintf(w, "%-22s %12s %12s %10s\n", "prior precision λ", "valid loss", "vs best", "accuracy")
	for i, l := range res.grid {
		mark := ""
		if i == res.best {
			mark = "  ← grid best"
		} else if res.loss[i] <= 1.02*best {
			mark = "  (within 2%)"
		}
		fmt.Fprintf(w, "  %-20g %12.5f %+11.2f%% %10.4f%s\n", l, res.loss[i], 100*(res.loss[i]/best-1), res.acc[i], mark)
	}
	verdict := func(loss float64) string {
		if loss <= 1.02*best {
			return "within 2% of the grid's best: in the flat minimum"
		}
		return "NOT within 2% of the grid's best"
	}
	fmt.Fprintf(w, "  %-20s %12.5f %+11.2f%% %10.4f  λ = %.4g, %s\n", "variational EM", res.vemLoss, 100*(res.vemLoss/best-1), res.vemAcc, res.vemLambda, verdict(res.vemLoss))
	if o.diag {
		fmt.Fprintf(w, "  %-20s %12.5f %+11.2f%% %10.4f  λ = %.4g, %s\n", "VEM, diagonal rates", res.diagLoss, 100*(res.diagLoss/best-1), res.diagAcc, res.diagLambda, verdict(res.diagLoss))
	}
	fmt.Fprintf(w, "  %-20s %12.5f %+11.2f%% %10.4f  λ = %.4g, %s\n", "BBVI-EM", res.viLoss, 100*(res.viLoss/best-1), res.viAcc, res.viLambda, verdict(res.viLoss))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "valid loss: mean cross-entropy −(1/n) Σ log π_y(x) of the MAP at λ on the validation rows\n")
	fmt.Fprintf(w, "variational EM: %d iterations, batch %d, η = %.3g = min(η* = %.3g (eq. 15), 1/a_max = %.3g (stability)), λ from 1; λ along the run:",
		o.vemIters, o.batch, res.vemStep, res.vemOpt, res.vemMax)
	for i := 0; i < len(res.vemTrace); i += max(1, len(res.vemTrace)/8) {
		fmt.Fprintf(w, " %.3g", res.vemTrace[i])
	}
	fmt.Fprintf(w, " … %.3g\n", res.vemTrace[len(res.vemTrace)-1])
	if o.diag {
		fmt.Fprintf(w, "VEM, diagonal rates: ηₖ = min(2S/(N²Cₖₖ), 1/(λ + N Cₖₖ)) (Corollary 3, capped), batch 10, %d iterations\n", 3*o.vemIters)
	}
	fmt.Fprintf(w, "BBVI-EM: %d rounds × %d iterations, batch %d\n", o.viRounds, o.viIters, o.batch)
	fmt.Fprintf(w, "time: grid %.1f s, variational EM %.1f s, BBVI-EM %.1f s (each including one MAP fit)", res.times["grid"].Seconds(), res.times["vem"].Seconds(), res.times["bbvi"].Seconds())
	if o.diag {
		fmt.Fprintf(w, ", diagonal VEM %.1f s", res.times["vem-diag"].Seconds())
	}
	fmt.Fprintln(w)
}

// softmaxMAP maximises the full-data log posterior of m by L-BFGS from
// theta0, with the likelihood's rows split over two goroutines (a fixed split
// and summation order, so the result does not depend on scheduling). It stops
// at a relative change of the objective below 1e-9 over 10 iterations or
// after 2,000 iterations.
func softmaxMAP(ctx context.Context, m *model.Softmax, theta0 []float64) ([]float64, error) {
	d, n := m.Dim(), m.Len()
	const parts = 2
	idx := make([][]int, parts)
	for p := range idx {
		for i := p * n / parts; i < (p+1)*n/parts; i++ {
			idx[p] = append(idx[p], i)
		}
	}
	grads := make([][]float64, parts)
	for p := range grads {
		grads[p] = make([]float64, d)
	}
	vals := make([]float64, parts)
	eval := func(x, grad []float64) float64 {
		var wg sync.WaitGroup
		for p := 0; p < parts; p++ {
			wg.Add(1)
			go func(p int) {
				defer wg.Done()
				var g []float64
				if grad != nil {
					g = grads[p]
					clear(g)
				}
				vals[p] = m.LogLik(x, idx[p], g)
			}(p)
		}
		wg.Wait()
		if grad != nil {
			clear(grad)
		}
		v := m.LogPrior(x, grad)
		for p := 0; p < parts; p++ {
			v += vals[p]
			if grad != nil {
				for j, g := range grads[p] {
					grad[j] += g
				}
			}
		}
		return v
	}
	prob := approx.MAPProblem(ctx, eval)
	settings := &optimize.Settings{
		GradientThreshold: 1e-6 * float64(n),
		MajorIterations:   2000,
		Converger:         &optimize.FunctionConverge{Relative: 1e-9, Iterations: 10},
	}
	r, err := optimize.Minimize(prob, append([]float64(nil), theta0...), settings, &optimize.LBFGS{})
	if r == nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for _, v := range r.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("L-BFGS diverged")
		}
	}
	return r.X, nil // other optimiser errors (line-search stalls at the optimum) leave a usable point
}
