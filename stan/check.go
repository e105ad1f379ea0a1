package stan

import (
	"fmt"
	"strings"
)

// origin is the block a variable is declared in.
type origin uint8

const (
	oData origin = iota
	oTData
	oParam
	oTParam
	oModel
	oGQ
	oLoop
	oFunc
)

type slotInfo struct {
	name string
	decl *Decl
	org  origin
}

// checker resolves the names of a program to slots and refuses what the
// evaluator does not support, with the position and the construct's name.
type checker struct {
	file   string
	scopes []map[string]int
	slots  []slotInfo
	cur    origin
	errs   []error
	rng    Pos // the first _rng call in generated quantities
	hasRng bool
	funcs  map[string]*FuncDef
}

func (c *checker) errorf(p Pos, format string, args ...any) {
	c.errs = append(c.errs, &Error{c.file, p, fmt.Sprintf(format, args...)})
}

func (c *checker) push() { c.scopes = append(c.scopes, map[string]int{}) }
func (c *checker) pop()  { c.scopes = c.scopes[:len(c.scopes)-1] }
func (c *checker) lookup(name string) (int, bool) {
	for k := len(c.scopes) - 1; k >= 0; k-- {
		if s, ok := c.scopes[k][name]; ok {
			return s, true
		}
	}
	return 0, false
}

func (c *checker) declare(p Pos, name string, d *Decl, org origin) int {
	if _, ok := c.lookup(name); ok {
		c.errorf(p, "%s is declared twice", name)
	}
	if strings.HasSuffix(name, "__") {
		c.errorf(p, "%s: names ending in __ are reserved", name)
	}
	s := len(c.slots)
	c.slots = append(c.slots, slotInfo{name: name, decl: d, org: org})
	c.scopes[len(c.scopes)-1][name] = s
	return s
}

// check resolves prog, returning the checker (its slots, whether the
// generated quantities draw random numbers) or the errors (joined).
func check(prog *Program) (*checker, error) {
	c := &checker{file: prog.File, funcs: map[string]*FuncDef{}}
	c.push()
	for _, f := range prog.Funcs { // all names first: recursion, forward declarations
		switch {
		case strings.HasSuffix(f.Name, "_lp"):
			c.errorf(f.Pos, "%s: functions ending in _lp are not supported yet", f.Name)
			continue
		case strings.HasSuffix(f.Name, "_rng"):
			c.errorf(f.Pos, "%s: functions ending in _rng are not supported yet", f.Name)
			continue
		case c.funcs[f.Name] != nil:
			c.errorf(f.Pos, "function %s is defined twice (overloading is not supported)", f.Name)
			continue
		case builtins[f.Name]:
			c.errorf(f.Pos, "function %s has the name of a built-in function", f.Name)
			continue
		}
		c.funcs[f.Name] = f
	}
	for _, f := range prog.Funcs {
		if c.funcs[f.Name] != f {
			continue
		}
		c.cur = oFunc
		c.push()
		f.lo = len(c.slots)
		f.slots = make([]int, len(f.Args))
		for k, a := range f.Args {
			f.slots[k] = c.declare(f.Pos, a, nil, oFunc)
		}
		for _, st := range f.Body.Stmts {
			c.stmt(st, true)
		}
		f.hi = len(c.slots)
		c.pop()
	}
	for _, b := range []struct {
		b *Block
		o origin
	}{{prog.Data, oData}, {prog.TData, oTData}, {prog.Params, oParam}, {prog.TParams, oTParam}, {prog.Model, oModel}, {prog.Generated, oGQ}} {
		if b.b == nil {
			continue
		}
		c.cur = b.o
		if b.o == oModel || b.o == oGQ && false {
			c.push()
		}
		for _, s := range b.b.Stmts {
			c.stmt(s, b.o == oModel)
		}
		if b.o == oModel {
			c.pop()
		}
	}
	if len(c.errs) > 0 {
		return nil, joinErrs(c.errs)
	}
	return c, nil
}

func joinErrs(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	msgs := make([]string, len(errs))
	for k, e := range errs {
		msgs[k] = e.Error()
	}
	return fmt.Errorf("%s", strings.Join(msgs, "\n"))
}

