package stan

import (
	"fmt"
	"strings"
)

// Row separation: with NewRows(prog, data, "N") every variable of the data
// and transformed data blocks whose first dimension is written N is a row
// column, and the model block's target splits into
//
//	log p(θ | D) = prior(θ) + Σᵢ rowᵢ(θ),  i = 1 … N,
//
// where prior(θ) is the statements that read no row column and rowᵢ the
// statements that do, each read row by row: a vectorised statement whose
// row columns enter element by element (y ~ bernoulli_logit(X * beta),
// target += normal_lpdf(y | alpha + beta * x, sigma)), or a loop
// for (n in 1:N) whose body reads row n only. LogPrior is prior(θ) and the
// log Jacobians; LogLik(θ, B) is Σ_{i∈B} rowᵢ(θ), evaluated by running the
// row statements on the rows B gathered into columns of |B| rows (N there
// reads |B| where it sizes a row-wise local or bounds the loop over the
// rows), so a vectorised statement stays one vector operation. Anything
// else that reads a row column is refused with its position: a sum over
// the rows used other than added to the target, rows indexed other than by
// the loop over the rows, a row column in the transformed parameters, a
// parameter with one value per row.

// Kinds of an expression with respect to the rows.
const (
	kConst = iota // reads no row
	kRow          // a container over the rows, element i reading row i only
	kElem         // inside the loop over the rows: reads row n only
	kSum          // a scalar Σᵢ fᵢ over the rows
	kBad
)

// Flags of a model-block statement.
const (
	fRow     uint8 = 1 << iota // contributes row terms (or holds row-wise values)
	fPrior                     // contributes prior terms
	fRowLoop                   // the loop over the rows
)

// rowPlan is the row structure of a program.
type rowPlan struct {
	name  string
	nSlot int            // the row count's slot
	cols  []int          // the row columns' slots
	flags map[Stmt]uint8 // model-block statements (absent: neither flag)
	note  string         // what the run should know (generated quantities over all rows)
}

// rowDists are the distributions whose vectorised density is a sum of one
// term per element (so, of rows).
var rowDists = map[string]bool{
	"normal": true, "std_normal": true, "student_t": true, "cauchy": true, "exponential": true, "gamma": true,
	"inv_gamma": true, "lognormal": true, "beta": true, "uniform": true, "double_exponential": true,
	"logistic": true, "weibull": true, "bernoulli": true, "bernoulli_logit": true, "binomial": true,
	"binomial_logit": true, "poisson": true, "poisson_log": true, "neg_binomial_2": true,
	"neg_binomial_2_log": true, "bernoulli_logit_glm": true, "poisson_log_glm": true,
	"normal_id_glm": true, "neg_binomial_2_log_glm": true,
}

// rowElementwise are the functions applied element by element.
var rowElementwise = map[string]bool{
	"exp": true, "log": true, "log1p": true, "log1m": true, "expm1": true, "inv_logit": true,
	"logit": true, "log_inv_logit": true, "log1m_inv_logit": true, "square": true, "sqrt": true,
	"fabs": true, "abs": true, "Phi": true, "Phi_approx": true, "inv": true, "inv_sqrt": true,
	"inv_square": true, "log1p_exp": true, "log1m_exp": true, "lgamma": true, "tanh": true,
	"sin": true, "cos": true, "pow": true, "fmin": true, "fmax": true, "softplus": true,
}

// rowChecker classifies the model block's statements.
type rowChecker struct {
	p      *rowPlan
	file   string
	slots  []slotInfo
	row    map[int]bool // slots holding row-wise containers (row columns, row-wise locals)
	elem   map[int]bool // locals declared inside the loop over the rows
	loop   int          // the slot of the loop over the rows' variable, -1 outside it
	why    string
	at     Pos
	inLoop bool
}

func (c *rowChecker) bad(p Pos, format string, args ...any) int {
	if c.why == "" {
		c.why, c.at = fmt.Sprintf(format, args...), p
	}
	return kBad
}

