package formula

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// Expr is a numeric expression of the data: a column, a number, a function
// call (log, exp, sqrt, abs, I, poly, factor, offset, scale) or arithmetic
// inside I(…).
type Expr struct {
	Op   string // "col", "num", "call", "+", "-", "*", "/", "^", "neg"
	Name string // the column or function name
	Val  float64
	Args []*Expr
	Pos  int    // 1-based column in the formula
	Text string // the source text, as R deparses it (spaces removed)
}

// Term is one population- or group-level term: the interaction of its
// factors (a main effect has one).
type Term struct {
	Factors []*Expr
}

// Label returns the term's R label, factors joined by ':'.
func (t Term) Label() string {
	s := make([]string, len(t.Factors))
	for i, f := range t.Factors {
		s[i] = f.Text
	}
	return strings.Join(s, ":")
}

// Group is a group-level (varying) term (terms | factor): its intercept and
// slopes vary by the levels of the grouping factor, the interaction of the
// named columns ("a", or "a:b" for a nested level).
type Group struct {
	Intercept  bool
	Terms      []Term
	Factor     []string // grouping columns, interacted
	Correlated bool     // '|' (true) or '||' (false)
	Pos        int
}

// Name returns the grouping factor's name as brms writes it ("g", "a:b").
func (g Group) Name() string { return strings.Join(g.Factor, ":") }

// Formula is a parsed model formula response ~ terms.
type Formula struct {
	Response  *Expr
	Intercept bool
	Terms     []Term
	Offsets   []*Expr
	Groups    []Group
	Text      string
	// Trials is the column of y | trials(n) (brms's binomial response:
	// y successes of n), "" without one; TrialsPos is the column of '|'.
	Trials    string
	TrialsPos int
}

// SyntaxError is a parse error at a column of the formula.
type SyntaxError struct {
	Col int
	Msg string
}

func (e *SyntaxError) Error() string {
	msg := e.Msg
	if r := []rune(msg); len(r) > maxMessage {
		// A message that quotes a term of a 100 KB formula: its start
		// and end (what was expected).
		msg = string(r[:maxMessage/2]) + " … " + string(r[len(r)-maxMessage/2:])
	}
	return fmt.Sprintf("formula: column %d: %s", e.Col, msg)
}

// maxMessage is the longest SyntaxError message, in characters.
const maxMessage = 1000

type token struct {
	kind string // "id", "num", "op", "eof"
	text string
	pos  int // 1-based column
	val  float64
}

func lex(s string) ([]token, error) {
	var out []token
	r := []rune(s)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case unicode.IsLetter(c) || c == '.' && !(i+1 < len(r) && unicode.IsDigit(r[i+1])) || c == '`':
			start := i
			if c == '`' { // a backquoted name
				j := i + 1
				for j < len(r) && r[j] != '`' {
					j++
				}
				if j == len(r) {
					return nil, &SyntaxError{i + 1, "unterminated backquoted name"}
				}
				out = append(out, token{kind: "id", text: string(r[i+1 : j]), pos: start + 1})
				i = j + 1
				continue
			}
			for i < len(r) && (unicode.IsLetter(r[i]) || unicode.IsDigit(r[i]) || r[i] == '_' || r[i] == '.') {
				i++
			}
			out = append(out, token{kind: "id", text: string(r[start:i]), pos: start + 1})
		case unicode.IsDigit(c) || c == '.':
			start := i
			for i < len(r) && (unicode.IsDigit(r[i]) || r[i] == '.' || r[i] == 'e' || r[i] == 'E' ||
				(r[i] == '-' || r[i] == '+') && i > start && (r[i-1] == 'e' || r[i-1] == 'E')) {
				i++
			}
			v, err := strconv.ParseFloat(string(r[start:i]), 64)
			if err != nil {
				return nil, &SyntaxError{start + 1, fmt.Sprintf("malformed number %q", string(r[start:i]))}
			}
			out = append(out, token{kind: "num", text: string(r[start:i]), pos: start + 1, val: v})
		case c == '|' && i+1 < len(r) && r[i+1] == '|':
			out = append(out, token{kind: "op", text: "||", pos: i + 1})
			i += 2
		case strings.ContainsRune("~+-*/:^|(),", c):
			out = append(out, token{kind: "op", text: string(c), pos: i + 1})
			i++
		default:
			return nil, &SyntaxError{i + 1, fmt.Sprintf("unexpected character %q", c)}
		}
	}
	out = append(out, token{kind: "eof", pos: len(r) + 1})
	return out, nil
}

