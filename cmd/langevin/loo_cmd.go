package main

import (
	"crypto/sha256"
	binenc "encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"encoding/json"
	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/formula"
	"github.com/langevin-go/langevin/loo"
	"github.com/langevin-go/langevin/rundir"
)

// looRun is the PSIS-LOO of one run directory.
type looRun struct {
	dir, name string
	res       *loo.Result
	pit       []float64
	rowsHash  string    // SHA-256 of the training rows' responses
	chainW    []float64 // stacking weights of the chains (--chain-weights)
	sampled   []int     // the rows of --subsample, ascending (nil: all)
	approx    []float64 // every row's log p(yᵢ | θ̄) (--subsample)
	ss        *loo.Subsampled
	note      string        // about the draws used, printed under the table
	chainRes  []*loo.Result // each chain's own PSIS-LOO (--chain-weights)
	source    string        // the data and split, for messages
}

// cmdLoo estimates each run's expected log predictive density by PSIS-LOO
// from its draws and its training data (rebuilt from DIR/model.json, as
// predict rebuilds the model), a block of rows at a time; with several runs
// it compares them (loo_compare) and weights them (stacking, pseudo-BMA+).
func cmdLoo(args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("loo", flag.ContinueOnError)
	var out, names string
	var block int
	var chainWeights bool
	var subsample int
	var seed uint64
	fs.IntVar(&subsample, "subsample", 0, "estimate from exact PSIS-LOO of `M` rows drawn at random and the point log predictive density at the posterior mean of all rows (loo_subsample's defaults; 0: every row)")
	fs.Uint64Var(&seed, "seed", 1, "--subsample: random seed of the sample")
	fs.BoolVar(&chainWeights, "chain-weights", false, "also weight each run's chains by stacking of their own PSIS-LOO (Yao, Vehtari & Gelman 2022): chains stuck in different modes get the weights that predict best")
	fs.StringVar(&out, "out", "", "write the pointwise estimates to `FILE` (CSV: run, row, elpd_loo, p_loo, pareto_k, n_eff, pit)")
	fs.StringVar(&names, "names", "", "`NAME,…`: labels of the runs in the tables (default: the directories' base names)")
	fs.IntVar(&block, "block", 256, "rows of log-likelihoods held at a time (memory: rows × draws × 8 bytes)")
	var dirs []string
	for {
		if err := parseFlags(fs, args, stdout); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		dirs = append(dirs, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(dirs) == 0:
		return fit.InputErrorf("no run directory: expected langevin loo [flags] DIR... (the --out DIRs of langevin run)")
	case block < 1:
		return fit.InputErrorf("--block %d: expected at least 1", block)
	case subsample < 0 || subsample == 1:
		return fit.InputErrorf("--subsample %d: expected 0 (every row) or at least 2 rows", subsample)
	case subsample > 0 && len(dirs) > 1:
		return fit.InputErrorf("--subsample: one run at a time (subsampled estimates are compared differently)")
	}
	labels, err := runLabels(dirs, names)
	if err != nil {
		return err
	}
	runs := make([]*looRun, len(dirs))
	for i, dir := range dirs {
		r, err := looOfRun(dir, block, chainWeights, subsample, seed)
		if err != nil {
			return err
		}
		r.name = labels[i]
		if i > 0 && r.rowsHash != runs[0].rowsHash {
			return fit.InputErrorf("%s and %s: the runs were fitted to different rows (%s; %s): leave-one-out estimates compare only on the same rows", dirs[0], dir, runs[0].source, r.source)
		}
		runs[i] = r
	}
	if out != "" {
		if err := writeCSV(out, func(w io.Writer) error { return writeLooCSV(w, runs) }); err != nil {
			return err
		}
	}
	for i, r := range runs {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		if len(runs) > 1 {
			fmt.Fprintf(stdout, "%s (%s):\n", r.name, r.dir)
		}
		if r.ss != nil {
			formatSubsampled(stdout, r.ss, r.res)
		} else {
			formatLOO(stdout, r.res)
		}
		if r.note != "" {
			fmt.Fprintln(stdout, r.note)
		}
		if r.chainW != nil {
			fmt.Fprintf(stdout, "\nchains: stacking weights of the chains' own PSIS-LOO (%d draws each)\n", r.chainRes[0].Draws)
			fmt.Fprintf(stdout, "%-7s %9s %9s %7s\n", "chain", "elpd_loo", "p_loo", "weight")
			for c, w := range r.chainW {
				fmt.Fprintf(stdout, "%-7d %9s %9s %7s\n", c+1, fr(r.chainRes[c].ELPD.Estimate, 1), fr(r.chainRes[c].PLoo.Estimate, 1), fr(w, 3))
			}
		}
	}
	if len(runs) > 1 {
		res := make([]*loo.Result, len(runs))
		for i, r := range runs {
			res[i] = r.res
		}
		cmp, err := loo.Compare(res...)
		if err != nil {
			return fit.InputError{Err: err}
		}
		fmt.Fprintln(stdout)
		formatCompare(stdout, cmp, labels)
		lpd, err := loo.ELPDMatrix(res...)
		if err != nil {
			return fit.InputError{Err: err}
		}
		st, pb := make([]float64, len(runs)), make([]float64, len(runs))
		loo.Stacking(st, lpd)
		loo.PseudoBMAPlus(pb, lpd, 1000, 1, rand.New(rand.NewPCG(1, 1)))
		fmt.Fprintln(stdout)
		formatWeights(stdout, labels, st, pb)
	}
	if out != "" {
		fmt.Fprintf(stdout, "\nwritten:  %s\n", out)
	}
	return nil
}

// looOfRun rebuilds a run's model on its training rows and computes
// PSIS-LOO and LOO-PIT over its draws, block rows at a time.
func looOfRun(dir string, block int, chainWeights bool, subsample int, seed uint64) (*looRun, error) {
	if _, err := os.Stat(filepath.Join(dir, "model.json")); err != nil {
		return nil, fit.InputErrorf("%s: %v (written by langevin run --out)", dir, err)
	}
	r, err := fit.ReadRuns([]string{dir})
	if err != nil {
		return nil, err
	}
	var m langevin.Model
	var y []float64
	var source string
	if raw := formulaOf(r); raw != nil {
		var rec formula.Record
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, fit.InputErrorf("%s: model.json: formula: %v", dir, err)
		}
		fm, err := rec.Rebuild()
		if err != nil {
			return nil, fit.InputErrorf("%s: %v", dir, err)
		}
		m, y, source = fm, fm.Response(), rec.Data
	} else {
		if m, y, source, err = looModel(dir, r); err != nil {
			return nil, err
		}
	}
	rl, ok := m.(langevin.RowLogLiker)
	if !ok {
		return nil, fit.InputErrorf("%s: the run's model gives no pointwise log-likelihood (langevin loo: linear, logistic, poisson, negbin, probit, robust and --formula runs)", dir)
	}
	cdf, _ := m.(langevin.RowCDFer)
	// the draws, chain after chain, cut to the shortest chain
	chains := r.Trace.Draws
	n := -1
	for _, ch := range chains {
		if n < 0 || len(ch) < n {
			n = len(ch)
		}
	}
	if n < 2 {
		return nil, fit.InputErrorf("%s: a chain with %d kept draws: expected at least 2 in every chain", dir, max(n, 0))
	}
	lr := &looRun{dir: dir, rowsHash: hashRows(y), source: source}
	for _, ch := range chains {
		if len(ch) != n {
			lr.note = fmt.Sprintf("note: the chains differ in length (a chain stopped early); each is cut to its first %d draws", n)
		}
	}
	dim := m.Dim()
	var draws [][]float64
	for _, ch := range chains {
		for _, row := range ch[:n] {
			if len(row) < dim {
				return nil, fit.InputErrorf("%s: the chains have %d columns, model.json describes a model with %d parameters", dir, len(row), dim)
			}
			draws = append(draws, row[:dim])
		}
	}
	if chainWeights && len(chains) < 2 {
		return nil, fit.InputErrorf("--chain-weights: %s has %d chain: expected at least 2", dir, len(chains))
	}
	var perChain [][]loo.Point
	if chainWeights {
		perChain = make([][]loo.Point, len(chains))
	}
	N := m.Len()
	which := make([]int, N)
	for i := range which {
		which[i] = i
	}
	if subsample > 0 && subsample < N {
		// loo_subsample's defaults: the point log predictive density at the
		// posterior mean approximates every row, exact PSIS-LOO of a simple
		// random sample corrects it (loo.Subsample)
		mean := make([]float64, dim)
		for _, th := range draws {
			for j, v := range th {
				mean[j] += v / float64(len(draws))
			}
		}
		lr.approx = make([]float64, N)
		rl.RowLogLik(lr.approx, mean, which)
		which = rand.New(rand.NewPCG(seed, 0)).Perm(N)[:subsample]
		slices.Sort(which)
		lr.sampled = which
	}
	lr.res, lr.pit = looBlocks(rl, cdf, draws, len(chains), which, block, perChain)
	if lr.sampled != nil {
		if lr.ss, err = loo.Subsample(lr.approx, lr.sampled, lr.res.Pointwise); err != nil {
			return nil, fit.InputError{Err: err}
		}
	}
	if chainWeights {
		lr.chainRes = make([]*loo.Result, len(chains))
		for c, pts := range perChain {
			lr.chainRes[c] = loo.Summarize(pts, n)
		}
		lpd, err := loo.ELPDMatrix(lr.chainRes...)
		if err != nil {
			return nil, err
		}
		lr.chainW = make([]float64, len(chains))
		loo.Stacking(lr.chainW, lpd)
	}
	return lr, nil
}

