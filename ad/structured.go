package ad

import (
	"fmt"
	"math"
)

// Operations on structured parameters: recursions (LinearScan, CumSum),
// matrices of parameters (MatMul, CholeskyEffects, GroupMatVec), joining
// vectors (Concat), and the multivariate densities of hierarchical models
// (MultiNormalCholesky, LKJCorrCholesky). Each is one node on the tape, so a
// recursion over T steps or the effects of J groups cost one node's
// bookkeeping, not T or J scalar nodes.

// LinearScan returns the first-order linear recursion
//
//	y₀ = b₀,  y_t = a_t y_{t−1} + b_t  (t = 1 … n−1),
//
// for example the deviations of an AR(1) process from its mean; a may be a
// scalar (the same coefficient at every step) and a₀ is not used. Backward,
// with s_t = ȳ_t + a_{t+1} s_{t+1} (s_n = 0): b̄_t = s_t, ā_t = s_t y_{t−1}.
func (t *Tape) LinearScan(a, b Vec) Vec {
	if a.n != 1 && a.n != b.n {
		panic(fmt.Sprintf("ad: LinearScan of coefficients of length %d and a vector of length %d (want a scalar or equal)", a.n, b.n))
	}
	out := t.newVec(int(b.n))
	y, av, bv := t.vals(out), t.vals(a), t.vals(b)
	sa := st(a)
	for i := range y {
		if i == 0 {
			y[0] = bv[0]
			continue
		}
		y[i] = av[i*sa]*y[i-1] + bv[i]
	}
	t.push(node{op: opScan, out: out, a: a, b: b})
	return out
}

// CumSum returns the cumulative sums y_t = Σ_{s≤t} a_s (LinearScan with
// every coefficient 1). Backward: ā_t = Σ_{s≥t} ȳ_s.
func (t *Tape) CumSum(a Vec) Vec {
	out := t.newVec(int(a.n))
	y, x := t.vals(out), t.vals(a)
	var s float64
	for i, v := range x {
		s += v
		y[i] = s
	}
	t.push(node{op: opScan, out: out, b: a, k: 1})
	return out
}

func (nd *node) scanBack(t *Tape, g []float64) {
	gb := t.adjs(nd.b)
	if nd.k == 1 { // CumSum
		if gb == nil {
			return
		}
		var s float64
		for i := len(g) - 1; i >= 0; i-- {
			s += g[i]
			gb[i] += s
		}
		return
	}
	ga := t.adjs(nd.a)
	av, y := t.vals(nd.a), t.vals(nd.out)
	sa := st(nd.a)
	var carry float64
	for i := len(g) - 1; i >= 0; i-- {
		s := g[i] + carry
		if gb != nil {
			gb[i] += s
		}
		if i > 0 {
			if ga != nil {
				ga[i*sa] += s * y[i-1]
			}
			carry = av[i*sa] * s
		}
	}
}

// Concat returns the vector a followed by b.
func (t *Tape) Concat(a, b Vec) Vec {
	out := t.newVec(int(a.n + b.n))
	y := t.vals(out)
	copy(y, t.vals(a))
	copy(y[a.n:], t.vals(b))
	t.push(node{op: opConcat, out: out, a: a, b: b})
	return out
}

// MatMul returns the n×m matrix product AB of the row-major n×k matrix A
// and k×m matrix B (n = len(A)/k, m = len(B)/k), row-major. Backward:
// Ā += Ḡ Bᵀ, B̄ += Aᵀ Ḡ.
func (t *Tape) MatMul(A, B Vec, k int) Vec {
	if k < 1 || int(A.n)%k != 0 || int(B.n)%k != 0 {
		panic(fmt.Sprintf("ad: MatMul of vectors of lengths %d and %d with inner dimension %d", A.n, B.n, k))
	}
	n, m := int(A.n)/k, int(B.n)/k
	out := t.newVec(n * m)
	y, a, b := t.vals(out), t.vals(A), t.vals(B)
	if m == 1 { // a matrix times a vector: the same sums, without a loop of length 1
		b = b[:k]
		for i := range y {
			ai := a[i*k : (i+1)*k]
			var s float64
			for l, c := range ai {
				if c != 0 {
					s += c * b[l]
				}
			}
			y[i] = s
		}
		t.push(node{op: opMatMul, out: out, a: A, b: B, k: k})
		return out
	}
	for i := 0; i < n; i++ {
		yi := y[i*m : (i+1)*m]
		for l := 0; l < k; l++ {
			if c := a[i*k+l]; c != 0 {
				bl := b[l*m : (l+1)*m]
				for j, v := range bl {
					yi[j] += c * v
				}
			}
		}
	}
	t.push(node{op: opMatMul, out: out, a: A, b: B, k: k})
	return out
}