func (c *checker) stmt(s Stmt, local bool) {
	switch s := s.(type) {
	case *Decl:
		for _, e := range s.Dims {
			c.expr(e)
		}
		for _, e := range s.Sizes {
			c.expr(e)
		}
		for _, e := range []Expr{s.Lower, s.Upper, s.Offset, s.Multiplier, s.Init} {
			if e != nil {
				c.expr(e)
			}
		}
		org := c.cur
		if local || len(c.scopes) > 1 {
			org = oModel
			if c.cur == oGQ || c.cur == oTData || c.cur == oTParam || c.cur == oFunc {
				org = c.cur
			}
		}
		if c.cur == oParam {
			switch s.Type {
			case tyInt:
				c.errorf(s.Pos, "parameters cannot be int (%s)", s.Name)
			case tyUnitVector, tyCholCov, tyCorr, tyCov:
				c.errorf(s.Pos, "parameter type %s is not supported yet (%s)", s.TypeName, s.Name)
			}
		}
		if len(c.scopes) > 1 && s.Init == nil && false {
			return
		}
		s.slot = c.declare(s.Pos, s.Name, s, org)
	case *Assign:
		for _, ix := range s.Index {
			c.index(ix)
		}
		c.expr(s.Value)
		slot, ok := c.lookup(s.Name)
		if !ok {
			c.errorf(s.Pos, "assignment to undeclared variable %s", s.Name)
			return
		}
		s.slot = slot
		info := c.slots[slot]
		if info.org == oLoop {
			c.errorf(s.Pos, "cannot assign to the loop variable %s", s.Name)
		} else if info.org != c.cur && !(info.org == oModel && c.cur == oModel) {
			c.errorf(s.Pos, "cannot assign to %s, declared in the %s block, here", s.Name, blockName(info.org))
		}
	case *Tilde:
		if c.cur != oModel {
			c.errorf(s.Pos, "'~' is allowed only in the model block")
		}
		if s.Truncation {
			c.errorf(s.Pos, "truncation T[,] is not supported yet")
		}
		if _, ok := dists[s.Dist]; !ok && c.userDist(s.Dist) == nil {
			c.errorf(s.Pos, "distribution %s is not supported", s.Dist)
		}
		c.expr(s.X)
		for _, a := range s.Args {
			c.expr(a)
		}
	case *TargetPlus:
		if c.cur != oModel {
			c.errorf(s.Pos, "'target +=' is allowed only in the model block")
		}
		c.expr(s.E)
	case *For:
		c.expr(s.Lo)
		if s.Hi != nil {
			c.expr(s.Hi)
		}
		c.push()
		s.slot = c.declare(s.Pos, s.Var, nil, oLoop)
		c.stmt(s.Body, true)
		c.pop()
	case *While:
		c.expr(s.Cond)
		c.stmt(s.Body, true)
	case *If:
		c.expr(s.Cond)
		c.push()
		c.stmt(s.Then, true)
		c.pop()
		if s.Else != nil {
			c.push()
			c.stmt(s.Else, true)
			c.pop()
		}
	case *Block:
		c.push()
		for _, t := range s.Stmts {
			c.stmt(t, true)
		}
		c.pop()
	case *Print:
		for _, a := range s.Args {
			if _, ok := a.(*StrLit); !ok {
				c.expr(a)
			}
		}
	case *Return:
		if c.cur != oFunc {
			c.errorf(s.Pos, "'return' outside a function")
		}
		if s.E != nil {
			c.expr(s.E)
		}
	case *Jump:
	}
}

func blockName(o origin) string {
	return [...]string{"data", "transformed data", "parameters", "transformed parameters", "model", "generated quantities", "loop"}[o]
}

func (c *checker) index(ix Index) {
	for _, e := range []Expr{ix.E, ix.Lo, ix.Hi} {
		if e != nil {
			c.expr(e)
		}
	}
}

func (c *checker) expr(e Expr) {
	switch e := e.(type) {
	case *Ident:
		slot, ok := c.lookup(e.Name)
		if !ok {
			if c.funcs[e.Name] != nil {
				c.errorf(e.Pos, "the function %s passed as an argument (ODE solvers, higher-order functions) is not supported", e.Name)
				return
			}
			c.errorf(e.Pos, "undeclared identifier %s", e.Name)
			return
		}
		e.slot = slot
		info := c.slots[slot]
		if (info.org == oParam || info.org == oTParam) && (c.cur == oData || c.cur == oTData) {
			c.errorf(e.Pos, "%s (a parameter) used in the %s block", e.Name, blockName(c.cur))
		}
	case *Unary:
		c.expr(e.X)
	case *Binary:
		c.expr(e.L)
		c.expr(e.R)
	case *Cond:
		c.expr(e.C)
		c.expr(e.A)
		c.expr(e.B)
	case *IndexExpr:
		c.expr(e.X)
		for _, ix := range e.Idx {
			c.index(ix)
		}
	case *Call:
		for _, a := range e.Args {
			c.expr(a)
		}
		c.call(e)
	case *ArrayLit:
		for _, a := range e.Elems {
			c.expr(a)
		}
	}
}

// userDist returns the user-defined density dist_lpdf or dist_lpmf, nil
// if there is none.
func (c *checker) userDist(dist string) *FuncDef {
	if f := c.funcs[dist+"_lpdf"]; f != nil {
		return f
	}
	return c.funcs[dist+"_lpmf"]
}

func (c *checker) call(e *Call) {
	name := e.Name
	if f := c.funcs[name]; f != nil {
		e.fn = f
		if len(e.Args) != len(f.Args) {
			c.errorf(e.Pos, "%s takes %d arguments, found %d", name, len(f.Args), len(e.Args))
		}
		return
	}
	if dist, _, ok := isDensity(name); ok {
		if f := c.userDist(dist); f != nil {
			e.fn = f
			if len(e.Args) != len(f.Args) {
				c.errorf(e.Pos, "%s takes %d arguments, found %d", name, len(f.Args), len(e.Args))
			}
			return
		}
	}
	if strings.HasSuffix(name, "_rng") {
		if c.cur != oGQ && c.cur != oTData {
			c.errorf(e.Pos, "%s: random numbers are allowed only in generated quantities and transformed data", name)
		} else if rngs[strings.TrimSuffix(name, "_rng")] == 0 {
			if !c.hasRng {
				c.hasRng, c.rng = true, e.Pos
			}
		}
		return
	}
	if dist, _, ok := isDensity(name); ok {
		if _, ok := dists[dist]; !ok {
			c.errorf(e.Pos, "distribution %s is not supported (in %s)", dist, name)
		}
		return
	}
	for _, s := range []string{"_lcdf", "_lccdf", "_cdf"} {
		if strings.HasSuffix(name, s) {
			if cdfs[strings.TrimSuffix(name, s)] == nil || s == "_cdf" {
				c.errorf(e.Pos, "%s: cumulative distribution functions are not supported yet (only normal, student_t, cauchy, exponential, gamma's _lcdf and _lccdf of data)", name)
			}
			return
		}
	}
	if strings.HasSuffix(name, "_lp") {
		c.errorf(e.Pos, "%s: functions ending in _lp are not supported", name)
		return
	}
	if !builtins[name] {
		c.errorf(e.Pos, "function %s is not supported", name)
	}
}
