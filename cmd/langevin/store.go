package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/internal/runctl"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/rundir"
)

// A data store (langevin convert) given to run --data is streamed, not
// loaded, by the models that read rows (model.RowKinds: logistic): the
// split, the standardisation and the model are views over the file
// (data.SplitRows, data.FitScalerRows and Scaler.View, model.Spec.BuildRows),
// and the test-set predictions are scored in blocks (predict.ClassifyBlocks).
// Another model reads a store into memory only when it fits (see loadData).

// streamed is the data of a run on a store.
type streamed struct {
	store       *data.Store
	extra       io.Closer       // a --test store
	train, test data.Rows       // test: nil or empty when none
	split       *data.RowSubset // the training rows of the split (nil with --test)
}

// mapLimit returns the size of the largest store file that run
// memory-maps: a quarter of the memory budget (tests replace it).
var mapLimit = func() int64 { return runctl.RawMemoryBudget() / 4 }

// replaceAbove is the number of training rows above which minibatches from
// a store are drawn with replacement: shuffled epochs keep a permutation of
// the N row numbers per chain, 8N bytes (8 MiB at this bound, 800 MB a chain
// at 10⁸ rows); with replacement the batches have the same distribution to
// within B/N.
const replaceAbove = 1 << 20

// loadStore opens --data as a store and makes the training and test views.
func (j *job) loadStore() error {
	c := j.c
	st, err := data.OpenStore(c.Data)
	if err != nil {
		return fit.InputError{Err: err}
	}
	s := &streamed{store: st}
	j.rows = s
	// A store within a quarter of the memory budget is memory-mapped and
	// its pages kept: a drawn row is then read without a system call (on
	// a 7.5 MiB store, 245k rows, SGLD with control variates: 1.07 ms an
	// iteration with pread, see docs/scaling-out.md). A larger one is read
	// with pread, its pages left to the page cache, so the run's resident
	// memory stays small. The draws are the same either way.
	if fi, err := os.Stat(c.Data); err == nil && fi.Size() <= mapLimit() && st.Map() == nil {
		st.Budget = math.MaxInt64
	}
	if c.Target != "" && c.Target != st.Target() && c.Target != "-1" {
		return fit.InputErrorf("--target %s: %s: the store's target column is %q (chosen when it was written by langevin convert)", c.Target, c.Data, st.Target())
	}
	if c.Offset != "" || c.Exposure != "" {
		return fit.InputErrorf("--offset/--exposure: not read from a store")
	}
	j.train = &data.Dataset{Names: slices.Clone(st.Names()), Target: st.Target(), Source: c.Data}
	if c.Test != "" {
		s.train = st
		if data.IsStore(c.Test) {
			ts, err := data.OpenStore(c.Test)
			if err != nil {
				return fit.InputError{Err: err}
			}
			s.extra, s.test = ts, ts
			if !slices.Equal(ts.Names(), st.Names()) {
				return fit.InputErrorf("--test %s: features %v, --data %s has %v (a test store must have the training store's columns, in order)", c.Test, ts.Names(), c.Data, st.Names())
			}
		} else {
			test, err := readData(c, c.Test, "--test", false)
			if err != nil {
				return err
			}
			if err := alignColumns(j.train, test, "--test"); err != nil {
				return err
			}
			s.test = test
		}
	} else {
		train, test := data.SplitRows(st, c.TestFrac, c.Seed)
		s.train, s.test, s.split = train, test, train
	}
	if s.train.Len() == 0 {
		return fit.InputErrorf("--data %s: no training rows", c.Data)
	}
	if c.Batch > s.train.Len() {
		return fit.InputErrorf("--batch %d: expected at most N = %d training rows (0: full batch)", c.Batch, s.train.Len())
	}
	if c.Standardize {
		j.scaler = data.FitScalerRows(s.train)
		s.train = j.scaler.View(s.train)
		if s.test != nil && s.test.Len() > 0 {
			s.test = j.scaler.View(s.test)
		}
	}
	if !c.Set["replace"] && s.train.Len() > replaceAbove {
		// Shuffled epochs would keep a permutation of the N rows per chain.
		c.Replace = true
	}
	return nil
}

// buildRowsModel builds the model on the streamed training rows; a bad
// label is reported at its row of the store.
func (j *job) buildRowsModel() error {
	c := j.c
	s := c.Spec()
	m, err := s.BuildRows(j.rows.train)
	if err != nil {
		var le *model.LabelError
		if errors.As(err, &le) {
			if j.rows.split != nil {
				le.Row = j.rows.split.Row(le.Row-1) + 1
			}
			return fit.InputErrorf("--data %s: %v (rows of the store counted from 1)", c.Data, le)
		}
		return fit.InputErrorf("--data %s: %v", c.Data, err)
	}
	j.m, j.spec = m, s
	return nil
}

// close closes the store files.
func (s *streamed) close() {
	if s == nil {
		return
	}
	s.store.Close()
	if s.extra != nil {
		s.extra.Close()
	}
}

// trainLen and testLen are the numbers of training and test rows.
func (j *job) trainLen() int {
	if j.rows != nil {
		return j.rows.train.Len()
	}
	return j.train.Len()
}

func (j *job) testLen() int {
	if j.rows != nil {
		if j.rows.test == nil {
			return 0
		}
		return j.rows.test.Len()
	}
	return testLen(j.test)
}

// describeRows is the run's note on how a store is read, for stderr.
func (j *job) describeRows() string {
	s := j.rows
	how := fmt.Sprintf("%s streamed from disk (%d rows × %d features", j.c.Data, s.store.Len(), s.store.Dim())
	if s.store.Mapped() {
		how += "; memory-mapped: the file is within a quarter of the memory budget"
	} else {
		how += "; rows read with pread"
	}
	if s.split != nil {
		how += fmt.Sprintf("; test rows by a hashed split seeded with --seed: %d train, %d test", s.train.Len(), s.test.Len())
	}
	return how + ")"
}

// predictStore is langevin predict on a store, streamed in blocks: the
// model.json's model on the store's rows (standardised on the fly with the
// run's scaler.json), the metrics of predict.ClassifyBlocks and --out's rows
// written block by block — the numbers of the in-memory path.
func predictStore(w io.Writer, f *fit.Config, mf *modelFile, sc *data.Scaler, r *rundir.Run, samples string, level float64, bins int, out string) error {
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
	if sc != nil {
		rows = sc.View(st)
	}
	m, err := mf.Spec.BuildRows(rows)
	if err != nil {
		return fit.InputErrorf("--data %s: %v", f.Data, err)
	}
	draws, err := drawsOf(r, m.Dim())
	if err != nil {
		return err
	}
	c, ok := m.(predict.Classifier)
	if !ok {
		return fit.InputErrorf("model %s: no class probabilities", mf.Kind)
	}
	fmt.Fprintf(w, "%s (%s) on %s: %d rows, %d draws from %s\n\n", mf.Kind, mf.Data, f.Data, st.Len(), len(draws), samples)
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
	printClassScores(w, res.Metrics, res.Entropy, res.Expected, res.MutualInfo)
	if bw != nil {
		if err := bw.Flush(); err != nil {
			return fmt.Errorf("--out %s: %w", out, err)
		}
	}
	return nil
}