func (nd *node) matMulBack(t *Tape, g []float64) {
	k := nd.k
	n, m := int(nd.a.n)/k, int(nd.b.n)/k
	ga, gb := t.adjs(nd.a), t.adjs(nd.b)
	a, b := t.vals(nd.a), t.vals(nd.b)
	if m == 1 { // a matrix times a vector: the same sums as below
		b = b[:k]
		for i, gi := range g[:n] {
			ai := a[i*k : (i+1)*k]
			if ga != nil {
				gai := ga[i*k : (i+1)*k]
				for l, v := range b {
					gai[l] += gi * v
				}
			}
			if gb != nil {
				gb = gb[:k]
				for l, c := range ai {
					if c != 0 {
						gb[l] += c * gi
					}
				}
			}
		}
		return
	}
	for i := 0; i < n; i++ {
		gi := g[i*m : (i+1)*m]
		for l := 0; l < k; l++ {
			bl := b[l*m : (l+1)*m]
			if ga != nil {
				var s float64
				for j, v := range bl {
					s += gi[j] * v
				}
				ga[i*k+l] += s
			}
			if gb != nil {
				if c := a[i*k+l]; c != 0 {
					gbl := gb[l*m : (l+1)*m]
					for j, v := range gi {
						gbl[j] += c * v
					}
				}
			}
		}
	}
}

// Gram returns the n×n row-major matrix AAᵀ of the row-major n×k matrix A
// (n = len(A)/k), for example a correlation matrix LLᵀ from its Cholesky
// factor. Backward: Ā += (Ḡ + Ḡᵀ) A.
func (t *Tape) Gram(A Vec, k int) Vec {
	if k < 1 || int(A.n)%k != 0 {
		panic(fmt.Sprintf("ad: Gram of a vector of length %d with %d columns", A.n, k))
	}
	n := int(A.n) / k
	out := t.newVec(n * n)
	y, a := t.vals(out), t.vals(A)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			var s float64
			for l := 0; l < k; l++ {
				s += a[i*k+l] * a[j*k+l]
			}
			y[i*n+j], y[j*n+i] = s, s
		}
	}
	t.push(node{op: opGram, out: out, a: A, k: k})
	return out
}

func (nd *node) gramBack(t *Tape, g []float64) {
	ga := t.adjs(nd.a)
	if ga == nil {
		return
	}
	k := nd.k
	n := int(nd.a.n) / k
	a := t.vals(nd.a)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			c := g[i*n+j] + g[j*n+i]
			if c == 0 {
				continue
			}
			for l := 0; l < k; l++ {
				ga[i*k+l] += c * a[j*k+l]
			}
		}
	}
}

// CholeskyEffects returns the J×K row-major matrix R of correlated group
// effects from standard-normal ones (the non-centred parameterisation):
// row j is
//
//	r_j = diag(σ) L z_j,  so r_j ~ N(0, diag(σ) L Lᵀ diag(σ)) when z_j ~ N(0, I),
//
// for the K scales σ, the K×K lower Cholesky factor L of a correlation
// matrix (row-major, as transform.CholeskyCorr writes it) and the J×K
// row-major Z. With w_jk = Σ_{l≤k} L_kl z_jl and the adjoint Ḡ of R:
// σ̄_k = Σ_j Ḡ_jk w_jk, L̄_kl = σ_k Σ_j Ḡ_jk z_jl, z̄_jl = Σ_{k≥l} Ḡ_jk σ_k L_kl.
func (t *Tape) CholeskyEffects(sigma, L, Z Vec) Vec {
	K := int(sigma.n)
	if int(L.n) != K*K || int(Z.n)%K != 0 {
		panic(fmt.Sprintf("ad: CholeskyEffects of %d scales, a factor of length %d and effects of length %d (want K, K×K, J×K)", sigma.n, L.n, Z.n))
	}
	out := t.newVec(int(Z.n))
	r, s, l, z := t.vals(out), t.vals(sigma), t.vals(L), t.vals(Z)
	J := int(Z.n) / K
	for j := 0; j < J; j++ {
		zj, rj := z[j*K:(j+1)*K], r[j*K:(j+1)*K]
		for k := 0; k < K; k++ {
			var w float64
			for i, v := range l[k*K : k*K+k+1] {
				w += v * zj[i]
			}
			rj[k] = s[k] * w
		}
	}
	t.push(node{op: opCholEff, out: out, args: [4]Vec{sigma, L, Z}})
	return out
}