// planRows finds the row columns of prog for the row count name and
// checks that the model block separates into prior and row terms.
func planRows(prog *Program, slots []slotInfo, name string) (*rowPlan, error) {
	p := &rowPlan{name: name, nSlot: -1, flags: map[Stmt]uint8{}}
	errf := func(pos Pos, format string, args ...any) error {
		return &Error{File: prog.File, Pos: pos, Msg: fmt.Sprintf(format, args...)}
	}
	if prog.Data != nil {
		for _, s := range prog.Data.Stmts {
			if d := s.(*Decl); d.Name == name {
				if d.Type != tyInt || len(d.Dims) > 0 {
					return nil, errf(d.Pos, "--rows %s: %s must be an int in the data block, the number of rows", name, name)
				}
				p.nSlot = d.slot
			}
		}
	}
	if p.nSlot < 0 {
		return nil, &Error{File: prog.File, Msg: fmt.Sprintf("--rows %s: the data block declares no int %s (the number of rows)", name, name)}
	}
	c := &rowChecker{p: p, file: prog.File, slots: slots, row: map[int]bool{}, elem: map[int]bool{}, loop: -1}
	for _, b := range []*Block{prog.Data, prog.TData} {
		if b == nil {
			continue
		}
		for _, s := range b.Stmts {
			if d, ok := s.(*Decl); ok && c.firstIsN(d) {
				p.cols = append(p.cols, d.slot)
				c.row[d.slot] = true
			}
		}
	}
	if len(p.cols) == 0 {
		return nil, &Error{File: prog.File, Msg: fmt.Sprintf("--rows %s: no variable of the data block has first dimension %s: there are no rows to subsample", name, name)}
	}
	for _, b := range []*Block{prog.Params, prog.TParams} {
		if b == nil {
			continue
		}
		for _, s := range b.Stmts {
			if d, ok := s.(*Decl); ok && c.firstIsN(d) {
				return nil, errf(d.Pos, "--rows %s: %s has one value per row (first dimension %s): a parameter per row cannot be subsampled", name, d.Name, name)
			}
		}
		if b == prog.TParams {
			for _, s := range b.Stmts {
				if c.reads(s) {
					return nil, errf(s.pos(), "--rows %s: the transformed parameters read a row column here: compute per-row values in the model block", name)
				}
			}
		}
	}
	if prog.Generated != nil {
		for _, s := range prog.Generated.Stmts {
			if c.reads(s) {
				p.note = fmt.Sprintf("%s:%d:%d: the generated quantities read the row columns: each draw's are computed on all %s rows", prog.File, s.pos().Line, s.pos().Col, name)
				break
			}
		}
	}
	if prog.Model != nil {
		for _, s := range prog.Model.Stmts {
			c.stmt(s)
			if c.why != "" {
				return nil, errf(s.pos(), "--rows %s: this statement is not a sum of one term per row: %s (at line %d, column %d)", name, c.why, c.at.Line, c.at.Col)
			}
		}
	}
	return p, nil
}

// firstIsN reports whether d's first dimension is written as the row
// count.
func (c *rowChecker) firstIsN(d *Decl) bool {
	var e Expr
	switch {
	case len(d.Dims) > 0:
		e = d.Dims[0]
	case len(d.Sizes) > 0:
		e = d.Sizes[0]
	}
	id, ok := e.(*Ident)
	return ok && id.slot == c.p.nSlot
}

// reads reports whether s reads a row column (anywhere).
func (c *rowChecker) reads(s Stmt) bool {
	found := false
	walkExprs(s, func(e Expr) {
		if id, ok := e.(*Ident); ok && c.row[id.slot] {
			found = true
		}
	})
	return found
}