type parser struct {
	toks    []token
	k       int
	inArith int // > 0 inside a function's parentheses: + - * / ^ are arithmetic
	depth   int // parentheses and function calls open

	// canon is the tokens' texts joined (the formula without spaces), off
	// the start of each token in it: an expression's Text is the slice of
	// its tokens, sharing canon's bytes, so that parsing takes time and
	// memory linear in the formula's length.
	canon string
	off   []int
}

// MaxDepth is the deepest nesting of parentheses and function calls a
// formula may have (R's parser stops at 50 levels of parentheses).
const MaxDepth = 100

// MaxCrossed is the most factors a '*' product may cross: a*b*…, of n
// factors, expands to all 2ⁿ − 1 of their interactions.
const MaxCrossed = 10

// text returns the formula's text (spaces removed) of the tokens from
// start up to the current one.
func (p *parser) text(start int) string { return p.canon[p.off[start]:p.off[p.k]] }

func (p *parser) peek() token { return p.toks[p.k] }
func (p *parser) next() token { t := p.toks[p.k]; p.k++; return t }
func (p *parser) is(op string) bool {
	t := p.peek()
	return t.kind == "op" && t.text == op
}

func (p *parser) errf(t token, format string, a ...any) error {
	found := t.text
	if t.kind == "eof" {
		found = "the end"
	} else {
		found = "'" + found + "'"
	}
	return &SyntaxError{t.pos, fmt.Sprintf(format, a...) + ", found " + found}
}

func (p *parser) expect(op string) error {
	if !p.is(op) {
		return p.errf(p.peek(), "expected '%s'", op)
	}
	p.next()
	return nil
}

// Parse parses an lme4/brms model formula: response ~ terms, or
// y | trials(n) ~ terms for the binomial family (y successes of the n of
// column n), where terms are separated by '+' and each is
//
//	x              a column (numeric: a slope; text or factor(x): treatment-coded levels)
//	x:z, x*z       an interaction; x*z is x + z + x:z
//	log(x), exp(x), sqrt(x), abs(x), scale(x)
//	I(expr)        arithmetic on columns: + - * / ^ and numbers
//	poly(x, d)     orthogonal polynomials of degree 1 … d (as R's poly)
//	offset(expr)   a known term of the linear predictor, coefficient 1
//	1, 0, -1       keep (default) or drop the intercept
//	(terms | g)    group-level intercept and slopes varying by g, correlated
//	(terms || g)   the same, uncorrelated
//	(1 | a/b)      nested: (1 | a) + (1 | a:b)
//	(1 | a:b)      by the levels of the interaction of a and b
//
// Errors are *SyntaxError values naming the 1-based column.
func Parse(s string) (*Formula, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks, off: make([]int, len(toks)+1)}
	var b strings.Builder
	for i, t := range toks {
		p.off[i] = b.Len()
		if t.kind != "eof" {
			b.WriteString(t.text)
		}
	}
	p.off[len(toks)] = b.Len()
	p.canon = b.String()
	if p.is("~") {
		return nil, p.errf(p.peek(), "expected a response before '~'")
	}
	resp, err := p.expr(s)
	if err != nil {
		return nil, err
	}
	f := &Formula{Response: resp, Intercept: true, Text: s}
	if p.is("|") { // brms's addition terms: y | trials(n)
		bar := p.next()
		t := p.peek()
		if t.kind != "id" || t.text != "trials" || p.toks[p.k+1].text != "(" {
			return nil, p.errf(t, "after '|' in the response: expected trials(n), the column of the binomial family's numbers of trials")
		}
		p.next()
		p.next()
		c := p.peek()
		if c.kind != "id" {
			return nil, p.errf(c, "trials(): expected the column of the numbers of trials")
		}
		p.next()
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		f.Trials, f.TrialsPos = c.text, bar.pos
	}
	if err := p.expect("~"); err != nil {
		return nil, err
	}
	if err := p.rhs(s, f, false); err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != "eof" {
		return nil, p.errf(t, "expected '+' or the end of the formula")
	}
	return f, nil
}

