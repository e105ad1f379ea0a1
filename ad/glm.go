package ad

import (
	"fmt"

	"gonum.org/v1/gonum/floats"

	"github.com/langevin-go/langevin/density"
)

// glmBlock is the number of rows a GLM node handles at a time: its linear
// predictors and their partials stay in the L1 cache between the forward
// pass (axpys down the columns of X) and the gradient (dots down the same
// columns), so X is read once from memory per gradient.
const glmBlock = 128

type family uint8

const (
	famNormal family = iota
	famBernoulli
	famPoisson
	famNegBin
	famProbit
)

// NormalIDGLM returns Σᵢ log N(yᵢ; α + xᵢᵀβ, σ) over the rows batch (all for
// nil) of X in one node (Stan's normal_id_glm): the linear predictor is never
// stored, and the partials ∂/∂α = Σᵢ zᵢ/σ, ∂/∂β = Σᵢ (zᵢ/σ) xᵢ, ∂/∂σ =
// Σᵢ (zᵢ² − 1)/σ, zᵢ = (yᵢ − ηᵢ)/σ, are computed in the same pass over X.
// α and σ are scalars; pass t.Const(0) for a model without intercept.
func (t *Tape) NormalIDGLM(y []float64, X *Matrix, batch []int, alpha, beta, sigma Vec) Vec {
	return t.glm(famNormal, y, nil, X, batch, alpha, beta, sigma, nil)
}

// BernoulliLogitGLM returns Σᵢ log Bernoulli(yᵢ; σ(α + xᵢᵀβ)), yᵢ ∈ {0, 1},
// in one node (Stan's bernoulli_logit_glm).
func (t *Tape) BernoulliLogitGLM(y []int, X *Matrix, batch []int, alpha, beta Vec) Vec {
	return t.glm(famBernoulli, nil, y, X, batch, alpha, beta, Vec{}, nil)
}

// BernoulliProbitGLM returns Σᵢ log Bernoulli(yᵢ; Φ(α + xᵢᵀβ)), yᵢ ∈ {0, 1},
// Φ the standard normal distribution function, in one node.
func (t *Tape) BernoulliProbitGLM(y []int, X *Matrix, batch []int, alpha, beta Vec) Vec {
	return t.glm(famProbit, nil, y, X, batch, alpha, beta, Vec{}, nil)
}

// PoissonLogGLM returns Σᵢ log Poisson(kᵢ; exp(oᵢ + α + xᵢᵀβ)) in one node
// (Stan's poisson_log_glm), with the offsets o (log exposure; nil for none).
func (t *Tape) PoissonLogGLM(k []int, X *Matrix, batch []int, alpha, beta Vec, offset []float64) Vec {
	return t.glm(famPoisson, nil, k, X, batch, alpha, beta, Vec{}, offset)
}

// NegBin2LogGLM returns Σᵢ log NegBin(kᵢ; mean exp(oᵢ + α + xᵢᵀβ),
// dispersion φ) in one node (Stan's neg_binomial_2_log_glm); φ is a scalar.
func (t *Tape) NegBin2LogGLM(k []int, X *Matrix, batch []int, alpha, beta, phi Vec, offset []float64) Vec {
	return t.glm(famNegBin, nil, k, X, batch, alpha, beta, phi, offset)
}

func (t *Tape) glm(fam family, yf []float64, yi []int, X *Matrix, batch []int, alpha, beta, aux Vec, offset []float64) Vec {
	hasAux := fam == famNormal || fam == famNegBin
	if int(beta.n) != X.p || alpha.n != 1 || (hasAux && aux.n != 1) {
		panic(fmt.Sprintf("ad: GLM of a %d×%d matrix with %d coefficients, intercept of length %d, auxiliary parameter of length %d", X.n, X.p, beta.n, alpha.n, aux.n))
	}
	if (yf != nil && len(yf) != X.n) || (yi != nil && len(yi) != X.n) || (offset != nil && len(offset) != X.n) {
		panic(fmt.Sprintf("ad: GLM of a matrix with %d rows and %d responses (%d offsets)", X.n, len(yf)+len(yi), len(offset)))
	}
	var p [4]int32
	if hasAux {
		p = t.parts(alpha, beta, aux)
	} else {
		p = t.parts(alpha, beta)
		p[2] = -1
	}
	n := X.n
	if batch != nil {
		n = len(batch)
	}
	bs := min(glmBlock, n)
	etaOff := t.alloc(2 * bs)
	var ybOff int32
	if batch != nil && yf != nil {
		ybOff = t.alloc(bs)
	}
	intOff := len(t.ints)
	if batch != nil && yi != nil {
		if intOff+bs > cap(t.ints) {
			ni := make([]int, intOff, 2*(intOff+bs))
			copy(ni, t.ints)
			t.ints = ni
		}
		t.ints = t.ints[:intOff+bs]
	}
	// Slices of the arena, taken after the last allocation.
	b := t.vals(beta)
	a0 := t.vals(alpha)[0]
	var auxv []float64
	if hasAux {
		auxv = t.vals(aux)
	}
	da, db, dx := t.pslice(p, 0, alpha), t.pslice(p, 1, beta), t.pslice(p, 2, aux)
	etaAll := t.val[etaOff : etaOff+int32(2*bs)]
	var lp float64
	for lo := 0; lo < n; lo += bs {
		hi := min(lo+bs, n)
		eta, deta := etaAll[:hi-lo], etaAll[bs:bs+hi-lo]
		for k := range eta {
			eta[k] = a0
		}
		var ys []float64
		var ks []int
		if batch == nil {
			axpyCols(eta, b, X.cols, X.n, lo)
			if offset != nil {
				floats.Add(eta, offset[lo:hi])
			}
			if yf != nil {
				ys = yf[lo:hi]
			}
			if yi != nil {
				ks = yi[lo:hi]
			}
		} else {
			rows := batch[lo:hi]
			for k, i := range rows {
				eta[k] += floats.Dot(X.rows[i*X.p:(i+1)*X.p], b)
				if offset != nil {
					eta[k] += offset[i]
				}
			}
			if yf != nil {
				ys = t.val[ybOff : int(ybOff)+hi-lo]
				for k, i := range rows {
					ys[k] = yf[i]
				}
			}
			if yi != nil {
				ks = t.ints[intOff : intOff+hi-lo]
				for k, i := range rows {
					ks[k] = yi[i]
				}
			}
		}
		var d []float64
		if t.grad {
			d = deta
			clear(d)
		}
		switch fam {
		case famNormal:
			lp += density.NormalSum(ys, eta, auxv, nil, d, dx)
		case famBernoulli:
			lp += density.BernoulliLogitSum(ks, eta, d)
		case famProbit:
			lp += density.BernoulliProbitSum(ks, eta, d)
		case famPoisson:
			lp += density.PoissonLogSum(ks, eta, d)
		case famNegBin:
			lp += density.NegBin2LogSum(ks, eta, auxv, d, dx)
		}
		if d == nil {
			continue
		}
		if da != nil {
			da[0] += floats.Sum(d)
		}
		if db != nil {
			if batch == nil {
				dotCols(db, d, X.cols, X.n, lo)
			} else {
				for k, i := range batch[lo:hi] {
					floats.AddScaled(db, d[k], X.rows[i*X.p:(i+1)*X.p])
				}
			}
		}
	}
	if hasAux {
		return t.scalarNode(opGLM, lp, p, alpha, beta, aux)
	}
	return t.scalarNode(opGLM, lp, p, alpha, beta)
}
