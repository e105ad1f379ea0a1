package fit

import (
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/internal/budget"
	"github.com/langevin-go/langevin/model"
)

// LoadData reads the training data (a file, an embedded or a generated set)
// and the test data (a file, the generated set's own, or a seeded split),
// checks the labels and standardises.
func (j *Problem) LoadData() error {
	c := j.C
	full, ownTest, generated, err := GeneratedData(c, c.Data)
	if err != nil {
		return err
	}
	if !generated && c.IsStoreData() {
		if c.Streams() {
			return j.loadStore()
		}
		if err := c.CheckStoreFits(); err != nil {
			return err
		}
	}
	if !generated && !c.IsUCI() {
		if full, err = readData(c, c.Data, "{data}", true, true); err != nil {
			return err
		}
	}
	var train, test *data.Dataset
	var fileWarns []string // fileOrderWarnings of the rows in the file's order
	if !generated && c.IsUCI() {
		// The benchmark's split: its training rows as the data, its test
		// rows as the test set.
		if j.uci, err = data.ReadUCI(c.Data); err != nil {
			return InputError{Err: err}
		}
		if train, test, err = j.uci.Split(c.Split); err != nil {
			return InputErrorf("{split} %d: %v", c.Split, err)
		}
	} else if ownTest != nil && c.Test == "" {
		train, test = full, ownTest
	} else if c.Test != "" {
		train = full
		tc := *c
		tc.Columns.Coding = train.Coding // the test file read as the training data were
		if test, err = ReadData(&tc, c.Test, "{test}", false); err != nil {
			return err
		}
		if err := AlignColumns(train, test, "{test}"); err != nil {
			return err
		}
	} else {
		rows := full.Len()
		if !generated {
			// The rows read from the file are ours: split them in place, not
			// copied (the same parts; a wide file's read held them twice).
			// The checks that need the file's order of rows come first.
			fileWarns = fileOrderWarnings(full)
			train, test = data.TrainTestOwned(full, c.TestFrac, c.Seed)
			full = nil
		} else {
			train, test = data.TrainTest(full, c.TestFrac, c.Seed)
		}
		j.TestSplit = &TestSplit{Rows: rows, TestFrac: c.TestFrac, Seed: c.Seed}
	}
	if c.Model == "softmax" {
		if err := checkSoftmaxLabels(train, test); err != nil {
			return err
		}
	}
	if c.Batch > train.Len() {
		return InputErrorf("{batch} %d: expected at most N = %d training rows (0: full batch)", c.Batch, train.Len())
	}
	if col, flagName := c.OffsetColumn(); col != "" {
		// Out of the features before standardising: the offsets are used as read.
		if j.offTrain, err = TakeColumn(train, col, flagName); err != nil {
			return err
		}
		if test != nil && test.Len() > 0 {
			if j.OffTest, err = TakeColumn(test, col, flagName); err != nil {
				return err
			}
		}
	}
	// Data the model cannot fit as they are: a warning or an input error
	// naming the column and what to do.
	warns, err := data.CheckColumns(train.X, train.Names)
	if err != nil {
		return InputErrorf("{data} %s: %v", c.Data, err)
	}
	if fileWarns == nil {
		all := full // the rows in the file's order (of the training rows when the file has no other)
		if all == nil {
			all = train
		}
		fileWarns = fileOrderWarnings(all)
	}
	warns = append(warns, fileWarns...)
	for _, w := range warns {
		if j.Stderr != nil {
			fmt.Fprintf(j.Stderr, "langevin run: warning: {data} %s: %s\n", c.Data, w)
		}
	}
	if err := singleClass(c, train); err != nil {
		return err
	}
	if c.Standardize {
		j.Scaler = data.FitScaler(train.X)
		j.Scaler.Transform(train.X)
		if test != nil && test.Len() > 0 {
			j.Scaler.Transform(test.X)
		}
	}
	j.Train, j.Test = train, test
	return nil
}

// fileOrderWarnings are the warnings about d's rows in the file's order: a
// column of the row numbers, and repeated IDs (named by their rows).
func fileOrderWarnings(d *data.Dataset) []string {
	warns := append([]string{}, data.RowNumberColumns(d.X, d.Names)...)
	if d.Coding != nil && d.Coding.ID != "" {
		if w := data.DuplicateIDs(d.IDs, d.Coding.ID); w != "" {
			warns = append(warns, w)
		}
	}
	return warns
}

