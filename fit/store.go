package fit

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/internal/budget"
	"github.com/langevin-go/langevin/model"
)

// A data store (langevin convert) given to run {data} is streamed, not
// loaded, by the models that read rows (model.RowKinds: logistic): the
// split, the standardisation and the model are views over the file
// (data.SplitRows, data.FitScalerRows and Scaler.View, model.Spec.BuildRows),
// and the test-set predictions are scored in blocks (predict.ClassifyBlocks).
// Another model reads a store into memory only when it fits (see loadData).

// Streamed is the data of a run on a store.
type Streamed struct {
	store       *data.Store
	extra       io.Closer       // a {test} store
	train, Test data.Rows       // test: nil or empty when none
	split       *data.RowSubset // the training rows of the split (nil with {test})
}

// MapLimit returns the size of the largest store file that run
// memory-maps: a quarter of the memory budget (tests replace it).
var MapLimit = func() int64 { return budget.RawMemory() / 4 }

// replaceAbove is the number of training rows above which minibatches from
// a store are drawn with replacement: shuffled epochs keep a permutation of
// the N row numbers per chain, 8N bytes (8 MiB at this bound, 800 MB a chain
// at 10⁸ rows); with replacement the batches have the same distribution to
// within B/N.
const replaceAbove = 1 << 20

// loadStore opens {data} as a store and makes the training and test views.
func (j *Problem) loadStore() error {
	c := j.C
	st, err := data.OpenStore(c.Data)
	if err != nil {
		return InputError{Err: err}
	}
	s := &Streamed{store: st}
	j.Rows = s
	// A store within a quarter of the memory budget is memory-mapped and
	// its pages kept: a drawn row is then read without a system call (on
	// a 7.5 MiB store, 245k rows, SGLD with control variates: 1.07 ms an
	// iteration with pread, see docs/scaling-out.md). A larger one is read
	// with pread, its pages left to the page cache, so the run's resident
	// memory stays small. The draws are the same either way.
	if fi, err := os.Stat(c.Data); err == nil && fi.Size() <= MapLimit() && st.Map() == nil {
		st.Budget = math.MaxInt64
	}
	if c.Target != "" && c.Target != st.Target() && c.Target != "-1" {
		return InputErrorf("{target} %s: %s: the store's target column is %q (chosen when it was written by langevin convert)", c.Target, c.Data, st.Target())
	}
	if c.Offset != "" || c.Exposure != "" {
		return InputErrorf("{offset}/{exposure}: not read from a store")
	}
	j.Train = &data.Dataset{Names: slices.Clone(st.Names()), Target: st.Target(), Source: c.Data}
	// Labels of two values other than 0/1 are recoded as they are read
	// (data.TwoLabels' rule, found in one pass over the store).
	var rows data.Rows = st
	if c.Labels == nil && c.Spec().BinaryLabels() {
		c.Labels = data.TwoLabelsRows(st)
	}
	recode := func(r data.Rows) data.Rows {
		if c.Labels == nil {
			return r
		}
		return data.RecodedRows{Rows: r, Values: c.Labels}
	}
	rows = recode(rows)
	if c.Test != "" {
		s.train = rows
		if data.IsStore(c.Test) {
			ts, err := data.OpenStore(c.Test)
			if err != nil {
				return InputError{Err: err}
			}
			s.extra, s.Test = ts, recode(ts)
			if !slices.Equal(ts.Names(), st.Names()) {
				return InputErrorf("{test} %s: features %v, {data} %s has %v (a test store must have the training store's columns, in order)", c.Test, ts.Names(), c.Data, st.Names())
			}
		} else {
			test, err := ReadData(c, c.Test, "{test}", false)
			if err != nil {
				return err
			}
			if err := AlignColumns(j.Train, test, "{test}"); err != nil {
				return err
			}
			s.Test = test
		}
	} else {
		train, test := data.SplitRows(rows, c.TestFrac, c.Seed)
		s.train, s.Test, s.split = train, test, train
	}
	if s.train.Len() == 0 {
		return InputErrorf("{data} %s: no training rows", c.Data)
	}
	if c.Batch > s.train.Len() {
		return InputErrorf("{batch} %d: expected at most N = %d training rows (0: full batch)", c.Batch, s.train.Len())
	}
	if c.Standardize {
		j.Scaler = data.FitScalerRows(s.train)
		s.train = j.Scaler.View(s.train)
		if s.Test != nil && s.Test.Len() > 0 {
			s.Test = j.Scaler.View(s.Test)
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
func (j *Problem) buildRowsModel() error {
	c := j.C
	s := c.Spec()
	m, err := s.BuildRows(j.Rows.train)
	if err != nil {
		var le *model.LabelError
		if errors.As(err, &le) {
			if j.Rows.split != nil {
				le.Row = j.Rows.split.Row(le.Row-1) + 1
			}
			return InputErrorf("{data} %s: %v (rows of the store counted from 1)", c.Data, le)
		}
		return InputErrorf("{data} %s: %v", c.Data, err)
	}
	j.M, j.Spec = m, s
	return nil
}

// Close closes the store files.
func (s *Streamed) Close() {
	if s == nil {
		return
	}
	s.store.Close()
	if s.extra != nil {
		s.extra.Close()
	}
}

// TrainLen is the number of training rows.
func (j *Problem) TrainLen() int {
	if j.Rows != nil {
		return j.Rows.train.Len()
	}
	return j.Train.Len()
}

// TestLen is the number of test rows.
func (j *Problem) TestLen() int {
	if j.Rows != nil {
		if j.Rows.Test == nil {
			return 0
		}
		return j.Rows.Test.Len()
	}
	return testLen(j.Test)
}

// DescribeRows is the run's note on how a store is read, for stderr.
func (j *Problem) DescribeRows() string {
	s := j.Rows
	how := fmt.Sprintf("%s streamed from disk (%d rows × %d features", j.C.Data, s.store.Len(), s.store.Dim())
	if s.store.Mapped() {
		how += "; memory-mapped: the file is within a quarter of the memory budget"
	} else {
		how += "; rows read with pread"
	}
	if s.split != nil {
		how += fmt.Sprintf("; test rows by a hashed split seeded with {seed}: %d train, %d test", s.train.Len(), s.Test.Len())
	}
	return how + ")"
}
