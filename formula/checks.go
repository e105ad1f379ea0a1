package formula

import (
	"fmt"
	"math"
)

// responseAmongPredictors refuses a formula whose response's columns
// appear among its predictors (y ~ y, log(y) ~ y + x, y ~ x + (1 + y | g)):
// the model would predict y from itself, and its posterior runs off (σ → 0,
// coefficients to 10²² on separable data) with every diagnostic quiet.
func (f *Formula) responseAmongPredictors() error {
	resp := map[string]bool{}
	var walk func(e *Expr, visit func(*Expr) error) error
	walk = func(e *Expr, visit func(*Expr) error) error {
		if e.Op == "col" {
			if err := visit(e); err != nil {
				return err
			}
		}
		for _, a := range e.Args {
			if err := walk(a, visit); err != nil {
				return err
			}
		}
		return nil
	}
	walk(f.Response, func(e *Expr) error { resp[e.Name] = true; return nil })
	check := func(e *Expr) error {
		if resp[e.Name] {
			return &SyntaxError{e.Pos, fmt.Sprintf("the response's column %s is also a predictor (%s): a model of y given y; leave it out of the right-hand side", e.Name, f.Response.Text)}
		}
		return nil
	}
	terms := func(ts []Term) error {
		for _, t := range ts {
			for _, x := range t.Factors {
				if err := walk(x, check); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := terms(f.Terms); err != nil {
		return err
	}
	for _, o := range f.Offsets {
		if err := walk(o, check); err != nil {
			return err
		}
	}
	for _, g := range f.Groups {
		if err := terms(g.Terms); err != nil {
			return err
		}
		for _, c := range g.Factor {
			if resp[c] {
				return &SyntaxError{g.Pos, fmt.Sprintf("the response's column %s is also the grouping factor of (… | %s): a model of y given y; leave it out of the right-hand side", c, g.Name())}
			}
		}
	}
	return nil
}

// separated returns the first population-level column that separates the
// two outcomes of a bernoulli or probit response, completely or
// quasi-completely: every row with y = 1 has a value at least (or at most)
// every row with y = 0 has, the column not being constant — a level of a
// factor whose rows are all one outcome, or a threshold. The likelihood
// then keeps growing as that coefficient goes to ±∞, so under the flat
// prior on b the posterior is improper (the draws drift without bound).
// Separation by a combination of columns is not detected here. "" when
// there is none.
func (m *Model) separated(names []string, cols [][]float64) string {
	if m.Family != "bernoulli" && m.Family != "probit" {
		return ""
	}
	for j, c := range cols {
		lo := [2]float64{math.Inf(1), math.Inf(1)}
		hi := [2]float64{math.Inf(-1), math.Inf(-1)}
		for i, v := range c {
			k := 0
			if m.y[i] == 1 {
				k = 1
			}
			lo[k], hi[k] = min(lo[k], v), max(hi[k], v)
		}
		if math.IsInf(lo[0], 1) || math.IsInf(lo[1], 1) { // one outcome only
			return ""
		}
		if min(lo[0], lo[1]) == max(hi[0], hi[1]) { // constant
			continue
		}
		if hi[0] <= lo[1] || hi[1] <= lo[0] {
			return names[j]
		}
	}
	return ""
}

// Warnings returns what the model's data make of its posterior that a
// reader must know (a predictor that separates the outcomes under a proper
// prior on b), one line each.
func (m *Model) Warnings() []string { return m.warnings }
