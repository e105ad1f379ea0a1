// Package report writes one self-contained HTML page about a run: its
// settings, the summary table (package diag), warnings, and figures (package
// plot) embedded as base64 data URIs, so that the file opens offline and can
// be sent on its own.
//
// The warnings are those a Stan user expects plus SGLD's own:
//
//   - R̂ > 1.01 (rank-normalised split-R̂; the chains disagree);
//   - bulk-ESS < 100 per chain (too few effective draws for the summaries);
//   - divergences (the divergent__ statistic, where a sampler reports it);
//   - frequent clipping: the clipped__ count exceeds 5% of the iterations
//     (the clipped gradient no longer targets the posterior);
//   - a step size still in the optimisation phase at the end of burn-in: the
//     stochastic-gradient noise noise_grad__ exceeds the injected noise
//     noise_inj__ there, on average over the last tenth of the burn-in draws
//     of all chains (Welling & Teh §4).
package report

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/plot"
)

// Figure is one embedded image.
type Figure struct {
	Title   string
	Caption string
	PNG     []byte
}

// Section is a titled group of figures.
type Section struct {
	Title   string
	Text    string
	Pre     string // preformatted text under Text (a printed table)
	Figures []Figure
}

// Report is the content of the page.
type Report struct {
	Title    string
	Intro    string      // a paragraph under the title
	Settings [][2]string // key, value
	Table    diag.Table
	Notes    []string // lines under the table
	Pre      string   // preformatted text under the notes (e.g. a results table)
	Warnings []string
	// Passed says which checks the run passed when there is no warning:
	// the checks that apply to its sampler (Checks).
	Passed   string
	Sections []Section
	// NoWarnings leaves out the warnings section (pages that are not
	// about one run).
	NoWarnings bool
	// MinESS is the bulk-ESS below which the table marks a column (100 per
	// chain); 0 marks none.
	MinESS float64
	// Weights are the rows of a network's weights and biases, left out of
	// Table and shown collapsed under WeightsNote (Options.Network).
	Weights     diag.Table
	WeightsNote string
}

// Options control FromTrace.
type Options struct {
	// Settings are shown as the run's settings.
	Settings [][2]string
	// MaxParams limits the parameters drawn (trace, density and
	// autocorrelation each); 0 means 8. The table lists all.
	MaxParams int
	// Reference maps a column name to its exact or reference density,
	// drawn over the histogram, labelled RefLabel.
	Reference map[string]func(float64) float64
	RefLabel  string
	// Intro is a paragraph under the title.
	Intro string
	// Pre is preformatted text under the table's notes: the run's account
	// as it printed it (the rules that chose its settings, the draws, the
	// sampler's tuning, the checks).
	Pre string
	// Sections are appended after the built ones (e.g. predictive plots);
	// for a Network they come first, before its weights.
	Sections []Section
	// Trajectory marks the draws as an optimiser's iterates (GD, SGD):
	// ESS and R-hat do not apply and give no warnings.
	Trajectory bool
	// Network marks the trace as a neural network's: its weights and biases
	// (IsNetworkWeight) are not identified (permuting hidden units gives the
	// same function), so their R̂ and ESS give no warnings; they are
	// summarised in one line with their table collapsed under it, and the
	// parameter plots show the other columns (σ²) first. The convergence
	// check of a network is in function space (a section of the caller's).
	Network bool
	// Warnings are added to the page's own (the caller's checks, such as a
	// network's function-space check).
	Warnings []string
}