// rhs parses terms separated by + (and - 1 / - 0) into f, up to ')' , '|' or
// the end; inGroup forbids nested group terms and offsets.
func (p *parser) rhs(src string, f *Formula, inGroup bool) error {
	sign := 1
	first := true
	seen := make(map[string]bool, len(f.Terms)) // the terms' labels
	for _, t := range f.Terms {
		seen[t.Label()] = true
	}
	for {
		t := p.peek()
		if !first {
			if p.is("+") {
				sign = 1
				p.next()
			} else if p.is("-") {
				sign = -1
				p.next()
			} else {
				return nil
			}
		} else if p.is("-") {
			sign = -1
			p.next()
		}
		first = false
		t = p.peek()
		switch {
		case t.kind == "num" && (t.val == 0 || t.val == 1) && (p.toks[p.k+1].kind == "eof" || p.toks[p.k+1].kind == "op" && strings.Contains("+-|)", p.toks[p.k+1].text)):
			p.next()
			f.Intercept = (t.val == 1) == (sign == 1)
			continue
		case t.kind == "num":
			return &SyntaxError{t.pos, fmt.Sprintf("a number %s as a term: expected 0 or 1 (the intercept), or a column", t.text)}
		case sign < 0:
			return &SyntaxError{t.pos, "removing a term other than the intercept ('- 1') is not supported"}
		case p.is("(") && !inGroup:
			g, err := p.group(src)
			if err != nil {
				return err
			}
			f.Groups = append(f.Groups, g...)
			continue
		case t.kind == "id" && t.text == "offset" && p.toks[p.k+1].text == "(":
			if inGroup {
				return &SyntaxError{t.pos, "offset() inside a group-level term: put it among the population-level terms"}
			}
			e, err := p.expr(src)
			if err != nil {
				return err
			}
			f.Offsets = append(f.Offsets, e.Args[0])
			continue
		}
		terms, err := p.product(src)
		if err != nil {
			return err
		}
		for _, nt := range terms {
			if l := nt.Label(); !seen[l] {
				seen[l] = true
				f.Terms = append(f.Terms, nt)
			}
		}
	}
}

// product parses a:b*c… into its terms (a*b = a + b + a:b).
func (p *parser) product(src string) ([]Term, error) {
	var groups [][]*Expr // factors joined by ':' between '*'
	cur := []*Expr{}
	for {
		e, err := p.atom(src)
		if err != nil {
			return nil, err
		}
		cur = append(cur, e)
		if p.is(":") {
			p.next()
			continue
		}
		if p.is("*") {
			p.next()
			groups = append(groups, cur)
			cur = []*Expr{}
			continue
		}
		break
	}
	groups = append(groups, cur)
	var out []Term
	n := len(groups)
	if n > MaxCrossed {
		return nil, &SyntaxError{groups[MaxCrossed][0].Pos, fmt.Sprintf("%d factors crossed with '*' expand to 2^%d − 1 terms: expected at most %d (write the interactions wanted with ':')", n, n, MaxCrossed)}
	}
	// All non-empty subsets, ordered by size then position (R's order).
	for size := 1; size <= n; size++ {
		for mask := 1; mask < 1<<n; mask++ {
			if popcount(mask) != size {
				continue
			}
			var t Term
			for i := 0; i < n; i++ {
				if mask&(1<<i) != 0 {
					t.Factors = append(t.Factors, groups[i]...)
				}
			}
			out = append(out, t)
		}
	}
	return out, nil
}

