package formula

// RowLogLik writes log p(yᵢ | θ) of each row i = rows[j] into dst[j]: the
// family's normalised density, constants included (the −½ log 2π of the
// gaussian, the log binomial coefficient, the −log yᵢ! of the poisson), so
// that Σⱼ dst[j] = LogLik(θ, rows, nil). It is the langevin.RowLogLiker that
// leave-one-out needs: rows are left out one at a time, not groups (a
// group's effects stay in the posterior of each row's own level).
func (m *Model) RowLogLik(dst, theta []float64, rows []int) {
	for j := range rows {
		dst[j] = m.LogLik(theta, rows[j:j+1], nil)
	}
}

// Response returns the model's responses, one per row (the counts as
// numbers for the integer families). It is the model's own slice: do not
// modify it.
func (m *Model) Response() []float64 { return m.y }