// SeparationWarning warns when a classifier's MAP has a coefficient so
// large (|β| > 10 on standardised features: odds multiplied by e¹⁰ per
// standard deviation) that the classes are (nearly) separable by the
// features: the likelihood then grows without bound along that direction,
// and under a flat or weak prior the MAP runs to infinity and the posterior
// is set by the prior alone.
func SeparationWarning(m langevin.Model, theta []float64) string {
	if _, ok := m.(*model.Logistic); !ok || theta == nil {
		return ""
	}
	names := langevin.ParamNames(m)
	worst, at := 0.0, -1
	for j, v := range theta {
		if j < len(names) && names[j] == "intercept" {
			continue
		}
		if a := math.Abs(v); a > worst || math.IsNaN(v) {
			worst, at = a, j
		}
	}
	if at < 0 || !(worst <= 10) {
		if at < 0 {
			return ""
		}
		return fmt.Sprintf("the MAP has %s = %.3g: the classes are (nearly) separable by the features, so the likelihood keeps growing along it and the posterior is set by the prior alone; give a proper prior ({prior-scale} 1, the default; smaller is stronger) or drop the feature that separates them", names[at], theta[at])
	}
	return ""
}

// singleClass refuses a classifier's training data whose labels are all
// one class: there is nothing to tell apart, and the intercept runs to
// infinity under a flat or weak prior.
func singleClass(c *Config, train *data.Dataset) error {
	switch c.Model {
	case "logistic", "probit", "softmax":
	default:
		return nil
	}
	if train.Len() == 0 {
		return nil
	}
	for _, y := range train.Y {
		if y != train.Y[0] {
			return nil
		}
	}
	return InputErrorf("{data} %s: the target column %q holds only the label %g in the %d training rows: a classifier needs two classes at least (check {target}, or the data)", c.Data, train.Target, train.Y[0], train.Len())
}

// classes returns, for softmax regression, one more than the largest label
// of the training and test data (0 for the other models).
func (j *Problem) classes() int {
	if j.C.Model != "softmax" {
		return 0
	}
	k := 0
	for _, d := range []*data.Dataset{j.Train, j.Test} {
		if d != nil {
			for _, y := range d.Y {
				k = max(k, int(y)+1)
			}
		}
	}
	return k
}

// readData reads the data set path given by the flag flagName ("{data}" or
// "{test}"); when builtins is true, a path that is not a file may name an
// embedded data set.
// dataBound is the most a data file read into memory may hold: a quarter
// of the memory budget (the data are copied once into their matrix, and the
// draws need the rest).
func dataBound() int64 {
	return budget.Memory() / 4
}

// ReadData reads a data file as the run reads its {data}. The responses are
// recoded to binary labels by c.Labels when set
// (data.RecodeLabels: the run's {test}, predict and compare read as the
// training data were).
func ReadData(c *Config, path, flagName string, builtins bool) (*data.Dataset, error) {
	return readData(c, path, flagName, builtins, false)
}

