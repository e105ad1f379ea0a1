package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

func init() {
	Register(Experiment{
		Name:    "report-tuning",
		Summary: "the seed report's §3.4 step-size tuning: grid search scored by acceptance, by the expected squared jump (lands on 0.234 / 0.574 at d = 100) and by a validation split of Australian credit",
		Run:     runReportTuning,
	})
}

// tuneRow is one grid tuning: the sampler, the criterion, the grid, the
// step kept and the mean acceptance statistic after warm-up (and, on the
// validation split, the validation and test scores).
type tuneRow struct {
	sampler, score, grid string
	step, acc            float64
	valLPD, testAcc      float64
}

// tuneCurve is the fixed-step scan behind a grid: acceptance and expected
// squared jump at each step.
type tuneCurve struct {
	steps, acc, esjd []float64
}

// gridOf returns centre·factor^k, k = −8, …, 8.
func gridOf(centre, factor float64) []float64 {
	g := make([]float64, 0, 17)
	for k := -8; k <= 8; k++ {
		g = append(g, centre*math.Pow(factor, float64(k)))
	}
	return g
}

// runTuned runs one chain of warm + n iterations from theta0 and returns
// the step kept after warm-up and the mean acceptance statistic after it,
// and the kept draws.
func runTuned(ctx context.Context, m langevin.Model, s langevin.Sampler, theta0 []float64, warm, n int, seed uint64) (step, acc float64, draws [][]float64, err error) {
	tr, err := langevin.Run(ctx, m, s, langevin.Options{Chains: 1, Iters: warm + n, BurnIn: warm, Seed: seed, Workers: 1,
		Init: langevin.InitAt{Points: [][]float64{theta0}}})
	if err != nil {
		return 0, 0, nil, err
	}
	a, _ := tr.Stat("accept_stat__")
	st, _ := tr.Stat("stepsize__")
	for _, v := range a[0] {
		acc += min(v, 1)
	}
	rows := make([][]float64, len(tr.Draws[0]))
	for i, d := range tr.Draws[0] {
		rows[i] = d[:tr.Dim]
	}
	return st[0][0], acc / float64(len(a[0])), rows, nil
}

// optimalScaling tunes RWM and MALA on the d-dimensional standard normal
// by grid search (per step seg warm-up iterations), scored by the report's
// closest acceptance on a factor-2 grid, by the closest acceptance on a
// fine grid and by the largest expected squared jump on the fine grid
// (sampler.GridESJD); and, when scan > 0, runs scan iterations at each
// fine-grid step for the figure.
func optimalScaling(ctx context.Context, d, seg, scan, n int, seed uint64) ([]tuneRow, [2]tuneCurve, error) {
	m := model.StdNormal{D: d}
	rng := rand.New(rand.NewPCG(seed, 7))
	theta0 := make([]float64, d)
	for j := range theta0 {
		theta0[j] = rng.NormFloat64()
	}
	type spec struct {
		name           string
		centre, factor float64
		make           func(step float64, a sampler.Adapt) langevin.Sampler
	}
	specs := []spec{
		{"RWM", 2.38 / math.Sqrt(float64(d)) * 1.3, math.Pow(2, 1.0/8), func(s float64, a sampler.Adapt) langevin.Sampler { return sampler.RWM{Step: s, Adapt: a} }},
		{"MALA", 0.6 * math.Pow(float64(d), -1.0/3), math.Pow(2, 1.0/4), func(s float64, a sampler.Adapt) langevin.Sampler { return sampler.MALA{Step: s, Adapt: a} }},
	}
	var rows []tuneRow
	var curves [2]tuneCurve
	for k, sp := range specs {
		fine := gridOf(sp.centre, sp.factor)
		coarse := make([]float64, 0, 9)
		for i := -4; i <= 4; i++ {
			coarse = append(coarse, sp.centre*math.Pow(2, float64(i)))
		}
		for i, c := range []struct {
			score     sampler.GridScore
			grid      []float64
			scoreName string
			gridName  string
		}{
			{sampler.GridAccept, coarse, "closest acceptance", "factor 2 (the report's)"},
			{sampler.GridAccept, fine, "closest acceptance", fmt.Sprintf("factor %.3g", sp.factor)},
			{sampler.GridESJD, fine, "largest ESJD (parabola vertex)", fmt.Sprintf("factor %.3g", sp.factor)},
		} {
			warm := seg * len(c.grid)
			s := sp.make(1, sampler.Adapt{Warmup: warm, Tune: sampler.TuneGrid, Score: c.score, Grid: c.grid})
			step, acc, _, err := runTuned(ctx, m, s, theta0, warm, n, seed+uint64(10*k+i))
			if err != nil {
				return nil, curves, fmt.Errorf("%s: %w", sp.name, err)
			}
			rows = append(rows, tuneRow{sampler: sp.name, score: c.scoreName, grid: c.gridName, step: step, acc: acc})
		}
		// The scan at fixed steps.
		cv := &curves[k]
		for i, st := range fine {
			if scan == 0 {
				break
			}
			s := sp.make(st, sampler.Adapt{Tune: sampler.TuneNone})
			_, acc, draws, err := runTuned(ctx, m, s, theta0, 200, scan, seed+100+uint64(i))
			if err != nil {
				return nil, curves, err
			}
			var j2 float64
			for r := 1; r < len(draws); r++ {
				for j := range draws[r] {
					dd := draws[r][j] - draws[r-1][j]
					j2 += dd * dd
				}
			}
			cv.steps = append(cv.steps, st)
			cv.acc = append(cv.acc, acc)
			cv.esjd = append(cv.esjd, j2/float64(len(draws)-1))
		}
	}
	return rows, curves, nil
}

