package diag

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Summary holds the summary statistics and convergence diagnostics of one
// parameter, as posterior's summarise_draws reports them. Values that
// posterior reports as NA are NaN.
type Summary struct {
	Name string

	Mean     float64 // mean of all draws
	SD       float64 // standard deviation of all draws (divisor S-1)
	MCSEMean float64 // Monte Carlo standard error of Mean, see MCSEMean
	Q5       float64 // 5% quantile, see Quantile
	Q50      float64 // median
	Q95      float64 // 95% quantile
	ESSBulk  float64 // see ESSBulk
	ESSTail  float64 // see ESSTail
	RHat     float64 // see RHat

	// ChainLengths is nil if the chains have equal lengths. Otherwise it
	// holds each chain's number of draws, and every statistic above uses the
	// first min(ChainLengths) draws of each chain (see the package
	// documentation, "Draws").
	ChainLengths []int
}

// Table is a list of parameter summaries.
type Table []Summary

// Summarize returns the summaries of the parameters in params: params[j]
// holds the chains of parameter j, params[j][chain][draw], and names[j] is
// its name. Chains of different lengths are cut to the shortest, and the
// summary records their lengths in ChainLengths (Format then prints a
// warning). Summarize panics if len(names) != len(params).
func Summarize(names []string, params [][][]float64) Table {
	if len(names) != len(params) {
		panic("diag: number of names and parameters differ")
	}
	t := make(Table, len(params))
	var ws workspace
	for j, chains := range params {
		t[j] = ws.summarize(names[j], chains)
	}
	return t
}

func (ws *workspace) summarize(name string, chains [][]float64) Summary {
	nan := math.NaN()
	s := Summary{Name: name,
		Mean: nan, SD: nan, MCSEMean: nan, Q5: nan, Q50: nan, Q95: nan,
		ESSBulk: nan, ESSTail: nan, RHat: nan,
	}
	for _, c := range chains {
		if len(c) != len(chains[0]) {
			s.ChainLengths = make([]int, len(chains))
			for k, c := range chains {
				s.ChainLengths[k] = len(c)
			}
			break
		}
	}
	x, ok := ws.load(chains)
	if !ok {
		return s
	}
	s.Mean = meanR(x.data)
	s.SD = math.Sqrt(varR(x.data))
	s.MCSEMean = s.SD / math.Sqrt(ws.essMean(x))
	if hasNaN(x.data) {
		return s
	}
	ws.sorted = sortedCopy(ws.sorted, x.data)
	s.Q5 = quantileSorted(ws.sorted, 0.05)
	s.Q50 = quantileSorted(ws.sorted, 0.5)
	s.Q95 = quantileSorted(ws.sorted, 0.95)
	s.ESSBulk = ws.essBulk(x)
	s.ESSTail = ws.essTail(x)
	s.RHat = ws.rhatRank(x)
	return s
}

// Format writes t to w as an aligned text table with the columns variable,
// mean, sd, mcse (of the mean), q5, q50, q95, ess_bulk, ess_tail and rhat,
// like the print method of posterior's summarise_draws. Location and scale
// statistics are shown to three significant digits, effective sample sizes
// rounded to integers and R̂ to three decimals. NaN is printed as NA. If the
// chains had different lengths (Summary.ChainLengths), a warning line after
// the table names the lengths and the number of draws per chain used.
func (t Table) Format(w io.Writer) error {
	header := []string{"variable", "mean", "sd", "mcse", "q5", "q50", "q95", "ess_bulk", "ess_tail", "rhat"}
	rows := make([][]string, 0, len(t)+1)
	rows = append(rows, header)
	for _, s := range t {
		rows = append(rows, []string{
			s.Name,
			formatSig(s.Mean), formatSig(s.SD), formatSig(s.MCSEMean),
			formatSig(s.Q5), formatSig(s.Q50), formatSig(s.Q95),
			formatESS(s.ESSBulk), formatESS(s.ESSTail), formatRHat(s.RHat),
		})
	}
	width := make([]int, len(header))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len(c))
			if i == 0 {
				b.WriteString(c)
				b.WriteString(pad)
				continue
			}
			b.WriteString("  ")
			b.WriteString(pad)
			b.WriteString(c)
		}
		b.WriteByte('\n')
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	if msg := t.raggedWarning(); msg != "" {
		if _, err := io.WriteString(w, msg+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// raggedWarning returns the warning about chains of different lengths, or
// "" if every summary's chains had equal lengths.
func (t Table) raggedWarning() string {
	for _, s := range t {
		if s.ChainLengths == nil {
			continue
		}
		n := s.ChainLengths[0]
		lens := make([]string, len(s.ChainLengths))
		for k, l := range s.ChainLengths {
			lens[k] = strconv.Itoa(l)
			n = min(n, l)
		}
		return fmt.Sprintf("warning: the chains have different numbers of draws (%s): every statistic uses the first %d draws of each chain",
			strings.Join(lens, ", "), n)
	}
	return ""
}

// String returns t formatted by Format.
func (t Table) String() string {
	var b strings.Builder
	t.Format(&b)
	return b.String()
}

// WriteCSV writes t to w as CSV with the header
//
//	variable,mean,sd,mcse_mean,q5,q50,q95,ess_bulk,ess_tail,rhat
//
// and one row per parameter. Numbers are written with the shortest
// representation that reads back exactly; NaN is written as NA and
// infinities as Inf and -Inf, as R writes them.
func (t Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	err := cw.Write([]string{"variable", "mean", "sd", "mcse_mean", "q5", "q50", "q95", "ess_bulk", "ess_tail", "rhat"})
	if err != nil {
		return err
	}
	for _, s := range t {
		err = cw.Write([]string{
			s.Name,
			formatFull(s.Mean), formatFull(s.SD), formatFull(s.MCSEMean),
			formatFull(s.Q5), formatFull(s.Q50), formatFull(s.Q95),
			formatFull(s.ESSBulk), formatFull(s.ESSTail), formatFull(s.RHat),
		})
		if err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// formatSpecial formats NaN and infinities as R does, reporting whether v
// was one of them.
func formatSpecial(v float64) (string, bool) {
	switch {
	case math.IsNaN(v):
		return "NA", true
	case math.IsInf(v, 1):
		return "Inf", true
	case math.IsInf(v, -1):
		return "-Inf", true
	}
	return "", false
}

func formatFull(v float64) string {
	if s, ok := formatSpecial(v); ok {
		return s
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// formatSig formats v with three significant digits, in fixed notation
// unless v is very small or very large.
func formatSig(v float64) string {
	const sig = 3
	if s, ok := formatSpecial(v); ok {
		return s
	}
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a < 1e-4 || a >= 1e6 {
		return strconv.FormatFloat(v, 'e', sig-1, 64)
	}
	dec := max(0, sig-1-int(math.Floor(math.Log10(a))))
	return strconv.FormatFloat(v, 'f', dec, 64)
}

func formatESS(v float64) string {
	if s, ok := formatSpecial(v); ok {
		return s
	}
	return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
}

func formatRHat(v float64) string {
	if s, ok := formatSpecial(v); ok {
		return s
	}
	if math.Abs(v) >= 1e4 {
		return strconv.FormatFloat(v, 'e', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}