func popcount(m int) int {
	c := 0
	for ; m != 0; m &= m - 1 {
		c++
	}
	return c
}

// group parses ( terms | g ) or ( terms || g ) and expands a/b.
func (p *parser) group(src string) ([]Group, error) {
	open := p.next()
	var inner Formula
	inner.Intercept = true
	if err := p.rhs(src, &inner, true); err != nil {
		return nil, err
	}
	var corr bool
	switch {
	case p.is("|"):
		corr = true
	case p.is("||"):
		corr = false
	default:
		return nil, p.errf(p.peek(), "expected '|' or '||' in the group-level term opened at column %d", open.pos)
	}
	p.next()
	var parts [][]string // a/b/c → [[a], [a,b], [a,b,c]]; a:b → [[a,b]]
	var path []string
	for {
		t := p.next()
		if t.kind != "id" {
			return nil, p.errf(t, "expected a grouping column")
		}
		path = append(path, t.text)
		if p.is(":") {
			p.next()
			continue
		}
		if p.is("/") {
			p.next()
			parts = append(parts, append([]string(nil), path...))
			continue
		}
		break
	}
	parts = append(parts, path)
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	if !inner.Intercept && len(inner.Terms) == 0 {
		return nil, &SyntaxError{open.pos, "a group-level term with neither an intercept nor slopes"}
	}
	out := make([]Group, len(parts))
	for i, f := range parts {
		out[i] = Group{Intercept: inner.Intercept, Terms: inner.Terms, Factor: f, Correlated: corr, Pos: open.pos}
	}
	return out, nil
}

var funcs = map[string]int{"log": 1, "exp": 1, "sqrt": 1, "abs": 1, "I": 1, "factor": 1, "offset": 1, "scale": 1, "poly": 2, "log1p": 1}

// atom parses a column or a function call.
func (p *parser) atom(src string) (*Expr, error) {
	t := p.peek()
	if t.kind != "id" {
		if t.kind == "op" && t.text == "(" {
			return nil, p.errf(t, "expected a column or a function; a parenthesised term is a group-level term (terms | g) only")
		}
		return nil, p.errf(t, "expected a column or a function")
	}
	return p.expr(src)
}

// expr parses an arithmetic expression (inside I() and for the response).
func (p *parser) expr(src string) (*Expr, error) { return p.sum(src) }

func (p *parser) sum(src string) (*Expr, error) {
	start := p.k
	a, err := p.prod(src)
	if err != nil {
		return nil, err
	}
	for p.inArith > 0 && (p.is("+") || p.is("-")) {
		op := p.next()
		b, err := p.prod(src)
		if err != nil {
			return nil, err
		}
		a = &Expr{Op: op.text, Args: []*Expr{a, b}, Pos: a.Pos, Text: p.text(start)}
	}
	return a, nil
}

func (p *parser) prod(src string) (*Expr, error) {
	start := p.k
	a, err := p.pow(src)
	if err != nil {
		return nil, err
	}
	for p.inArith > 0 && (p.is("*") || p.is("/")) {
		op := p.next()
		b, err := p.pow(src)
		if err != nil {
			return nil, err
		}
		a = &Expr{Op: op.text, Args: []*Expr{a, b}, Pos: a.Pos, Text: p.text(start)}
	}
	return a, nil
}

