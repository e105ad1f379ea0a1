package data

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// PCAWhitener maps features to their first q principal components, each
// scaled to unit variance: z = Λ_q^{-1/2} U_qᵀ (x − x̄), where x̄ is the
// training mean and U_q, Λ_q the leading eigenvectors and eigenvalues of the
// training covariance. Fit it on the training rows only, as a [Scaler], and
// apply it to every split.
type PCAWhitener struct {
	mean []float64
	proj *mat.Dense // p×q: U_q Λ_q^{-1/2}
	eig  []float64  // all eigenvalues, descending
}

// FitPCAWhitener fits the whitener with q components to the rows of X, or,
// when q is 0, with the fewest components that explain the fraction frac of
// the total variance. It fails unless 1 ≤ q ≤ p and the q-th eigenvalue is
// positive (a component with no variance cannot be whitened).
func FitPCAWhitener(X *mat.Dense, q int, frac float64) (*PCAWhitener, error) {
	n, p := X.Dims()
	if q < 0 || q > p || (q == 0 && !(frac > 0 && frac <= 1)) {
		return nil, fmt.Errorf("%d principal components, variance fraction %v: expected 1 … %d components, or a fraction in (0, 1]", q, frac, p)
	}
	if n < 2 {
		return nil, fmt.Errorf("%d rows: expected at least 2", n)
	}
	w := &PCAWhitener{mean: make([]float64, p)}
	for i := 0; i < n; i++ {
		for j, v := range X.RawRowView(i) {
			w.mean[j] += v
		}
	}
	for j := range w.mean {
		w.mean[j] /= float64(n)
	}
	xc := mat.NewDense(n, p, nil)
	for i := 0; i < n; i++ {
		row := xc.RawRowView(i)
		for j, v := range X.RawRowView(i) {
			row[j] = v - w.mean[j]
		}
	}
	cov := mat.NewSymDense(p, nil)
	cov.SymRankK(cov, 1/float64(n-1), xc.T())
	var es mat.EigenSym
	if !es.Factorize(cov, true) {
		return nil, fmt.Errorf("eigendecomposition of the %d×%d covariance failed", p, p)
	}
	vals := es.Values(nil) // ascending
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	w.eig = make([]float64, p)
	for j := range vals {
		w.eig[j] = vals[p-1-j]
	}
	if q == 0 {
		for q = 1; q < p && w.Explained(q) < frac; q++ {
		}
	}
	if !(w.eig[q-1] > 1e-12*w.eig[0]) {
		return nil, fmt.Errorf("principal component %d has variance %.3g (largest %.3g): expected fewer components", q, w.eig[q-1], w.eig[0])
	}
	w.proj = mat.NewDense(p, q, nil)
	for c := 0; c < q; c++ {
		s := 1 / math.Sqrt(w.eig[c])
		src := p - 1 - c
		for j := 0; j < p; j++ {
			w.proj.Set(j, c, vecs.At(j, src)*s)
		}
	}
	return w, nil
}

// Components returns q, the number of whitened components.
func (w *PCAWhitener) Components() int { _, q := w.proj.Dims(); return q }

// Eigenvalues returns the eigenvalues of the training covariance, descending.
func (w *PCAWhitener) Eigenvalues() []float64 { return append([]float64(nil), w.eig...) }

// Explained returns the fraction of the total variance in the first q
// components.
func (w *PCAWhitener) Explained(q int) float64 {
	var s, t float64
	for j, v := range w.eig {
		if j < q {
			s += v
		}
		t += v
	}
	return s / t
}

// Transform returns the whitened components of the rows of X.
func (w *PCAWhitener) Transform(X *mat.Dense) *mat.Dense {
	n, p := X.Dims()
	xc := mat.NewDense(n, p, nil)
	for i := 0; i < n; i++ {
		row := xc.RawRowView(i)
		for j, v := range X.RawRowView(i) {
			row[j] = v - w.mean[j]
		}
	}
	var z mat.Dense
	z.Mul(xc, w.proj)
	return &z
}