func (nd *node) cholEffBack(t *Tape, g []float64) {
	sigma, L, Z := nd.args[0], nd.args[1], nd.args[2]
	gs, gl, gz := t.adjs(sigma), t.adjs(L), t.adjs(Z)
	s, l, z := t.vals(sigma), t.vals(L), t.vals(Z)
	K := int(sigma.n)
	J := int(Z.n) / K
	for j := 0; j < J; j++ {
		zj, gj := z[j*K:(j+1)*K], g[j*K:(j+1)*K]
		for k := 0; k < K; k++ {
			c := gj[k]
			if c == 0 {
				continue
			}
			lk := l[k*K : k*K+k+1]
			if gs != nil {
				var w float64
				for i, v := range lk {
					w += v * zj[i]
				}
				gs[k] += c * w
			}
			cs := c * s[k]
			if gl != nil {
				glk := gl[k*K : k*K+k+1]
				for i := range glk {
					glk[i] += cs * zj[i]
				}
			}
			if gz != nil {
				gzj := gz[j*K : (j+1)*K]
				for i, v := range lk {
					gzj[i] += cs * v
				}
			}
		}
	}
}

// GroupMatVec returns, for each row i of the batch (all rows for a nil
// batch), the product of row i of the n×K data matrix X with row g[i] of
// the J×K row-major parameter matrix R:
//
//	out_i = Σ_k X_ik R_{g_i, k},
//
// a row's varying intercept and slopes (X_i = (1, x_i, …)) from its group's
// effects. Backward: R̄_{g_i, k} += ō_i X_ik.
func (t *Tape) GroupMatVec(X *Matrix, R Vec, g []int, batch []int) Vec {
	if X.p < 1 || int(R.n)%X.p != 0 {
		panic(fmt.Sprintf("ad: GroupMatVec of a %d×%d matrix and effects of length %d", X.n, X.p, R.n))
	}
	n := X.n
	if batch != nil {
		n = len(batch)
	}
	out := t.newVec(n)
	y, r := t.vals(out), t.vals(R)
	p := X.p
	if batch == nil && X.rows == nil {
		// By columns (NewMatrixCols): the same products in the same order.
		for i := range y {
			rg := r[g[i]*p : (g[i]+1)*p]
			var s float64
			for c := range rg {
				s += X.cols[c*X.n+i] * rg[c]
			}
			y[i] = s
		}
		t.push(node{op: opGroupMatVec, out: out, a: R, x: X, idx: g, batch: batch})
		return out
	}
	X.rowsOf("GroupMatVec", len(batch))
	for k := range y {
		i := k
		if batch != nil {
			i = batch[k]
		}
		x, rg := X.rows[i*p:(i+1)*p], r[g[i]*p:(g[i]+1)*p]
		var s float64
		for c, v := range x {
			s += v * rg[c]
		}
		y[k] = s
	}
	t.push(node{op: opGroupMatVec, out: out, a: R, x: X, idx: g, batch: batch})
	return out
}

func (nd *node) groupMatVecBack(t *Tape, g []float64) {
	gr := t.adjs(nd.a)
	if gr == nil {
		return
	}
	X := nd.x
	p := X.p
	if nd.batch == nil && X.rows == nil {
		for i, c := range g {
			if c == 0 {
				continue
			}
			grg := gr[nd.idx[i]*p : (nd.idx[i]+1)*p]
			for j := range grg {
				grg[j] += c * X.cols[j*X.n+i]
			}
		}
		return
	}
	for k, c := range g {
		if c == 0 {
			continue
		}
		i := k
		if nd.batch != nil {
			i = nd.batch[k]
		}
		x, grg := X.rows[i*p:(i+1)*p], gr[nd.idx[i]*p:(nd.idx[i]+1)*p]
		for j, v := range x {
			grg[j] += c * v
		}
	}
}

const halfLog2Pi = 0.91893853320467274178 // ½ log 2π

