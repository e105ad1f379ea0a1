package stancsv

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ErrRowCount is wrapped by the error that Writer.Close returns when the
// number of rows written does not match the counts that the configuration
// comments announce. Readers split warm-up from sampling draws by those
// counts, so such a file is mis-split by rstan, cmdstanr and ArviZ.
var ErrRowCount = errors.New("stancsv: row count does not match the configuration")

// Config is the run configuration that a Writer records in the comment lines
// at the top of the file. The zero value of each field except Model is usable.
type Config struct {
	// Model is the model's name, written as "model = ...". It must not be
	// empty: cmdstanr compares it across the files of a multi-chain fit.
	Model string

	// Method is the CmdStan method, written as "method = ...".
	// The empty string means "sample".
	Method string

	// Algorithm names the sampling algorithm, e.g. "sgld" or "hmc", written
	// as "algorithm = ..." under the method. Empty omits the line.
	// rstan::read_stan_csv expects "engine" and "metric" too when the
	// algorithm is "hmc"; give engine in Extra.
	Algorithm string

	// Metric names the kind of (inverse) mass matrix or preconditioner:
	// "unit_e", "diag_e" or "dense_e", written as "metric = ...". It must
	// be set if Writer.WriteAdaptation is given an inverse metric, since
	// cmdstanr reads the metric's shape from it. Empty omits the line.
	Metric string

	// NumSamples and NumWarmup are the numbers of sampling and warm-up
	// iterations before thinning; Thin keeps every Thin-th iteration
	// (0 means 1). A run with SaveWarmup writes ceil(NumWarmup/Thin)
	// warm-up rows followed by ceil(NumSamples/Thin) sampling rows;
	// without it, only the sampling rows. Writer.Close checks these counts.
	// ArviZ's from_cmdstan takes floor(NumWarmup/Thin) rows as warm-up, so
	// with SaveWarmup keep NumWarmup a multiple of Thin for ArviZ to agree.
	NumSamples, NumWarmup, Thin int
	SaveWarmup                  bool

	// Seed is the random seed, written as "seed = ..." under "random".
	Seed uint64

	// ChainID is the chain's identifier, written as "id = ...".
	// CmdStan numbers chains from 1.
	ChainID int

	// SigFigs is the number of significant digits written for each value.
	// Zero means the shortest representation that reads back to the same
	// float64 (at most 17 digits). Otherwise it must be in [1, 17]; CmdStan
	// itself writes 6 by default. It is recorded as "sig_figs = ..." under
	// "output" when not zero.
	SigFigs int

	// Extra holds further key = value pairs, written in order as top-level
	// comment lines after the standard ones, e.g. {"step_size", "0.001"}.
	// Keys must be single words and must not repeat a key written above.
	// Values (and Model) are written through EscapeValue, so any string
	// (a path with '=', '#' or a line break) is kept on its line. For instance
	// {"sampler_t", "SGLD"} makes rstan's print say "Samples were drawn
	// using SGLD".
	Extra [][2]string
}

// Writer writes one chain's draws as a Stan CSV file.
//
// A Writer buffers its output; Close must be called to write the final
// timing block and flush. Methods of a Writer must not be called
// concurrently.
type Writer struct {
	bw   *bufio.Writer
	cfg  Config
	ncol int
	prec int
	buf  []byte

	rows     int  // data rows written
	warmRows int  // rows written before WriteAdaptation
	adapted  bool // WriteAdaptation was called
	closed   bool
}

// NewWriter returns a Writer that writes to w. It writes the configuration
// comments of cfg and the header line of column names at once; errors from w
// may show up only at a later Flush or Close. The comments give, in CmdStan's
// layout and indentation, model, method, then under the method num_samples,
// num_warmup, save_warmup (as 0 or 1, which every reader takes), thin,
// algorithm and metric, then id, seed under "random", sig_figs under
// "output", and the Extra pairs; the ExampleWriter output shows them.
//
// The column names must be non-empty and distinct, must not contain
// white space, commas, quotes, '#' or control characters, and the first must
// begin with an ASCII letter (cmdstanr finds the header line that way).
// rstan::read_stan_csv further requires an "lp__" column.
func NewWriter(w io.Writer, cfg Config, columns []string) (*Writer, error) {
	if cfg.Method == "" {
		cfg.Method = "sample"
	}
	if cfg.Thin == 0 {
		cfg.Thin = 1
	}
	if err := checkConfig(&cfg); err != nil {
		return nil, err
	}
	if err := checkColumns(columns); err != nil {
		return nil, err
	}
	prec := -1
	if cfg.SigFigs > 0 {
		prec = cfg.SigFigs
	}
	wr := &Writer{
		bw:   bufio.NewWriterSize(w, 64<<10),
		cfg:  cfg,
		ncol: len(columns),
		prec: prec,
	}
	wr.writeConfig()
	for i, c := range columns {
		if i > 0 {
			wr.bw.WriteByte(',')
		}
		wr.bw.WriteString(c)
	}
	wr.bw.WriteByte('\n')
	return wr, nil
}

