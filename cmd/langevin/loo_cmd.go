package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"encoding/json"
	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/formula"
	"github.com/langevin-go/langevin/loo"
	"github.com/langevin-go/langevin/report"
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
	kfold     *kfoldResult  // --kfold
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
	var subsampleFlag string
	var seed uint64
	fs.StringVar(&subsampleFlag, "subsample", "auto", "estimate from exact PSIS-LOO of `M` rows drawn at random and the point log predictive density at the posterior mean of all rows (loo_subsample's defaults); 0: every row; auto: every row up to 1e8 log-likelihoods (rows × draws), beyond that M by a rule, printed")
	fs.Uint64Var(&seed, "seed", 1, "--subsample: random seed of the sample")
	fs.BoolVar(&chainWeights, "chain-weights", false, "also weight each run's chains by stacking of their own PSIS-LOO (Yao, Vehtari & Gelman 2022): chains stuck in different modes get the weights that predict best")
	fs.StringVar(&out, "out", "", "write the pointwise estimates to `FILE` (CSV: run, row, elpd_loo, p_loo, pareto_k, n_eff, pit)")
	fs.StringVar(&names, "names", "", "`NAME,…`: labels of the runs in the tables (default: the directories' base names)")
	var withReport bool
	var kfold int
	fs.IntVar(&kfold, "kfold", 0, "also K-fold cross-validation: refit each run `K` times with its own arguments (resume.json), each without one fold of a seeded random partition of its training rows, and score the fold's rows (brms's kfold; for rows whose Pareto k̂ is high); 0: none")
	var kfoldBy string
	fs.StringVar(&kfoldBy, "kfold-by", "", "what a fold of a --formula run holds: whole levels of the `COLUMN` (grouped folds, brms's kfold(folds = \"grouped\")), or rows; default: the formula's first grouping factor, printed (rows without one)")
	fs.BoolVar(&withReport, "report", false, "also draw the k̂ plot and the LOO-PIT in a \"LOO\" section of each DIR/report.html (written as langevin report writes it when missing)")
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
	subsample := -1
	if subsampleFlag != "auto" {
		v, err := strconv.Atoi(subsampleFlag)
		if err != nil || v < 0 || v == 1 {
			return fit.InputErrorf("--subsample %s: expected 0 (every row), at least 2 rows, or auto", subsampleFlag)
		}
		subsample = v
	} else if len(dirs) > 1 {
		subsample = 0 // comparisons are of every row
	}
	if kfold != 0 && subsampleFlag == "auto" {
		subsample = 0 // p_kfold needs every row's lpd
	}
	switch {
	case kfold < 0 || kfold == 1:
		return fit.InputErrorf("--kfold %d: expected 0 (none) or at least 2 folds", kfold)
	case kfoldBy != "" && kfold == 0:
		return fit.InputErrorf("--kfold-by %s: without --kfold K there are no folds", kfoldBy)
	case kfold > 0 && subsample > 0:
		return fit.InputErrorf("--kfold with --subsample: K-fold scores every row")
	case len(dirs) == 0:
		return fit.InputErrorf("no run directory: expected langevin loo [flags] DIR... (the --out DIRs of langevin run)")
	case block < 1:
		return fit.InputErrorf("--block %d: expected at least 1", block)
	case subsample > 0 && len(dirs) > 1:
		return fit.InputErrorf("--subsample: one run at a time (subsampled estimates are compared differently)")
	}
	labels, err := runLabels(dirs, names)
	if err != nil {
		return err
	}
	runs := make([]*looRun, len(dirs))
	var notes []string
	for i, dir := range dirs {
		r, err := looOfRun(dir, block, chainWeights, subsample, seed, &notes)
		if err != nil {
			return err
		}
		r.name = labels[i]
		if kfold > 0 {
			if r.kfold, err = looKFold(dir, kfold, kfoldBy, seed, r.res.ELPD.Estimate+r.res.PLoo.Estimate); err != nil {
				return err
			}
		}
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
	for _, n := range notes {
		fmt.Fprintln(stdout, n)
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
		if r.kfold != nil {
			formatKFold(stdout, r.kfold)
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
	if withReport {
		for _, r := range runs {
			path, err := looReport(r)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "\nreport:   %s (section LOO)\n", path)
		}
	}
	if out != "" {
		fmt.Fprintf(stdout, "\nwritten:  %s\n", out)
	}
	return nil
}

// looReport puts the run's k̂ plot, LOO-PIT and table into the "LOO"
// section of DIR/report.html, writing the page first (langevin report) when
// there is none.
func looReport(r *looRun) (string, error) {
	path := filepath.Join(r.dir, rundir.ReportFile)
	if _, err := os.Stat(path); err != nil {
		if err := cmdReport([]string{r.dir}, io.Discard, io.Discard); err != nil {
			return "", err
		}
	}
	page, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var text strings.Builder
	if r.ss != nil {
		formatSubsampled(&text, r.ss, r.res)
	} else {
		formatLOO(&text, r.res)
	}
	k := make([]float64, len(r.res.Pointwise))
	for i, p := range r.res.Pointwise {
		k[i] = p.K
	}
	var rows []int
	for _, i := range r.sampled {
		rows = append(rows, i+1)
	}
	sec, err := report.LOOSection(k, r.pit, rows, loo.KThreshold(r.res.Draws), strings.TrimSpace(text.String()))
	if err != nil {
		return "", err
	}
	page, err = report.Splice(page, "loo", sec)
	if err != nil {
		return "", fit.InputErrorf("%s: %v", path, err)
	}
	return path, os.WriteFile(path, page, 0o644)
}

// looOfRun rebuilds a run's model on its training rows and computes
// PSIS-LOO and LOO-PIT over its draws, block rows at a time: of every row,
// or of a random sample of subsample rows (−1: by rule, looSubsampleRule).
func looOfRun(dir string, block int, chainWeights bool, subsample int, seed uint64, notes *[]string) (*looRun, error) {
	if _, err := os.Stat(filepath.Join(dir, "model.json")); err != nil {
		return nil, fit.InputErrorf("%s: %v (written by langevin run --out)", dir, err)
	}
	r, err := readRuns([]string{dir})
	if err != nil {
		return nil, err
	}
	if err := checkInputs(dir); err != nil {
		return nil, err
	}
	var src looSource
	var source string
	var dim int
	if raw := formulaOf(r); raw != nil {
		var rec formula.Record
		if err := json.Unmarshal(raw, &rec); err != nil {
			return nil, fit.InputErrorf("%s: model.json: formula: %v", dir, err)
		}
		fm, err := rec.Rebuild(runRead(r))
		if err != nil {
			return nil, fit.InputErrorf("%s: %v", dir, err)
		}
		src, source, dim = &memSource{rl: fm, y: fm.Response()}, rec.Data, fm.Dim()
	} else {
		if src, source, dim, err = looModel(dir, r); err != nil {
			return nil, err
		}
	}
	// the draws, chain after chain, cut to the shortest chain
	chains := r.Trace.Draws
	n := -1
	for _, ch := range chains {
		if n < 0 || len(ch) < n {
			n = len(ch)
		}
	}
	if n < 2 {
		return nil, fit.InputErrorf("%s: a chain with %d kept draw(s): expected at least 2 in every chain (PSIS-LOO needs a sample of the posterior)", dir, max(n, 0))
	}
	lr := &looRun{dir: dir, source: source}
	for _, ch := range chains {
		if len(ch) != n {
			lr.note = fmt.Sprintf("note: the chains differ in length (a chain stopped early); each is cut to its first %d draws", n)
		}
	}
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
	N, S := src.Len(), len(draws)
	if subsample < 0 {
		if float64(N)*float64(S) <= looFullBudget {
			subsample = 0
		} else {
			subsample = -1
		}
	}
	which := make([]int, N)
	for i := range which {
		which[i] = i
	}
	if subsample != 0 && (subsample < 0 || subsample < N) {
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
		if err := src.Approx(lr.approx, mean); err != nil {
			return nil, fit.InputError{Err: err}
		}
		perm := rand.New(rand.NewPCG(seed, 0)).Perm(N)
		if subsample < 0 {
			// the rule: a pilot sample, then as many rows as make the
			// subsampling SE at most looSubsampleFrac of the SE of elpd_loo
			m0 := min(N, looPilot)
			pilot := slices.Sorted(slices.Values(perm[:m0]))
			res, _, err := looBlocks(src, draws, len(chains), pilot, block, nil)
			if err != nil {
				return nil, fit.InputError{Err: err}
			}
			diff := make([]float64, m0)
			for j, i := range pilot {
				diff[j] = res.Pointwise[j].ELPD - lr.approx[i]
			}
			m := max(m0, loo.SubsampleSize(lr.approx, diff, looSubsampleFrac))
			*notes = append(*notes, fmt.Sprintf("auto: --subsample %d of %d rows: %d rows × %d draws is more than %.0e log-likelihoods; m from a pilot of %d rows so that the subsampling SE is at most %g of elpd_loo's SE (--subsample 0: every row)",
				m, N, N, S, looFullBudget, m0, looSubsampleFrac))
			subsample = m
		}
		which = slices.Sorted(slices.Values(perm[:subsample]))
		lr.sampled = which
	}
	lr.res, lr.pit, err = looBlocks(src, draws, len(chains), which, block, perChain)
	if err != nil {
		return nil, fit.InputError{Err: err}
	}
	if lr.rowsHash, err = src.RowsHash(); err != nil {
		return nil, fit.InputError{Err: err}
	}
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

// The rule of langevin loo's default --subsample: every row while the
// log-likelihoods number at most looFullBudget (rows × draws), else a
// random sample of rows, at least looPilot, enough that the subsampling SE
// is at most looSubsampleFrac of the SE of elpd_loo (loo.SubsampleSize).
var looFullBudget = 1e8 // a variable for tests

const (
	looPilot         = 400
	looSubsampleFrac = 0.5
)

// checkInputs refuses a run whose input files (resume.json's digests) have
// changed or gone since it ran: its draws are of other data.
func checkInputs(dir string) error {
	ri, err := rundir.ReadResumeInfo(dir)
	if err != nil {
		return nil // an older run: nothing recorded to check
	}
	for _, in := range ri.Inputs {
		path := in.Path
		if !filepath.IsAbs(path) && ri.Dir != "" {
			if _, err := os.Stat(path); err != nil {
				path = filepath.Join(ri.Dir, path)
			}
		}
		now, err := rundir.DigestFile(in.Flag, path)
		if err != nil || now == nil || now.Size != in.Size || now.SHA256 != in.SHA256 {
			why := "has changed since it ran (size %d, sha256 %.12s… then): its draws are of other data; restore the file or run again"
			if now == nil {
				why = "is missing (size %d, sha256 %.12s… when it ran): the rows left out one at a time are read from it; restore it"
			}
			return fit.InputErrorf("%s: the run's --%s %s "+why, dir, in.Flag, in.Path, in.Size, in.SHA256)
		}
	}
	return nil
}

// looBlocks computes PSIS-LOO of the source's rows which (ascending) under
// the draws (nc chains of equal length), block rows at a time, and the
// LOO-PIT of each row (NaN without a CDF); with perChain not nil, also each
// chain's own PSIS-LOO of each row, appended to perChain[c].
func looBlocks(src looSource, draws [][]float64, nc int, which []int, block int, perChain [][]loo.Point) (*loo.Result, []float64, error) {
	S, N := len(draws), len(which)
	block = min(block, N)
	ll := mat.NewDense(block, S, nil)
	var F *mat.Dense
	if src.HasCDF() {
		F = mat.NewDense(block, S, nil)
	}
	pts := make([]loo.Point, 0, N)
	pit := make([]float64, 0, N)
	var ws loo.Workspace
	for lo := 0; lo < N; lo += block {
		b := min(block, N-lo)
		llb := ll.Slice(0, b, 0, S).(*mat.Dense)
		var Fb *mat.Dense
		if F != nil {
			Fb = F.Slice(0, b, 0, S).(*mat.Dense)
		}
		if err := src.Eval(llb, Fb, which[lo:lo+b], draws); err != nil {
			return nil, nil, err
		}
		for j := range b {
			row := ll.RawRowView(j)
			for s, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, nil, fmt.Errorf("row %d, draw %d: log-likelihood %v: expected a finite number", which[lo+j]+1, s+1, v)
				}
			}
			pts = append(pts, ws.Row(row, nc))
			p := math.NaN()
			if F != nil {
				p = 0
				for s, w := range ws.Weights() {
					p += w * F.At(j, s)
				}
			}
			pit = append(pit, p)
			if perChain != nil {
				n := S / nc
				for c := range perChain {
					perChain[c] = append(perChain[c], ws.Row(row[c*n:(c+1)*n], 1))
				}
			}
		}
	}
	return loo.Summarize(pts, S), pit, nil
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
// training data, as a source of pointwise log-likelihoods, with a
// description of the rows and the model's number of parameters.
func looModel(dir string, r *rundir.Run) (looSource, string, int, error) {
	mf, sc, err := readModelFile(r)
	if err != nil {
		return nil, "", 0, err
	}
	f := fit.Config{Set: map[string]bool{}, Data: mf.Data, Format: "auto", Target: mf.Target, Model: mf.Kind, Labels: mf.Labels}
	if mf.Columns.HasText() {
		f.Columns.Coding = mf.Columns
	}
	if mf.Columns != nil {
		f.Columns.Missing = mf.Columns.Missing
	}
	f.Columns.UseRead(mf.Read, nil) // the run's --na, --sep, --decimal
	what := filepath.Join(dir, "model.json") + ": the run's data"
	if f.IsStoreData() {
		return looStore(dir, mf, sc)
	}
	if _, _, generated, _ := fit.GeneratedData(&f, f.Data); generated {
		return nil, "", 0, fit.InputErrorf("%s: generated data: langevin loo needs the training rows in a file", what)
	}
	d, err := fit.ReadData(&f, f.Data, what, true)
	if err != nil {
		return nil, "", 0, err
	}
	source := mf.Data
	if mf.Split != nil {
		if d, err = applySplit(mf.Split, d, "train", mf.Data); err != nil {
			return nil, "", 0, err
		}
		source += fmt.Sprintf(", the %d training rows of its split (seed %d)", d.Len(), mf.Split.Seed)
	}
	if d.Y == nil {
		return nil, "", 0, fit.InputErrorf("%s: no response column %q", what, mf.Target)
	}
	var offVals []float64
	if mf.Spec.Offset != "" {
		if offVals, err = fit.TakeColumn(d, mf.Spec.Offset, "the run's offset column"); err != nil {
			return nil, "", 0, err
		}
	}
	if err := fit.AlignColumns(&data.Dataset{Names: mf.Features, Source: mf.Data}, d, what); err != nil {
		return nil, "", 0, err
	}
	if sc != nil {
		sc.Transform(d.X)
	}
	// A run that standardised its response (an MLP regression) has a model
	// of z = (y − ȳ)/s_y, with ȳ and s_y of its training rows in
	// scaler.json: the model is built on z, and log p(y|θ) =
	// log p(z|θ) − log s_y (memSource.logSY).
	resp, logSY := d.Y, 0.0
	if sc != nil && sc.TargetScale != 0 {
		resp = slices.Clone(d.Y)
		sc.TransformTarget(resp)
		logSY = math.Log(sc.TargetScale)
	}
	m, err := mf.Spec.BuildOffset(d.X, resp, offVals)
	if err != nil {
		return nil, "", 0, fit.InputErrorf("%s: %v", what, err)
	}
	rl, ok := m.(langevin.RowLogLiker)
	if !ok {
		return nil, "", 0, errNoRowLogLik(dir)
	}
	cdf, _ := m.(langevin.RowCDFer)
	return &memSource{rl: rl, cdf: cdf, y: d.Y, logSY: logSY}, source, m.Dim(), nil
}

func errNoRowLogLik(dir string) error {
	return fit.InputErrorf("%s: the run's model gives no pointwise log-likelihood (langevin loo: linear, logistic, poisson, negbin, probit, robust and --formula runs)", dir)
}

// looStore is looModel of a run on a data store: the store's rows as the
// run read them (labels recoded by model.json's labels, its hashed split by
// the run's --test-frac and --seed from resume.json, standardised by
// scaler.json), streamed a block at a time.
func looStore(dir string, mf *rundir.ModelFile, sc *data.Scaler) (looSource, string, int, error) {
	st, err := data.OpenStore(mf.Data)
	if err != nil {
		return nil, "", 0, fit.InputErrorf("%s: the run's data: %v", dir, err)
	}
	if !slices.Equal(st.Names(), mf.Features) {
		return nil, "", 0, fit.InputErrorf("%s: the run's data %s has features %v, model.json %v", dir, mf.Data, st.Names(), mf.Features)
	}
	ri, err := rundir.ReadResumeInfo(dir)
	if err != nil {
		return nil, "", 0, fit.InputErrorf("%s: a store run's split is read from its resume.json: %v", dir, err)
	}
	c := &fit.Config{}
	fs := newRunFlagSet(c)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(ri.Args); err != nil {
		return nil, "", 0, fit.InputErrorf("%s: resume.json: %v", dir, err)
	}
	var rows data.Rows = st
	if mf.Labels != nil {
		rows = data.RecodedRows{Rows: st, Values: mf.Labels}
	}
	source := mf.Data
	if c.Test == "" && c.TestFrac > 0 {
		train, _ := data.SplitRows(rows, c.TestFrac, c.Seed)
		rows = train
		source += fmt.Sprintf(", the %d training rows of its hashed split (seed %d)", train.Len(), c.Seed)
	}
	if sc != nil {
		rows = sc.View(rows)
	}
	var ysc *data.Scaler
	if sc != nil && sc.TargetScale != 0 {
		ysc = sc
	}
	m, err := mf.Spec.Build(mat.NewDense(1, st.Dim(), nil), []float64{0})
	if err == nil {
		if _, ok := m.(langevin.RowLogLiker); !ok {
			return nil, "", 0, errNoRowLogLik(dir)
		}
	}
	dim := st.Dim()
	if !mf.Spec.NoIntercept {
		dim++
	}
	if m != nil {
		dim = m.Dim()
	}
	_, cdf := m.(langevin.RowCDFer)
	return &storeSource{rows: rows, spec: mf.Spec, what: mf.Data, ysc: ysc, cdf: cdf}, source, dim, nil
}