// validationSplit tunes MALA's step on the seed report's Australian credit
// regression by grid search over the report's factor-2 grid around its
// η = 0.01, scored by acceptance, by ESJD and (§3.4) by the mean
// log-likelihood per row of a validation split — 20% of the training rows,
// held out of the likelihood — at each segment's draws; it reports the kept
// step, the acceptance after warm-up, the validation log-likelihood and the
// test accuracy of the draws.
func validationSplit(ctx context.Context, seg, n int, seed uint64) ([]tuneRow, error) {
	train, test := data.TrainTest(data.Australian(), 0.2, 1)
	sc := data.FitScaler(train.X)
	sc.Transform(train.X)
	sc.Transform(test.X)
	fitSet, val := data.TrainTest(train, 0.2, 2)
	m, err := model.NewLogistic(fitSet.X, fitSet.Y, model.LogisticOptions{PriorScale: 1})
	if err != nil {
		return nil, err
	}
	vm, err := model.NewLogistic(val.X, val.Y, model.LogisticOptions{PriorScale: 1})
	if err != nil {
		return nil, err
	}
	nv := float64(vm.Len())
	validate := func(theta []float64) float64 { return vm.LogLik(theta, nil, nil) / nv }
	mp, err := approx.FindMAP(ctx, m, nil)
	if err != nil {
		return nil, err
	}
	var rows []tuneRow
	for i, c := range []struct {
		score sampler.GridScore
		name  string
		grid  []float64
	}{
		{sampler.GridAccept, "closest acceptance (0.574)", nil},
		{sampler.GridESJD, "largest ESJD (parabola vertex)", gridOf(0.01, math.Pow(2, 1.0/4))},
		{sampler.GridValidation, "largest validation log-lik. (§3.4)", gridOf(0.01, math.Pow(2, 1.0/4))},
	} {
		grid := c.grid
		if grid == nil {
			for k := -4; k <= 4; k++ {
				grid = append(grid, 0.01*math.Pow(2, float64(k)))
			}
		}
		warm := seg * len(grid)
		s := sampler.MALA{Step: 0.01, Adapt: sampler.Adapt{Warmup: warm, Tune: sampler.TuneGrid, Score: c.score, Grid: grid, Validate: validate}}
		step, acc, draws, err := runTuned(ctx, m, s, mp, warm, n, seed+uint64(i))
		if err != nil {
			return nil, err
		}
		var lpd float64
		for _, d := range draws {
			lpd += validate(d)
		}
		ta, err := testAccuracy(m, draws, test)
		if err != nil {
			return nil, err
		}
		gname := "factor 2 around η = 0.01 (the report's)"
		if c.grid != nil {
			gname = "factor 2^(1/4) around η = 0.01"
		}
		rows = append(rows, tuneRow{sampler: "MALA", score: c.name, grid: gname, step: step, acc: acc, valLPD: lpd / float64(len(draws)), testAcc: ta})
	}
	return rows, nil
}

