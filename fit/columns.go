package fit

// The flags of a table's columns ({id}, {drop}, {categorical}, {missing}):
// thin glue from flags to data.CSVOptions; the rules live in package data
// (data.Coding), the scale in data.Scaler.Unscale.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
)

// readError is the input error of a data reader, with the flag that drops
// missing values named.
func readError(err error) error {
	if errors.Is(err, data.ErrMissing) {
		return InputErrorf("%v ({missing} drop drops them)", err)
	}
	var te *data.TextColumnError
	var pe *data.ParseError
	if errors.As(err, &te) && errors.As(err, &pe) {
		col := te.Column
		if strings.ContainsAny(col, " \t\"'$") {
			col = strconv.Quote(col)
		}
		choices := fmt.Sprintf("{drop} %s, {id} %s if it names the rows (written beside each prediction), or {categorical} %s to code it as a category anyway", col, col, col)
		if te.What == "decimal-comma numbers" {
			choices = fmt.Sprintf("{drop} %s, or {categorical} %s to code it as a category anyway", col, col)
		}
		return InputErrorf("%s: %s; %s", pe.File, te, choices)
	}
	return InputError{Err: err}
}

// responseHint suggests the model for responses y that {model} kind cannot
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
		return "; the responses are real numbers: {model} linear (or robust)"
	case nonneg && len(seen) > 2 && len(seen) <= 20 && kind != "softmax":
		return fmt.Sprintf("; the responses are %s integers ≥ 0: {model} poisson (or negbin) for counts, {model} softmax for class labels", strconv.Itoa(len(seen))+" distinct")
	case nonneg && kind != "poisson":
		return "; the responses are integers ≥ 0: {model} poisson (or negbin) for counts"
	case ints:
		return "; the responses are integers: {model} linear"
	}
	return ""
}

// PrintCoding prints the rules by which the columns of d were read, one
// "columns:" line each (nothing for a table of numbers read whole).
func PrintCoding(w io.Writer, d *data.Dataset) {
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

// CoefName is the name of feature f's coefficient in the tables: "beta.f".
func CoefName(feature string) string { return "beta." + feature }

// maxDataScaleRows bounds the table of coefficients on the data's scale: a
// wider model (an image's pixels) has no use for one.
const maxDataScaleRows = 200

// DataScaleTable summarises the draws of a GLM's intercept and coefficients
// on the data's own scale (sc.Unscale of every draw; sc nil: as sampled),
// named after the features: intercept, beta.<feature>. ok is false when the
// model's parameters are not of that layout (softmax, networks, no
// intercept) or the features are unnamed or too many.
func DataScaleTable(tr *langevin.Trace, features []string, sc *data.Scaler) (table diag.Table, ok bool) {
	p := len(features)
	if p == 0 || p > maxDataScaleRows || !coefLayout(tr.Names, p) || (sc != nil && (len(sc.Mean) != p || sc.TargetScale != 0)) {
		return nil, false
	}
	params, _ := CommonLength(tr)
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
		names[j+1] = CoefName(f)
	}
	return diag.Summarize(names, out), true
}

// NamedTable reports whether the data source is a table of the user's
// (a file or standard input, not an embedded or generated set, whose
// output stays as it was) or a coding with text columns: the tables named
// after its columns are printed for it.
func NamedTable(source string, coding *data.Coding) bool {
	if coding.HasText() || source == "-" {
		return true
	}
	st, err := os.Stat(source)
	return err == nil && !st.IsDir()
}

// PrintDataScale prints the coefficients on the data's own scale, named
// after the columns (unless they are the V1, V2, … of a file without a
// header).
func PrintDataScale(w io.Writer, tr *langevin.Trace, features []string, sc *data.Scaler) error {
	if headerlessNames(features) {
		return nil
	}
	t, ok := DataScaleTable(tr, features, sc)
	if !ok {
		return nil
	}
	if sc != nil {
		fmt.Fprintln(w, "coefficients on the data's own scale, named after the columns (rows in the order of intercept, beta.1, … above, each draw de-standardised: beta.x = β/sd(x), intercept − Σ β·mean/sd; a dummy col[level] is the difference from the reference level):")
	} else {
		fmt.Fprintln(w, "coefficients named after the columns (rows in the order of intercept, beta.1, … above; the data's own scale: no standardisation):")
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

// SameData reports whether the {data} of predict is the run's own data: the
// same name (an embedded or generated set) or the same file.
func SameData(a, b string) bool {
	if a == b {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// CSVField quotes s for a CSV file when it needs it.
func CSVField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// WithIDs wraps the writer of a per-row predictions file so that, when d
// has an ID column, each line starts with the row's ID (the header with the
// column's name).
func WithIDs(d *data.Dataset, write func(io.Writer) error) func(io.Writer) error {
	if d.IDs == nil {
		return write
	}
	return func(w io.Writer) error {
		var buf bytes.Buffer
		if err := write(&buf); err != nil {
			return err
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		bw := bufio.NewWriter(w)
		for i, l := range lines {
			id := d.Coding.ID
			if i > 0 {
				id = d.IDs[i-1]
			}
			bw.WriteString(CSVField(id) + "," + l + "\n")
		}
		return bw.Flush()
	}
}

// DataScaleText is the coding and the coefficients on the data's own scale
// as text (the report's and summary's), "" when there is no such table.
func DataScaleText(tr *langevin.Trace, d *data.Dataset, sc *data.Scaler) string {
	var b bytes.Buffer
	if d.Coding.HasText() {
		for _, l := range d.Coding.Describe() {
			fmt.Fprintln(&b, "columns: "+l)
		}
	}
	n := b.Len()
	PrintDataScale(&b, tr, d.Names, sc)
	if b.Len() == n {
		return ""
	}
	return b.String()
}
