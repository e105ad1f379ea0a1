package main

// The flags of a table's columns (--id, --drop, --categorical, --missing):
// thin glue from flags to data.CSVOptions; the rules live in package data
// (data.Coding), the scale in data.Scaler.Unscale.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
)

// columnFlags are the flags that say how a table's columns are read.
type columnFlags struct {
	id, drop, categorical, missing string
	coding                         *data.Coding // reading new rows: the run's coding
	optionalTarget                 bool         // predict: the target may be absent
}

func (f *columnFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.id, "id", "", "ID `COL`umn (a name or number, as --target): never a feature; predict writes it beside each prediction")
	fs.StringVar(&f.drop, "drop", "", "`COL,…`: columns not to read (names or numbers, as --target)")
	fs.StringVar(&f.categorical, "categorical", "", "`COL,…`: columns coded as categorical even if they hold numbers (a column of text is categorical anyway: treatment coding against its first level in byte order)")
	fs.StringVar(&f.missing, "missing", "error", "missing values (empty, NA, N/A, NaN, nan, null, NULL): error (exit 2 naming the column and how many rows) or drop (drop those rows, counted per column); never imputed")
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// check validates the flags.
func (f *columnFlags) check() error {
	if f.missing != data.MissingError && f.missing != data.MissingDrop && f.missing != "" {
		return inputErrorf("--missing %q: expected error or drop", f.missing)
	}
	return nil
}

// csvOptions returns the reader's options for the target column target.
func (f *columnFlags) csvOptions(target string) data.CSVOptions {
	return data.CSVOptions{Target: target, ID: f.id, Drop: splitList(f.drop), Categorical: splitList(f.categorical),
		Missing: f.missing, Coding: f.coding, OptionalTarget: f.optionalTarget}
}

// readError is the input error of a data reader, with the flag that drops
// missing values named.
func readError(err error) error {
	if errors.Is(err, data.ErrMissing) {
		return inputErrorf("%v (--missing drop drops them)", err)
	}
	return inputError{err}
}

// responseHint suggests the model for responses y that --model kind cannot
// take: counts → poisson, real numbers → linear, integer classes → softmax.
func responseHint(kind string, y []float64) string {
	ints, nonneg := true, true
	seen := map[float64]bool{}
	for _, v := range y {
		if v != math.Trunc(v) {
			ints = false
		}
		if v < 0 {
			nonneg = false
		}
		if len(seen) <= 20 {
			seen[v] = true
		}
	}
	switch {
	case !ints:
		return "; the responses are real numbers: --model linear (or robust)"
	case nonneg && len(seen) > 2 && len(seen) <= 20 && kind != "softmax":
		return fmt.Sprintf("; the responses are %s integers ≥ 0: --model poisson (or negbin) for counts, --model softmax for class labels", strconv.Itoa(len(seen))+" distinct")
	case nonneg && kind != "poisson":
		return "; the responses are integers ≥ 0: --model poisson (or negbin) for counts"
	case ints:
		return "; the responses are integers: --model linear"
	}
	return ""
}

// printCoding prints the rules by which the columns of d were read, one
// "columns:" line each (nothing for a table of numbers read whole).
func printCoding(w io.Writer, d *data.Dataset) {
	if d == nil || !d.Coding.HasText() {
		return
	}
	for _, l := range d.Coding.Describe() {
		fmt.Fprintln(w, "columns: "+l)
	}
	if len(d.Ignored) > 0 {
		fmt.Fprintf(w, "columns: not used by the run, ignored: %s\n", strings.Join(quoteAll(d.Ignored), ", "))
	}
}

// coefLayout reports whether names are a GLM's coefficients: "intercept",
// "beta.1", …, "beta.p" first.
func coefLayout(names []string, p int) bool {
	if len(names) < p+1 || names[0] != "intercept" {
		return false
	}
	for j := 1; j <= p; j++ {
		if names[j] != "beta."+strconv.Itoa(j) {
			return false
		}
	}
	return true
}

// coefName is the name of feature f's coefficient in the tables: "beta.f".
func coefName(feature string) string { return "beta." + feature }

// maxDataScaleRows bounds the table of coefficients on the data's scale: a
// wider model (an image's pixels) has no use for one.
const maxDataScaleRows = 200

// dataScaleTable summarises the draws of a GLM's intercept and coefficients
// on the data's own scale (sc.Unscale of every draw; sc nil: as sampled),
// named after the features: intercept, beta.<feature>. ok is false when the
// model's parameters are not of that layout (softmax, networks, no
// intercept) or the features are unnamed or too many.
func dataScaleTable(tr *langevin.Trace, features []string, sc *data.Scaler) (table diag.Table, ok bool) {
	p := len(features)
	if p == 0 || p > maxDataScaleRows || !coefLayout(tr.Names, p) || (sc != nil && len(sc.Mean) != p) {
		return nil, false
	}
	params, _ := commonLength(tr)
	chains := len(params[0])
	out := make([][][]float64, p+1)
	for j := range out {
		out[j] = make([][]float64, chains)
		for c := range chains {
			out[j][c] = make([]float64, len(params[0][c]))
		}
	}
	coef := make([]float64, p+1)
	for c := range chains {
		for i := range params[0][c] {
			for j := range coef {
				coef[j] = params[j][c][i]
			}
			if sc != nil {
				sc.Unscale(coef, coef)
			}
			for j, v := range coef {
				out[j][c][i] = v
			}
		}
	}
	names := make([]string, p+1)
	names[0] = "intercept"
	for j, f := range features {
		names[j+1] = coefName(f)
	}
	return diag.Summarize(names, out), true
}

// printDataScale prints the coefficients on the data's own scale when the
// run standardised its features or its features have names of their own.
func printDataScale(w io.Writer, tr *langevin.Trace, features []string, sc *data.Scaler) error {
	if headerlessNames(features) {
		return nil
	}
	t, ok := dataScaleTable(tr, features, sc)
	if !ok {
		return nil
	}
	if sc != nil {
		fmt.Fprintln(w, "coefficients on the data's own scale (each draw de-standardised: beta.x = β/sd(x), intercept − Σ β·mean/sd; a dummy col[level] is the difference from the reference level):")
	} else {
		fmt.Fprintln(w, "coefficients named after the columns (the data's own scale: no standardisation):")
	}
	if err := t.Format(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return nil
}

// headerlessNames reports whether features are the V1, V2, … of a file
// without a header.
func headerlessNames(features []string) bool {
	return slices.IndexFunc(features, func(f string) bool { return !strings.HasPrefix(f, "V") }) < 0
}