// checkValidation returns an error unless the §3.4 criterion keeps a step
// at which the chain hardly moves (acceptance < 0.1) while ESJD keeps one
// near MALA's 0.574: draws stuck at the MAP start score best on the
// validation rows, because the mean log-likelihood over posterior draws
// is below the log-likelihood at the mode (Jensen), so the criterion
// rewards a chain that does not sample.
func checkValidation(rows []tuneRow) error {
	for _, r := range rows {
		switch {
		case r.score == "largest validation log-lik. (§3.4)" && !(r.acc < 0.1):
			return fmt.Errorf("the validation criterion kept η = %.3g with acceptance %.3f: not a stuck chain", r.step, r.acc)
		case r.score == "largest ESJD (parabola vertex)" && !(r.acc > 0.45 && r.acc < 0.75):
			return fmt.Errorf("ESJD kept η = %.3g with acceptance %.3f on credit", r.step, r.acc)
		}
	}
	return nil
}

// checkOptimalScaling returns an error unless the ESJD rows land within tol
// of the limits: RWM 0.234 ± 0.04, MALA 0.574 ± 0.06 (the spread over
// seeds at d = 100 and segments of 2,500 iterations; MALA's finite-d
// optimum lies above its limit).
func checkOptimalScaling(rows []tuneRow) error {
	for _, r := range rows {
		if r.score != "largest ESJD (parabola vertex)" {
			continue
		}
		want, tol := 0.234, 0.04
		if r.sampler == "MALA" {
			want, tol = 0.574, 0.06
		}
		if math.Abs(r.acc-want) > tol {
			return fmt.Errorf("%s scored by ESJD: acceptance %.3f, want %.3f ± %.2f", r.sampler, r.acc, want, tol)
		}
	}
	return nil
}

