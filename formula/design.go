package formula

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// block is the columns one factor of a term contributes: a numeric
// expression gives one, a categorical column its level indicators, poly(x, d)
// d columns.
type block struct {
	names []string // R's column names ("x", "gB", "poly(x,2)1")
	cols  [][]float64
	cat   bool     // categorical: names are prefix + level
	codes []int    // categorical: level codes
	lvls  []string // categorical: levels
	text  string
}

// coding keeps what a data-dependent expression learned from the training
// data (factor levels, poly's recurrence, scale's centre and spread), so
// that new data are coded the same way.
type coding struct {
	levels         []string  // categorical
	alpha          []float64 // poly
	norm2          []float64 // poly
	centre, spread float64   // scale
}

type codebook map[string]*coding

// env evaluates expressions on a table, training (learning codings) or
// predicting (applying them).
type env struct {
	tab   Table
	book  codebook
	train bool
	// maxBytes, if positive, bounds the bytes of the design columns a
	// term list makes (Options.MaxDesignBytes); cols counts them.
	maxBytes int64
	cols     int
}

// MaxLevels and MinRowsPerLevel: a categorical population-level predictor
// with more levels than MaxLevels and fewer than MinRowsPerLevel rows a
// level on average is refused (the data package's rule for text columns).
// Each level but the first becomes a column whose coefficient, under the
// flat prior on b, is learnt from that level's rows alone: below about 20
// rows a level it is barely learnt, and the design grows with every level
// (10⁵ levels in 10⁶ rows: 800 GB of columns). Such a column is an
// identifier, or a grouping factor: a group-level term (1 | g) gives its
// levels effects that share one prior, in one column of codes.
const (
	MaxLevels       = 50
	MinRowsPerLevel = 20
)

// fits checks k more design columns of the table's rows against maxBytes;
// grow counts them.
func (e *env) fits(x *Expr, k int) error {
	if need := 8 * (int64(e.cols) + int64(k)) * int64(e.tab.Len()); e.maxBytes > 0 && need > e.maxBytes {
		return e.errf(x, "%s: the design would hold %d columns of %d rows, %d MiB, more than the bound of %d MiB", x.Text, e.cols+k, e.tab.Len(), need>>20, e.maxBytes>>20)
	}
	return nil
}

func (e *env) grow(x *Expr, k int) error {
	if err := e.fits(x, k); err != nil {
		return err
	}
	e.cols += k
	return nil
}

func (e *env) errf(x *Expr, format string, a ...any) error {
	return &SyntaxError{x.Pos, fmt.Sprintf(format, a...)}
}

// num evaluates a numeric expression.
func (e *env) num(x *Expr) ([]float64, error) {
	n := e.tab.Len()
	switch x.Op {
	case "num":
		v := make([]float64, n)
		for i := range v {
			v[i] = x.Val
		}
		return v, nil
	case "col":
		c, ok := e.tab.Column(x.Name)
		if !ok {
			return nil, e.errf(x, "no column %q in the data", x.Name)
		}
		if c.Num == nil {
			return nil, e.errf(x, "column %q is categorical (levels %s): expected a number here", x.Name, preview(c.Levels))
		}
		return c.Num, nil
	case "neg":
		a, err := e.num(x.Args[0])
		if err != nil {
			return nil, err
		}
		out := make([]float64, n)
		for i, v := range a {
			out[i] = -v
		}
		return out, nil
	case "+", "-", "*", "/", "^":
		a, err := e.num(x.Args[0])
		if err != nil {
			return nil, err
		}
		b, err := e.num(x.Args[1])
		if err != nil {
			return nil, err
		}
		out := make([]float64, n)
		for i := range out {
			switch x.Op {
			case "+":
				out[i] = a[i] + b[i]
			case "-":
				out[i] = a[i] - b[i]
			case "*":
				out[i] = a[i] * b[i]
			case "/":
				out[i] = a[i] / b[i]
			case "^":
				out[i] = math.Pow(a[i], b[i])
			}
		}
		return e.finite(x, out)
	case "call":
		switch x.Name {
		case "I", "offset":
			return e.num(x.Args[0])
		case "log", "exp", "sqrt", "abs", "log1p":
			a, err := e.num(x.Args[0])
			if err != nil {
				return nil, err
			}
			out := make([]float64, n)
			for i, v := range a {
				switch x.Name {
				case "log":
					out[i] = math.Log(v)
				case "exp":
					out[i] = math.Exp(v)
				case "sqrt":
					out[i] = math.Sqrt(v)
				case "abs":
					out[i] = math.Abs(v)
				case "log1p":
					out[i] = math.Log1p(v)
				}
			}
			return e.finite(x, out)
		case "scale":
			a, err := e.num(x.Args[0])
			if err != nil {
				return nil, err
			}
			c := e.book[x.Text]
			if e.train {
				m, s := meanSD(a)
				if !(s > 0) {
					return nil, e.errf(x, "%s: the column is constant", x.Text)
				}
				c = &coding{centre: m, spread: s}
				e.book[x.Text] = c
			}
			out := make([]float64, n)
			for i, v := range a {
				out[i] = (v - c.centre) / c.spread
			}
			return out, nil
		}
	}
	return nil, e.errf(x, "%s is not a numeric expression", x.Text)
}

