package report

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/plot"
)

// Compared is one run in a Comparison.
type Compared struct {
	Label string
	Trace *langevin.Trace

	// Seconds is the sampling time in seconds summed over the chains
	// (rundir.Run.SamplingSeconds), NaN when unknown.
	Seconds float64

	// Score is the run's test score (Comparison.ScoreName), NaN when none.
	Score float64
}

// Comparison sets runs of the same model side by side: a table of their
// bulk-ESS (diag.Summarize, over every column), sampling time, minimum
// ESS per second and test score, and their marginal posteriors overlaid
// (the seed report's Fig. 4 and Tables 1–2).
type Comparison struct {
	Runs []Compared

	// ScoreName heads the score column: "accuracy" (a classifier's posterior
	// predictive mean) or "RMSE" (a regression's predictive mean).
	ScoreName string

	// Baseline, when HasBaseline, is the score of the optimisation
	// baseline (the MAP as a point estimate), printed as a last row.
	Baseline    float64
	HasBaseline bool
}

// CompareNote explains the table's columns.
const CompareNote = "ESS: bulk-ESS over every column (diag.Summarize); sampling s: the chain files' \"Elapsed Time ... (Sampling)\", summed over chains."

// ESSRange returns the minimum and the median of the bulk-ESS of table's
// rows, ignoring NaNs (columns too short or constant); NaN when no row has
// one.
func ESSRange(table diag.Table) (minESS, medianESS float64) {
	ess := make([]float64, 0, len(table))
	for _, s := range table {
		if !math.IsNaN(s.ESSBulk) {
			ess = append(ess, s.ESSBulk)
		}
	}
	if len(ess) == 0 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(ess)
	return ess[0], (ess[(len(ess)-1)/2] + ess[len(ess)/2]) / 2
}

// WriteTable writes the comparison table, right-aligned in columns; a
// value that is NaN or infinite prints as "–".
func (c *Comparison) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "run\tchains\tdraws\tmin ESS\tmedian ESS\tsampling s\tmin ESS/s\t%s\t\n", c.ScoreName)
	for _, r := range c.Runs {
		tr := r.Trace
		minESS, medESS := ESSRange(diag.Summarize(tr.Names, tr.Params()))
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t\n", r.Label, tr.NumChains(), tr.NumDraws(), fmtOr(minESS, "%.0f"), fmtOr(medESS, "%.0f"),
			fmtOr(r.Seconds, "%.3f"), fmtOr(minESS/r.Seconds, "%.0f"), fmtOr(r.Score, "%.4f"))
	}
	if c.HasBaseline {
		fmt.Fprintf(tw, "optimisation (MAP)\t–\t–\t–\t–\t–\t–\t%s\t\n", fmtOr(c.Baseline, "%.4f"))
	}
	return tw.Flush()
}

// MissingParam returns the index of the first run without a parameter of
// params and that parameter, or -1 when every run has them all.
func (c *Comparison) MissingParam(params []string) (int, string) {
	for i, r := range c.Runs {
		for _, p := range params {
			if indexOf(r.Trace.Names, p) < 0 {
				return i, p
			}
		}
	}
	return -1, ""
}

// Marginals draws, for each of params, the runs' marginal posteriors of
// that parameter overlaid (plot.Marginals), one plot per parameter side by
// side, 12 cm wide each and 10 cm high, encoded as format ("png" or "svg").
func (c *Comparison) Marginals(params []string, format string) ([]byte, error) {
	labels := make([]string, len(c.Runs))
	for i, r := range c.Runs {
		labels[i] = r.Label
	}
	var row []*gplot.Plot
	for _, p := range params {
		chains := make([][][]float64, len(c.Runs))
		for i, r := range c.Runs {
			j := indexOf(r.Trace.Names, p)
			if j < 0 {
				return nil, fmt.Errorf("report: run %s has no parameter %q", r.Label, p)
			}
			chains[i] = r.Trace.Param(j)
		}
		pl, err := plot.Marginals(p, labels, chains, false)
		if err != nil {
			return nil, err
		}
		row = append(row, pl)
	}
	w := vg.Length(len(row)) * 12 * vg.Centimeter
	return plot.EncodeTiles([][]*gplot.Plot{row}, w, 10*vg.Centimeter, format)
}

// Warnings says which runs have fewer than plot.MinDensityDraws draws of
// params, whose density curves are then mostly the kernel's shape: one
// sentence per run, naming it and the remedy.
func (c *Comparison) Warnings() []string {
	var w []string
	for _, r := range c.Runs {
		if n := r.Trace.NumDraws(); n < plot.MinDensityDraws {
			w = append(w, fmt.Sprintf("%s has %d draws: its density curves are drawn from fewer than %d draws and show the kernel more than the posterior (run longer or lower --thin)", r.Label, n, plot.MinDensityDraws))
		}
	}
	return w
}

// WriteDir writes the comparison into the existing directory dir:
// marginals.png and marginals.svg (Marginals of params) and index.md, a
// page with the figure, the table and note (when not empty).
func (c *Comparison) WriteDir(dir string, params []string, note string) error {
	for _, format := range []string{"png", "svg"} {
		b, err := c.Marginals(params, format)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "marginals."+format), b, 0o644); err != nil {
			return err
		}
	}
	labels := make([]string, len(c.Runs))
	for i, r := range c.Runs {
		labels[i] = mdEscape(r.Label)
	}
	var tab strings.Builder
	if err := c.WriteTable(&tab); err != nil {
		return err
	}
	fence := "```" // longer than any run of backticks in the table (a label's)
	for strings.Contains(tab.String(), fence) {
		fence += "`"
	}
	page := "# compare: " + strings.Join(labels, ", ") + "\n\n![marginals](marginals.png)\n\n" + fence + "\n" + tab.String() + fence + "\n"
	if note != "" {
		page += "\n" + mdEscape(note) + "\n"
	}
	return os.WriteFile(filepath.Join(dir, "index.md"), []byte(page), 0o644)
}

// mdEscape returns s as literal Markdown text on one line: '<', '>' and '&'
// as HTML entities (no raw HTML from a run's name reaches the page), the
// other characters Markdown gives a meaning to behind a backslash, line
// breaks as spaces.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case r == '\n' || r == '\r':
			b.WriteByte(' ')
		case strings.ContainsRune("\\`*_{}[]()#+-.!|~", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func indexOf(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

func fmtOr(v float64, format string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	return fmt.Sprintf(format, v)
}