// looBlocks computes PSIS-LOO of the model's rows which under the draws (nc
// chains of equal length), block rows at a time, and the LOO-PIT of each row
// (NaN without a CDF); with perChain not nil, also each chain's own
// PSIS-LOO of each row, appended to perChain[c].
func looBlocks(rl langevin.RowLogLiker, cdf langevin.RowCDFer, draws [][]float64, nc int, which []int, block int, perChain [][]loo.Point) (*loo.Result, []float64) {
	S, N := len(draws), len(which)
	block = min(block, N)
	ll := mat.NewDense(block, S, nil)
	var F *mat.Dense
	if cdf != nil {
		F = mat.NewDense(block, S, nil)
	}
	rows := make([]int, block)
	col := make([]float64, block)
	pts := make([]loo.Point, 0, N)
	pit := make([]float64, 0, N)
	var ws loo.Workspace
	for lo := 0; lo < N; lo += block {
		b := min(block, N-lo)
		rows = rows[:b]
		copy(rows, which[lo:lo+b])
		for s, th := range draws {
			rl.RowLogLik(col[:b], th, rows)
			for j, v := range col[:b] {
				ll.Set(j, s, v)
			}
			if cdf != nil {
				cdf.RowCDF(col[:b], th, rows)
				for j, v := range col[:b] {
					F.Set(j, s, v)
				}
			}
		}
		for j := range b {
			pts = append(pts, ws.Row(ll.RawRowView(j), nc))
			p := math.NaN()
			if cdf != nil {
				p = 0
				for s, w := range ws.Weights() {
					p += w * F.At(j, s)
				}
			}
			pit = append(pit, p)
			if perChain != nil {
				row, n := ll.RawRowView(j), S/nc
				for c := range perChain {
					perChain[c] = append(perChain[c], ws.Row(row[c*n:(c+1)*n], 1))
				}
			}
		}
	}
	return loo.Summarize(pts, S), pit
}