func (e *env) finite(x *Expr, v []float64) ([]float64, error) {
	for i, u := range v {
		if math.IsNaN(u) || math.IsInf(u, 0) {
			return nil, e.errf(x, "%s is %v at row %d: expected a finite number", x.Text, u, i+1)
		}
	}
	return v, nil
}

// weightedMean returns Σ wᵢaᵢ / Σ wᵢ (the plain mean for nil w).
func weightedMean(a []float64, w []int) float64 {
	if w == nil {
		m, _ := meanSD(a)
		return m
	}
	var s, sw float64
	for i, v := range a {
		s += float64(w[i]) * v
		sw += float64(w[i])
	}
	return s / sw
}

func meanSD(a []float64) (m, s float64) {
	for _, v := range a {
		m += v
	}
	m /= float64(len(a))
	for _, v := range a {
		s += (v - m) * (v - m)
	}
	return m, math.Sqrt(s / float64(len(a)-1))
}

func preview(l []string) string {
	more := ""
	if len(l) > 4 {
		l, more = l[:4], ", …"
	}
	c := make([]string, len(l))
	for i, v := range l {
		c[i] = clip(v)
	}
	return strings.Join(c, ", ") + more
}

// clip returns s, or its first 40 characters and "…": a message names a
// level or a cell, never copies a 10 MB one.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// factor returns the codes and levels of a categorical expression: a
// categorical column, or factor(x) of any column. On new data, levels are
// those of the training data; an unseen level is an error naming it.
func (e *env) factor(x *Expr) (codes []int, levels []string, isCat bool, err error) {
	var src *Expr
	switch {
	case x.Op == "col":
		src = x
	case x.Op == "call" && x.Name == "factor":
		src = x.Args[0]
		if src.Op != "col" {
			return nil, nil, false, e.errf(src, "factor(): expected a column")
		}
	default:
		return nil, nil, false, nil
	}
	c, ok := e.tab.Column(src.Name)
	if !ok {
		return nil, nil, false, e.errf(src, "no column %q in the data", src.Name)
	}
	cd := e.book[x.Text] // on new data: the training data's coding, nil if numeric
	if c.Num != nil && x.Op == "col" && (e.train || cd == nil) {
		return nil, nil, false, nil
	}
	var strs []string
	if c.Num != nil {
		// factor(x), or new data whose numbers are levels of a column
		// that was text in the training data ("1", "2", "x").
		codes, levels = numericFactor(c.Num)
	} else {
		codes, levels = c.Codes, c.Levels
	}
	if e.train {
		e.book[x.Text] = &coding{levels: levels}
		return codes, levels, true, nil
	}
	if cd == nil {
		// Text in new data where the training data had numbers.
		row, cell := 0, levels[0]
		for i, k := range codes {
			if _, err := strconv.ParseFloat(levels[k], 64); err != nil {
				row, cell = i+1, levels[k]
				break
			}
		}
		return nil, nil, false, e.errf(src, "column %q holds text (%q at row %d), but numbers in the training data: expected a number in every row", src.Name, clip(cell), row)
	}
	tr := cd.levels
	idx := make(map[string]int, len(tr))
	for i, l := range tr {
		idx[l] = i
	}
	out := make([]int, len(codes))
	for i, k := range codes {
		j, ok := idx[levels[k]]
		if !ok {
			return nil, nil, false, e.errf(x, "%s: level %q (row %d) was not in the training data (levels %s)", clip(x.Text), clip(levels[k]), i+1, preview(tr))
		}
		out[i] = j
	}
	_ = strs
	return out, tr, true, nil
}