// IsNetworkWeight reports whether name is a network's weight or bias
// column (model.MLP's names: w.LAYER.I.J, b.LAYER.I).
func IsNetworkWeight(name string) bool {
	rest, ok := strings.CutPrefix(name, "w.")
	if !ok {
		if rest, ok = strings.CutPrefix(name, "b."); !ok {
			return false
		}
	}
	parts := strings.Split(rest, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// splitWeights separates a network's weight rows from the others.
func splitWeights(t diag.Table) (rest, weights diag.Table) {
	for _, s := range t {
		if IsNetworkWeight(s.Name) {
			weights = append(weights, s)
		} else {
			rest = append(rest, s)
		}
	}
	return rest, weights
}

// weightsNote summarises the weight rows in one line.
func weightsNote(w diag.Table, k int) string {
	maxR, minESS, bad := 0.0, math.Inf(1), 0
	for _, s := range w {
		if !math.IsNaN(s.RHat) {
			maxR = max(maxR, s.RHat)
		}
		if !math.IsNaN(s.ESSBulk) {
			minESS = min(minESS, s.ESSBulk)
		}
		if s.RHat > 1.01 || s.ESSBulk < 100*float64(k) || math.IsNaN(s.RHat) {
			bad++
		}
	}
	return fmt.Sprintf("%d weights and biases (%d of them with R-hat > 1.01 or bulk-ESS < %d; max R-hat %.3f, min bulk-ESS %.0f): expected, a network's weights are not identified (permuting the hidden units gives the same function), so they give no warnings; the network's convergence check is the function-space check of its predictions.", len(w), bad, 100*k, maxR, minESS)
}

// Figure sizes.
var (
	wide   = [2]vg.Length{12 * vg.Centimeter, 6.5 * vg.Centimeter}
	narrow = [2]vg.Length{8.5 * vg.Centimeter, 6.5 * vg.Centimeter}
)

// FromTrace builds the report of a trace: settings, the summary table of the
// kept draws (cut to the shortest chain), warnings, and for the first
// MaxParams parameters a trace (burn-in shaded when the warm-up draws were
// kept), a density with the reference overlaid where given and the
// autocorrelation; a pair plot of the first two parameters; and for SGLD
// the step-size schedule and the noise crossover of chain 1.
func FromTrace(title string, tr *langevin.Trace, opt Options) (*Report, error) {
	if tr == nil || tr.NumChains() == 0 {
		return nil, errors.New("report: no chains")
	}
	all := tr.NumChains()
	tr, empty := tr.DropEmpty() // a run stopped before some chains began
	if tr.NumChains() == 0 {
		return nil, errors.New("report: no chain holds a draw")
	}
	params, n := commonParams(tr)
	if n < 2 {
		return nil, fmt.Errorf("report: %d draws per chain: need at least 2", n)
	}
	r := &Report{Title: title, Intro: opt.Intro, Settings: opt.Settings, Pre: opt.Pre}
	if empty > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d of %d chains hold no draw (the run stopped before they began) and are left out.", empty, all))
	}
	r.Table = diag.Summarize(tr.Names, params)
	if opt.Network {
		r.Table, r.Weights = splitWeights(r.Table)
		if len(r.Weights) > 0 {
			r.WeightsNote = weightsNote(r.Weights, tr.NumChains())
		}
	}
	r.Notes = append(r.Notes, fmt.Sprintf("%d chains × %d draws (thin %d) after %d burn-in iterations per chain.", tr.NumChains(), n, max(1, tr.Thin), tr.BurnIn))
	if opt.Trajectory {
		r.Notes = append(r.Notes, "The draws are an optimiser's iterates, a trajectory rather than posterior draws: ESS and R-hat do not apply.")
		r.NoWarnings = true
	} else {
		r.Warnings = append(Warnings(tr, r.Table), opt.Warnings...)
		r.Passed = strings.Join(Checks(tr), "; ")
		if len(r.Weights) > 0 {
			r.Passed = strings.Replace(r.Passed, "for every column", "for every column but the network's weights", 1)
		}
		r.MinESS = 100 * float64(tr.NumChains())
	}

	maxP := opt.MaxParams
	if maxP <= 0 {
		maxP = 8
	}
	np := min(maxP, len(tr.Names))
	order := make([]int, 0, len(tr.Names)) // the columns drawn, in order
	for pass := 0; pass < 2; pass++ {
		for j, name := range tr.Names {
			if opt.Network && IsNetworkWeight(name) == (pass == 0) {
				continue // a network's σ² before its weights
			}
			if !opt.Network && pass == 1 {
				continue
			}
			order = append(order, j)
		}
	}
	order = order[:np]
	var sec Section
	sec.Title = "Parameters"
	if np < len(tr.Names) {
		sec.Text = fmt.Sprintf("The first %d of %d columns; the table above lists all.", np, len(tr.Names))
		if opt.Network {
			sec.Text = fmt.Sprintf("%d of %d columns, any that are not weights (σ²) first; a weight's marginal is one mode's or a mixture of permuted ones, not a quantity to report; the table above lists all.", np, len(tr.Names))
		}
	}
	for _, j := range order {
		name := tr.Names[j]
		series := traceSeries(tr, j)
		figs := []struct {
			title string
			size  [2]vg.Length
			make  func() (*gplot.Plot, error)
		}{
			{"trace of " + name, wide, func() (*gplot.Plot, error) { return plot.Trace(name, series, float64(tr.BurnIn)) }},
			{"posterior of " + name, narrow, func() (*gplot.Plot, error) {
				return plot.Density(name, params[j], 40, opt.Reference[name], opt.RefLabel)
			}},
			{"autocorrelation of " + name, narrow, func() (*gplot.Plot, error) {
				return plot.Autocorrelation(name, params[j], min(100, n-1))
			}},
		}
		for _, f := range figs {
			p, err := f.make()
			if err != nil {
				r.Notes = append(r.Notes, fmt.Sprintf("%s: not drawn: %v", f.title, err))
				continue
			}
			png, err := plot.Encode(p, f.size[0], f.size[1], "png")
			if err != nil {
				return nil, err
			}
			sec.Figures = append(sec.Figures, Figure{Title: f.title, PNG: png})
		}
	}
	if len(tr.Names) >= 2 {
		if p, err := plot.Pair(tr.Names[0], tr.Names[1], params[0], params[1], 4000); err == nil {
			png, err := plot.Encode(p, narrow[0], narrow[1]+2*vg.Centimeter, "png")
			if err != nil {
				return nil, err
			}
			sec.Figures = append(sec.Figures, Figure{Title: "pair plot", PNG: png})
		}
	}
	if opt.Network {
		// A network's checks are its predictions': before its weights.
		r.Sections = append(r.Sections, opt.Sections...)
	}
	r.Sections = append(r.Sections, sec)
	if s, ok := samplerSection(tr); ok {
		r.Sections = append(r.Sections, s)
	}
	if !opt.Network {
		r.Sections = append(r.Sections, opt.Sections...)
	}
	return r, nil
}

// commonParams returns params[j][c][t] over the kept draws, cut to the
// shortest chain, and that length.
func commonParams(tr *langevin.Trace) ([][][]float64, int) {
	n := math.MaxInt
	for _, c := range tr.Draws {
		n = min(n, len(c))
	}
	params := tr.Params()
	for j := range params {
		for c := range params[j] {
			params[j][c] = params[j][c][:n]
		}
	}
	return params, n
}

// chainIters returns the iteration numbers of chain c's kept draws, nil if
// the trace has none (a Trace built by hand).
func chainIters(tr *langevin.Trace, c int) []int {
	if c < len(tr.Iters) {
		return tr.Iters[c]
	}
	return nil
}

// iterAt returns it[t], or the draw's position t+1 when the trace does not
// record iterations.
func iterAt(it []int, t int) float64 {
	if t < len(it) {
		return float64(it[t])
	}
	return float64(t + 1)
}

// traceSeries returns column j of every chain, warm-up draws first, against
// the iteration.
func traceSeries(tr *langevin.Trace, j int) []plot.Series {
	out := make([]plot.Series, tr.NumChains())
	for c := range tr.Draws {
		var s plot.Series
		if c < len(tr.Warmup) {
			for t, row := range tr.Warmup[c].Theta {
				s.X = append(s.X, iterAt(tr.Warmup[c].Iters, t))
				s.Y = append(s.Y, row[j])
			}
		}
		for t, row := range tr.Draws[c] {
			s.X = append(s.X, iterAt(chainIters(tr, c), t))
			s.Y = append(s.Y, row[j])
		}
		out[c] = s
	}
	return out
}

// statSeries returns statistic k of chain c, warm-up first, and the
// iterations.
func statSeries(tr *langevin.Trace, c, k int) (iters, v []float64) {
	if c < len(tr.Warmup) {
		for t, row := range tr.Warmup[c].Stats {
			iters = append(iters, iterAt(tr.Warmup[c].Iters, t))
			v = append(v, row[k])
		}
	}
	for t, row := range tr.Stats[c] {
		iters = append(iters, iterAt(chainIters(tr, c), t))
		v = append(v, row[k])
	}
	return iters, v
}

func samplerSection(tr *langevin.Trace) (Section, bool) {
	ks, ki, kg := tr.StatIndex("stepsize__"), tr.StatIndex("noise_inj__"), tr.StatIndex("noise_grad__")
	if ks < 0 {
		return Section{}, false
	}
	sec := Section{Title: "Step size and noise crossover (chain 1)",
		Text: "SGLD optimises while the stochastic-gradient noise exceeds the injected noise and samples after the crossover (Welling & Teh 2011, §4); the burn-in is shaded."}
	if ki < 0 || kg < 0 {
		// An exact sampler (NUTS, MALA): no minibatch noise to cross.
		sec = Section{Title: "Step size (chain 1)", Text: "The step size adapts during the warm-up (shaded) and is fixed after it."}
	}
	iters, eta := statSeries(tr, 0, ks)
	if p, err := plot.StepSize(iters, eta, float64(tr.BurnIn)); err == nil {
		if png, err := plot.Encode(p, wide[0], wide[1], "png"); err == nil {
			sec.Figures = append(sec.Figures, Figure{Title: "step-size schedule", PNG: png})
		}
	}
	if ki >= 0 && kg >= 0 {
		_, inj := statSeries(tr, 0, ki)
		_, grad := statSeries(tr, 0, kg)
		cross, ok := diag.Crossover(iters, inj, grad)
		if !ok {
			cross = 0
		}
		if p, err := plot.NoiseCrossover(iters, inj, grad, float64(tr.BurnIn), cross); err == nil {
			if png, err := plot.Encode(p, wide[0], wide[1], "png"); err == nil {
				sec.Figures = append(sec.Figures, Figure{Title: "noise crossover", PNG: png})
			}
		}
	}
	return sec, len(sec.Figures) > 0
}

// Warnings returns the warnings of a trace and its summary table (see the
// package documentation).
func Warnings(tr *langevin.Trace, table diag.Table) []string {
	var w []string
	k := tr.NumChains()
	for _, s := range table {
		if s.RHat > 1.01 {
			w = append(w, fmt.Sprintf("%s: R-hat %.3f > 1.01: the chains disagree; run longer or check the step size", s.Name, s.RHat))
		}
		if s.ESSBulk < 100*float64(k) {
			w = append(w, fmt.Sprintf("%s: bulk-ESS %.0f < %d (100 per chain): summaries are unreliable; run longer or thin less", s.Name, s.ESSBulk, 100*k))
		}
	}
	if kd := tr.StatIndex("divergent__"); kd >= 0 {
		var n float64
		for _, c := range tr.Stats {
			for _, row := range c {
				if row[kd] > 0 {
					n++
				}
			}
		}
		if n > 0 {
			w = append(w, fmt.Sprintf("%.0f divergent transitions among the kept draws: the sampler misses part of the posterior; lower the step size", n))
		}
	}
	if kc := tr.StatIndex("clipped__"); kc >= 0 {
		var clipped, iters float64
		for c := range tr.Stats {
			if n := len(tr.Stats[c]); n > 0 {
				clipped += tr.Stats[c][n-1][kc]
				iters += iterAt(chainIters(tr, c), n-1)
			}
		}
		if iters > 0 && clipped/iters > 0.05 {
			w = append(w, fmt.Sprintf("gradient clipping fired in %.1f%% of the steps (> 5%%): clipping biases the stationary distribution; raise the clipping threshold or lower the step size", 100*clipped/iters))
		}
	}
	if inj, grad, ok := endOfBurnInNoise(tr); ok && grad > inj {
		w = append(w, fmt.Sprintf("the step size is still in the optimisation phase at the end of burn-in (iteration %d): the stochastic-gradient noise (%.3g per coordinate) exceeds the injected noise (%.3g); lower the step size, raise the batch size or the burn-in", tr.BurnIn, grad, inj))
	}
	return w
}

// Checks lists the checks of Warnings that apply to the trace's sampler,
// as passed: R̂ and bulk-ESS always; divergences when the sampler reports
// them (divergent__: NUTS, HMC); clipping when it clips (clipped__); and the
// end of the optimisation phase only for a stochastic-gradient sampler that
// measures its gradient noise (noise_inj__, noise_grad__) — an exact sampler
// has no such phase.
func Checks(tr *langevin.Trace) []string {
	out := []string{"R-hat ≤ 1.01 and bulk-ESS ≥ 100 per chain for every column"}
	if tr.StatIndex("divergent__") >= 0 {
		out = append(out, "no divergent transitions")
	}
	if tr.StatIndex("clipped__") >= 0 {
		out = append(out, "no frequent gradient clipping")
	}
	if _, _, ok := endOfBurnInNoise(tr); ok {
		out = append(out, "the injected noise exceeded the stochastic-gradient noise by the end of burn-in (the step left the optimisation phase)")
	}
	return out
}

// endOfBurnInNoise returns the mean injected and gradient noise variances
// (noise_inj__, noise_grad__) at the end of burn-in, pooled over chains: over
// the last tenth of each chain's saved warm-up draws or, when the warm-up was
// not saved (or there was none), the first tenth of the kept draws. ok is
// false when the trace has no noise estimates there.
func endOfBurnInNoise(tr *langevin.Trace) (inj, grad float64, ok bool) {
	ki, kg := tr.StatIndex("noise_inj__"), tr.StatIndex("noise_grad__")
	if ki < 0 || kg < 0 {
		return 0, 0, false
	}
	var si, sg float64
	n := 0
	for c := range tr.Stats {
		var rows [][]float64
		if c < len(tr.Warmup) && len(tr.Warmup[c].Stats) > 0 {
			ws := tr.Warmup[c].Stats
			rows = ws[len(ws)-max(1, len(ws)/10):]
		} else {
			rows = tr.Stats[c][:min(len(tr.Stats[c]), max(1, len(tr.Stats[c])/10))]
		}
		for _, r := range rows {
			if !math.IsNaN(r[kg]) && !math.IsNaN(r[ki]) {
				si += r[ki]
				sg += r[kg]
				n++
			}
		}
	}
	if n == 0 {
		return 0, 0, false
	}
	return si / float64(n), sg / float64(n), true
}

// WriteHTML writes the report as one self-contained HTML page: inline
// style, images as data URIs, no scripts and no external resources.
func (r *Report) WriteHTML(w io.Writer) error {
	return pageTmpl.Execute(w, r)
}

var pageTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"img": func(png []byte) template.HTMLAttr {
		// base64's alphabet needs no escaping inside a quoted attribute.
		return template.HTMLAttr(`src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(png) + `"`)
	},
	"num": fmtNum,
	"ess": func(v float64) string {
		if math.IsNaN(v) {
			return "NA"
		}
		return fmt.Sprintf("%.0f", v)
	},
	"rhat": func(v float64) string {
		if math.IsNaN(v) {
			return "NA"
		}
		return fmt.Sprintf("%.3f", v)
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 75em; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9em; }
th, td { padding: 0.2em 0.7em; text-align: right; border-bottom: 1px solid #eee; }
th:first-child, td:first-child { text-align: left; }
ul.settings { column-width: 16em; list-style: none; padding: 0; font-family: monospace; font-size: 0.9em; }
ul.settings li { padding: 0.1em 0; break-inside: avoid; } ul.settings .key { color: #666; }
td.bad { background: #fde2e1; }
ul.warnings li { color: #9a1b12; }
.figs { display: flex; flex-wrap: wrap; gap: 0.5em; }
figure { margin: 0; } figcaption { font-size: 0.8em; color: #555; }
img { max-width: 100%; height: auto; }
details.weights summary { cursor: pointer; margin: 0.6em 0; }
pre { overflow-x: auto; font-size: 0.85em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{with .Intro}}<p>{{.}}</p>{{end}}
{{if .Settings}}<h2>Settings</h2>
<ul class="settings">
{{range .Settings}}<li><span class="key">{{index . 0}}</span> {{index . 1}}</li>
{{end}}</ul>{{end}}
{{if .Table}}<h2>Summary</h2>
<table class="summary" id="summary">
<thead><tr><th>variable</th><th>mean</th><th>sd</th><th>mcse</th><th>q5</th><th>q50</th><th>q95</th><th>ess_bulk</th><th>ess_tail</th><th>rhat</th></tr></thead>
<tbody>
{{range .Table}}<tr><td>{{.Name}}</td><td>{{num .Mean}}</td><td>{{num .SD}}</td><td>{{num .MCSEMean}}</td><td>{{num .Q5}}</td><td>{{num .Q50}}</td><td>{{num .Q95}}</td><td{{if lt .ESSBulk $.MinESS}} class="bad"{{end}}>{{ess .ESSBulk}}</td><td>{{ess .ESSTail}}</td><td{{if gt .RHat 1.01}} class="bad"{{end}}>{{rhat .RHat}}</td></tr>
{{end}}</tbody>
</table>{{end}}
{{if .Weights}}<details class="weights"><summary>{{.WeightsNote}}</summary>
<table class="summary" id="weights">
<thead><tr><th>variable</th><th>mean</th><th>sd</th><th>mcse</th><th>q5</th><th>q50</th><th>q95</th><th>ess_bulk</th><th>ess_tail</th><th>rhat</th></tr></thead>
<tbody>
{{range .Weights}}<tr><td>{{.Name}}</td><td>{{num .Mean}}</td><td>{{num .SD}}</td><td>{{num .MCSEMean}}</td><td>{{num .Q5}}</td><td>{{num .Q50}}</td><td>{{num .Q95}}</td><td>{{ess .ESSBulk}}</td><td>{{ess .ESSTail}}</td><td>{{rhat .RHat}}</td></tr>
{{end}}</tbody>
</table></details>{{end}}
{{range .Notes}}<p>{{.}}</p>
{{end}}
{{with .Pre}}<pre>{{.}}</pre>
{{end}}
{{if not .NoWarnings}}<h2>Warnings</h2>
{{if .Warnings}}<ul class="warnings">
{{range .Warnings}}<li>{{.}}</li>
{{end}}</ul>{{else}}<p>None: {{.Passed}}.</p>{{end}}{{end}}
{{range .Sections}}{{template "section" .}}{{end}}
</body>
</html>
{{define "section"}}<h2>{{.Title}}</h2>
{{with .Text}}<p>{{.}}</p>{{end}}
{{with .Pre}}<pre>{{.}}</pre>{{end}}
<div class="figs">
{{range .Figures}}<figure><img alt="{{.Title}}" {{img .PNG}}>{{with .Caption}}<figcaption>{{.}}</figcaption>{{end}}</figure>
{{end}}</div>
{{end}}`))

// Splice returns the page with sec in it, between the comments
// <!-- section NAME --> and <!-- /section NAME -->: in place of the one
// there, else before </body>. A page without </body> is an error.
func Splice(page []byte, name string, sec Section) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!-- section %s -->\n", name)
	if err := pageTmpl.ExecuteTemplate(&b, "section", sec); err != nil {
		return nil, err
	}
	fmt.Fprintf(&b, "<!-- /section %s -->\n", name)
	open, end := []byte(fmt.Sprintf("<!-- section %s -->", name)), []byte(fmt.Sprintf("<!-- /section %s -->\n", name))
	if i := bytes.Index(page, open); i >= 0 {
		if j := bytes.Index(page[i:], end); j >= 0 {
			return slices.Concat(page[:i], b.Bytes(), page[i+j+len(end):]), nil
		}
	}
	i := bytes.LastIndex(page, []byte("</body>"))
	if i < 0 {
		return nil, errors.New("report: not a page of this package: no </body>")
	}
	return slices.Concat(page[:i], b.Bytes(), page[i:]), nil
}

func fmtNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NA"
	case math.IsInf(v, 0):
		return fmt.Sprint(v)
	case v != 0 && (math.Abs(v) >= 1e5 || math.Abs(v) < 1e-3):
		return fmt.Sprintf("%.3g", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

// PredictiveSection is the section of a binary classifier's posterior
// predictive on a test set (the report's Figure 5): probs[s][i] is
// P(y = 1 | xᵢ, θₛ) under draw s; the points are sorted by the posterior
// mean, drawn with the central 90% interval over the draws, and the observed
// labels y are marked.
func PredictiveSection(probs [][]float64, y []float64) (Section, error) {
	b, err := plot.PredictiveBand(probs, 0.9)
	if err != nil {
		return Section{}, err
	}
	return sortedSection(b, y, len(y), " Wide bands are the points the model is unsure about.")
}

// sortedSection draws the sorted predictive probabilities of the n test
// points of band b (with its Order) and labels y; more is added to the
// section's text.
func sortedSection(b plot.Band, y []float64, n int, more string) (Section, error) {
	p, err := plot.SortedPredictive(fmt.Sprintf("posterior predictive on the test set (%d points)", n), b, 0.9, y)
	if err != nil {
		return Section{}, err
	}
	png, err := plot.Encode(p, plot.Width, plot.Height, "png")
	if err != nil {
		return Section{}, err
	}
	return Section{
		Title:   "Posterior predictive",
		Text:    "P(y = 1 | x, data) for every test point, sorted by its posterior mean, with the central 90% interval over the draws; squares mark the observed labels (report Figure 5)." + more,
		Figures: []Figure{{Title: "sorted predictive probabilities", PNG: png}},
	}, nil
}

// LOOSection is the section of a run's PSIS-LOO (langevin loo): the k̂ plot
// (k̂ of every row by its index; rows, when not nil, are the rows' 1-based
// indices) and, where the model gives a predictive CDF (pit not all NaN),
// the LOO-PIT histogram against the uniform. text is the loo table as
// printed.
func LOOSection(k, pit []float64, rows []int, threshold float64, text string) (Section, error) {
	sec := Section{
		Title: "LOO",
		Text: "Leave-one-out cross-validation by Pareto smoothed importance sampling (langevin loo; docs/loo.md). " +
			"The k̂ plot shows which rows the estimate cannot be trusted with: above the dashed threshold, see docs/loo.md for what to do. " +
			"The LOO-PIT of a calibrated model is uniform: a U shape means predictive distributions too narrow, a hump too wide.",
		Pre: text,
	}
	pk, err := plot.ParetoK(fmt.Sprintf("Pareto k̂ of %d rows", len(k)), k, rows, threshold)
	if err != nil {
		return Section{}, err
	}
	png, err := plot.Encode(pk, plot.Width, plot.Height, "png")
	if err != nil {
		return Section{}, err
	}
	sec.Figures = append(sec.Figures, Figure{Title: "Pareto k̂ by row", PNG: png})
	for _, v := range pit {
		if !math.IsNaN(v) {
			pp, err := plot.LOOPIT("LOO-PIT", pit)
			if err != nil {
				return Section{}, err
			}
			png, err := plot.Encode(pp, plot.Width, plot.Height, "png")
			if err != nil {
				return Section{}, err
			}
			sec.Figures = append(sec.Figures, Figure{Title: "LOO-PIT", PNG: png})
			break
		}
	}
	return sec, nil
}

// BandSection is PredictiveSection for a band already summarised
// (plot.Band without its Order, which is filled here).
func BandSection(b plot.Band, y []float64) (Section, error) {
	b.Order = make([]int, len(b.Mean))
	for i := range b.Order {
		b.Order[i] = i
	}
	slices.SortStableFunc(b.Order, func(i, j int) int { return cmp.Compare(b.Mean[i], b.Mean[j]) })
	return sortedSection(b, y, len(b.Mean), "")
}

// RegressionSection is the section of a regression's posterior predictive
// on a test set, in the response's units: mean[i] the predictive mean at
// test point i, [obsLo, obsHi] the central interval at the given level of a
// new observation (f and the noise), [fLo, fHi] that of f(xᵢ) alone, y the
// observed responses. The text gives the coverage of the observation
// interval: near the level when the noise variance and the spread of f
// are right; far below it, a σ² or a posterior too narrow (every weight
// diagnostic can be green while it is).
func RegressionSection(mean, obsLo, obsHi, fLo, fHi, y []float64, level float64, target string) (Section, error) {
	if len(y) != len(mean) {
		return Section{}, fmt.Errorf("report: %d observations for %d predictions", len(y), len(mean))
	}
	if target == "" {
		target = "y"
	}
	p, err := plot.SortedRegression(fmt.Sprintf("posterior predictive on the test set (%d points)", len(y)), target, mean, obsLo, obsHi, fLo, fHi, level, y)
	if err != nil {
		return Section{}, err
	}
	png, err := plot.Encode(p, plot.Width, plot.Height, "png")
	if err != nil {
		return Section{}, err
	}
	in, inF := 0, 0
	var width, widthF float64
	for i, v := range y {
		if v >= obsLo[i] && v <= obsHi[i] {
			in++
		}
		if v >= fLo[i] && v <= fHi[i] {
			inF++
		}
		width += obsHi[i] - obsLo[i]
		widthF += fHi[i] - fLo[i]
	}
	n := float64(len(y))
	return Section{
		Title: "Posterior predictive",
		Text: fmt.Sprintf("%s at every test point, sorted by its predictive mean, in %s's units: the central %.0f%% interval of a new observation (light: the draws' f and their noise σ²) and of f(x) alone (dark); dots are the observed values. "+
			"Coverage of the %.0f%% interval of a new observation: %.3f (%d of %d; near %.2f when σ² and the spread of f are right), of f alone %.3f; mean widths %s and %s.",
			target, target, 100*level, 100*level, float64(in)/n, in, len(y), level, float64(inF)/n, fmtNum(width/n), fmtNum(widthF/n)),
		Figures: []Figure{{Title: "sorted posterior predictive", PNG: png}},
	}, nil
}