// hashRows identifies the training rows by their responses.
func hashRows(y []float64) string {
	h := sha256.New()
	var b [8]byte
	for _, v := range y {
		binenc.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

func writeLooCSV(w io.Writer, runs []*looRun) error {
	if _, err := fmt.Fprintln(w, "run,row,elpd_loo,p_loo,pareto_k,n_eff,pit"); err != nil {
		return err
	}
	for _, r := range runs {
		for i, p := range r.res.Pointwise {
			row := i + 1
			if r.sampled != nil {
				row = r.sampled[i] + 1
			}
			if _, err := fmt.Fprintf(w, "%s,%d,%s,%s,%s,%s,%s\n", r.name, row, fit.FmtF(p.ELPD), fit.FmtF(p.PLoo),
				fit.FmtF(p.K), fit.FmtF(p.NEff), fit.FmtF(r.pit[i])); err != nil {
				return err
			}
		}
	}
	return nil
}

// fr is R's format(round(x, d), nsmall = d) of one number ("NA" for NaN).
func fr(x float64, d int) string {
	if math.IsNaN(x) {
		return "NA"
	}
	s := fmt.Sprintf("%.*f", d, x)
	if strings.Trim(s, "-0.") == "" {
		s = strings.TrimPrefix(s, "-")
	}
	return s
}

// padLeft and padRight pad s to width n.
func padLeft(s string, n int) string  { return strings.Repeat(" ", max(n-len([]rune(s)), 0)) + s }
func padRight(s string, n int) string { return s + strings.Repeat(" ", max(n-len([]rune(s)), 0)) }

// common formats the numbers to one width, right-justified, as R's format
// of a vector.
func common(xs []float64, d int) []string {
	out := make([]string, len(xs))
	w := 0
	for i, x := range xs {
		out[i] = fr(x, d)
		w = max(w, len(out[i]))
	}
	for i := range out {
		out[i] = padLeft(out[i], w)
	}
	return out
}

// formatSubsampled prints a Subsample estimate as loo 2.5.1 prints a
// psis_loo_ss object; res holds the sampled rows' points (MCSE, k̂ table).
func formatSubsampled(w io.Writer, s *loo.Subsampled, res *loo.Result) {
	fmt.Fprintf(w, "\nComputed from %d by %d subsampled log-likelihood\nvalues from %d total observations.\n\n", res.Draws, s.Sampled, s.Rows)
	est := common([]float64{s.ELPD.Estimate, s.PLoo.Estimate, s.LooIC.Estimate}, 1)
	se := common([]float64{s.ELPD.SE, s.PLoo.SE, s.LooIC.SE}, 1)
	sse := common([]float64{s.SubsamplingSE.ELPD, s.SubsamplingSE.PLoo, s.SubsamplingSE.LooIC}, 1)
	we, ws, wss := max(len("Estimate"), len(est[0])), max(len("SE"), len(se[0])), max(len("subsampling SE"), len(sse[0]))
	fmt.Fprintf(w, "%s %s %s %s\n", strings.Repeat(" ", 8), padLeft("Estimate", we), padLeft("SE", ws), padLeft("subsampling SE", wss))
	for i, n := range []string{"elpd_loo", "p_loo", "looic"} {
		fmt.Fprintf(w, "%s %s %s %s\n", padRight(n, 8), padLeft(est[i], we), padLeft(se[i], ws), padLeft(sse[i], wss))
	}
	formatDiagnostics(w, res)
}

// formatLOO prints a Result as R's loo 2.5.1 prints a psis_loo object, the
// last line pointing to docs/loo.md.
func formatLOO(w io.Writer, r *loo.Result) {
	fmt.Fprintf(w, "\nComputed from %d by %d log-likelihood matrix\n\n", r.Draws, r.Rows)
	est := common([]float64{r.ELPD.Estimate, r.PLoo.Estimate, r.LooIC.Estimate}, 1)
	se := common([]float64{r.ELPD.SE, r.PLoo.SE, r.LooIC.SE}, 1)
	we, ws := max(len("Estimate"), len(est[0])), max(len("SE"), len(se[0]))
	fmt.Fprintf(w, "%s %s %s\n", strings.Repeat(" ", 8), padLeft("Estimate", we), padLeft("SE", ws))
	for i, n := range []string{"elpd_loo", "p_loo", "looic"} {
		fmt.Fprintf(w, "%s %s %s\n", padRight(n, 8), padLeft(est[i], we), padLeft(se[i], ws))
	}
	formatDiagnostics(w, r)
}

// formatDiagnostics prints the MCSE and k̂ lines under loo's table.
func formatDiagnostics(w io.Writer, r *loo.Result) {
	fmt.Fprintf(w, "------\nMonte Carlo SE of elpd_loo is %s.\n", fr(r.MCSE, 1))
	if r.Bands[1].Count+r.Bands[2].Count+r.Bands[3].Count == 0 {
		fmt.Fprint(w, "\nAll Pareto k estimates are good (k < 0.5).\n")
	} else {
		fmt.Fprint(w, "\nPareto k diagnostic values:\n")
		var cnt, pct []float64
		for _, b := range r.Bands {
			cnt = append(cnt, float64(b.Count))
			pct = append(pct, 100*float64(b.Count)/float64(r.Rows))
		}
		cs, ps := common(cnt, 0), common(pct, 1)
		rn := []string{"(-Inf, 0.5]", " (0.5, 0.7]", "   (0.7, 1]", "   (1, Inf)"}
		lab := []string{"(good)", "(ok)", "(bad)", "(very bad)"}
		wc := max(len("Count"), len(cs[0]))
		wp := max(len("Pct.   "), len(ps[0])+1)
		fmt.Fprintf(w, "%s %s %s %s %s %s\n", strings.Repeat(" ", 11), " ", padRight(" ", 10), padRight("Count", wc), padRight("Pct.   ", wp), "Min. n_eff")
		for i, b := range r.Bands {
			ne := "<NA>"
			if b.Count > 0 {
				ne = fmt.Sprintf("%.0f", b.MinNEff)
			}
			fmt.Fprintf(w, "%s %s %s %s %s %s\n", rn[i], " ", padRight(lab[i], 10), padRight(cs[i], wc), padRight(ps[i]+"%", wp), padRight(ne, 10))
		}
		if r.Bands[2].Count+r.Bands[3].Count == 0 {
			fmt.Fprint(w, "\nAll Pareto k estimates are ok (k < 0.7).\n")
		}
	}
	fmt.Fprint(w, "See docs/loo.md for what the Pareto k values mean and what to do when they are high.\n")
}

// formatCompare prints Compare's rows as R's print of loo_compare.
func formatCompare(w io.Writer, cmp []loo.Comparison, names []string) {
	var all []float64
	for _, c := range cmp {
		all = append(all, c.ELPDDiff, c.SEDiff)
	}
	f := common(all, 1)
	wn := 0
	for _, c := range cmp {
		wn = max(wn, len([]rune(names[c.Model])))
	}
	wd, ws := max(len("elpd_diff"), len(f[0])), max(len("se_diff"), len(f[0]))
	fmt.Fprintf(w, "%s %s %s\n", strings.Repeat(" ", wn), padRight("elpd_diff", wd), padRight("se_diff", ws))
	for j, c := range cmp {
		fmt.Fprintf(w, "%s %s %s\n", padRight(names[c.Model], wn), padRight(f[2*j], wd), padRight(f[2*j+1], ws))
	}
}

// formatWeights prints the stacking and pseudo-BMA+ weights.
func formatWeights(w io.Writer, names []string, st, pb []float64) {
	wn := 0
	for _, n := range names {
		wn = max(wn, len([]rune(n)))
	}
	a, b := common(st, 3), common(pb, 3)
	fmt.Fprintf(w, "%s %s %s\n", strings.Repeat(" ", wn), "stacking", "pseudo-BMA+")
	for k, n := range names {
		fmt.Fprintf(w, "%s %s %s\n", padRight(n, wn), padLeft(a[k], 8), padLeft(b[k], 11))
	}
}

// looModel rebuilds the model of a --model run from its model.json and
// training data, with the responses and a description of the rows.
func looModel(dir string, r *rundir.Run) (langevin.Model, []float64, string, error) {
	mf, sc, err := fit.ReadModelFile(r)
	if err != nil {
		return nil, nil, "", err
	}
	f := fit.Config{Set: map[string]bool{}, Data: mf.Data, Target: mf.Target, Model: mf.Kind, Labels: mf.Labels}
	if mf.Columns.HasText() {
		f.Columns.Coding = mf.Columns
	}
	if mf.Columns != nil {
		f.Columns.Missing = mf.Columns.Missing
	}
	what := filepath.Join(dir, "model.json") + ": the run's data"
	if f.IsStoreData() {
		return nil, nil, "", fit.InputErrorf("%s: a data store: langevin loo reads the training rows into memory; convert is one way, not back", what)
	}
	if _, _, generated, _ := fit.GeneratedData(&f, f.Data); generated {
		return nil, nil, "", fit.InputErrorf("%s: generated data: langevin loo needs the training rows in a file", what)
	}
	d, err := fit.ReadData(&f, f.Data, what, true)
	if err != nil {
		return nil, nil, "", err
	}
	source := mf.Data
	if mf.Split != nil {
		if d, err = fit.ApplySplit(mf.Split, d, "train", mf.Data); err != nil {
			return nil, nil, "", err
		}
		source += fmt.Sprintf(", the %d training rows of its split (seed %d)", d.Len(), mf.Split.Seed)
	}
	if d.Y == nil {
		return nil, nil, "", fit.InputErrorf("%s: no response column %q", what, mf.Target)
	}
	var offVals []float64
	if mf.Spec.Offset != "" {
		if offVals, err = fit.TakeColumn(d, mf.Spec.Offset, "the run's offset column"); err != nil {
			return nil, nil, "", err
		}
	}
	if err := fit.AlignColumns(&data.Dataset{Names: mf.Features, Source: mf.Data}, d, what); err != nil {
		return nil, nil, "", err
	}
	if sc != nil {
		sc.Transform(d.X)
	}
	m, err := mf.Spec.BuildOffset(d.X, d.Y, offVals)
	if err != nil {
		return nil, nil, "", fit.InputErrorf("%s: %v", what, err)
	}
	if sc != nil && sc.TargetScale != 0 {
		return nil, nil, "", fit.InputErrorf("%s: the run standardised its response: not supported by langevin loo yet", dir)
	}
	return m, d.Y, source, nil
}
