package formula

import (
	"math"

	"github.com/langevin-go/langevin/ad"
)

// collapsed is a gaussian model's likelihood on all rows reduced to its
// sufficient statistics, as pseudo-rows. Given σ the log-likelihood is
// quadratic in the linear predictor's coefficients: with one group term,
// the rows of level j have η_i = u_iᵀ w_j, u_i = (x_i, 1, z_i) (the
// centred, scaled population design, the intercept's column, the group
// design) and w_j = (β, α, r_j), and
//
//	Σ_{i∈j} (y_i − o_i − u_iᵀ w_j)² = ‖R_j w_j − c_j‖² + e_j,
//
// where U_j = Q_j R_j (R_j upper triangular, q×q, q = P + 1 + K) and
// (c_j, ·) = Q_jᵀ (y − o): R_j, c_j and the residual sum e_j are built
// row by row by Givens rotations in one O(N·q²) pass and q² + q + 1
// numbers a level. The rows of R_j are then pseudo-rows of the same model
// — population design R_j[:, :P], intercept column R_j[:, P], group design
// R_j[:, P+1:], level j, response c_j — and the log-likelihood of all N
// rows is the gaussian density of the M ≤ J·q pseudo-rows plus
// −(N − M)(log σ + ½ log 2π) − Σ_j e_j/(2σ²): exact, and each full-data
// evaluation costs O(J·q²) whatever N. A minibatch (NUTS never takes one;
// SG-MCMC does) still reads the rows themselves.
//
// Only the gaussian family with at most one group term collapses this way:
// the student family is not quadratic, and crossed group terms share rows
// between levels (their effects would need one block of all levels).
type collapsed struct {
	x     *ad.Matrix // M×P pseudo population design
	one   []float64  // M: the intercept's column
	z     *ad.Matrix // M×K pseudo group design (nil: no group term)
	codes []int      // M: the level of each pseudo-row
	y     []float64  // M: pseudo responses c_j
	rest  float64    // N − M: rows beyond the pseudo-rows
	rss   float64    // Σ_j e_j
	zeros []float64  // M zeros: η of a model with neither b nor an intercept
}

// collapsible reports whether the model's full-data likelihood collapses
// to sufficient statistics (collapsed).
func (m *Model) collapsible() bool {
	return m.Family == "gaussian" && len(m.groups) <= 1
}

// collapse builds the model's collapsed likelihood, nil when it has none.
func (m *Model) collapse() *collapsed {
	if !m.collapsible() {
		return nil
	}
	_, P := m.x.Dims()
	I := 0
	if m.intercept {
		I = 1
	}
	var g *groupTerm
	K, J := 0, 1
	if len(m.groups) == 1 {
		g = m.groups[0]
		K, J = g.K, g.J
	}
	q := P + I + K
	R := make([]float64, J*q*q)
	c := make([]float64, J*q)
	u := make([]float64, q)
	var rss float64
	for i := 0; i < m.n; i++ {
		for k := 0; k < P; k++ {
			u[k] = m.x.Col(k)[i]
		}
		if I == 1 {
			u[P] = 1
		}
		j := 0
		if g != nil {
			j = g.codes[i]
			for k := 0; k < K; k++ {
				u[P+I+k] = g.z.Col(k)[i]
			}
		}
		v := m.y[i]
		if m.offset != nil {
			v -= m.offset[i]
		}
		Rj, cj := R[j*q*q:(j+1)*q*q], c[j*q:(j+1)*q]
		v = givensRow(Rj, cj, u, v, q)
		rss += v * v
	}
	// The pseudo-rows: the rows of each R_j with a nonzero diagonal (a
	// zero diagonal's row is all zero and its c is 0: the column was zero
	// on every row of the level).
	var keep []int
	for j := 0; j < J; j++ {
		for k := 0; k < q; k++ {
			if R[j*q*q+k*q+k] != 0 {
				keep = append(keep, j*q+k)
			}
		}
	}
	M := len(keep)
	xc := make([][]float64, P)
	for k := range xc {
		xc[k] = make([]float64, M)
	}
	zc := make([][]float64, K)
	for k := range zc {
		zc[k] = make([]float64, M)
	}
	cl := &collapsed{one: make([]float64, M), codes: make([]int, M), y: make([]float64, M), rest: float64(m.n - M), rss: rss}
	for a, jk := range keep {
		j, row := jk/q, R[(jk/q)*q*q+(jk%q)*q:][:q]
		for k := 0; k < P; k++ {
			xc[k][a] = row[k]
		}
		if I == 1 {
			cl.one[a] = row[P]
		}
		for k := 0; k < K; k++ {
			zc[k][a] = row[P+I+k]
		}
		cl.codes[a] = j
		cl.y[a] = c[jk]
	}
	cl.zeros = make([]float64, M)
	cl.x = ad.NewMatrixCols(M, xc)
	if g != nil {
		cl.z = ad.NewMatrixCols(M, zc)
	}
	return cl
}

// givensRow rotates the row (u, v) into the upper-triangular q×q R
// (row-major) and its right-hand side c, and returns what is left of v: the
// row's contribution to the residual sum of squares. u is overwritten.
func givensRow(R, c, u []float64, v float64, q int) float64 {
	for k := 0; k < q; k++ {
		uk := u[k]
		if uk == 0 {
			continue
		}
		rk := R[k*q : (k+1)*q]
		h := math.Hypot(rk[k], uk)
		cs, sn := rk[k]/h, uk/h
		rk[k] = h
		for l := k + 1; l < q; l++ {
			a, b := rk[l], u[l]
			rk[l] = cs*a + sn*b
			u[l] = cs*b - sn*a
		}
		a := c[k]
		c[k] = cs*a + sn*v
		v = cs*v - sn*a
	}
	return v
}

// collapsedLik is the log-likelihood of all rows from the collapsed
// statistics (collapsed's doc), on the tape: the same value as the rows'
// up to rounding.
func (m *Model) collapsedLik(t *ad.Tape, cl *collapsed, P int) ad.Vec {
	var eta ad.Vec
	switch {
	case P > 0:
		eta = t.MatVec(cl.x, t.Param(m.bB), nil)
		if m.intercept {
			eta = t.Add(eta, t.Mul(t.Data(cl.one), t.Param(m.bI)))
		}
	case m.intercept:
		eta = t.Mul(t.Data(cl.one), t.Param(m.bI))
	default:
		eta = t.Data(cl.zeros)
	}
	if cl.z != nil {
		g := m.groups[0]
		L := t.Data(g.ident)
		if g.corr && g.K > 1 {
			L = t.Param(g.L)
		}
		var r ad.Vec
		if g.centred {
			r = t.Param(g.zb)
		} else {
			r = t.CholeskyEffects(t.Param(g.sd), L, t.Param(g.zb))
		}
		eta = t.Add(eta, t.GroupMatVec(cl.z, r, cl.codes, nil))
	}
	sigma := t.Param(m.bAux)
	lp := t.Normal(t.Data(cl.y), eta, sigma)
	// −(N − M)(log σ + ½ log 2π) − e/(2σ²)
	rest := t.Mul(t.Const(-cl.rest), t.Add(t.Log(sigma), t.Const(0.5*math.Log(2*math.Pi))))
	res := t.Div(t.Const(-0.5*cl.rss), t.Square(sigma))
	return t.Add(lp, t.Add(rest, res))
}