// block evaluates one factor of a term; contrasts says whether a
// categorical factor drops its first level (treatment contrasts).
func (e *env) block(x *Expr, contrasts bool) (*block, error) {
	if codes, levels, ok, err := e.factor(x); err != nil {
		return nil, err
	} else if ok {
		b := &block{cat: true, codes: codes, lvls: levels, text: x.Text}
		start := 0
		if contrasts {
			start = 1
		}
		if len(levels)-start < 1 {
			return nil, e.errf(x, "%s has a single level %q: nothing to estimate", x.Text, clip(levels[0]))
		}
		if n := len(levels); e.train && n > MaxLevels && n*MinRowsPerLevel > len(codes) {
			return nil, e.errf(x, "%s has %d levels in %d rows, fewer than %d rows a level: as a population-level predictor it would be %d columns, each coefficient learnt from a handful of rows under a flat prior; make it a group-level term (1 | %s), whose effects share one prior, or leave it out (an identifier?)",
				x.Text, n, len(codes), MinRowsPerLevel, n-start, x.Text)
		}
		if err := e.fits(x, len(levels)-start); err != nil {
			return nil, err
		}
		for l := start; l < len(levels); l++ {
			col := make([]float64, len(codes))
			for i, k := range codes {
				if k == l {
					col[i] = 1
				}
			}
			b.names = append(b.names, x.Text+levels[l])
			b.cols = append(b.cols, col)
		}
		return b, nil
	}
	if x.Op == "call" && x.Name == "poly" {
		return e.poly(x)
	}
	v, err := e.num(x)
	if err != nil {
		return nil, err
	}
	return &block{names: []string{x.Text}, cols: [][]float64{v}, text: x.Text}, nil
}

// poly returns R's orthogonal polynomials of degree 1 … d of x: the monic
// polynomials orthogonal over the training rows (three-term recurrence
// Z_{k+1} = (x − α_k) Z_k − (n_{k+1}/n_k) Z_{k−1}), each divided by its
// training norm; new data are evaluated with the training α and norms, as
// R's predict(poly) does.
func (e *env) poly(x *Expr) (*block, error) {
	d := int(x.Args[1].Val)
	v, err := e.num(x.Args[0])
	if err != nil {
		return nil, err
	}
	n := len(v)
	c := e.book[x.Text]
	if e.train {
		c = &coding{alpha: make([]float64, d), norm2: make([]float64, d+2)}
		c.norm2[0] = 1
		prev := make([]float64, n)
		cur := make([]float64, n)
		for i := range cur {
			cur[i] = 1
		}
		for k := 0; k <= d; k++ {
			var nn, xz float64
			for i, z := range cur {
				nn += z * z
				xz += v[i] * z * z
			}
			c.norm2[k+1] = nn
			if k == d {
				break
			}
			c.alpha[k] = xz / nn
			next := make([]float64, n)
			for i := range next {
				next[i] = (v[i]-c.alpha[k])*cur[i] - (c.norm2[k+1]/c.norm2[k])*prev[i]
			}
			prev, cur = cur, next
		}
		distinct := map[float64]bool{}
		for _, u := range v {
			distinct[u] = true
		}
		if len(distinct) <= d {
			return nil, e.errf(x, "%s: the column has %d distinct values: expected more than the degree %d", x.Text, len(distinct), d)
		}
		e.book[x.Text] = c
	}
	b := &block{text: x.Text}
	prev := make([]float64, n)
	cur := make([]float64, n)
	for i := range cur {
		cur[i] = 1
	}
	for k := 0; k < d; k++ {
		next := make([]float64, n)
		for i := range next {
			next[i] = (v[i]-c.alpha[k])*cur[i] - (c.norm2[k+1]/c.norm2[k])*prev[i]
		}
		prev, cur = cur, next
		col := make([]float64, n)
		s := math.Sqrt(c.norm2[k+2])
		for i := range col {
			col[i] = cur[i] / s
		}
		b.names = append(b.names, fmt.Sprintf("%s%d", x.Text, k+1))
		b.cols = append(b.cols, col)
	}
	return b, nil
}