func (w *Writer) writeConfig() {
	c := &w.cfg
	kv := func(indent int, key, val string) {
		w.bw.WriteString("#")
		w.bw.WriteString(strings.Repeat(" ", 1+2*indent))
		w.bw.WriteString(key)
		w.bw.WriteString(" = ")
		w.bw.WriteString(val)
		w.bw.WriteByte('\n')
	}
	section := func(indent int, name string) {
		w.bw.WriteString("#")
		w.bw.WriteString(strings.Repeat(" ", 1+2*indent))
		w.bw.WriteString(name)
		w.bw.WriteByte('\n')
	}
	itoa := strconv.Itoa
	kv(0, "model", EscapeValue(c.Model))
	kv(0, "method", c.Method)
	section(1, c.Method)
	kv(2, "num_samples", itoa(c.NumSamples))
	kv(2, "num_warmup", itoa(c.NumWarmup))
	save := "0"
	if c.SaveWarmup {
		save = "1"
	}
	kv(2, "save_warmup", save)
	kv(2, "thin", itoa(c.Thin))
	metricIndent := 2
	if c.Algorithm != "" {
		kv(2, "algorithm", c.Algorithm)
		section(3, c.Algorithm)
		metricIndent = 4
	}
	if c.Metric != "" {
		kv(metricIndent, "metric", c.Metric)
	}
	kv(0, "id", itoa(c.ChainID))
	section(0, "random")
	kv(1, "seed", strconv.FormatUint(c.Seed, 10))
	if c.SigFigs > 0 {
		section(0, "output")
		kv(1, "sig_figs", itoa(c.SigFigs))
	}
	for _, e := range c.Extra {
		kv(0, e[0], EscapeValue(e[1]))
	}
}

// reservedKeys are the keys that NewWriter writes itself.
var reservedKeys = map[string]bool{
	"model": true, "method": true, "num_samples": true, "num_warmup": true,
	"save_warmup": true, "thin": true, "algorithm": true, "metric": true,
	"id": true, "seed": true, "sig_figs": true,
}

func checkConfig(c *Config) error {
	if c.Model == "" {
		return errors.New("stancsv: Config.Model is empty")
	}
	for _, f := range []struct{ name, val string }{
		{"Method", c.Method}, {"Algorithm", c.Algorithm}, {"Metric", c.Metric},
	} {
		if f.val != "" && !isWord(f.val) {
			return fmt.Errorf("stancsv: Config.%s %q is not a single word", f.name, f.val)
		}
	}
	switch {
	case c.NumSamples < 0:
		return fmt.Errorf("stancsv: Config.NumSamples is negative (%d)", c.NumSamples)
	case c.NumWarmup < 0:
		return fmt.Errorf("stancsv: Config.NumWarmup is negative (%d)", c.NumWarmup)
	case c.Thin < 0:
		return fmt.Errorf("stancsv: Config.Thin is negative (%d)", c.Thin)
	case c.SigFigs < 0 || c.SigFigs > 17:
		return fmt.Errorf("stancsv: Config.SigFigs %d is outside [0, 17]", c.SigFigs)
	}
	seen := make(map[string]bool)
	for _, e := range c.Extra {
		k := e[0]
		if !isWord(k) {
			return fmt.Errorf("stancsv: Config.Extra key %q is not a single word", k)
		}
		if reservedKeys[k] || seen[k] {
			return fmt.Errorf("stancsv: Config.Extra key %q is written twice", k)
		}
		seen[k] = true
	}
	return nil
}

// isWord reports whether s is a non-empty key or value that every reader
// parses back whole: no white space, no '=', '#' or ',' and no control
// characters.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || r == '=' || r == '#' || r == ',' {
			return false
		}
	}
	return true
}

