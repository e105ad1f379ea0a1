package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/rundir"
)

// predictUnlabelled writes one prediction per row of d, which has no target
// column: the ID (or the row number) and the predictive probabilities, or
// the mean and intervals; no metrics. The rows go to out, or to stdout.
func predictUnlabelled(stdout io.Writer, mf *rundir.ModelFile, sc *data.Scaler, d *data.Dataset, r *rundir.Run, offVals []float64, level float64, out, samples string) error {
	n := d.Len()
	m, err := mf.Spec.BuildOffset(d.X, make([]float64, n), offVals)
	if err != nil {
		return fit.InputErrorf("--data %s: %v", d.Source, err)
	}
	draws, err := predictiveDraws(r, mf, m.Dim())
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	switch mm := m.(type) {
	case *model.GLM:
		mean := predict.OffsetMean(mm, draws, d.X, fit.LogOffsets(mf.Spec, offVals), nil)
		buf.WriteString("y,mean\n")
		for _, v := range mean {
			fmt.Fprintf(&buf, ",%g\n", v)
		}
	case predict.Classifier:
		if _, reg := m.(predict.Regressor); reg && !mf.Classifies() {
			break
		}
		res, err := predict.Classify(mm, draws, d.X, predict.ClassifyOptions{Level: level})
		if err != nil {
			return err
		}
		if err := res.WriteCSV(&buf, make([]float64, n)); err != nil {
			return err
		}
	}
	if buf.Len() == 0 {
		reg, ok := m.(predict.Regressor)
		if !ok {
			return fit.InputErrorf("model %s: no predictions", mf.Kind)
		}
		res, err := fit.Regress(reg, draws, d.X, level, sc)
		if err != nil {
			return err
		}
		if err := res.WriteCSV(&buf, make([]float64, n)); err != nil {
			return err
		}
	}
	// The y column (no target here) becomes the ID column.
	idName := "row"
	if d.IDs != nil {
		idName = d.Coding.ID
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	var sb strings.Builder
	sb.WriteString(fit.CSVField(idName) + lines[0][strings.IndexByte(lines[0], ','):] + "\n")
	for i, l := range lines[1:] {
		id := strconv.Itoa(i + 1)
		if d.IDs != nil {
			id = d.IDs[i]
		}
		sb.WriteString(fit.CSVField(id) + l[strings.IndexByte(l, ','):] + "\n")
	}
	fmt.Fprintf(stdout, "%s (%s) on %s: %d rows without the target %q: predictions only, no metrics; %d draws from %s\n",
		mf.Kind, mf.Data, d.Source, n, mf.Target, len(draws), samples)
	if l := classesLine(mf); l != "" {
		fmt.Fprintln(stdout, l)
	}
	if out == "" {
		fmt.Fprintln(stdout)
		_, err := io.WriteString(stdout, sb.String())
		return err
	}
	if err := os.WriteFile(out, []byte(sb.String()), 0o644); err != nil {
		return fit.InputErrorf("--out %s: %v", out, err)
	}
	fmt.Fprintf(stdout, "written:  %s (%d rows: %s, then the predictions)\n", out, n, idName)
	return nil
}

// classesLine names the class of each column p.k of the predictions when
// the labels were recoded (text labels, or two values recoded 0/1):
// "classes: p.0 is P(V4 = 1), p.1 is P(V4 = 2)"; "" otherwise.
func classesLine(mf *rundir.ModelFile) string {
	var cl []string
	if mf.Columns != nil {
		for k, l := range mf.Columns.TargetLevels {
			cl = append(cl, fmt.Sprintf("p.%d is P(%s = %q)", k, mf.Target, l))
		}
	}
	for k, v := range mf.Labels {
		cl = append(cl, fmt.Sprintf("p.%d is P(%s = %s)", k, mf.Target, strconv.FormatFloat(v, 'g', -1, 64)))
	}
	if cl == nil {
		return ""
	}
	return "classes: " + strings.Join(cl, ", ")
}

// runDataScaleText is dataScaleText of a run directory, from its model.json
// and scaler.json; "" when the directory has none.
func runDataScaleText(r *rundir.Run) string {
	if r.Spec == nil {
		return ""
	}
	mf, sc, err := readModelFile(r)
	if err != nil || len(mf.Features) == 0 || !fit.NamedTable(mf.Data, mf.Columns) {
		return ""
	}
	coding := mf.Columns
	if coding == nil {
		coding = &data.Coding{}
	}
	return fit.DataScaleText(r.Trace, &data.Dataset{Names: mf.Features, Coding: coding}, sc)
}

// positionalName maps the name of a coefficient after its column,
// "beta.age" (the tables on the data's own scale), to the chain files'
// positional name "beta.1" by the run's features; other names are returned
// as given.
func positionalName(r *rundir.Run, name string) string {
	if slices.Contains(r.Trace.Names, name) || r.Spec == nil {
		return name
	}
	mf, _, err := readModelFile(r)
	if err != nil {
		return name
	}
	for j, f := range mf.Features {
		if fit.CoefName(f) == name {
			return "beta." + strconv.Itoa(j+1)
		}
	}
	return name
}

// predictStore is langevin predict on a store, streamed in blocks: the
// model.json's model on the store's rows (standardised on the fly with the
// run's scaler.json), the metrics of predict.ClassifyBlocks and --out's rows
// written block by block — the numbers of the in-memory path.
func predictStore(w io.Writer, f *fit.Config, mf *rundir.ModelFile, sc *data.Scaler, r *rundir.Run, samples string, level float64, bins int, out string) error {
	st, err := data.OpenStore(f.Data)
	if err != nil {
		return fit.InputError{Err: err}
	}
	defer st.Close()
	if f.Target != "" && f.Target != st.Target() && f.Target != "-1" {
		return fit.InputErrorf("--target %s: %s: the store's target column is %q", f.Target, f.Data, st.Target())
	}
	if !slices.Equal(st.Names(), mf.Features) {
		return fit.InputErrorf("--data %s: features %v, the run's training data had %v (a store must have the training columns, in order)", f.Data, st.Names(), mf.Features)
	}
	var rows data.Rows = st
	if mf.Labels != nil {
		rows = data.RecodedRows{Rows: st, Values: mf.Labels}
	}
	if sc != nil {
		rows = sc.View(rows)
	}
	m, err := mf.Spec.BuildRows(rows)
	if err != nil {
		return fit.InputErrorf("--data %s: %v", f.Data, err)
	}
	draws, err := predictiveDraws(r, mf, m.Dim())
	if err != nil {
		return err
	}
	c, ok := m.(predict.Classifier)
	if !ok {
		return fit.InputErrorf("model %s: no class probabilities", mf.Kind)
	}
	fmt.Fprintf(w, "%s (%s) on %s: %d rows, %d draws from %s\n", mf.Kind, mf.Data, f.Data, st.Len(), len(draws), samples)
	if l := classesLine(mf); l != "" && mf.Labels != nil {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
	var each func(*predict.Classification, []float64) error
	var bw *bufio.Writer
	if out != "" {
		fh, err := os.Create(out)
		if err != nil {
			return fit.InputErrorf("--out %s: %v", out, err)
		}
		defer fh.Close()
		bw = bufio.NewWriterSize(fh, 1<<20)
		if err := predict.WriteClassHeader(bw, c.NumClasses()); err != nil {
			return err
		}
		each = func(res *predict.Classification, y []float64) error { return res.WriteCSVRows(bw, y) }
	}
	res, err := predict.ClassifyBlocks(c, draws, data.Blocks(rows, 0), predict.ClassifyOptions{Level: level}, bins, each)
	if err != nil {
		return fit.InputErrorf("--data %s: %v", f.Data, err)
	}
	fit.PrintClassScores(w, res.Metrics, res.Entropy, res.Expected, res.MutualInfo)
	if bw != nil {
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("--out %s: %w", out, err)
		}
	}
	return nil
}

// runSigma2InTargetUnits is Sigma2InTargetUnits for a run directory, from
// its model.json and scaler.json (the draws as they are when the
// directory has neither).
func runSigma2InTargetUnits(r *rundir.Run, names []string, params [][][]float64) ([][][]float64, string) {
	if r.Spec == nil {
		return params, ""
	}
	mf, sc, err := readModelFile(r)
	if err != nil {
		return params, ""
	}
	return fit.Sigma2InTargetUnits(names, params, mf.Spec, sc)
}

// runSigma2ReportNote is Sigma2ReportNote for a run directory.
func runSigma2ReportNote(r *rundir.Run) string {
	if r.Spec == nil {
		return ""
	}
	mf, sc, err := readModelFile(r)
	if err != nil {
		return ""
	}
	return fit.Sigma2ReportNote(r.Trace.Names, mf.Spec, sc)
}

// recordWeights writes the weights into model.json's contents mf (nothing when cw
// or mf is nil), where predict reads them.
func recordWeights(cw *fit.ChainWeights, mf *rundir.ModelFile) {
	if cw == nil || mf == nil {
		return
	}
	mf.ChainWeights, mf.ChainWeighting = cw.W, cw.Method
}

// Writer returns the fit.RunWriter of the run directory for the job j.
func (rd *runDir) Writer(j *fit.Problem) fit.RunWriter { return dirWriter{rd, j} }

// dirWriter is a runDir's fit.RunWriter for one job.
type dirWriter struct {
	rd *runDir
	j  *fit.Problem
}

func (w dirWriter) Open(planned *fit.Config, first, chains int, statNames, names []string) (res *langevin.Resume, err error) {
	cfg := chainConfig(w.j, planned)
	if w.rd.Resuming() {
		res, err = w.rd.ResumeChains(cfg, first, chains, statNames, names)
	} else {
		err = w.rd.OpenChains(cfg, first, chains, statNames, names)
	}
	if err == nil {
		w.rd.Sampling = true // from here the directory holds the run
	}
	return res, err
}

func (w dirWriter) Sink(chain int) langevin.DrawSink          { return w.rd.Sink(chain) }
func (w dirWriter) Checkpoint(cp *langevin.Checkpoint) error  { return w.rd.Checkpoint(cp) }
func (w dirWriter) Sampled(tr *langevin.Trace, finished bool) { w.rd.Sampled(tr, finished, w.j.Stderr) }

func (w dirWriter) Abandon(runErr error) error {
	err := w.rd.MarkFinished()
	w.rd.W.Close(flagErr(runErr))
	return err
}

func (w dirWriter) Finish(tr *langevin.Trace, runErr error, table diag.Table, weights *fit.ChainWeights) (string, error) {
	w.rd.Keep(tr)
	mf := modelFile(w.j)
	recordWeights(weights, mf)
	return w.rd.Finish(runErr, table, mf, w.j.Scaler)
}
