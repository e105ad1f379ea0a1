package formula

import (
	"context"
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/sampler"
)

// The scale case of issue 22: a logistic model with correlated varying
// intercepts and slopes, y ~ x + (1 + x | g), J groups, n rows. x takes
// the nine values −2, −1.5, …, 2, so that the rows of one group and one x
// are binomial cells: the model of the cells, s | trials(t) ~ x + (1 + x |
// g) (family binomial, centring weighted by the trials), is the same
// posterior as the model of the rows (TestScaleCellsSamePosterior), and a
// long NUTS reference on 10⁶ rows costs what NUTS costs on 9,000 cells.
const (
	scaleFormula      = "y ~ x + (1 + x | g)"
	scaleCellsFormula = "s ~ x + (1 + x | g)"
)

// scaleTruth: population intercept and slope, group sds, correlation.
var scaleTruth = struct{ a, b, sdI, sdX, rho float64 }{-0.5, 0.7, 0.8, 0.5, 0.4}

// simScale returns the rows: columns y (0/1), x, g (levels g0001 … in
// sorted order).
func simScale(n, J int, seed uint64) (y []int, x []float64, g []int, levels []string) {
	rng := rand.New(rand.NewPCG(seed, 22))
	tr := scaleTruth
	a := make([]float64, J)
	bx := make([]float64, J)
	for j := range a {
		z1, z2 := rng.NormFloat64(), rng.NormFloat64()
		a[j] = tr.sdI * z1
		bx[j] = tr.sdX * (tr.rho*z1 + math.Sqrt(1-tr.rho*tr.rho)*z2)
	}
	y, x, g = make([]int, n), make([]float64, n), make([]int, n)
	for i := range y {
		x[i] = float64(rng.IntN(9))/2 - 2
		g[i] = rng.IntN(J)
		eta := tr.a + a[g[i]] + (tr.b+bx[g[i]])*x[i]
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	levels = make([]string, J)
	for j := range levels {
		levels[j] = fmt.Sprintf("g%04d", j+1)
	}
	return y, x, g, levels
}

func scaleRows(n, J int, seed uint64) *Frame {
	y, x, g, levels := simScale(n, J, seed)
	yf := make([]float64, n)
	for i, v := range y {
		yf[i] = float64(v)
	}
	f := &Frame{}
	f.AddNumeric("y", yf)
	f.AddNumeric("x", x)
	f.AddFactor("g", g, levels)
	return f
}

// scaleCells returns the binomial cells of the same rows: s successes in t
// trials for each group and value of x that has rows.
func scaleCells(n, J int, seed uint64) *Frame {
	y, x, g, levels := simScale(n, J, seed)
	s := make([]float64, J*9)
	t := make([]float64, J*9)
	for i := range y {
		c := g[i]*9 + int(math.Round((x[i]+2)*2))
		s[c] += float64(y[i])
		t[c]++
	}
	var cs, ct, cx []float64
	var cg []int
	for c := range s {
		if t[c] == 0 {
			continue
		}
		cs, ct = append(cs, s[c]), append(ct, t[c])
		cx, cg = append(cx, float64(c%9)/2-2), append(cg, c/9)
	}
	f := &Frame{}
	f.AddNumeric("s", cs)
	f.AddNumeric("t", ct)
	f.AddNumeric("x", cx)
	f.AddFactor("g", cg, levels)
	return f
}

func scaleModels(t testing.TB, n, J int, seed uint64) (rows, cells *Model) {
	f, err := Parse(scaleFormula)
	if err != nil {
		t.Fatal(err)
	}
	if rows, err = New(f, scaleRows(n, J, seed), Options{Family: "bernoulli"}); err != nil {
		t.Fatal(err)
	}
	fc, err := Parse(scaleCellsFormula)
	if err != nil {
		t.Fatal(err)
	}
	if cells, err = New(fc, scaleCells(n, J, seed), Options{Family: "binomial", Trials: "t"}); err != nil {
		t.Fatal(err)
	}
	return rows, cells
}

// TestScaleCellsSamePosterior: the binomial cells and the Bernoulli rows
// have the same log posterior up to a constant (the log binomial
// coefficients) and the same gradient and derived quantities at any θ —
// so NUTS on the cells is NUTS on the rows. Fails if the centring were
// unweighted (the Intercept prior then moves) or a cell lost a row.
func TestScaleCellsSamePosterior(t *testing.T) {
	rows, cells := scaleModels(t, 20000, 30, 5)
	if rows.Dim() != cells.Dim() {
		t.Fatalf("dims %d and %d", rows.Dim(), cells.Dim())
	}
	d := rows.Dim()
	rng := rand.New(rand.NewPCG(1, 2))
	var c0 float64
	for k := 0; k < 4; k++ {
		th := make([]float64, d)
		for j := range th {
			th[j] = 0.5 * rng.NormFloat64()
		}
		g1, g2 := make([]float64, d), make([]float64, d)
		l1 := rows.LogPrior(th, g1) + rows.LogLik(th, nil, g1)
		l2 := cells.LogPrior(th, g2) + cells.LogLik(th, nil, g2)
		if k == 0 {
			c0 = l2 - l1
		} else if diff := l2 - l1 - c0; math.Abs(diff) > 1e-7*math.Abs(l1) {
			t.Errorf("θ %d: log p differs by %g beyond the constant", k, diff)
		}
		for j := range g1 {
			if math.Abs(g1[j]-g2[j]) > 1e-8*(1+math.Abs(g1[j])) {
				t.Fatalf("θ %d: gradient %d: rows %g, cells %g", k, j, g1[j], g2[j])
			}
		}
		d1, d2 := make([]float64, len(rows.DerivedNames())), make([]float64, len(cells.DerivedNames()))
		rows.Derive(th, d1)
		cells.Derive(th, d2)
		for j := range d1 {
			if math.Abs(d1[j]-d2[j]) > 1e-10*(1+math.Abs(d1[j])) {
				t.Fatalf("θ %d: %s: rows %g, cells %g", k, rows.DerivedNames()[j], d1[j], d2[j])
			}
		}
	}
}

// processCPU returns the CPU seconds (user + system) of this process.
func processCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// TestWriteScale writes the rows of the scale case as CSV for the command
// (LANGEVIN_FORMULA_SCALE=DIR; LANGEVIN_FORMULA_SCALE_N rows, default 10⁶;
// 1,000 groups; seed 22): DIR/scale-N.csv.
func TestWriteScale(t *testing.T) {
	dir := os.Getenv("LANGEVIN_FORMULA_SCALE")
	if dir == "" {
		t.Skip("set LANGEVIN_FORMULA_SCALE=DIR")
	}
	n := 1000000
	if s := os.Getenv("LANGEVIN_FORMULA_SCALE_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	y, x, g, levels := simScale(n, 1000, 22)
	fh, err := os.Create(fmt.Sprintf("%s/scale-%d.csv", dir, n))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 0, 1<<16)
	buf = append(buf, "y,x,g\n"...)
	for i := range y {
		buf = strconv.AppendInt(buf, int64(y[i]), 10)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, x[i], 'g', -1, 64)
		buf = append(buf, ',')
		buf = append(buf, levels[g[i]]...)
		buf = append(buf, '\n')
		if len(buf) > 1<<15 {
			fh.Write(buf)
			buf = buf[:0]
		}
	}
	fh.Write(buf)
	if err := fh.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestScaleNUTSReference is the long NUTS reference of the scale case
// (LANGEVIN_SCALE_NUTS=1), on the binomial cells of the 10⁶ rows (the same
// posterior, TestScaleCellsSamePosterior). NUTS with a diagonal metric does
// not converge on this posterior in 4 × 500 draws (the population
// intercept against the 1,000 group intercepts: b_Intercept R̂ 1.21,
// bulk-ESS 14, 209,797 gradients), and Stan's dense adaptation needs
// windows of more than d = 2,005 draws; so the metric is dense and fixed:
// M⁻¹ = H⁻¹, H the negative Hessian at the MAP in block-arrow form (exact
// for this model), applied as a change of variables θ = θ̂ + L⁻ᵀu with
// H = LLᵀ and NUTS on u with the identity metric (the same sampler as NUTS
// on θ with inverse metric H⁻¹, at O(d) per leapfrog step instead of
// O(d²)); the step size is adapted. The draws are exact whatever the
// metric: a poor one would only mix slowly, which R̂ and ESS would show.
// 4 chains × 1,000 draws after 500 warm-up, started uniformly in
// (−2, 2) in u (two Laplace sds in every direction).
//
// It writes testdata/scale-nuts.csv (mean, sd, R̂, bulk-ESS of b_, sd_,
// cor_) and testdata/scale-nuts.txt: the command, the CPU seconds on the
// cells, the full-data gradients (the MAP's and the Hessian's included)
// and the CPU seconds of one full-data gradient on the 10⁶ rows; the
// reference's time is the product, the cost of the same run on the rows.
func TestScaleNUTSReference(t *testing.T) {
	if os.Getenv("LANGEVIN_SCALE_NUTS") == "" {
		t.Skip("set LANGEVIN_SCALE_NUTS=1: NUTS reference of the 10⁶-row scale case")
	}
	n, J := 1000000, 1000
	rows, cells := scaleModels(t, n, J, 22)
	d := cells.Dim()
	// CPU seconds of one full-data gradient on the rows (best of 5).
	th := make([]float64, d)
	gr := make([]float64, d)
	best := math.Inf(1)
	for k := 0; k < 5; k++ {
		c0 := processCPU()
		rows.LogPrior(th, gr)
		rows.LogLik(th, nil, gr)
		best = math.Min(best, processCPU()-c0)
	}
	rows = nil
	ctx := context.Background()
	c0, w0 := processCPU(), time.Now()
	cm := &countedModel{Model: cells}
	p, err := fit.NewPlan(ctx, cm, fit.PlanOptions{Seed: 1, Kind: "sgld"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Arrow == nil {
		t.Fatal("no block-arrow Hessian")
	}
	// Full-data gradients: the rows covered over the cells' number (the
	// plan's noise measurement adds 8,000 one-cell calls, 0.9 of a pass).
	setupFull := float64(cm.rows.Load()) / float64(cells.Len())
	wm := &whitenedModel{m: cm, h: p.Arrow, mode: p.MAP}
	nuts := sampler.NUTS{}
	nuts.Adapt.Metric = sampler.MetricFixed
	tr, err := langevin.Run(ctx, wm, nuts,
		langevin.Options{Chains: 4, Iters: 1500, BurnIn: 500, Seed: 1, Init: langevin.InitUniform{}})
	if err != nil {
		t.Fatal(err)
	}
	cpu, wall := processCPU()-c0, time.Since(w0)
	names := cells.DerivedNames()
	all := tr.Params()
	var keepN []string
	var keepC [][][]float64
	for j, nm := range names {
		if nm[0] == 'r' {
			continue
		}
		keepN, keepC = append(keepN, nm), append(keepC, all[d+j])
	}
	table := diag.Summarize(keepN, keepC)
	fh, err := os.Create("testdata/scale-nuts.csv")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(fh, "name,mean,sd,rhat,ess_bulk")
	for _, s := range table {
		fmt.Fprintf(fh, "%s,%.6g,%.6g,%.5g,%.5g\n", s.Name, s.Mean, s.SD, s.RHat, s.ESSBulk)
	}
	fh.Close()
	grads := float64(cm.rows.Load()) / float64(cells.Len())
	info := fmt.Sprintf(`command: LANGEVIN_SCALE_NUTS=1 nice -n 10 go test ./formula -run TestScaleNUTSReference -timeout 6h
data: simScale(n = %d, J = %d, seed 22), the %d binomial cells of its rows (model %q, family binomial, trials t)
sampler: NUTS, dense metric fixed at H⁻¹ (block-arrow negative Hessian at the MAP; fit.NewPlan's MAP and H), as NUTS with the identity metric on u, θ = θ̂ + L⁻ᵀu; step size adapted; 4 chains × 1000 draws after 500 warm-up, seed 1, initial u uniform in (−2, 2)
cpu_seconds: %.1f (on the cells: MAP, Hessian and NUTS)
wall_seconds: %.1f
full_gradients: %.0f (full-data likelihood evaluations, counted as the cells covered over the cells' number: %.0f for the MAP, the Hessian and the plan's measurements, the rest NUTS's, warm-up included)
rows_gradient_cpu_seconds: %.5f (one full-data gradient on the %d rows, best of 5)
nuts_on_rows_cpu_seconds_estimated: %.0f (full_gradients × rows_gradient_cpu_seconds)
`, n, J, cells.Len(), scaleCellsFormula, cpu, wall.Seconds(), grads, setupFull, best, n, grads*best)
	if err := os.WriteFile("testdata/scale-nuts.txt", []byte(info), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log(info)
	for _, s := range table {
		t.Logf("%s mean %.4f sd %.4f rhat %.4f ess %.0f", s.Name, s.Mean, s.SD, s.RHat, s.ESSBulk)
		if s.RHat > 1.01 || s.ESSBulk < 400 {
			t.Errorf("%s: R̂ %.4f, bulk-ESS %.0f: the reference is not converged (R̂ ≤ 1.01, ESS ≥ 400)", s.Name, s.RHat, s.ESSBulk)
		}
	}
}

// whitenedModel is the log posterior of m in the coordinates u of
// θ = mode + L⁻ᵀu, H = LLᵀ (a constant Jacobian): all of it in LogLik
// (full data only), the gradient L⁻¹∇θ, the derived quantities m's at θ.
type whitenedModel struct {
	m    *countedModel
	h    *langevin.BlockArrow
	mode []float64
}

func (w *whitenedModel) Dim() int                        { return w.m.Dim() }
func (w *whitenedModel) Len() int                        { return w.m.Len() }
func (w *whitenedModel) LogPrior(_, _ []float64) float64 { return 0 }
func (w *whitenedModel) DerivedNames() []string          { return w.m.DerivedNames() }

func (w *whitenedModel) theta(u []float64) []float64 {
	th := make([]float64, len(u))
	w.h.MulPrecondRoot(th, u)
	for j := range th {
		th[j] += w.mode[j]
	}
	return th
}

func (w *whitenedModel) LogLik(u []float64, batch []int, grad []float64) float64 {
	if batch != nil {
		panic("whitenedModel: full data only")
	}
	th := w.theta(u)
	var g []float64
	if grad != nil {
		g = make([]float64, len(u))
	}
	lp := w.m.LogPrior(th, g) + w.m.LogLik(th, nil, g)
	if grad != nil {
		w.h.MulPrecondRootT(g, g)
		for j := range grad {
			grad[j] += g[j]
		}
	}
	return lp
}

func (w *whitenedModel) Derive(u, dst []float64) { w.m.Derive(w.theta(u), dst) }

// countedModel counts the likelihood evaluations (calls) and the rows
// they cover (a nil batch: all of them).
type countedModel struct {
	*Model
	calls, rows atomic.Int64
}

func (c *countedModel) LogLik(theta []float64, batch []int, grad []float64) float64 {
	c.calls.Add(1)
	if batch == nil {
		c.rows.Add(int64(c.Model.Len()))
	} else {
		c.rows.Add(int64(len(batch)))
	}
	return c.Model.LogLik(theta, batch, grad)
}

// TaylorAt counts the expansion's pass over the rows as a full-data
// likelihood call.
func (c *countedModel) TaylorAt(hat []float64) (langevin.Taylor, error) {
	c.calls.Add(1)
	c.rows.Add(int64(c.Model.Len()))
	return c.Model.TaylorAt(hat)
}

// TestScaleJobGradients counts the work of the command's default job on the
// 10⁶-row scale case before its sampling (LANGEVIN_SCALE_COUNT=1): the
// MAP (fit.NewLaplace, as the command) and the block plan, in row
// gradients (one full-data gradient = 10⁶). The sampling adds
// 2·|B| row gradients per chain and iteration (SGLD with control
// variates), so the job's work is machine-independent and comparable with
// the NUTS reference's full gradients (testdata/scale-nuts.txt).
func TestScaleJobGradients(t *testing.T) {
	if os.Getenv("LANGEVIN_SCALE_COUNT") == "" {
		t.Skip("set LANGEVIN_SCALE_COUNT=1: the 10⁶-row case's MAP and plan, counted")
	}
	rows, _ := scaleModels(t, 1000000, 1000, 22)
	cm := &countedModel{Model: rows}
	ctx := context.Background()
	mp, err := fit.NewLaplace(cm).MAP(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mapCalls, mapRows := cm.calls.Load(), cm.rows.Load()
	p, err := fit.NewPlan(ctx, cm, fit.PlanOptions{Seed: 1, MAP: mp})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MAP: %d likelihood calls, %d row gradients (%.1f full)", mapCalls, mapRows, float64(mapRows)/1e6)
	t.Logf("plan: %d calls, %d row gradients (%.1f full); batch %d, η %.3g, burn-in %d",
		cm.calls.Load()-mapCalls, cm.rows.Load()-mapRows, float64(cm.rows.Load()-mapRows)/1e6, p.Batch.Size, p.Step.Eta, p.BurnIn)
}

// BenchmarkScaleCellsGradient: one full gradient of the cells of 10⁵ rows.
func BenchmarkScaleCellsGradient(b *testing.B) {
	_, cells := scaleModels(b, 100000, 1000, 22)
	th := make([]float64, cells.Dim())
	g := make([]float64, cells.Dim())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cells.LogLik(th, nil, g)
	}
}

// TestScaleAgainstNUTS checks a run of the command on the 10⁶-row scale
// case against the NUTS reference (LANGEVIN_SCALE_RUN=DIR, DIR written by
//
//	langevin run --data scale-1000000.csv --formula 'y ~ x + (1 + x | g)' --family bernoulli --out DIR
//
// on the file TestWriteScale writes, no tuning flag): every b_, sd_, cor_
// of DIR/summary.csv within 0.1 reference sd of testdata/scale-nuts.csv's
// mean and its sd within 10% (issue 22's acceptance line 2).
func TestScaleAgainstNUTS(t *testing.T) {
	dir := os.Getenv("LANGEVIN_SCALE_RUN")
	if dir == "" {
		t.Skip("set LANGEVIN_SCALE_RUN=DIR of the command's run on the 10⁶-row scale case")
	}
	read := func(path string, cols ...string) map[string][]float64 {
		fh, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		recs, err := csv.NewReader(fh).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		idx := make([]int, len(cols))
		for k, c := range cols {
			idx[k] = slices.Index(recs[0], c)
			if idx[k] < 0 {
				t.Fatalf("%s: no column %s", path, c)
			}
		}
		out := map[string][]float64{}
		for _, r := range recs[1:] {
			v := make([]float64, len(cols))
			for k, i := range idx {
				v[k], _ = strconv.ParseFloat(r[i], 64)
			}
			out[r[0]] = v
		}
		return out
	}
	ref := read("testdata/scale-nuts.csv", "mean", "sd", "ess_bulk")
	ours := read(dir+"/summary.csv", "mean", "sd", "ess_bulk", "rhat")
	for _, name := range slices.Sorted(maps.Keys(ref)) {
		r := ref[name]
		o, ok := ours[name]
		if !ok {
			t.Errorf("%s: not in %s/summary.csv", name, dir)
			continue
		}
		dm, ratio := math.Abs(o[0]-r[0])/r[1], o[1]/r[1]
		t.Logf("| `%s` | %.4f | %.4f | %.4f | %.4f | %.3f | %.3f | %.0f | %.0f |", name, r[0], o[0], r[1], o[1], dm, ratio, r[2], o[2])
		if dm > 0.1 || math.Abs(ratio-1) > 0.1 {
			t.Errorf("%s: mean %.4f sd %.4f, NUTS %.4f %.4f: |Δmean|/sd %.3f, sd ratio %.3f", name, o[0], o[1], r[0], r[1], dm, ratio)
		}
	}
}

// BenchmarkScaleRowsBatchGradient: the gradient of the block plan's
// minibatch on the 10⁶-row scale case (44,196 rows drawn without
// replacement, the plan's batch), with its CPU time per op (cpu-ns/op:
// this process's user + system time, which a loaded machine does not
// inflate as it does wall time); 0 allocs/op.
func BenchmarkScaleRowsBatchGradient(b *testing.B) {
	rows, _ := scaleModels(b, 1000000, 1000, 22)
	rng := rand.New(rand.NewPCG(1, 2))
	batch := rng.Perm(rows.Len())[:44196]
	th := make([]float64, rows.Dim())
	g := make([]float64, rows.Dim())
	rows.LogLik(th, batch, g)
	b.ReportAllocs()
	b.ResetTimer()
	c0 := processCPU()
	for i := 0; i < b.N; i++ {
		rows.LogLik(th, batch, g)
	}
	b.ReportMetric((processCPU()-c0)*1e9/float64(b.N), "cpu-ns/op")
}

// BenchmarkScaleRowsPairGradient: the control variate's two gradients on
// one minibatch of the 10⁶-row scale case (at θ and at θ̂, the block plan's
// cost per chain and iteration), by LogLikPair, which gathers the batch's
// records once; CPU time per op; 0 allocs/op.
func BenchmarkScaleRowsPairGradient(b *testing.B) {
	rows, _ := scaleModels(b, 1000000, 1000, 22)
	rng := rand.New(rand.NewPCG(1, 2))
	batch := rng.Perm(rows.Len())[:44196]
	th := make([]float64, rows.Dim())
	hat := make([]float64, rows.Dim())
	g := make([]float64, rows.Dim())
	gh := make([]float64, rows.Dim())
	rows.LogLikPair(th, hat, batch, g, gh)
	b.ReportAllocs()
	b.ResetTimer()
	c0 := processCPU()
	for i := 0; i < b.N; i++ {
		rows.LogLikPair(th, hat, batch, g, gh)
	}
	b.ReportMetric((processCPU()-c0)*1e9/float64(b.N), "cpu-ns/op")
}

// TestScaleMemory reads LANGEVIN_SCALE_MEM (a file TestWriteScale wrote),
// builds the scale model and takes one full-data gradient: what the
// command holds before its MAP. Run it under /usr/bin/time -v for the peak
// resident memory (docs/formulas.md, 10⁷ rows).
func TestScaleMemory(t *testing.T) {
	path := os.Getenv("LANGEVIN_SCALE_MEM")
	if path == "" {
		t.Skip("set LANGEVIN_SCALE_MEM=scale-N.csv")
	}
	tab, err := ReadCSVFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := Parse(scaleFormula)
	m, err := New(f, tab, Options{Family: "bernoulli"})
	if err != nil {
		t.Fatal(err)
	}
	g := make([]float64, m.Dim())
	m.LogLik(make([]float64, m.Dim()), nil, g)
	t.Logf("%d rows, %d parameters; gradient[0] %.6g", m.Len(), m.Dim(), g[0])
}

// BenchmarkScaleTaylorRest: the second-order control variate's batch
// term on the 10⁶-row scale case, a batch of 1,525 rows (the plan's),
// at a point off the centre; CPU time per op; 0 allocs/op.
func BenchmarkScaleTaylorRest(b *testing.B) {
	rows, _ := scaleModels(b, 1000000, 1000, 22)
	rng := rand.New(rand.NewPCG(1, 2))
	batch := rng.Perm(rows.Len())[:1525]
	hat := make([]float64, rows.Dim())
	th := make([]float64, rows.Dim())
	for j := range th {
		th[j] = 0.1 * rng.NormFloat64()
	}
	tay, err := rows.TaylorAt(hat)
	if err != nil {
		b.Fatal(err)
	}
	g := make([]float64, rows.Dim())
	b.ReportAllocs()
	b.ResetTimer()
	c0 := processCPU()
	for i := 0; i < b.N; i++ {
		tay.Rest(th, batch, g)
	}
	b.ReportMetric((processCPU()-c0)*1e9/float64(b.N), "cpu-ns/op")
}
