package langevin

// RowTerms says which per-observation term RowGrads returns: the plain
// gradient (the zero value), its difference from the gradient at a
// control variate's centre, or the remainder of a second-order expansion —
// the terms whose (N/|B|)-scaled batch sum is the Estimator's.
type RowTerms struct {
	// Centre θ̂, when not nil (and Taylor is nil), makes the term
	// ∇log p(zᵢ|θ) − ∇log p(zᵢ|θ̂) (SetControlVariate).
	Centre []float64
	// Taylor, when not nil, makes the term ∇log p(zᵢ|θ) − ∇qᵢ(θ), the
	// remainder of the expansion (SetTaylorControlVariate).
	Taylor Taylor
}

// RowTerms returns the terms of the estimator's batch sum: those of its
// control variate (first or second order), or the plain gradients.
func (e *Estimator) RowTerms() RowTerms {
	return RowTerms{Centre: e.ControlVariate(), Taylor: e.taylor}
}

// RowGrads is the module's one per-row gradient loop: for k = 0, 1, …,
// len(rows)−1 it overwrites g with the term of observation i = rows[k] at
// theta,
//
//	gᵢ = ∇log p(zᵢ|θ)                       (zero RowTerms),
//	gᵢ = ∇log p(zᵢ|θ) − ∇log p(zᵢ|θ̂)          (t.Centre = θ̂),
//	gᵢ = ∇log p(zᵢ|θ) − ∇qᵢ(θ)               (t.Taylor: Taylor.Rest),
//
// each from a one-row batch of the model (the difference subtracted
// coordinate by coordinate from two gradients accumulated from zero), and
// calls fn(k, g); it stops at, and returns, the first error fn returns.
// These are the per-observation gradients behind the empirical Fisher
// information, the minibatch gradient's covariance and SGLD's noise
// statistic. g, and g0 when t.Centre is set, are the caller's scratch of
// length Dim (g0 may be nil otherwise); fn may keep neither. RowGrads
// allocates nothing when fn does not escape.
func RowGrads(m Model, theta []float64, rows []int, t RowTerms, g, g0 []float64, fn func(k int, g []float64) error) error {
	for k := range rows {
		one := rows[k : k+1]
		clear(g)
		switch {
		case t.Taylor != nil:
			t.Taylor.Rest(theta, one, g)
		case t.Centre != nil:
			m.LogLik(theta, one, g)
			clear(g0)
			m.LogLik(t.Centre, one, g0)
			for j := range g {
				g[j] -= g0[j]
			}
		default:
			m.LogLik(theta, one, g)
		}
		if err := fn(k, g); err != nil {
			return err
		}
	}
	return nil
}