// readData is ReadData; with guessLabels (the run's {data}) a response of
// two values other than 0/1 or −1/+1 for a model of binary labels sets
// c.Labels (data.TwoLabels: the larger value is the event).
func readData(c *Config, path, flagName string, builtins, guessLabels bool) (*data.Dataset, error) {
	var d *data.Dataset
	var err error
	isFile := true
	if _, statErr := os.Stat(path); statErr != nil && builtins && path != "-" {
		if b, berr := data.Builtin(path); berr == nil {
			d, isFile = b, false
		} else if errors.Is(statErr, os.ErrNotExist) {
			return nil, InputErrorf("%s %s: no such file, and not an embedded data set (%s)", flagName, path, strings.Join(data.BuiltinNames(), ", "))
		}
	}
	headerLine := 1
	if isFile {
		// One open and one read, so that a pipe or /dev/stdin ("-") works;
		// the format is told from the content.
		opt := c.Columns.CsvOptions(c.Target)
		opt.MaxBytes = dataBound()
		d, err = data.ReadFile(path, c.Format, opt)
		if err == nil && headerless(d) {
			headerLine = 0
		}
		if errors.Is(err, data.ErrTooLarge) {
			return nil, InputErrorf("%s %v (a quarter of the memory budget: of half this machine's memory, or of a quarter of ulimit -v): convert the file once with langevin convert {data} %s {out} FILE.lvs; run and predict stream a store from disk", flagName, err, path)
		}
		if err != nil {
			if c.Columns.Coding != nil {
				err = fmt.Errorf("%s %w", flagName, err) // read as the training data were
			}
			return nil, readError(err)
		}
	} else {
		headerLine = 0
		// The column flags choose how a file's columns are read; an
		// embedded set is read whole, so they are refused, not ignored.
		for _, fl := range []struct{ name, v string }{{"{drop}", c.Columns.Drop}, {"{id}", c.Columns.Id}, {"{categorical}", c.Columns.Categorical}} {
			if fl.v != "" {
				return nil, InputErrorf("%s %s: %s is an embedded data set, read whole (features %s); to choose its columns, give them as a CSV file", fl.name, fl.v, path, strings.Join(d.Names, ", "))
			}
		}
		if c.Target != "" && c.Target != d.Target && c.Target != "-1" {
			return nil, InputErrorf("{target} %s: the embedded data set %s has target %q", c.Target, path, d.Target)
		}
	}
	if d.Len() == 0 {
		return nil, InputErrorf("%s %s: no data rows", flagName, path)
	}
	if d.Y == nil {
		return d, nil // new rows without the target (predict)
	}
	if guessLabels && c.Labels == nil && c.Spec().BinaryLabels() {
		c.Labels = data.TwoLabels(d.Y)
	}
	if c.Labels != nil {
		var le *data.UnknownLabelError
		if err := data.RecodeLabels(d.Y, c.Labels); errors.As(err, &le) {
			return nil, InputErrorf("%s: label %v in column %q: the run's labels are %s (recoded 0/1: %s)",
				rowPlace(d, le.Row, headerLine), le.Value, d.Target, labelList(c.Labels), data.LabelRule(c.Labels))
		}
	}
	if re := (*model.ResponseError)(nil); errors.As((model.Spec{Kind: c.Model}).CheckResponses(d.Y), &re) {
		noun := "response"
		if re.Label {
			noun = "label"
		}
		return nil, InputErrorf("%s: %s %v in column %q: %s%s", rowPlace(d, re.Row, headerLine), noun, re.Value, d.Target, re.What, responseHint(c.Model, d.Y))
	}
	return d, nil
}

// rowPlace names row (1-based, of d's rows) as file:line, or as a row of
// those kept when rows were dropped.
func rowPlace(d *data.Dataset, row, headerLine int) string {
	if d.Coding != nil && d.Coding.RowsDropped > 0 {
		return fmt.Sprintf("%s: row %d (of those kept)", d.Source, row)
	}
	return fmt.Sprintf("%s:%d", d.Source, row+headerLine)
}

// labelList is the recoded labels as "1 or 2".
func labelList(values []float64) string {
	s := make([]string, len(values))
	for k, v := range values {
		s[k] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, " or ")
}

// LabelsNote is the auto: line of the recoding of c.Labels ("" without
// one): the rule and its reason.
func LabelsNote(c *Config, target string) string {
	if c.Labels == nil {
		return ""
	}
	return Note{Key: "auto", Text: fmt.Sprintf("labels: column %q: %s", target, data.LabelRule(c.Labels))}.String()
}

// headerless reports whether d was read from a file without a header row
// (a LIBSVM file, or a CSV file whose first row is numbers): its columns are
// V1, V2, ….
func headerless(d *data.Dataset) bool {
	for j, n := range d.Names {
		if n != "V"+strconv.Itoa(j+1) && n != "V"+strconv.Itoa(j+2) {
			return false
		}
	}
	return d.Target == "label" || strings.HasPrefix(d.Target, "V")
}