// valueEscapes are the characters of a configuration value that
// EscapeValue writes as %XX: those that would end the comment line or be
// read as the start of a comment or of a value, and '%' itself.
var valueEscapes = strings.NewReplacer("%", "%25", "\n", "%0A", "\r", "%0D", "#", "%23", "=", "%3D")

// valueUnescapes undoes valueEscapes.
var valueUnescapes = strings.NewReplacer("%25", "%", "%0A", "\n", "%0D", "\r", "%23", "#", "%3D", "=")

// EscapeValue returns v as a configuration comment writes it: '%', line
// breaks, '#' and '=' percent-encoded as in a URL (%25, %0A, %0D, %23,
// %3D), every other character as is, so that a value is one line that
// splits at its first '=' into key and value in every reader (CmdStan's
// own, cmdstanpy, rstan); the Reader decodes it with UnescapeValue.
func EscapeValue(v string) string {
	if !strings.ContainsAny(v, "%\n\r#=") {
		return v
	}
	return valueEscapes.Replace(v)
}

// UnescapeValue undoes EscapeValue: it decodes %25, %0A, %0D, %23 and %3D
// and leaves everything else alone (a '%' before other characters, in a
// file that another program wrote, stays as it is).
func UnescapeValue(v string) string {
	if !strings.Contains(v, "%") {
		return v
	}
	return valueUnescapes.Replace(v)
}

func checkColumns(columns []string) error {
	if len(columns) == 0 {
		return errors.New("stancsv: no columns")
	}
	seen := make(map[string]int, len(columns))
	for i, c := range columns {
		if c == "" {
			return fmt.Errorf("stancsv: column %d has an empty name", i+1)
		}
		for _, r := range c {
			if r <= ' ' || r == 0x7f || r == ',' || r == '#' || r == '"' || r == '\'' {
				return fmt.Errorf("stancsv: column name %q contains %q", c, r)
			}
		}
		if j, ok := seen[c]; ok {
			return fmt.Errorf("stancsv: column name %q is used for columns %d and %d", c, j+1, i+1)
		}
		seen[c] = i
	}
	if b := columns[0][0]; !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z') {
		return fmt.Errorf("stancsv: first column name %q does not begin with a letter", columns[0])
	}
	return nil
}

var errClosed = errors.New("stancsv: Writer is closed")