// stmt classifies s (a statement of the model block) and records its
// flags; a refusal is left in c.why.
func (c *rowChecker) stmt(s Stmt) uint8 {
	var f uint8
	switch s := s.(type) {
	case *Decl:
		for _, e := range s.Dims {
			c.sizeExpr(e)
		}
		for _, e := range s.Sizes {
			c.sizeExpr(e)
		}
		for _, e := range []Expr{s.Lower, s.Upper, s.Offset, s.Multiplier} {
			if e != nil && c.expr(e) != kConst {
				c.bad(e.pos(), "a bound of %s reads the rows", s.Name)
			}
		}
		if c.firstIsN(s) {
			if c.inLoop {
				c.bad(s.Pos, "%s has one value per row but is declared inside the loop over the rows", s.Name)
				return 0
			}
			c.markN(s)
			c.row[s.slot] = true
			if s.Init != nil {
				if k := c.expr(s.Init); k != kRow && k != kBad {
					c.bad(s.Init.pos(), "%s has one value per row but is not given row-wise values", s.Name)
				}
			}
			f = fRow
			break
		}
		if s.Init == nil {
			if c.inLoop {
				c.elem[s.slot] = true
				f = fRow
			}
			break
		}
		switch k := c.expr(s.Init); k {
		case kConst:
			if c.inLoop {
				c.elem[s.slot] = true
				f = fRow
			}
		case kElem:
			c.elem[s.slot] = true
			f = fRow
		case kRow:
			c.bad(s.Pos, "%s holds row-wise values but its first dimension is not written %s", s.Name, c.p.name)
		case kSum:
			c.bad(s.Pos, "%s holds a sum over the rows: add it to the target directly", s.Name)
		}
	case *Assign:
		k := c.expr(s.Value)
		ki := kConst
		for j, ix := range s.Index {
			if j == 0 && c.row[s.slot] {
				id, ok := ix.E.(*Ident)
				if ix.Range || !ok || id.slot != c.loop {
					c.bad(ix.Pos, "the rows of %s are assigned other than by the loop over the rows", s.Name)
				}
				ki = kElem
				continue
			}
			ki = combine(ki, c.index(ix))
		}
		switch {
		case c.row[s.slot] && len(s.Index) == 0:
			if c.inLoop {
				c.bad(s.Pos, "%s, with one value per row, is assigned whole inside the loop over the rows", s.Name)
			}
			if k != kRow && k != kBad {
				c.bad(s.Pos, "%s has one value per row but is given a value that is not row-wise", s.Name)
			}
			f = fRow
		case c.row[s.slot] || c.elem[s.slot]:
			if k != kConst && k != kElem {
				c.bad(s.Pos, "row n of %s is given a value that reads other rows", s.Name)
			}
			f = fRow
		case k != kConst || ki != kConst || c.inLoop:
			c.bad(s.Pos, "%s, declared outside the loop over the rows, is assigned there or from the rows: declare it inside the loop", s.Name)
		}
	case *Tilde:
		k := c.expr(s.X)
		for _, a := range s.Args {
			k = combineDist(c, s.Pos, s.Dist, k, c.expr(a))
		}
		if k == kRow {
			if !rowDists[s.Dist] {
				c.bad(s.Pos, "%s of row-wise values is not a sum of one term per row", s.Dist)
			}
			k = kSum
		}
		f = c.term(s.Pos, k)
	case *TargetPlus:
		k := c.expr(s.E)
		if k == kRow {
			k = kSum
		}
		f = c.term(s.Pos, k)
	case *For:
		if s.Hi != nil {
			lo, isLit := s.Lo.(*IntLit)
			hi, isN := s.Hi.(*Ident)
			if isLit && lo.V == 1 && isN && hi.slot == c.p.nSlot && !c.inLoop {
				hi.rowCount = true
				c.inLoop, c.loop = true, s.slot
				c.stmt(s.Body)
				c.inLoop, c.loop = false, -1
				return c.flag(s, fRow|fRowLoop)
			}
			for _, e := range []Expr{s.Lo, s.Hi} {
				if k := c.expr(e); k != kConst && k != kElem {
					c.bad(e.pos(), "a loop bound reads the rows")
				}
			}
		} else if k := c.expr(s.Lo); k != kConst && k != kElem {
			c.bad(s.Lo.pos(), "a loop over a row column: loop for (n in 1:%s) instead", c.p.name)
		}
		f = c.stmt(s.Body)
	case *While:
		if k := c.expr(s.Cond); k != kConst && k != kElem {
			c.bad(s.Cond.pos(), "a condition reads the rows")
		}
		f = c.stmt(s.Body)
	case *If:
		if k := c.expr(s.Cond); k != kConst && k != kElem {
			c.bad(s.Cond.pos(), "a condition reads the rows")
		}
		f = c.stmt(s.Then)
		if s.Else != nil {
			f |= c.stmt(s.Else)
		}
	case *Block:
		for _, t := range s.Stmts {
			f |= c.stmt(t)
		}
	case *Print:
		if !s.Reject { // print is ignored
			break
		}
		for _, a := range s.Args {
			if _, ok := a.(*StrLit); ok {
				continue
			}
			if k := c.expr(a); k != kConst && k != kElem {
				c.bad(a.pos(), "reject of row-wise values outside the loop over the rows")
			}
		}
		if c.inLoop {
			f = fRow
		}
	case *Jump:
		if c.inLoop && s.Break {
			c.bad(s.Pos, "break in the loop over the rows (the rows after it would not count)")
		}
	}
	return c.flag(s, f)
}

