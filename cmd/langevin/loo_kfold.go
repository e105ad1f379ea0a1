package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/loo"
)

// kfoldResult is K-fold cross-validation of one run: each training row's
// log predictive density under the draws of the refit without its fold,
// log (1/S) Σₛ p(yᵢ | θₛ^(−k(i))), summed, as loo's kfold reports it.
type kfoldResult struct {
	K                     int
	ELPD, PKFold, KFoldIC loo.Estimate
	pointwise             []float64
	by                    string // what a fold holds: "rows", or "whole levels of g, J levels"
	note                  string // the auto: line of the rule that chose by
}

// runCommand is Main, set at init to break the cycle commands → cmdLoo →
// Main → commands.
var runCommand func(args []string, stdout, stderr io.Writer) int

func init() { runCommand = Main }

// kfoldDrop are the run flags a refit sets itself.
// (its data: the training rows without the fold, already read by the
// run's column rules).
var kfoldDrop = map[string]bool{"data": true, "test": true, "test-frac": true, "out": true, "report": true,
	"resume": true, "overwrite": true, "quiet": true, "checkpoint": true, "target": true, "drop": true, "id": true,
	"categorical": true, "missing": true, "format": true, "split": true, "n": true, "noise": true, "k": true}

// looKFold refits the run in dir K times, with the arguments it ran with
// (resume.json), each time on its training rows without one fold (a
// seeded random partition), and scores the fold's rows with the refit's
// draws. Plain --model runs on a table of numbers only; lpd is the run's
// own Σᵢ log (1/S) Σₛ p(yᵢ | θₛ), for p_kfold = lpd − elpd_kfold.
func looKFold(dir string, K int, by string, seed uint64, lpd float64) (*kfoldResult, error) {
	r, err := readRuns([]string{dir})
	if err != nil {
		return nil, err
	}
	if raw := formulaOf(r); raw != nil {
		return looKFoldFormula(dir, r, raw, K, by, seed, lpd)
	}
	if by != "" && by != "rows" {
		return nil, fit.InputErrorf("--kfold-by %s: %s is not a --formula run: its folds are of rows", by, dir)
	}
	mf, _, err := readModelFile(r)
	if err != nil {
		return nil, err
	}
	f := fit.Config{Set: map[string]bool{}, Data: mf.Data, Format: "auto", Target: mf.Target, Model: mf.Kind, Labels: mf.Labels}
	switch {
	case f.IsStoreData():
		return nil, fit.InputErrorf("--kfold: %s ran on a data store: refit K times with langevin run instead", dir)
	case mf.Spec.Offset != "":
		return nil, fit.InputErrorf("--kfold: %s: an offset column: not refitted by langevin loo yet", dir)
	}
	if mf.Columns.HasText() {
		f.Columns.Coding = mf.Columns
	}
	if mf.Columns != nil {
		f.Columns.Missing = mf.Columns.Missing
	}
	f.Columns.UseRead(mf.Read, nil) // the run's --na, --sep, --decimal
	what := filepath.Join(dir, "model.json") + ": the run's data"
	d, err := fit.ReadData(&f, f.Data, what, true)
	if err != nil {
		return nil, err
	}
	if mf.Split != nil {
		if d, err = applySplit(mf.Split, d, "train", mf.Data); err != nil {
			return nil, err
		}
	}
	if err := fit.AlignColumns(&data.Dataset{Names: mf.Features, Source: mf.Data}, d, what); err != nil {
		return nil, err
	}
	N := d.Len()
	if K < 2 || K > N {
		return nil, fit.InputErrorf("--kfold %d: expected 2 to %d (the run's training rows)", K, N)
	}
	args, err := refitArgs(dir, nil)
	if err != nil {
		return nil, err
	}
	fold := make([]int, N)
	for j, i := range rand.New(rand.NewPCG(seed, 1)).Perm(N) {
		fold[i] = j % K
	}
	tmp, err := os.MkdirTemp("", "langevin-kfold-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	res := &kfoldResult{K: K, pointwise: make([]float64, N), by: "rows"}
	p := d.Dim()
	for k := range K {
		var train, test []int
		for i, fk := range fold {
			if fk == k {
				test = append(test, i)
			} else {
				train = append(train, i)
			}
		}
		csv := filepath.Join(tmp, fmt.Sprintf("train-%d.csv", k+1))
		if err := writeRowsOf(csv, d, train); err != nil {
			return nil, err
		}
		out := filepath.Join(tmp, fmt.Sprintf("fold-%d", k+1))
		var errb bytes.Buffer
		if code := runCommand(append([]string{"run"}, append(args, "--data", csv, "--target", d.Target, "--test-frac", "0", "--out", out, "--quiet")...), io.Discard, &errb); code != 0 {
			return nil, fmt.Errorf("--kfold: the refit without fold %d of %d: exit %d: %s", k+1, K, code, strings.TrimSpace(errb.String()))
		}
		rk, err := readRuns([]string{out})
		if err != nil {
			return nil, err
		}
		mk, sck, err := readModelFile(rk)
		if err != nil {
			return nil, err
		}
		X := mat.NewDense(len(test), p, nil)
		y := make([]float64, len(test))
		for j, i := range test {
			X.SetRow(j, d.X.RawRowView(i))
			y[j] = d.Y[i]
		}
		logSY := 0.0
		if sck != nil {
			sck.Transform(X)
			if sck.TargetScale != 0 { // a model of z = (y − ȳ)/s_y, as looModel
				sck.TransformTarget(y)
				logSY = math.Log(sck.TargetScale)
			}
		}
		m, err := mk.Spec.Build(X, y)
		if err != nil {
			return nil, fmt.Errorf("--kfold: fold %d: %v", k+1, err)
		}
		rl, ok := m.(langevin.RowLogLiker)
		if !ok {
			return nil, errNoRowLogLik(dir)
		}
		rows := make([]int, len(test))
		for j := range rows {
			rows[j] = j
		}
		draws := rk.Trace.Rows()
		ll := mat.NewDense(len(test), len(draws), nil)
		col := make([]float64, len(test))
		for s, th := range draws {
			rl.RowLogLik(col, th[:m.Dim()], rows)
			for j, v := range col {
				ll.Set(j, s, v-logSY)
			}
		}
		for j, i := range test {
			res.pointwise[i] = logMeanExp(ll.RawRowView(j))
		}
	}
	res.summarize(lpd)
	return res, nil
}

// summarize sums the pointwise elpd_kfold with its SE √N·sd, p_kfold =
// lpd − elpd_kfold (lpd the run's own) and kfoldic, as loo's kfold.
func (res *kfoldResult) summarize(lpd float64) {
	N := len(res.pointwise)
	var sum, ss float64
	for _, v := range res.pointwise {
		sum += v
	}
	mean := sum / float64(N)
	for _, v := range res.pointwise {
		ss += (v - mean) * (v - mean)
	}
	se := math.Sqrt(float64(N) * ss / float64(N-1))
	res.ELPD = loo.Estimate{Estimate: sum, SE: se}
	res.PKFold = loo.Estimate{Estimate: lpd - sum, SE: math.NaN()}
	res.KFoldIC = loo.Estimate{Estimate: -2 * sum, SE: 2 * se}
}

// logMeanExp is log (1/n) Σ exp(xᵢ).
func logMeanExp(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	var s float64
	for _, v := range x {
		s += math.Exp(v - m)
	}
	return m + math.Log(s/float64(len(x)))
}

// writeRowsOf writes the rows of d as a CSV table with a header.
func writeRowsOf(path string, d *data.Dataset, rows []int) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(fh)
	fmt.Fprintln(w, strings.Join(append(append([]string(nil), d.Names...), d.Target), ","))
	for _, i := range rows {
		for _, v := range d.X.RawRowView(i) {
			w.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
			w.WriteByte(',')
		}
		w.WriteString(strconv.FormatFloat(d.Y[i], 'g', -1, 64))
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}

// formatKFold prints a kfoldResult as loo prints a kfold object.
func formatKFold(w io.Writer, r *kfoldResult) {
	if r.note != "" {
		fmt.Fprintf(w, "\n%s", r.note)
	}
	fmt.Fprintf(w, "\nBased on %d-fold cross-validation (folds of %s)\n\n", r.K, r.by)
	est := common([]float64{r.ELPD.Estimate, r.PKFold.Estimate, r.KFoldIC.Estimate}, 1)
	se := common([]float64{r.ELPD.SE, r.PKFold.SE, r.KFoldIC.SE}, 1)
	we, ws := max(len("Estimate"), len(est[0])), max(len("SE"), len(se[0]))
	fmt.Fprintf(w, "%s %s %s\n", strings.Repeat(" ", 10), padLeft("Estimate", we), padLeft("SE", ws))
	for i, n := range []string{"elpd_kfold", "p_kfold", "kfoldic"} {
		fmt.Fprintf(w, "%s %s %s\n", padRight(n, 10), padLeft(est[i], we), padLeft(se[i], ws))
	}
}