func runReportTuning(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := NewFlags("report-tuning", "")
	d := f.Int("d", 100, "dimension `D` of the standard normal target")
	seg := f.Int("seg", 2500, "warm-up iterations `N` per grid step")
	pg, err := f.ParsePage(args, stdout, "report-tuning: grid tuning of RWM and MALA, by acceptance, by ESJD and on a validation split (seed report §3.4)")
	if err != nil {
		return err
	}
	if *d < 2 || *seg < 100 {
		return Usagef("--d %d --seg %d: expected d ≥ 2 and at least 100 iterations per grid step", *d, *seg)
	}
	rows, curves, err := optimalScaling(ctx, *d, *seg, 4**seg, 20000, f.Seed)
	if err != nil {
		return err
	}
	cerr := checkOptimalScaling(rows)
	vrows, err := validationSplit(ctx, 1000, 5000, f.Seed)
	if err != nil {
		return err
	}
	if verr := checkValidation(vrows); cerr == nil {
		cerr = verr
	}
	var plots []*gplot.Plot
	for k, name := range []string{"RWM", "MALA"} {
		cv := curves[k]
		target := []float64{0.234, 0.574}[k]
		var mx float64
		for _, v := range cv.esjd {
			mx = max(mx, v)
		}
		y := make([]float64, len(cv.esjd))
		for i, v := range cv.esjd {
			y[i] = v / mx
		}
		pl := newPlot(fmt.Sprintf("%s on N(0, I), d = %d", name, *d), "mean acceptance statistic at a fixed step", "ESJD / its largest value on the grid")
		pts := points(cv.acc, y, col(k), circle, vg.Points(3))
		pl.Add(line(cv.acc, y, col(k), false), pts)
		pl.Legend.Add("fixed-step runs on the grid", pts)
		lim := line([]float64{target, target}, []float64{0, 1.05}, refColor, true)
		pl.Add(lim)
		pl.Legend.Add(fmt.Sprintf("limit d → ∞: %.3f", target), lim)
		for _, r := range rows {
			if r.sampler == name && r.score == "largest ESJD (parabola vertex)" {
				kept := line([]float64{r.acc, r.acc}, []float64{0, 1.05}, col(k+2), false)
				pl.Add(kept)
				pl.Legend.Add(fmt.Sprintf("kept by the ESJD grid: %.3f", r.acc), kept)
			}
		}
		pl.Y.Min, pl.Y.Max = 0, 1.1
		pl.X.Min, pl.X.Max = 0, 1
		pl.Legend.Top, pl.Legend.Left = false, false
		plots = append(plots, pl)
	}
	if err := pg.Tiles("esjd", fmt.Sprintf("Expected squared jump distance against acceptance for RWM and MALA at the fine grid's fixed steps on the %d-dimensional standard normal (%d iterations each). The ESJD is flat within a few per cent over a wide band of acceptance around the optimal-scaling limits (dashed), so one fixed-step estimate per step wanders over that plateau; the grid tuning fits a parabola over the best step and its neighbours and keeps the step at its vertex (solid, acceptance measured after warm-up).", *d, 4**seg), [][]*gplot.Plot{plots}, 30*vg.Centimeter, 12*vg.Centimeter); err != nil {
		return err
	}
	pg.Printf("Command: `langevin experiment report-tuning --out DIR`; in `langevin run`: `--tune grid --grid-score accept|esjd`.\n\n")
	pg.Printf("## Optimal scaling: N(0, I) in d = %d, %d warm-up iterations per grid step, acceptance over 20,000 iterations after it\n\n| sampler | criterion | grid | step kept | acceptance |\n|---|---|---|---|---|\n", *d, *seg)
	fmt.Fprintf(stdout, "N(0, I), d = %d, %d warm-up iterations per grid step\n%-5s %-32s %-26s %10s %10s\n", *d, *seg, "", "criterion", "grid", "step", "accept")
	for _, r := range rows {
		pg.Printf("| %s | %s | %s | %.4g | %.3f |\n", r.sampler, r.score, r.grid, r.step, r.acc)
		fmt.Fprintf(stdout, "%-5s %-32s %-26s %10.4g %10.3f\n", r.sampler, r.score, r.grid, r.step, r.acc)
	}
	pg.Printf("\n## Validation split (seed report §3.4): MALA on Australian credit, 20%% of the training rows held out for the criterion\n\n| criterion | grid | η kept | acceptance | validation log-lik. per row | test accuracy |\n|---|---|---|---|---|---|\n")
	fmt.Fprintf(stdout, "\nMALA on Australian credit, validation split of 20%% of the training rows\n%-38s %10s %8s %10s %8s\n", "criterion", "η", "accept", "val. lpd", "test acc")
	for _, r := range vrows {
		pg.Printf("| %s | %s | %.4g | %.3f | %.4f | %.3f |\n", r.score, r.grid, r.step, r.acc, r.valLPD, r.testAcc)
		fmt.Fprintf(stdout, "%-38s %10.4g %8.3f %10.4f %8.3f\n", r.score, r.step, r.acc, r.valLPD, r.testAcc)
	}
	ds := []int{10, 40, 160, 640}
	drows, err := stepsByDimension(ctx, ds, 3000, 4000, f.Seed)
	if err != nil {
		return err
	}
	pg.Printf("\n## The step must shrink as d grows: dual averaging to the optimal acceptance on N(0, I_d)\n\n| d | RWM step (acceptance) | MALA step (acceptance) | MALA at d = %d's step: acceptance |\n|---|---|---|---|\n", ds[0])
	fmt.Fprintf(stdout, "\nsteps by dimension (dual averaging, 3000 warm-up, 4000 iterations)\n%6s %18s %18s %22s\n", "d", "RWM step (acc)", "MALA step (acc)", "MALA at d=10's step")
	var rwm, mala []float64
	for _, r := range drows {
		rwm, mala = append(rwm, r.rwmStep), append(mala, r.malaStep)
		pg.Printf("| %d | %.4f (%.3f) | %.4f (%.3f) | %.3f |\n", r.d, r.rwmStep, r.rwmAcc, r.malaStep, r.malaAcc, r.malaAccAtFirstStep)
		fmt.Fprintf(stdout, "%6d %10.4f (%.3f) %10.4f (%.3f) %22.3f\n", r.d, r.rwmStep, r.rwmAcc, r.malaStep, r.malaAcc, r.malaAccAtFirstStep)
	}
	sr, err1 := checkStepExponent("RWM", ds, rwm, -0.5, 0.06)
	sm, err2 := checkStepExponent("MALA", ds, mala, -1.0/3, 0.06)
	pg.Printf("\nLog-log slopes: RWM d^%.3f (theory d^−1/2), MALA d^%.3f (theory d^−1/3).\n", sr, sm)
	fmt.Fprintf(stdout, "slopes: RWM d^%.3f (theory -0.5), MALA d^%.3f (theory -0.333)\n", sr, sm)
	for _, e := range []error{err1, err2} {
		if cerr == nil {
			cerr = e
		}
	}
	if cerr != nil {
		fmt.Fprintf(stdout, "warning: %v\n", cerr)
		pg.Printf("\n**Warning:** %v\n", cerr)
	}
	return pg.Write(stdout)
}