// AlignColumns puts the feature columns of test in the order of train's,
// matching them by name, so that a test file whose columns are in another
// order is read as the training data were; a column of train missing from
// test is an error naming it.
func AlignColumns(train, test *data.Dataset, flagName string) error {
	if slices.Equal(train.Names, test.Names) {
		return nil
	}
	if headerless(train) || headerless(test) {
		if train.Dim() != test.Dim() {
			return InputErrorf("%s %s: %d features, {data} has %d", flagName, test.Source, test.Dim(), train.Dim())
		}
		return nil // no names to match: by position
	}
	idx := make(map[string]int, len(test.Names))
	for j, n := range test.Names {
		idx[n] = j
	}
	perm := make([]int, len(train.Names))
	var missing []string
	for j, n := range train.Names {
		k, ok := idx[n]
		if !ok {
			missing = append(missing, n)
		}
		perm[j] = k
	}
	if len(missing) > 0 {
		return InputErrorf("%s %s: no column %s, which the training data have (columns are matched by name; the file has %s)",
			flagName, test.Source, strings.Join(quoteAll(missing), ", "), strings.Join(quoteAll(test.Names), ", "))
	}
	n := test.Len()
	x := mat.NewDense(n, len(perm), nil)
	for i := range n {
		for j, k := range perm {
			x.Set(i, j, test.X.At(i, k))
		}
	}
	test.X, test.Names = x, slices.Clone(train.Names)
	return nil
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[i] = strconv.Quote(v)
	}
	return out
}

// checkSoftmaxLabels refuses class labels 1…K: softmax regression numbers
// the classes 0…K−1, and with labels 1…K class 0 would be an empty class
// that silently takes part in the fit.
func checkSoftmaxLabels(train, test *data.Dataset) error {
	lo := math.Inf(1)
	for _, d := range []*data.Dataset{train, test} {
		if d != nil {
			for _, y := range d.Y {
				lo = min(lo, y)
			}
		}
	}
	if lo >= 1 {
		return InputErrorf("{model} softmax: the labels of column %q start at %v, not 0: softmax expects the classes 0, 1, …, K−1 (with labels 1…K, subtract 1: class 0 would be empty)", train.Target, lo)
	}
	return nil
}

// standardizeTarget standardises the training responses of an MLP with a
// Gaussian likelihood by their mean and sd (the test responses with the
// same numbers), when the features are standardised: the network's N(0, 1)
// weights and the learned noise's prior are on the scale of a unit
// response. The test scores are converted back to the response's units
// (data.Scaler's Target methods).
//
// It is the response's one standardisation: the model is told
// (Spec.YStandardized) and does not standardise again. {noise-var}, y's σ²,
// is converted to z's (divided by s_y²): the spec's NoiseVar is then of the
// standardised response, as the model's parameters are.
func (j *Problem) standardizeTarget(s *model.Spec) {
	if j.Scaler == nil || s.Kind != "mlp" || s.Likelihood != "gaussian" {
		return
	}
	j.Scaler.FitTarget(j.Train.Y)
	if j.Test != nil {
		j.Scaler.TransformTarget(j.Test.Y)
	}
	s.YStandardized = true
	if j.C.Set["noise-var"] {
		// {noise-var} is y's σ² (MLPOptions.NoiseVar's units); the model
		// sees z = (y − ȳ)/s_y, whose σ² is σ²_y/s_y². Without the flag
		// the fixed σ² (or a Glorot start's) stays 1 on z: the response's
		// variance.
		s.NoiseVar = j.C.Mlp.NoiseVar / (j.Scaler.TargetScale * j.Scaler.TargetScale)
	}
}

// TakeColumn removes the feature column col (a name, or a 1-based number
// among the features) from d and returns its values.
func TakeColumn(d *data.Dataset, col, flagName string) ([]float64, error) {
	n, p := d.Len(), d.Dim()
	k := -1
	for j, name := range d.Names {
		if name == col {
			k = j
		}
	}
	if k < 0 {
		if v, err := strconv.Atoi(col); err == nil && v >= 1 && v <= p {
			k = v - 1
		}
	}
	if k < 0 {
		return nil, InputErrorf("%s %s: %s has no feature column of that name or number (features: %s)", flagName, col, d.Source, strings.Join(d.Names, ", "))
	}
	if p == 1 {
		return nil, InputErrorf("%s %s: the column is %s's only feature: nothing left to regress on", flagName, col, d.Source)
	}
	vals := make([]float64, n)
	X := mat.NewDense(n, p-1, nil)
	row := make([]float64, p)
	for i := 0; i < n; i++ {
		mat.Row(row, i, d.X)
		vals[i] = row[k]
		X.SetRow(i, append(append([]float64(nil), row[:k]...), row[k+1:]...))
	}
	d.X = X
	d.Names = append(append([]string(nil), d.Names[:k]...), d.Names[k+1:]...)
	return vals, nil
}