// appendFloat appends x to b in the Writer's number format.
func (w *Writer) appendFloat(b []byte, x float64) []byte {
	switch {
	case math.IsNaN(x):
		return append(b, "nan"...)
	case math.IsInf(x, 1):
		return append(b, "inf"...)
	case math.IsInf(x, -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, x, 'g', w.prec, 64)
}

// Write writes one draw. The length of row must equal the number of columns.
// Rows written before WriteAdaptation are warm-up rows, those after it
// sampling rows.
func (w *Writer) Write(row []float64) error {
	if w.closed {
		return errClosed
	}
	if len(row) != w.ncol {
		return fmt.Errorf("stancsv: row has %d values, header has %d columns", len(row), w.ncol)
	}
	b := w.buf[:0]
	for i, x := range row {
		if i > 0 {
			b = append(b, ',')
		}
		b = w.appendFloat(b, x)
	}
	b = append(b, '\n')
	w.buf = b
	w.rows++
	_, err := w.bw.Write(b)
	return err
}

// Comment writes "# " followed by line as a comment line. The line must not
// contain a line break. Readers take comments anywhere in the file, but
// rstan parses "key = value" comments before "# Adaptation terminated" as
// configuration.
func (w *Writer) Comment(line string) error {
	if w.closed {
		return errClosed
	}
	if strings.ContainsAny(line, "\n\r") {
		return fmt.Errorf("stancsv: comment %q contains a line break", line)
	}
	w.bw.WriteByte('#')
	if line != "" {
		w.bw.WriteByte(' ')
		w.bw.WriteString(line)
	}
	return w.bw.WriteByte('\n')
}

// WriteAdaptation writes CmdStan's adaptation block, which marks the end of
// warm-up:
//
//	# Adaptation terminated
//	# Step size = 0.8
//	# Diagonal elements of inverse mass matrix:
//	# 1, 1.2
//
// The last two lines are written only if invMetric is not empty, which then
// requires Config.Metric. With Metric "dense_e", invMetric holds the n×n
// inverse metric in row-major order and is written as n lines under
// "# Elements of inverse mass matrix:". WriteAdaptation may be called once.
func (w *Writer) WriteAdaptation(stepSize float64, invMetric []float64) error {
	if w.closed {
		return errClosed
	}
	if w.adapted {
		return errors.New("stancsv: WriteAdaptation called twice")
	}
	n := 0 // rows of a dense metric
	if len(invMetric) > 0 {
		switch w.cfg.Metric {
		case "":
			return errors.New("stancsv: inverse metric given but Config.Metric is empty")
		case "dense_e":
			n = int(math.Sqrt(float64(len(invMetric))) + 0.5)
			if n*n != len(invMetric) {
				return fmt.Errorf("stancsv: dense inverse metric has %d elements, not a square number", len(invMetric))
			}
		}
	}
	w.adapted = true
	w.warmRows = w.rows
	w.bw.WriteString("# Adaptation terminated\n# Step size = ")
	w.buf = w.appendFloat(w.buf[:0], stepSize)
	w.bw.Write(w.buf)
	w.bw.WriteByte('\n')
	if len(invMetric) == 0 {
		return nil
	}
	if n == 0 {
		w.bw.WriteString("# Diagonal elements of inverse mass matrix:\n")
		w.writeMetricRow(invMetric)
	} else {
		w.bw.WriteString("# Elements of inverse mass matrix:\n")
		for i := 0; i < n; i++ {
			w.writeMetricRow(invMetric[i*n : (i+1)*n])
		}
	}
	_, err := w.bw.Write(nil)
	return err
}

func (w *Writer) writeMetricRow(x []float64) {
	b := append(w.buf[:0], '#', ' ')
	for i, v := range x {
		if i > 0 {
			b = append(b, ',', ' ')
		}
		b = w.appendFloat(b, v)
	}
	b = append(b, '\n')
	w.buf = b
	w.bw.Write(b)
}

// Flush writes any buffered data to the underlying io.Writer, so that a
// partly written file can be inspected during a long run.
func (w *Writer) Flush() error {
	return w.bw.Flush()
}

// Close writes CmdStan's timing block with the given warm-up and sampling
// times in seconds, and flushes. It does not close the underlying io.Writer.
//
// The file is complete even if Close then returns an error wrapping
// ErrRowCount: the rows written before WriteAdaptation (all rows, if it was
// not called) do not match the counts that the configuration announces.
func (w *Writer) Close(elapsedWarmup, elapsedSampling float64) error {
	if w.closed {
		return errClosed
	}
	w.closed = true
	sec := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	w.bw.WriteString("#\n#  Elapsed Time: " + sec(elapsedWarmup) + " seconds (Warm-up)\n")
	w.bw.WriteString("#                " + sec(elapsedSampling) + " seconds (Sampling)\n")
	w.bw.WriteString("#                " + sec(elapsedWarmup+elapsedSampling) + " seconds (Total)\n#\n")
	if err := w.bw.Flush(); err != nil {
		return err
	}
	return w.checkCounts()
}

func (w *Writer) checkCounts() error {
	c := &w.cfg
	wantWarm := 0
	if c.SaveWarmup {
		wantWarm = ceilDiv(c.NumWarmup, c.Thin)
	}
	wantSamp := ceilDiv(c.NumSamples, c.Thin)
	if w.adapted {
		if w.warmRows == wantWarm && w.rows-w.warmRows == wantSamp {
			return nil
		}
		return fmt.Errorf("%w: wrote %d warm-up and %d sampling rows, want %d and %d (num_warmup = %d, num_samples = %d, thin = %d, save_warmup = %t)",
			ErrRowCount, w.warmRows, w.rows-w.warmRows, wantWarm, wantSamp, c.NumWarmup, c.NumSamples, c.Thin, c.SaveWarmup)
	}
	if w.rows == wantWarm+wantSamp {
		return nil
	}
	return fmt.Errorf("%w: wrote %d rows, want %d (num_warmup = %d, num_samples = %d, thin = %d, save_warmup = %t)",
		ErrRowCount, w.rows, wantWarm+wantSamp, c.NumWarmup, c.NumSamples, c.Thin, c.SaveWarmup)
}

func ceilDiv(a, b int) int {
	if b <= 0 {
		return a
	}
	return (a + b - 1) / b
}