// termColumns evaluates a term (an interaction of its factors): the
// element-wise products of one column of each factor, the first factor's
// columns varying fastest (R's order), names joined with ':'. A categorical
// factor uses treatment contrasts when the term without it is in the model
// (the intercept for a main effect), all its levels otherwise (R's rule).
func (e *env) termColumns(t Term, intercept bool, present map[string]bool) ([]string, [][]float64, error) {
	names := []string{""}
	n := e.tab.Len()
	one := make([]float64, n)
	for i := range one {
		one[i] = 1
	}
	cols := [][]float64{one}
	for fi, f := range t.Factors {
		rest := Term{}
		for fj, g := range t.Factors {
			if fj != fi {
				rest.Factors = append(rest.Factors, g)
			}
		}
		contrasts := intercept
		if len(rest.Factors) > 0 {
			contrasts = present[rest.Label()]
		}
		b, err := e.block(f, contrasts)
		if err != nil {
			return nil, nil, err
		}
		if err := e.grow(f, len(b.cols)*len(cols)); err != nil {
			return nil, nil, err
		}
		var nn []string
		var nc [][]float64
		for bj, bc := range b.cols {
			for k, c := range cols {
				prod := make([]float64, n)
				for i := range prod {
					prod[i] = c[i] * bc[i]
				}
				name := b.names[bj]
				if names[k] != "" {
					name = names[k] + ":" + name
				}
				nn = append(nn, name)
				nc = append(nc, prod)
			}
		}
		names, cols = nn, nc
	}
	return names, cols, nil
}

// terms evaluates a term list into named columns.
func (e *env) terms(ts []Term, intercept bool) ([]string, [][]float64, error) {
	present := map[string]bool{}
	for _, t := range ts {
		present[t.Label()] = true
	}
	var names []string
	var cols [][]float64
	for _, t := range ts {
		nn, cc, err := e.termColumns(t, intercept, present)
		if err != nil {
			return nil, nil, err
		}
		names = append(names, nn...)
		cols = append(cols, cc...)
	}
	return names, cols, nil
}

// brmsName turns an R column name into brms's parameter suffix: spaces,
// parentheses, brackets, commas and quotes removed, + − * / ^ = spelt
// P, M, MU, D, E, EQ (brms's rename()).
func brmsName(s string) string {
	r := strings.NewReplacer(" ", "", "(", "", ")", "", "[", "", "]", "", ",", "", "\"", "", "'", "", "?", "",
		"+", "P", "-", "M", "*", "MU", "/", "D", "^", "E", "=", "EQ")
	return r.Replace(s)
}

// grouping returns the codes and levels of a grouping factor: the levels
// of one column (sorted as R's factor() sorts them) or, for a:b, of the
// pasted values a_b (brms's convention), sorted as strings.
func (e *env) grouping(g Group) ([]int, []string, error) {
	n := e.tab.Len()
	vals := make([][]string, len(g.Factor))
	var codes []int
	var levels []string
	for k, name := range g.Factor {
		c, ok := e.tab.Column(name)
		if !ok {
			return nil, nil, &SyntaxError{g.Pos, fmt.Sprintf("grouping column %q is not in the data", name)}
		}
		cc, lv := c.Codes, c.Levels
		if c.Num != nil {
			cc, lv = numericFactor(c.Num)
		}
		if len(g.Factor) == 1 {
			codes, levels = cc, lv
			break
		}
		vals[k] = make([]string, n)
		for i := range vals[k] {
			vals[k][i] = lv[cc[i]]
		}
	}
	if len(g.Factor) > 1 {
		pasted := make([]string, n)
		for i := range pasted {
			parts := make([]string, len(g.Factor))
			for k := range parts {
				parts[k] = vals[k][i]
			}
			pasted[i] = strings.Join(parts, "_")
		}
		codes, levels = factorOf(pasted)
	}
	key := "group:" + g.Name()
	if e.train {
		e.book[key] = &coding{levels: levels}
		return codes, levels, nil
	}
	// New data: training codes; a level not seen in training is −1 (see
	// NewLevels for what prediction does with it).
	tr := e.book[key].levels
	idx := make(map[string]int, len(tr))
	for i, l := range tr {
		idx[l] = i
	}
	out := make([]int, len(codes))
	for i, k := range codes {
		j, ok := idx[levels[k]]
		if !ok {
			j = -1
		}
		out[i] = j
	}
	return out, tr, nil
}

// designScale returns the root mean square of a design column (weighted by
// the trials when w is not nil): its sd when the column is centred, the
// spread the sampler sees. A column that is 0 everywhere keeps scale 1.
func designScale(c []float64, w []int) float64 {
	var s, sw float64
	for i, v := range c {
		wi := 1.0
		if w != nil {
			wi = float64(w[i])
		}
		s += wi * v * v
		sw += wi
	}
	r := math.Sqrt(s / sw)
	if !(r > 0) || math.IsInf(r, 0) {
		return 1
	}
	return r
}