func (p *parser) pow(src string) (*Expr, error) {
	start := p.k
	a, err := p.unary(src)
	if err != nil {
		return nil, err
	}
	if p.inArith > 0 && p.is("^") {
		p.next()
		b, err := p.pow(src)
		if err != nil {
			return nil, err
		}
		a = &Expr{Op: "^", Args: []*Expr{a, b}, Pos: a.Pos, Text: p.text(start)}
	}
	return a, nil
}

func (p *parser) unary(src string) (*Expr, error) {
	t := p.peek()
	start := p.k
	if (p.inArith > 0 && (p.is("-") || p.is("("))) || t.kind == "id" && p.toks[p.k+1].text == "(" {
		// Recursion: a nesting level.
		if p.depth >= MaxDepth {
			return nil, &SyntaxError{t.pos, fmt.Sprintf("nested deeper than %d levels of parentheses, signs and function calls: expected at most %d", MaxDepth, MaxDepth)}
		}
		p.depth++
		defer func() { p.depth-- }()
	}
	switch {
	case p.inArith > 0 && p.is("-"):
		p.next()
		a, err := p.unary(src)
		if err != nil {
			return nil, err
		}
		return &Expr{Op: "neg", Args: []*Expr{a}, Pos: t.pos, Text: p.text(start)}, nil
	case p.inArith > 0 && p.is("("):
		p.next()
		a, err := p.sum(src)
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		return &Expr{Op: a.Op, Name: a.Name, Val: a.Val, Args: a.Args, Pos: t.pos, Text: p.text(start)}, nil
	case t.kind == "num":
		p.next()
		return &Expr{Op: "num", Val: t.val, Pos: t.pos, Text: t.text}, nil
	case t.kind != "id":
		return nil, p.errf(t, "expected a column, a number or a function")
	}
	p.next()
	if !p.is("(") {
		return &Expr{Op: "col", Name: t.text, Pos: t.pos, Text: t.text}, nil
	}
	nargs, ok := funcs[t.text]
	if !ok {
		return nil, &SyntaxError{t.pos, fmt.Sprintf("unknown function %s(): expected one of log, exp, sqrt, abs, log1p, scale, I, poly, factor, offset", t.text)}
	}
	p.next()
	p.inArith++
	var args []*Expr
	for {
		a, err := p.sum(src)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
		if p.is(",") {
			p.next()
			continue
		}
		break
	}
	p.inArith--
	if err := p.expect(")"); err != nil {
		return nil, err
	}
	if len(args) != nargs {
		return nil, &SyntaxError{t.pos, fmt.Sprintf("%s() takes %d argument(s), got %d", t.text, nargs, len(args))}
	}
	e := &Expr{Op: "call", Name: t.text, Args: args, Pos: t.pos, Text: p.text(start)}
	if t.text == "poly" {
		if args[1].Op != "num" || args[1].Val < 1 || args[1].Val != float64(int(args[1].Val)) {
			return nil, &SyntaxError{args[1].Pos, "poly(x, d): expected a whole degree d ≥ 1"}
		}
	}
	return e, nil
}

// Columns returns the names of the data columns the formula reads — the
// response, trials, the population- and group-level terms' columns,
// offsets and grouping factors — each once, in the order they appear.
func (f *Formula) Columns() []string {
	var out []string
	seen := map[string]bool{}
	add := func(name string) {
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	var walk func(e *Expr)
	walk = func(e *Expr) {
		if e.Op == "col" {
			add(e.Name)
		}
		for _, a := range e.Args {
			walk(a)
		}
	}
	walk(f.Response)
	if f.Trials != "" {
		add(f.Trials)
	}
	terms := func(ts []Term) {
		for _, t := range ts {
			for _, e := range t.Factors {
				walk(e)
			}
		}
	}
	terms(f.Terms)
	for _, o := range f.Offsets {
		walk(o)
	}
	for _, g := range f.Groups {
		terms(g.Terms)
		for _, c := range g.Factor {
			add(c)
		}
	}
	return out
}
