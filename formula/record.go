package formula

import (
	"github.com/langevin-go/langevin/data"

	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Record is what a run directory keeps of a formula model (model.json's
// "formula"), enough for predict to rebuild it: the formula, family,
// priors, trials column and parameterisation as given, the training data
// file with its SHA-256 and rows (the coding of new data — factor levels,
// poly's recurrence, scale's centre, the centring means — is learned from
// it again, and the hash makes sure it is the same file), each grouping
// factor's levels (checked against the rebuilt model), and the rule for
// levels of new data that training did not have.
type Record struct {
	Formula  string `json:"formula"`
	Family   string `json:"family"`
	Priors   string `json:"priors,omitempty"`
	Trials   string `json:"trials,omitempty"`
	Centring string `json:"centring,omitempty"`
	// Scaled says that θ's b block is the coefficient of the scaled
	// design (Model's doc); a record without it is of a model whose θ
	// holds b in the data's units, and is rebuilt so.
	Scaled bool `json:"scaled_design,omitempty"`
	// Missing is the missing-value rule the training data were read
	// with (ReadOptions.Missing; "" is MissingError).
	Missing    string              `json:"missing,omitempty"`
	Data       string              `json:"data"`
	DataSHA256 string              `json:"data_sha256"`
	Rows       int                 `json:"rows"`
	Levels     map[string][]string `json:"group_levels"`
	NewLevels  string              `json:"new_levels"`
}

// FileSHA256 returns the hex SHA-256 of a file's contents.
func FileSHA256(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// NewRecord describes m, built from the CSV file data (read with the
// missing-value rule missing) with the options' priors text priors, for a
// run directory; rule is predict's default for new levels.
func NewRecord(m *Model, data, priors, missing string, opt Options, rule NewLevels) (*Record, error) {
	sum, err := FileSHA256(data)
	if err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(data); err == nil {
		data = abs // predict may run from another directory
	}
	r := &Record{Formula: m.Formula.Text, Family: m.Family, Priors: priors, Trials: opt.Trials,
		Centring: opt.Centring, Scaled: !opt.Unscaled, Missing: missing, Data: data, DataSHA256: sum, Rows: m.Len(), Levels: m.Levels(), NewLevels: rule.String()}
	return r, nil
}

// Levels returns each grouping factor's levels in the model's order.
func (m *Model) Levels() map[string][]string {
	out := map[string][]string{}
	for _, g := range m.groups {
		out[g.name] = slices.Clone(g.levels)
	}
	return out
}

// ParseNewLevels reads a NewLevels rule by its name (population, sample,
// error).
func ParseNewLevels(s string) (NewLevels, error) {
	for r := NewLevelsPopulation; r <= NewLevelsError; r++ {
		if r.String() == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("new levels %q: expected population, sample or error", s)
}

// Rebuild builds the recorded model again from its training data, read
// with read (the run's delimiter, decimal mark and missing-value tokens;
// the missing-value rule is the record's); it refuses a data file that changed since the run (another SHA-256 or
// number of rows) or levels that differ from the recorded ones.
func (r *Record) Rebuild(read data.TableOptions) (*Model, error) {
	sum, err := FileSHA256(r.Data)
	if err != nil {
		return nil, fmt.Errorf("the run's training data: %v (predict rebuilds the formula's coding from it)", err)
	}
	if sum != r.DataSHA256 {
		return nil, fmt.Errorf("the run's training data %s changed since the run (SHA-256 %s…, recorded %s…): predict rebuilds the formula's coding (levels, centring) from it", r.Data, sum[:12], r.DataSHA256[:min(12, len(r.DataSHA256))])
	}
	f, err := Parse(r.Formula)
	if err != nil {
		return nil, err
	}
	pri, err := ParsePriors(r.Priors)
	if err != nil {
		return nil, err
	}
	read.Missing = r.Missing
	tab, _, err := Read(r.Data, "auto", f, read)
	if err != nil {
		return nil, err
	}
	m, err := New(f, tab, Options{Family: r.Family, Priors: pri, Trials: r.Trials, Centring: r.Centring, Unscaled: !r.Scaled})
	if err != nil {
		return nil, err
	}
	if m.Len() != r.Rows {
		return nil, fmt.Errorf("the run's training data %s: %d rows, recorded %d", r.Data, m.Len(), r.Rows)
	}
	got := m.Levels()
	names := make([]string, 0, len(r.Levels))
	for k := range r.Levels {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !slices.Equal(got[k], r.Levels[k]) {
			return nil, fmt.Errorf("grouping factor %s: the rebuilt model's levels (%s) are not the recorded ones (%s)", k, preview(got[k]), preview(r.Levels[k]))
		}
	}
	if len(got) != len(r.Levels) {
		return nil, fmt.Errorf("the rebuilt model has grouping factors %s, recorded %d", strings.Join(slices.Sorted(maps.Keys(got)), ", "), len(r.Levels))
	}
	return m, nil
}

// NewLevelsWhy says what a new-levels rule does, for the output.
func NewLevelsWhy(r NewLevels) string {
	switch r {
	case NewLevelsSample:
		return "a level the training data did not have gets effects drawn from the group distribution N(0, diag(sd)·Ω·diag(sd)), once per draw: intervals include the between-group spread (brms's allow_new_levels, sample_new_levels = \"gaussian\")"
	case NewLevelsError:
		return "a level the training data did not have is an error"
	}
	return "a level the training data did not have is predicted at the population level, its group effects 0 (the mean of the group distribution); --new-levels sample draws them instead"
}

// Observed returns the response of new data, coded as in training, and
// whether the table has it: ok false and no error when it has no response
// column, an error when the column does not read as the training data's
// response (text where there were numbers, a level the training data did
// not have).
func (m *Model) Observed(tab Table) (y []float64, ok bool, err error) {
	var absent func(x *Expr) bool // a column of x is not in tab
	absent = func(x *Expr) bool {
		if x.Op == "col" {
			_, has := tab.Column(x.Name)
			return !has
		}
		return slices.ContainsFunc(x.Args, absent)
	}
	if m.Formula.Response == nil || absent(m.Formula.Response) {
		return nil, false, nil
	}
	mm := &Model{Family: m.Family}
	if err := mm.response(&env{tab: tab, book: m.book}, m.Formula.Response); err != nil {
		return nil, false, err
	}
	return mm.y, true, nil
}

// PredictionSummary is, for each row of new data, the posterior mean of
// E[y] and its central credible interval at Level.
type PredictionSummary struct {
	Level              float64
	Mean, Lower, Upper []float64
}

// Summarize returns the posterior mean and central level-interval of the
// mean of y for each row.
func (p *Prediction) Summarize(level float64) *PredictionSummary {
	s := &PredictionSummary{Level: level}
	if len(p.Mean) == 0 {
		return s
	}
	n := len(p.Mean[0])
	s.Mean, s.Lower, s.Upper = make([]float64, n), make([]float64, n), make([]float64, n)
	col := make([]float64, len(p.Mean))
	for i := 0; i < n; i++ {
		var sum float64
		for k, row := range p.Mean {
			col[k] = row[i]
			sum += row[i]
		}
		s.Mean[i] = sum / float64(len(col))
		sort.Float64s(col)
		s.Lower[i] = quantileSorted(col, (1-level)/2)
		s.Upper[i] = quantileSorted(col, (1+level)/2)
	}
	return s
}

func quantileSorted(x []float64, q float64) float64 {
	h := q * float64(len(x)-1)
	lo := int(h)
	if lo+1 >= len(x) {
		return x[len(x)-1]
	}
	return x[lo] + (h-float64(lo))*(x[lo+1]-x[lo])
}

// Score compares the posterior mean of E[y] with the observed y: RMSE for
// every family, and accuracy and Brier score for bernoulli and probit.
func (s *PredictionSummary) Score(y []float64, family string) string {
	var se, acc float64
	for i, m := range s.Mean {
		se += (y[i] - m) * (y[i] - m)
		if (m >= 0.5) == (y[i] >= 0.5) {
			acc++
		}
	}
	n := float64(len(y))
	if family == "bernoulli" || family == "probit" {
		return fmt.Sprintf("accuracy %.4f   Brier %.4f   (%d rows with the response)", acc/n, se/n, len(y))
	}
	return fmt.Sprintf("RMSE of the posterior mean %.4g   (%d rows with the response)", math.Sqrt(se/n), len(y))
}

// WriteCSV writes row,mean,lower,upper.
func (s *PredictionSummary) WriteCSV(w io.Writer) error {
	// Ten significant digits: 100·(1 − 0.9)/2 is 4.999999999999999 in
	// floating point, and the column is q5.
	pct := func(v float64) string { return "q" + strconv.FormatFloat(v, 'g', 10, 64) }
	lo, hi := pct(100*(1-s.Level)/2), pct(100*(1+s.Level)/2)
	if _, err := fmt.Fprintf(w, "row,mean,%s,%s\n", lo, hi); err != nil {
		return err
	}
	for i := range s.Mean {
		if _, err := fmt.Fprintf(w, "%d,%.6g,%.6g,%.6g\n", i+1, s.Mean[i], s.Lower[i], s.Upper[i]); err != nil {
			return err
		}
	}
	return nil
}

// Print writes a table of the first n rows' predictions.
func (s *PredictionSummary) Print(w io.Writer, n int) error {
	fmt.Fprintf(w, "%6s %10s %10s %10s   (E[y]: posterior mean, %.0f%% interval)\n", "row", "mean", "lower", "upper", 100*s.Level)
	for i := 0; i < min(n, len(s.Mean)); i++ {
		if _, err := fmt.Fprintf(w, "%6d %10.4g %10.4g %10.4g\n", i+1, s.Mean[i], s.Lower[i], s.Upper[i]); err != nil {
			return err
		}
	}
	if len(s.Mean) > n {
		fmt.Fprintf(w, "… %d rows more (--out FILE writes them all)\n", len(s.Mean)-n)
	}
	return nil
}
