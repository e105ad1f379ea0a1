package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/langevin-go/langevin/data"
)

// loadData reads the training data (a file or an embedded set) and the test
// data (a file, or a seeded split), checks labels and standardises.
func loadData(f *runFlags) (train, test *data.Dataset, err error) {
	full, ownTest, generated, err := generatedData(f, f.data)
	if err != nil {
		return nil, nil, err
	}
	if !generated {
		if full, err = readData(f, f.data, "--data", true); err != nil {
			return nil, nil, err
		}
	}
	if ownTest != nil && f.test == "" {
		train, test = full, ownTest
	} else if f.test != "" {
		train = full
		test, err = readData(f, f.test, "--test", false)
		if err != nil {
			return nil, nil, err
		}
		if test.Dim() != train.Dim() {
			return nil, nil, inputErrorf("--test %s: %d features, --data has %d", f.test, test.Dim(), train.Dim())
		}
	} else {
		train, test = data.TrainTest(full, f.testFrac, f.seed)
	}
	f.train = train
	if f.batch > train.Len() {
		return nil, nil, inputErrorf("--batch %d: expected at most N = %d training rows (0: full batch)", f.batch, train.Len())
	}
	if f.standardize {
		sc := data.FitScaler(train.X)
		f.scaler = sc
		sc.Transform(train.X)
		if test != nil && test.Len() > 0 {
			sc.Transform(test.X)
		}
	}
	return train, test, nil
}

// readData reads the data set path given by the flag flagName ("--data" or
// "--test"); when builtins is true, a path that is not a file may name an
// embedded data set.
func readData(f *runFlags, path, flagName string, builtins bool) (*data.Dataset, error) {
	var d *data.Dataset
	var err error
	isFile := true
	if _, statErr := os.Stat(path); statErr != nil && builtins {
		if b, berr := data.Builtin(path); berr == nil {
			d, isFile = b, false
		} else if errors.Is(statErr, os.ErrNotExist) {
			return nil, inputErrorf("%s %s: no such file, and not an embedded data set (%s)", flagName, path, strings.Join(data.BuiltinNames(), ", "))
		}
	}
	headerLine := 1
	if isFile {
		format := f.format
		if format == "auto" {
			format = sniffFormat(path)
		}
		if format == "libsvm" {
			headerLine = 0
			d, err = data.ReadLIBSVM(path, 0)
		} else {
			d, err = data.ReadCSV(path, data.CSVOptions{Target: f.target})
		}
		if err != nil {
			return nil, inputError{err}
		}
	} else {
		headerLine = 0
		if f.target != "" && f.target != d.Target && f.target != "-1" {
			return nil, inputErrorf("--target %s: the embedded data set %s has target %q", f.target, path, d.Target)
		}
	}
	if d.Len() == 0 {
		return nil, inputErrorf("%s %s: no data rows", flagName, path)
	}
	if f.model == "logistic" {
		if err := checkLabels(d, headerLine); err != nil {
			return nil, err
		}
	}
	if f.model == "softmax" {
		if err := checkClassLabels(f, d, headerLine); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// sniffFormat guesses LIBSVM when the first line's fields after the first
// are all index:value pairs.
func sniffFormat(path string) string {
	if strings.HasSuffix(path, ".libsvm") || strings.HasSuffix(path, ".svm") {
		return "libsvm"
	}
	fh, err := os.Open(path)
	if err != nil {
		return "csv"
	}
	defer fh.Close()
	var r io.Reader = fh
	br := bufio.NewReader(fh)
	r = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return "csv" // the reader reports the error
		}
		r = zr
	}
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(r, buf)
	line := string(buf[:n])
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(line)
	if len(fields) < 2 {
		return "csv"
	}
	for _, fl := range fields[1:] {
		if !strings.Contains(fl, ":") {
			return "csv"
		}
	}
	return "libsvm"
}

// checkLabels reports the first label that is not 0/1 or −1/+1, naming the
// file and line.
func checkLabels(d *data.Dataset, headerLines int) error {
	seen01, seenPM := false, false
	for i, y := range d.Y {
		where := fmt.Sprintf("%s:%d", d.Source, i+1+headerLines)
		switch y {
		case 0:
			seen01 = true
		case -1:
			seenPM = true
		case 1:
		default:
			return inputErrorf("%s: label %v in column %q: logistic regression expects labels 0/1 or −1/+1", where, y, d.Target)
		}
		if seen01 && seenPM {
			return inputErrorf("%s: label %v in column %q: labels mix 0/1 with −1/+1", where, y, d.Target)
		}
	}
	return nil
}