// MultiNormalCholesky returns Σ_j log N(x_j; μ_j, LLᵀ) over the rows x_j of
// the J×K row-major x, for the K×K lower-triangular Cholesky factor L of the
// covariance (row-major, positive diagonal) and μ of length K (the same mean
// for every row) or J×K:
//
//	log N(x; μ, LLᵀ) = −(K/2) log 2π − Σ_i log L_ii − ½ aᵀa,  a = L⁻¹(x − μ).
//
// With b = L⁻ᵀa: ∂/∂x = −b, ∂/∂μ = b, ∂/∂L = (b aᵀ)_lower − diag(1/L_ii)
// per row. The partials are computed in the forward pass (two triangular
// solves per row, O(JK²)).
func (t *Tape) MultiNormalCholesky(x, mu, L Vec) Vec {
	K := int(math.Round(math.Sqrt(float64(L.n))))
	if K*K != int(L.n) || int(x.n)%K != 0 || (int(mu.n) != K && mu.n != x.n) {
		panic(fmt.Sprintf("ad: MultiNormalCholesky of x of length %d, μ of length %d and a factor of length %d (want J×K, K or J×K, K×K)", x.n, mu.n, L.n))
	}
	p := t.parts(x, mu, L)
	scr := t.alloc(2 * K)
	xv, mv, lv := t.vals(x), t.vals(mu), t.vals(L)
	dx, dm, dl := t.pslice(p, 0, x), t.pslice(p, 1, mu), t.pslice(p, 2, L)
	a, b := t.val[scr:int(scr)+K], t.val[int(scr)+K:int(scr)+2*K]
	J := int(x.n) / K
	var lp float64
	for j := 0; j < J; j++ {
		xj := xv[j*K : (j+1)*K]
		mj := mv
		if mu.n == x.n {
			mj = mv[j*K : (j+1)*K]
		}
		for i := 0; i < K; i++ { // a = L⁻¹ (x − μ)
			s := xj[i] - mj[i]
			li := lv[i*K : i*K+i]
			for l, v := range li {
				s -= v * a[l]
			}
			a[i] = s / lv[i*K+i]
			lp -= 0.5 * a[i] * a[i]
		}
		if !t.grad {
			continue
		}
		for i := K - 1; i >= 0; i-- { // b = L⁻ᵀ a
			s := a[i]
			for l := i + 1; l < K; l++ {
				s -= lv[l*K+i] * b[l]
			}
			b[i] = s / lv[i*K+i]
		}
		if dx != nil {
			for i, v := range b {
				dx[j*K+i] = -v
			}
		}
		if dm != nil {
			d := dm
			if mu.n == x.n {
				d = dm[j*K : (j+1)*K]
			}
			for i, v := range b {
				d[i] += v
			}
		}
		if dl != nil {
			for i := 0; i < K; i++ {
				for l := 0; l <= i; l++ {
					dl[i*K+l] += b[i] * a[l]
				}
			}
		}
	}
	var logDiag float64
	for i := 0; i < K; i++ {
		d := lv[i*K+i]
		logDiag += math.Log(d)
		if dl != nil {
			dl[i*K+i] -= float64(J) / d
		}
	}
	lp -= float64(J) * (logDiag + float64(K)*halfLog2Pi)
	return t.scalarNode(opDensity, lp, p, x, mu, L)
}

// LKJCorrCholesky returns log LKJ(L; η), the density of the K×K lower
// Cholesky factor L of a correlation matrix Ω = LLᵀ (row-major, as
// transform.CholeskyCorr writes it) when Ω ~ LKJ(η) (Lewandowski, Kurowicka
// and Joe 2009; Stan's lkj_corr_cholesky):
//
//	log p(L) = Σ_{i=2}^{K} (K − i + 2η − 2) log L_ii − log c_K(η),
//	log c_K(η) = Σ_{k=1}^{K−1} [(2η − 2 + K − k)(K − k) log 2
//	             + (K − k) log B(η + (K−k−1)/2, η + (K−k−1)/2)],
//
// (1-based i; c_K is the normaliser of det(Ω)^{η−1}, π²/2 for K = 3 and
// η = 1). η = 1 is uniform over correlation matrices; η > 1 favours the
// identity.
func (t *Tape) LKJCorrCholesky(L Vec, eta float64) Vec {
	K := int(math.Round(math.Sqrt(float64(L.n))))
	if K*K != int(L.n) || !(eta > 0) {
		panic(fmt.Sprintf("ad: LKJCorrCholesky of a factor of length %d with η = %v (want K×K and η > 0)", L.n, eta))
	}
	p := t.parts(L)
	lv, dl := t.vals(L), t.pslice(p, 0, L)
	lp := -LKJLogNormaliser(K, eta)
	for i := 1; i < K; i++ { // 0-based i: coefficient K − i − 1 + 2η − 2
		c := float64(K-i-1) + 2*eta - 2
		d := lv[i*K+i]
		lp += c * math.Log(d)
		if dl != nil {
			dl[i*K+i] = c / d
		}
	}
	return t.scalarNode(opDensity, lp, p, L)
}

// LKJLogNormaliser returns log c_K(η), the log normalising constant of the
// LKJ(η) density det(Ω)^{η−1} over K×K correlation matrices (see
// LKJCorrCholesky).
func LKJLogNormaliser(K int, eta float64) float64 {
	var c float64
	for k := 1; k < K; k++ {
		km := float64(K - k)
		b := eta + (km-1)/2
		lb := lbeta(b, b)
		c += (2*eta-2+km)*km*math.Ln2 + km*lb
	}
	return c
}

func lbeta(a, b float64) float64 {
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	return la + lb - lab
}
