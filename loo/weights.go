package loo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// ELPDMatrix returns the N × K matrix of the pointwise elpdᵢ of K models,
// the input of Stacking and PseudoBMA, or an error if the models have
// different numbers of rows.
func ELPDMatrix(models ...*Result) (*mat.Dense, error) {
	if len(models) == 0 {
		return nil, errors.New("loo: no models")
	}
	n := len(models[0].Pointwise)
	m := mat.NewDense(n, len(models), nil)
	for k, r := range models {
		if len(r.Pointwise) != n {
			return nil, fmt.Errorf("loo: model %d has %d rows, model 1 has %d", k+1, len(r.Pointwise), n)
		}
		for i, p := range r.Pointwise {
			m.Set(i, k, p.ELPD)
		}
	}
	return m, nil
}

// Stacking writes into dst the stacking weights of K models (Yao et al.
// 2018) given their pointwise LOO log predictive densities lpd (N × K,
// ELPDMatrix): the maximiser over the simplex of
//
//	f(w) = Σᵢ log Σₖ wₖ exp(lpdᵢₖ),
//
// the objective loo's loo_model_weights(method = "stacking") hands to
// constrOptim. f is concave; Stacking finds its maximum by Newton steps on
// the face of the simplex where the weights are positive (an active-set
// method), to about 1e-12, where loo's barrier method stops at about 1e-6:
// a weight loo reports as 1e-6 can be 0 here. dst has length K; K ≥ 2.
func Stacking(dst []float64, lpd mat.Matrix) {
	n, K := lpd.Dims()
	if len(dst) != K || K < 2 {
		panic("loo: Stacking needs K ≥ 2 models and len(dst) = K")
	}
	// p = exp(lpd − max per row): the row factor does not move the maximiser.
	p := mat.NewDense(n, K, nil)
	for i := range n {
		mx := math.Inf(-1)
		for k := range K {
			mx = math.Max(mx, lpd.At(i, k))
		}
		for k := range K {
			p.Set(i, k, math.Exp(lpd.At(i, k)-mx))
		}
	}
	f := func(w []float64) float64 {
		var s float64
		for i := range n {
			s += math.Log(mat.Dot(p.RowView(i), mat.NewVecDense(K, w)))
		}
		return s
	}
	w := dst
	for k := range w {
		w[k] = 1 / float64(K)
	}
	g := make([]float64, K)
	h := mat.NewSymDense(K, nil)
	cur := f(w)
	trial := make([]float64, K)
	free := make([]int, 0, K)
	for range 500 {
		// gradient and Hessian
		clear(g)
		h.Zero()
		for i := range n {
			row := p.RawRowView(i)
			var q float64
			for k, v := range row {
				q += v * w[k]
			}
			for k, v := range row {
				g[k] += v / q
				for l := k; l < K; l++ {
					h.SetSym(k, l, h.At(k, l)-v*row[l]/(q*q))
				}
			}
		}
		// free set: positive weights, and zero weights whose gradient
		// exceeds the multiplier n (Σₖ wₖgₖ = n at any w).
		free = free[:0]
		for k := range K {
			if w[k] > 0 || g[k] > float64(n)*(1+1e-12) {
				free = append(free, k)
			}
		}
		// Newton step on the free set with Σ d = 0: [H 1; 1ᵀ 0][d; μ] = [−g; 0];
		// a zero weight the step would make negative leaves the set.
		d := make([]float64, K)
		var dn float64
		for {
			if !newtonStep(d, h, g, free) {
				normalise(w)
				return
			}
			kept := free[:0]
			for _, k := range free {
				if w[k] > 0 || d[k] >= 0 {
					kept = append(kept, k)
				}
			}
			if len(kept) == len(free) {
				break
			}
			free = kept
		}
		for _, k := range free {
			dn = math.Max(dn, math.Abs(d[k]))
		}
		if dn < 1e-13 {
			break
		}
		// largest feasible step, then backtracking
		step := 1.0
		for _, k := range free {
			if d[k] < 0 && w[k]+step*d[k] < 0 {
				step = -w[k] / d[k]
			}
		}
		improved := false
		for range 60 {
			for k := range K {
				trial[k] = math.Max(w[k]+step*d[k], 0)
			}
			if v := f(trial); v >= cur {
				copy(w, trial)
				cur = v
				improved = true
				break
			}
			step /= 2
		}
		if !improved {
			break
		}
	}
	normalise(w)
}

func normalise(w []float64) {
	var s float64
	for _, v := range w {
		s += v
	}
	for k := range w {
		w[k] /= s
	}
}