// body classifies a loop's or branch's body.
func (c *rowChecker) body(s Stmt) uint8 { return c.stmt(s) }

// term is the flag of a statement adding k to the target.
func (c *rowChecker) term(p Pos, k int) uint8 {
	switch {
	case k == kBad:
		return 0
	case c.inLoop:
		if k != kConst && k != kElem {
			c.bad(p, "inside the loop over the rows, a term reads rows other than row n")
		}
		return fRow
	case k == kConst:
		return fPrior
	case k == kSum:
		return fRow
	}
	c.bad(p, "a term reads a row inside the loop over the rows only")
	return 0
}

func (c *rowChecker) flag(s Stmt, f uint8) uint8 {
	if f != 0 {
		c.p.flags[s] = f
	}
	return f
}

// markN marks the row count in d's first size: it reads |B| on a batch.
func (c *rowChecker) markN(d *Decl) {
	e := d.Dims
	if len(e) == 0 {
		e = d.Sizes
	}
	e[0].(*Ident).rowCount = true
}

// sizeExpr checks a size: it may not read the rows.
func (c *rowChecker) sizeExpr(e Expr) {
	if id, ok := e.(*Ident); ok && id.slot == c.p.nSlot {
		return
	}
	if k := c.expr(e); k != kConst && k != kElem {
		c.bad(e.pos(), "a size reads the rows")
	}
}

func combine(a, b int) int {
	switch {
	case a == kBad || b == kBad:
		return kBad
	case a == kConst:
		return b
	case b == kConst || a == b:
		return a
	}
	return kBad
}

// combineDist combines the kinds of a distribution's arguments.
func combineDist(c *rowChecker, p Pos, dist string, a, b int) int {
	k := combine(a, b)
	if k == kBad && a != kBad && b != kBad {
		return c.bad(p, "%s mixes row-wise values with values of one row or sums over the rows", dist)
	}
	if k == kSum {
		return c.bad(p, "a sum over the rows as an argument of %s", dist)
	}
	if k == kRow && !rowDists[dist] {
		return c.bad(p, "%s of row-wise values is not a sum of one term per row", dist)
	}
	return k
}

// index classifies one index of a value that is not a row container.
func (c *rowChecker) index(ix Index) int {
	k := kConst
	for _, e := range []Expr{ix.E, ix.Lo, ix.Hi} {
		if e != nil {
			k = combine(k, c.expr(e))
		}
	}
	if k == kSum || k == kRow && (ix.Range || ix.E == nil) {
		return c.bad(ix.Pos, "an index reads the rows")
	}
	return k
}

