package stan

import (
	"fmt"
	"strconv"
)

// Parse parses the Stan program src; file names it in errors. It returns an
// *Error with the line and column of the first token it cannot use and what
// was expected there.
func Parse(file, src string) (prog *Program, err error) {
	toks, err := lex(file, src)
	if err != nil {
		return nil, err
	}
	p := &parser{file: file, toks: toks}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			prog, err = nil, e
		}
	}()
	return p.program(), nil
}

type parser struct {
	file  string
	toks  []token
	i     int
	depth int
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(k int) token {
	if p.i+k < len(p.toks) {
		return p.toks[p.i+k]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.k != tEOF {
		p.i++
	}
	return t
}

func (p *parser) failAt(pos Pos, format string, args ...any) {
	panic(&Error{p.file, pos, fmt.Sprintf(format, args...)})
}

// expected fails at the next token, saying what was expected instead.
func (p *parser) expected(what string) {
	t := p.peek()
	p.failAt(t.pos, "expected %s, found %s", what, t)
}

func (p *parser) isOp(s string) bool { t := p.peek(); return t.k == tOp && t.s == s }
func (p *parser) isIdent(s string) bool {
	t := p.peek()
	return t.k == tIdent && t.s == s
}

func (p *parser) accept(s string) bool {
	if p.isOp(s) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expect(s string) token {
	if !p.isOp(s) {
		p.expected("'" + s + "'")
	}
	return p.next()
}

func (p *parser) ident(what string) token {
	if p.peek().k != tIdent {
		p.expected(what)
	}
	return p.next()
}

var blockOrder = []string{"functions", "data", "transformed data", "parameters", "transformed parameters", "model", "generated quantities"}

func (p *parser) program() *Program {
	prog := &Program{File: p.file}
	last := -1
	for p.peek().k != tEOF {
		t := p.peek()
		name := ""
		if t.k == tIdent {
			switch t.s {
			case "functions", "data", "parameters", "model":
				name = t.s
				p.next()
			case "transformed":
				p.next()
				n := p.peek()
				if n.k == tIdent && (n.s == "data" || n.s == "parameters") {
					name = "transformed " + n.s
					p.next()
				} else {
					p.expected("'data' or 'parameters' after 'transformed'")
				}
			case "generated":
				p.next()
				if !p.isIdent("quantities") {
					p.expected("'quantities' after 'generated'")
				}
				p.next()
				name = "generated quantities"
			}
		}
		if name == "" {
			p.expected("a program block (data, parameters, model, …)")
		}
		k := 0
		for blockOrder[k] != name {
			k++
		}
		if k <= last {
			p.failAt(t.pos, "block '%s' out of order or repeated (the order is functions, data, transformed data, parameters, transformed parameters, model, generated quantities)", name)
		}
		last = k
		if name == "functions" {
			p.functions(prog)
			continue
		}
		b := p.block(name)
		switch name {
		case "data":
			prog.Data = b
		case "transformed data":
			prog.TData = b
		case "parameters":
			prog.Params = b
		case "transformed parameters":
			prog.TParams = b
		case "model":
			prog.Model = b
		case "generated quantities":
			prog.Generated = b
		}
	}
	return prog
}

func (p *parser) block(name string) *Block {
	t := p.expect("{")
	b := &Block{Pos: t.pos, Name: name}
	for !p.isOp("}") {
		if p.peek().k == tEOF {
			p.expected("'}' closing the block opened at " + fmt.Sprintf("%d:%d", t.pos.Line, t.pos.Col))
		}
		var s Stmt
		if name == "data" || name == "parameters" {
			if !p.startsDecl() {
				p.expected("a declaration (the " + name + " block holds declarations only)")
			}
			s = p.decl(true)
		} else {
			s = p.stmt(name != "model")
		}
		b.Stmts = append(b.Stmts, s)
	}
	p.next()
	return b
}

// startsDecl reports whether the next tokens begin a declaration.
func (p *parser) startsDecl() bool {
	t := p.peek()
	if t.k != tIdent {
		return false
	}
	if t.s == "array" {
		return p.peekAt(1).k == tOp && p.peekAt(1).s == "["
	}
	if _, ok := typeNames[t.s]; !ok {
		return false
	}
	n := p.peekAt(1)
	return n.k == tIdent || n.k == tOp && (n.s == "<" || n.s == "[")
}

// decl parses a declaration; top is true in a block's top level, where
// constraints are allowed.
func (p *parser) decl(top bool) *Decl {
	d := &Decl{Pos: p.peek().pos}
	if p.isIdent("array") {
		p.next()
		p.expect("[")
		d.Dims = p.exprList("]")
	}
	tt := p.ident("a type")
	ty, ok := typeNames[tt.s]
	if !ok {
		p.failAt(tt.pos, "unknown type '%s'", tt.s)
	}
	d.Type, d.TypeName = ty, tt.s
	if p.accept("<") {
		for {
			k := p.ident("lower, upper, offset or multiplier")
			p.expect("=")
			e := p.binary(precAdd)
			switch k.s {
			case "lower":
				d.Lower = e
			case "upper":
				d.Upper = e
			case "offset":
				d.Offset = e
			case "multiplier":
				d.Multiplier = e
			default:
				p.failAt(k.pos, "unknown constraint '%s' (expected lower, upper, offset or multiplier)", k.s)
			}
			if p.accept(">") {
				break
			}
			if !p.accept(",") {
				p.expected("',' or '>' in the constraint")
			}
		}
		if (d.Lower != nil || d.Upper != nil) && (d.Offset != nil || d.Multiplier != nil) {
			p.failAt(tt.pos, "a declaration cannot have both bounds and offset/multiplier")
		}
		if !top {
			p.failAt(tt.pos, "constraints are not allowed on local variables")
		}
		if ty != tyInt && ty != tyReal && ty != tyVector && ty != tyRowVector && ty != tyMatrix {
			p.failAt(tt.pos, "type '%s' takes no bounds", tt.s)
		}
	}
	switch ty {
	case tyVector, tyRowVector, tySimplex, tyOrdered, tyPositiveOrdered, tyUnitVector, tyCholCorr, tyCorr, tyCov:
		p.expect("[")
		d.Sizes = []Expr{p.expr()}
		p.expect("]")
	case tyMatrix:
		p.expect("[")
		d.Sizes = []Expr{p.expr()}
		p.expect(",")
		d.Sizes = append(d.Sizes, p.expr())
		p.expect("]")
	case tyCholCov:
		p.expect("[")
		d.Sizes = []Expr{p.expr()}
		if p.accept(",") {
			d.Sizes = append(d.Sizes, p.expr())
		}
		p.expect("]")
	}
	n := p.ident("the variable's name")
	if _, ok := typeNames[n.s]; ok || reserved[n.s] {
		p.failAt(n.pos, "'%s' is a reserved word and cannot name a variable", n.s)
	}
	d.Name, d.Pos = n.s, n.pos
	if p.accept("[") { // old array syntax: real x[N];
		if d.Dims != nil {
			p.failAt(n.pos, "array dimensions given twice (array[…] and after the name)")
		}
		d.Dims = p.exprList("]")
	}
	if p.accept("=") {
		d.Init = p.expr()
	}
	p.expect(";")
	return d
}

var reserved = map[string]bool{
	"for": true, "in": true, "while": true, "if": true, "else": true, "break": true, "continue": true,
	"return": true, "target": true, "array": true, "lower": false, "void": true, "print": true, "reject": true,
}

// exprList parses expressions separated by commas up to the closing token.
func (p *parser) exprList(close string) []Expr {
	var es []Expr
	if p.accept(close) {
		return es
	}
	for {
		es = append(es, p.expr())
		if p.accept(close) {
			return es
		}
		if !p.accept(",") {
			p.expected("',' or '" + close + "'")
		}
	}
}

func (p *parser) enter() {
	p.depth++
	if p.depth > 200 {
		p.failAt(p.peek().pos, "nesting deeper than 200 levels")
	}
}

// stmt parses a statement; decls says whether declarations are allowed
// (everywhere but in the model block's top level they are).
func (p *parser) stmt(decls bool) Stmt {
	p.enter()
	defer func() { p.depth-- }()
	t := p.peek()
	if p.startsDecl() {
		return p.decl(decls)
	}
	if t.k == tOp && t.s == "{" {
		p.next()
		b := &Block{Pos: t.pos}
		for !p.accept("}") {
			if p.peek().k == tEOF {
				p.expected("'}'")
			}
			b.Stmts = append(b.Stmts, p.stmt(false))
		}
		return b
	}
	if t.k == tOp && t.s == ";" {
		p.next()
		return &Block{Pos: t.pos}
	}
	if t.k == tIdent {
		switch t.s {
		case "for":
			p.next()
			p.expect("(")
			v := p.ident("the loop variable")
			if !p.isIdent("in") {
				p.expected("'in'")
			}
			p.next()
			f := &For{Pos: t.pos, Var: v.s}
			f.Lo = p.expr()
			if p.accept(":") {
				f.Hi = p.expr()
			}
			p.expect(")")
			f.Body = p.stmt(false)
			return f
		case "while":
			p.next()
			p.expect("(")
			c := p.expr()
			p.expect(")")
			return &While{Pos: t.pos, Cond: c, Body: p.stmt(false)}
		case "if":
			p.next()
			p.expect("(")
			c := p.expr()
			p.expect(")")
			s := &If{Pos: t.pos, Cond: c, Then: p.stmt(false)}
			if p.isIdent("else") {
				p.next()
				s.Else = p.stmt(false)
			}
			return s
		case "break", "continue":
			p.next()
			p.expect(";")
			return &Jump{Pos: t.pos, Break: t.s == "break"}
		case "print", "reject", "fatal_error":
			if p.peekAt(1).k == tOp && p.peekAt(1).s == "(" {
				p.next()
				p.next()
				s := &Print{Pos: t.pos, Reject: t.s != "print"}
				for !p.accept(")") {
					if len(s.Args) > 0 && !p.accept(",") {
						p.expected("',' or ')'")
					}
					if p.peek().k == tString {
						st := p.next()
						s.Args = append(s.Args, &StrLit{Pos: st.pos, S: st.s})
					} else {
						s.Args = append(s.Args, p.expr())
					}
				}
				p.expect(";")
				return s
			}
		case "target":
			if p.peekAt(1).k == tOp && p.peekAt(1).s == "+=" {
				p.next()
				p.next()
				e := p.expr()
				p.expect(";")
				return &TargetPlus{Pos: t.pos, E: e}
			}
		case "return":
			p.next()
			r := &Return{Pos: t.pos}
			if !p.accept(";") {
				r.E = p.expr()
				p.expect(";")
			}
			return r
		case "increment_log_prob":
			p.failAt(t.pos, "increment_log_prob was removed from Stan: write target += …")
		}
	}
	e := p.expr()
	nt := p.peek()
	if nt.k == tOp && nt.s == "~" {
		p.next()
		d := p.ident("a distribution's name after '~'")
		s := &Tilde{Pos: nt.pos, X: e, Dist: d.s}
		p.expect("(")
		s.Args = p.exprList(")")
		if p.isIdent("T") && p.peekAt(1).k == tOp && p.peekAt(1).s == "[" {
			p.next()
			p.next()
			s.Truncation = true
			if !p.isOp(",") {
				s.TruncLo = p.expr()
			}
			p.expect(",")
			if !p.isOp("]") {
				s.TruncHi = p.expr()
			}
			p.expect("]")
		}
		p.expect(";")
		return s
	}
	if nt.k == tOp {
		switch nt.s {
		case "=", "+=", "-=", "*=", "/=", ".*=", "./=":
			p.next()
			a := &Assign{Pos: nt.pos, Op: nt.s}
			switch l := e.(type) {
			case *Ident:
				a.Name = l.Name
			case *IndexExpr:
				id, ok := l.X.(*Ident)
				if !ok {
					p.failAt(e.pos(), "the left side of '%s' must be a variable, possibly indexed once (x[i, j] rather than x[i][j])", nt.s)
				}
				a.Name, a.Index = id.Name, l.Idx
			default:
				p.failAt(e.pos(), "the left side of '%s' must be a variable", nt.s)
			}
			a.Value = p.expr()
			p.expect(";")
			return a
		}
	}
	if c, ok := e.(*Call); ok && p.isOp(";") {
		p.failAt(c.Pos, "a function call as a statement (%s) is not supported", c.Name)
	}
	p.expected("'~', an assignment or ';'")
	return nil
}

// Precedence levels, loosest first.
const (
	precOr = iota
	precAnd
	precEq
	precRel
	precAdd
	precMul
)

var binPrec = map[string]int{
	"||": precOr, "&&": precAnd, "==": precEq, "!=": precEq,
	"<": precRel, "<=": precRel, ">": precRel, ">=": precRel,
	"+": precAdd, "-": precAdd,
	"*": precMul, "/": precMul, "%": precMul, "\\": precMul, ".*": precMul, "./": precMul, "%/%": precMul,
}

func (p *parser) expr() Expr {
	p.enter()
	defer func() { p.depth-- }()
	c := p.binary(precOr)
	if t := p.peek(); t.k == tOp && t.s == "?" {
		p.next()
		a := p.expr()
		p.expect(":")
		b := p.expr()
		return &Cond{Pos: t.pos, C: c, A: a, B: b}
	}
	return c
}

// binary parses operators of precedence min or tighter, left-associative.
func (p *parser) binary(min int) Expr {
	l := p.unary()
	for {
		t := p.peek()
		if t.k != tOp {
			return l
		}
		pr, ok := binPrec[t.s]
		if !ok || pr < min {
			return l
		}
		p.next()
		r := p.binary(pr + 1)
		l = &Binary{Pos: t.pos, Op: t.s, L: l, R: r}
	}
}

func (p *parser) unary() Expr {
	t := p.peek()
	if t.k == tOp && (t.s == "-" || t.s == "!" || t.s == "+") {
		p.next()
		p.enter()
		x := p.unary()
		p.depth--
		if t.s == "+" {
			return x
		}
		return &Unary{Pos: t.pos, Op: t.s, X: x}
	}
	return p.power()
}

// power parses a ^ b (right-associative, tighter than prefix minus).
func (p *parser) power() Expr {
	b := p.postfix()
	if t := p.peek(); t.k == tOp && (t.s == "^" || t.s == ".^") {
		p.next()
		p.enter()
		e := p.unary() // a ^ -b
		p.depth--
		return &Binary{Pos: t.pos, Op: t.s, L: b, R: e}
	}
	return b
}

func (p *parser) postfix() Expr {
	e := p.primary()
	for {
		t := p.peek()
		switch {
		case t.k == tOp && t.s == "[":
			p.next()
			ix := &IndexExpr{Pos: t.pos, X: e}
			for {
				ix.Idx = append(ix.Idx, p.index())
				if p.accept("]") {
					break
				}
				if !p.accept(",") {
					p.expected("',' or ']' in the index")
				}
			}
			e = ix
		case t.k == tOp && t.s == "'":
			p.next()
			e = &Unary{Pos: t.pos, Op: "'", X: e}
		default:
			return e
		}
	}
}

func (p *parser) index() Index {
	ix := Index{Pos: p.peek().pos}
	if p.isOp(",") || p.isOp("]") {
		ix.Range = true
		return ix
	}
	if p.accept(":") {
		ix.Range = true
		if !p.isOp(",") && !p.isOp("]") {
			ix.Hi = p.expr0()
		}
		return ix
	}
	e := p.expr0()
	if p.accept(":") {
		ix.Range, ix.Lo = true, e
		if !p.isOp(",") && !p.isOp("]") {
			ix.Hi = p.expr0()
		}
		return ix
	}
	ix.E = e
	return ix
}

// expr0 is an expression without the conditional operator, whose ':'
// would be ambiguous in a range index.
func (p *parser) expr0() Expr { return p.binary(precOr) }

func (p *parser) primary() Expr {
	t := p.next()
	switch t.k {
	case tInt:
		v, err := strconv.Atoi(t.s)
		if err != nil {
			p.failAt(t.pos, "integer %s out of range", t.s)
		}
		return &IntLit{Pos: t.pos, V: v}
	case tReal:
		v, err := strconv.ParseFloat(t.s, 64)
		if err != nil {
			p.failAt(t.pos, "bad number %s", t.s)
		}
		return &RealLit{Pos: t.pos, V: v, c: []float64{v}}
	case tIdent:
		if p.isOp("(") {
			p.next()
			c := &Call{Pos: t.pos, Name: t.s}
			if p.accept(")") {
				return c
			}
			for {
				c.Args = append(c.Args, p.expr())
				if p.accept(")") {
					return c
				}
				if p.isOp("|") && len(c.Args) == 1 {
					p.next()
					c.Cond = true
					if p.accept(")") {
						return c
					}
					continue
				}
				if !p.accept(",") {
					p.expected("',' or ')' in the arguments of " + t.s)
				}
			}
		}
		if _, ok := typeNames[t.s]; ok || reserved[t.s] {
			p.failAt(t.pos, "expected an expression, found the keyword '%s'", t.s)
		}
		return &Ident{Pos: t.pos, Name: t.s}
	case tOp:
		switch t.s {
		case "(":
			e := p.expr()
			p.expect(")")
			return e
		case "{", "[":
			close := "}"
			if t.s == "[" {
				close = "]"
			}
			a := &ArrayLit{Pos: t.pos, Row: t.s == "["}
			a.Elems = p.exprList(close)
			if len(a.Elems) == 0 {
				p.failAt(t.pos, "empty %s…%s literal", t.s, close)
			}
			return a
		}
	}
	p.i--
	p.expected("an expression")
	return nil
}

// functions parses the functions block: definitions
// `type name(type arg, …) { … }` and forward declarations ending in ';'.
func (p *parser) functions(prog *Program) {
	open := p.expect("{")
	for !p.accept("}") {
		if p.peek().k == tEOF {
			p.expected(fmt.Sprintf("'}' closing the functions block opened at %d:%d", open.pos.Line, open.pos.Col))
		}
		f := &FuncDef{Pos: p.peek().pos}
		f.Return = p.funcType("a function's return type")
		n := p.ident("the function's name")
		f.Name, f.Pos = n.s, n.pos
		p.expect("(")
		for !p.accept(")") {
			if len(f.Args) > 0 && !p.accept(",") {
				p.expected("',' or ')' in the function's arguments")
			}
			if p.isIdent("data") {
				p.next()
			}
			p.funcType("an argument's type")
			a := p.ident("the argument's name")
			f.Args = append(f.Args, a.s)
		}
		if p.accept(";") {
			continue // a forward declaration
		}
		if !p.isOp("{") {
			p.expected("'{' or ';' after the function's arguments")
		}
		st := p.stmt(true)
		f.Body = st.(*Block)
		prog.Funcs = append(prog.Funcs, f)
	}
}

// funcType parses an unsized type: void, int, real, vector, row_vector,
// matrix, array[] T, T[] (old syntax), with commas for dimensions.
func (p *parser) funcType(what string) string {
	t := p.ident(what)
	s := t.s
	if s == "array" {
		p.expect("[")
		for p.accept(",") {
		}
		p.expect("]")
		s = "array " + p.funcType(what)
		return s
	}
	switch s {
	case "void", "int", "real", "vector", "row_vector", "matrix":
	case "complex", "complex_vector", "complex_row_vector", "complex_matrix", "tuple":
		p.failAt(t.pos, "type %s is not supported", s)
	default:
		p.failAt(t.pos, "expected %s, found '%s'", what, s)
	}
	if p.isOp("[") && p.peekAt(1).k == tOp && (p.peekAt(1).s == "]" || p.peekAt(1).s == ",") {
		p.next()
		for p.accept(",") {
		}
		p.expect("]")
		s = "array " + s
	}
	return s
}