// newtonStep solves [H 1; 1ᵀ 0][d; μ] = [−g; 0] on the free coordinates,
// with a ridge of 1e-12 of H's mean diagonal, and zeroes the others.
func newtonStep(d []float64, h *mat.SymDense, g []float64, free []int) bool {
	clear(d)
	m := len(free)
	if m == 0 {
		return false
	}
	a := mat.NewDense(m+1, m+1, nil)
	b := mat.NewVecDense(m+1, nil)
	var tr float64
	for _, k := range free {
		tr -= h.At(k, k)
	}
	for r, k := range free {
		for c, l := range free {
			a.Set(r, c, h.At(k, l))
		}
		a.Set(r, r, a.At(r, r)-1e-12*tr/float64(m))
		a.Set(r, m, 1)
		a.Set(m, r, 1)
		b.SetVec(r, -g[k])
	}
	var sol mat.VecDense
	if err := sol.SolveVec(a, b); err != nil {
		return false
	}
	for r, k := range free {
		d[k] = sol.AtVec(r)
	}
	return true
}

// PseudoBMA writes into dst the pseudo-BMA weights of K models,
// wₖ ∝ exp(elpd_looₖ), elpd_looₖ = Σᵢ lpdᵢₖ (Yao et al. 2018, section 3.1),
// as loo_model_weights(method = "pseudobma", BB = FALSE).
func PseudoBMA(dst []float64, lpd mat.Matrix) {
	n, K := lpd.Dims()
	if len(dst) != K {
		panic("loo: PseudoBMA needs len(dst) = K")
	}
	for k := range K {
		var s float64
		for i := range n {
			s += lpd.At(i, k)
		}
		dst[k] = s
	}
	softmax(dst)
}

func softmax(z []float64) {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = math.Max(mx, v)
	}
	var s float64
	for k, v := range z {
		z[k] = math.Exp(v - mx)
		s += z[k]
	}
	for k := range z {
		z[k] /= s
	}
}

// PseudoBMAPlus writes into dst the pseudo-BMA+ weights of K models (Yao
// et al. 2018, section 3.1), as loo_model_weights(method = "pseudobma"):
// the mean over reps Bayesian-bootstrap replicates of the pseudo-BMA
// weights of the reweighted sums zₖ = N Σᵢ uᵢ lpdᵢₖ, u ~ Dirichlet(α, …, α)
// over the N rows (loo's defaults: reps = 1000, α = 1). The draws come from
// rng, so the weights equal loo's only in distribution.
func PseudoBMAPlus(dst []float64, lpd mat.Matrix, reps int, alpha float64, rng *rand.Rand) {
	n, K := lpd.Dims()
	if len(dst) != K || reps < 1 || !(alpha > 0) {
		panic("loo: PseudoBMAPlus needs len(dst) = K, reps ≥ 1 and α > 0")
	}
	gam := distuv.Gamma{Alpha: alpha, Beta: 1, Src: rng}
	u := make([]float64, n)
	z := make([]float64, K)
	clear(dst)
	for range reps {
		var su float64
		for i := range u {
			u[i] = gam.Rand()
			su += u[i]
		}
		for k := range K {
			var s float64
			for i, ui := range u {
				s += ui / su * lpd.At(i, k)
			}
			z[k] = s * float64(n)
		}
		softmax(z)
		for k, v := range z {
			dst[k] += v / float64(reps)
		}
	}
}

// StackChains returns the stacking weights of the chains of one run (Yao,
// Vehtari and Gelman 2022, "Stacking for non-mixing Bayesian computations:
// the curse and blessing of multimodal posteriors", JMLR 23): each chain's
// draws make a PSIS-LOO of their own (Workspace.Row with one chain), and the
// chains are weighted by Stacking of those pointwise elpdᵢ. It also returns
// each chain's Result. The chains must have equal length.
func StackChains(blocks Blocks, chains int) ([]float64, []*Result, error) {
	if chains < 2 {
		return nil, nil, errors.New("loo: StackChains needs at least two chains")
	}
	var (
		w   Workspace
		pts = make([][]Point, chains)
		S   = -1
	)
	for b, err := range blocks {
		if err != nil {
			return nil, nil, err
		}
		r, c := b.Dims()
		if S < 0 {
			S = c
			if S%chains != 0 {
				return nil, nil, fmt.Errorf("loo: %d draws do not split into %d chains of equal length", S, chains)
			}
		} else if c != S {
			return nil, nil, fmt.Errorf("loo: row %d has %d draws, the rows before %d", len(pts[0])+1, c, S)
		}
		n := S / chains
		for i := range r {
			ll := b.RawRowView(i)
			if err := finite(ll, len(pts[0])+1); err != nil {
				return nil, nil, err
			}
			for ch := range chains {
				pts[ch] = append(pts[ch], w.Row(ll[ch*n:(ch+1)*n], 1))
			}
		}
	}
	if S < 0 || len(pts[0]) == 0 {
		return nil, nil, errors.New("loo: no rows")
	}
	res := make([]*Result, chains)
	for ch := range res {
		res[ch] = Summarize(pts[ch], S/chains)
	}
	lpd, _ := ELPDMatrix(res...)
	wt := make([]float64, chains)
	Stacking(wt, lpd)
	return wt, res, nil
}

func finite(ll []float64, row int) error {
	for s, v := range ll {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("loo: row %d, draw %d: log-likelihood %v is not finite", row, s+1, v)
		}
	}
	return nil
}