// expr classifies e.
func (c *rowChecker) expr(e Expr) int {
	switch e := e.(type) {
	case *IntLit, *RealLit, *StrLit:
		return kConst
	case *Ident:
		switch {
		case c.row[e.slot]:
			return kRow
		case c.inLoop && e.slot == c.loop:
			return c.bad(e.Pos, "the row index %s is used other than as the first index of a row column", e.Name)
		case c.elem[e.slot]:
			return kElem
		}
		return kConst
	case *Unary:
		k := c.expr(e.X)
		if e.Op == "'" && k == kRow {
			return c.bad(e.Pos, "the transpose of row-wise values")
		}
		if e.Op == "!" && k == kSum {
			return c.bad(e.Pos, "'!' of a sum over the rows")
		}
		return k
	case *Binary:
		l, r := c.expr(e.L), c.expr(e.R)
		if l == kBad || r == kBad {
			return kBad
		}
		if l == kSum || r == kSum {
			switch {
			case (e.Op == "+" || e.Op == "-") && l == kSum && r == kSum:
				return kSum
			case e.Op == "*" && (l == kConst || r == kConst), e.Op == "/" && r == kConst:
				return kSum
			}
			return c.bad(e.Pos, "a sum over the rows used in '%s' other than added to the target", e.Op)
		}
		if l == kRow || r == kRow {
			if l != kConst && r != kConst && l != r {
				return c.bad(e.Pos, "'%s' of row-wise values and values of row n", e.Op)
			}
			switch e.Op {
			case "+", "-", ".*", "./", ".^", "^":
				return kRow
			case "*":
				if r == kConst && l == kRow || l == kConst && c.scalar(e.L) {
					return kRow
				}
			case "/":
				if r == kConst || c.scalar(e.L) {
					return kRow
				}
			}
			return c.bad(e.Pos, "'%s' mixes the rows", e.Op)
		}
		return combine(l, r)
	case *Cond:
		if k := c.expr(e.C); k != kConst && k != kElem {
			return c.bad(e.Pos, "a condition reads the rows")
		}
		a, b := c.expr(e.A), c.expr(e.B)
		if (a == kSum) != (b == kSum) && a != kBad && b != kBad {
			return c.bad(e.Pos, "a sum over the rows in one branch of a conditional only")
		}
		return combine(a, b)
	case *IndexExpr:
		if id, ok := e.X.(*Ident); ok && c.row[id.slot] && len(e.Idx) > 0 {
			first := e.Idx[0]
			k := kBad
			switch {
			case first.Range && first.Lo == nil && first.Hi == nil:
				k = kRow
			case !first.Range:
				if v, ok := first.E.(*Ident); ok && c.inLoop && v.slot == c.loop {
					k = kElem
				}
			}
			if k == kBad {
				return c.bad(first.Pos, "the rows of %s are indexed other than by the loop for (n in 1:%s)", id.Name, c.p.name)
			}
			for _, ix := range e.Idx[1:] {
				if ki := c.index(ix); ki != kConst && !(ki == kElem && k == kElem) {
					return c.bad(ix.Pos, "an index of %s reads the rows", id.Name)
				}
			}
			return k
		}
		k := c.expr(e.X)
		if k == kRow {
			return c.bad(e.Pos, "row-wise values are indexed")
		}
		if k == kSum {
			return c.bad(e.Pos, "a sum over the rows is indexed")
		}
		for _, ix := range e.Idx {
			ki := kConst
			for _, x := range []Expr{ix.E, ix.Lo, ix.Hi} {
				if x != nil {
					ki = combine(ki, c.expr(x))
				}
			}
			switch {
			case ki == kRow && !ix.Range && len(e.Idx) == 1 && k == kConst:
				k = kRow // alpha[group]: a multi-index by a row column
			case ki == kRow || ki == kSum:
				return c.bad(ix.Pos, "an index reads the rows")
			default:
				k = combine(k, ki)
			}
		}
		return k
	case *Call:
		ks := make([]int, len(e.Args))
		any := kConst
		for j, a := range e.Args {
			ks[j] = c.expr(a)
			if ks[j] == kBad {
				return kBad
			}
			if ks[j] != kConst {
				any = ks[j]
			}
		}
		mixed := false
		for _, k := range ks {
			if k != kConst && k != any {
				mixed = true
			}
		}
		name := e.Name
		if name == "target" || name == "get_lp" {
			return c.bad(e.Pos, "%s() reads the whole target", name)
		}
		if any == kConst {
			return kConst
		}
		if any == kSum || mixed {
			return c.bad(e.Pos, "%s of a sum over the rows, or of row-wise values mixed with others", name)
		}
		if any == kElem {
			return kElem
		}
		// row-wise arguments
		for _, suf := range []string{"_lpdf", "_lpmf", "_lupdf", "_lupmf"} {
			if base, ok := strings.CutSuffix(name, suf); ok {
				if !rowDists[base] || e.fn != nil {
					return c.bad(e.Pos, "%s of row-wise values is not a sum of one term per row", name)
				}
				return kSum
			}
		}
		switch {
		case e.fn != nil:
			return c.bad(e.Pos, "the user-defined function %s of row-wise values (call it for row n inside the loop over the rows)", name)
		case name == "sum" && len(e.Args) == 1:
			return kSum
		case rowElementwise[name]:
			return kRow
		case (name == "to_vector" || name == "to_row_vector" || name == "to_array_1d") && len(e.Args) == 1 && c.oneDim(e.Args[0]):
			return kRow
		}
		return c.bad(e.Pos, "%s of row-wise values mixes the rows", name)
	case *ArrayLit:
		k := kConst
		for _, x := range e.Elems {
			k = combine(k, c.expr(x))
		}
		if k == kRow || k == kSum {
			return c.bad(e.Pos, "row-wise values in an array or vector literal")
		}
		return k
	}
	return kConst
}

// scalar reports whether e is certainly a scalar: a literal, or a
// variable declared as an int or real (not an array), or arithmetic of
// them.
func (c *rowChecker) scalar(e Expr) bool {
	switch e := e.(type) {
	case *IntLit, *RealLit:
		return true
	case *Ident:
		d := c.slots[e.slot].decl
		if d == nil {
			return c.slots[e.slot].org == oLoop
		}
		return (d.Type == tyInt || d.Type == tyReal) && len(d.Dims) == 0
	case *Unary:
		return e.Op == "-" && c.scalar(e.X)
	case *Binary:
		return c.scalar(e.L) && c.scalar(e.R)
	case *IndexExpr:
		id, ok := e.X.(*Ident)
		if !ok || c.slots[id.slot].decl == nil {
			return false
		}
		d := c.slots[id.slot].decl
		n := len(d.Dims)
		switch d.Type {
		case tyInt, tyReal:
		case tyMatrix, tyCholCorr, tyCholCov, tyCorr, tyCov:
			n += 2
		default:
			n++
		}
		if len(e.Idx) != n {
			return false
		}
		for _, ix := range e.Idx {
			if ix.Range {
				return false
			}
			if _, isId := ix.E.(*Ident); !isId {
				if _, isLit := ix.E.(*IntLit); !isLit {
					return false
				}
			}
		}
		return true
	}
	return false
}

// oneDim reports whether e is a row column of one dimension: a vector,
// row vector or array of scalars.
func (c *rowChecker) oneDim(e Expr) bool {
	id, ok := e.(*Ident)
	if !ok || c.slots[id.slot].decl == nil {
		return false
	}
	d := c.slots[id.slot].decl
	switch d.Type {
	case tyInt, tyReal:
		return len(d.Dims) == 1
	case tyVector, tyRowVector:
		return len(d.Dims) == 0
	}
	return false
}

// walkExprs calls f on every expression of s (statements and expressions,
// recursively).
func walkExprs(s Stmt, f func(Expr)) {
	var ex func(e Expr)
	ix := func(i Index) {
		for _, e := range []Expr{i.E, i.Lo, i.Hi} {
			if e != nil {
				ex(e)
			}
		}
	}
	ex = func(e Expr) {
		f(e)
		switch e := e.(type) {
		case *Unary:
			ex(e.X)
		case *Binary:
			ex(e.L)
			ex(e.R)
		case *Cond:
			ex(e.C)
			ex(e.A)
			ex(e.B)
		case *IndexExpr:
			ex(e.X)
			for _, i := range e.Idx {
				ix(i)
			}
		case *Call:
			for _, a := range e.Args {
				ex(a)
			}
		case *ArrayLit:
			for _, a := range e.Elems {
				ex(a)
			}
		}
	}
	var st func(s Stmt)
	st = func(s Stmt) {
		switch s := s.(type) {
		case *Decl:
			for _, e := range append(append(append([]Expr(nil), s.Dims...), s.Sizes...), s.Lower, s.Upper, s.Offset, s.Multiplier, s.Init) {
				if e != nil {
					ex(e)
				}
			}
		case *Assign:
			for _, i := range s.Index {
				ix(i)
			}
			ex(s.Value)
		case *Tilde:
			ex(s.X)
			for _, a := range s.Args {
				ex(a)
			}
		case *TargetPlus:
			ex(s.E)
		case *For:
			ex(s.Lo)
			if s.Hi != nil {
				ex(s.Hi)
			}
			st(s.Body)
		case *While:
			ex(s.Cond)
			st(s.Body)
		case *If:
			ex(s.Cond)
			st(s.Then)
			if s.Else != nil {
				st(s.Else)
			}
		case *Block:
			for _, t := range s.Stmts {
				st(t)
			}
		case *Print:
			for _, a := range s.Args {
				ex(a)
			}
		case *Return:
			if s.E != nil {
				ex(s.E)
			}
		}
	}
	st(s)
}
