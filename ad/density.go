package ad

import (
	"github.com/langevin-go/langevin/density"
)

// parts allocates partial buffers for the variable arguments (when the
// gradient is wanted) and returns their offsets, −1 for none.
func (t *Tape) parts(args ...Vec) (p [4]int32) {
	for k := range p {
		p[k] = -1
	}
	if !t.grad {
		return p
	}
	for k, a := range args {
		if !a.isConst() {
			p[k] = t.alloc(int(a.n))
		}
	}
	return p
}

// pslice returns the partial buffer k, nil for none.
func (t *Tape) pslice(p [4]int32, k int, a Vec) []float64 {
	if p[k] < 0 {
		return nil
	}
	return t.val[p[k] : p[k]+a.n]
}

// scalarNode records a density (or GLM) value lp with stored partials.
func (t *Tape) scalarNode(o op, lp float64, p [4]int32, args ...Vec) Vec {
	out := t.newVec(1)
	t.val[out.off] = lp
	nd := node{op: o, out: out, part: p}
	copy(nd.args[:], args)
	t.push(nd)
	return out
}

// dens3 evaluates a vectorised three-argument density on the tape.
func (t *Tape) dens3(f func(x, a, b, dx, da, db []float64) float64, x, a, b Vec) Vec {
	p := t.parts(x, a, b)
	lp := f(t.vals(x), t.vals(a), t.vals(b), t.pslice(p, 0, x), t.pslice(p, 1, a), t.pslice(p, 2, b))
	return t.scalarNode(opDensity, lp, p, x, a, b)
}

func (t *Tape) dens2(f func(x, a, dx, da []float64) float64, x, a Vec) Vec {
	p := t.parts(x, a)
	lp := f(t.vals(x), t.vals(a), t.pslice(p, 0, x), t.pslice(p, 1, a))
	return t.scalarNode(opDensity, lp, p, x, a)
}

// Normal returns Σᵢ log N(xᵢ; μᵢ, σᵢ) (see density.Normal); scalars broadcast.
func (t *Tape) Normal(x, mu, sigma Vec) Vec { return t.dens3(density.NormalSum, x, mu, sigma) }

// StudentT returns Σᵢ log StudentT(xᵢ; νᵢ, μᵢ, σᵢ).
func (t *Tape) StudentT(x, nu, mu, sigma Vec) Vec {
	p := t.parts(x, nu, mu, sigma)
	lp := density.StudentTSum(t.vals(x), t.vals(nu), t.vals(mu), t.vals(sigma),
		t.pslice(p, 0, x), t.pslice(p, 1, nu), t.pslice(p, 2, mu), t.pslice(p, 3, sigma))
	return t.scalarNode(opDensity, lp, p, x, nu, mu, sigma)
}

// Cauchy returns Σᵢ log Cauchy(xᵢ; μᵢ, σᵢ).
func (t *Tape) Cauchy(x, mu, sigma Vec) Vec { return t.dens3(density.CauchySum, x, mu, sigma) }

// HalfNormal returns Σᵢ log HalfNormal(xᵢ; σᵢ).
func (t *Tape) HalfNormal(x, sigma Vec) Vec { return t.dens2(density.HalfNormalSum, x, sigma) }

// HalfCauchy returns Σᵢ log HalfCauchy(xᵢ; σᵢ).
func (t *Tape) HalfCauchy(x, sigma Vec) Vec { return t.dens2(density.HalfCauchySum, x, sigma) }

// Exponential returns Σᵢ log Exp(xᵢ; λᵢ) (rate λ).
func (t *Tape) Exponential(x, rate Vec) Vec { return t.dens2(density.ExponentialSum, x, rate) }

// Gamma returns Σᵢ log Gamma(xᵢ; αᵢ, βᵢ) (rate β).
func (t *Tape) Gamma(x, alpha, beta Vec) Vec { return t.dens3(density.GammaSum, x, alpha, beta) }

// InvGamma returns Σᵢ log InvGamma(xᵢ; αᵢ, βᵢ) (scale β).
func (t *Tape) InvGamma(x, alpha, beta Vec) Vec {
	return t.dens3(density.InvGammaSum, x, alpha, beta)
}

// LogNormal returns Σᵢ log LogNormal(xᵢ; μᵢ, σᵢ).
func (t *Tape) LogNormal(x, mu, sigma Vec) Vec { return t.dens3(density.LogNormalSum, x, mu, sigma) }

// Beta returns Σᵢ log Beta(xᵢ; aᵢ, bᵢ).
func (t *Tape) Beta(x, a, b Vec) Vec { return t.dens3(density.BetaSum, x, a, b) }

// BernoulliLogit returns Σᵢ log Bernoulli(yᵢ; σ(ηᵢ)), yᵢ ∈ {0, 1}.
func (t *Tape) BernoulliLogit(y []int, eta Vec) Vec {
	p := t.parts(eta)
	lp := density.BernoulliLogitSum(y, t.vals(eta), t.pslice(p, 0, eta))
	return t.scalarNode(opDensity, lp, p, eta)
}

// BinomialLogit returns Σᵢ log Binomial(kᵢ; nᵢ, σ(ηᵢ)).
func (t *Tape) BinomialLogit(k, n []int, eta Vec) Vec {
	p := t.parts(eta)
	lp := density.BinomialLogitSum(k, n, t.vals(eta), t.pslice(p, 0, eta))
	return t.scalarNode(opDensity, lp, p, eta)
}

// PoissonLog returns Σᵢ log Poisson(kᵢ; e^(ηᵢ)).
func (t *Tape) PoissonLog(k []int, eta Vec) Vec {
	p := t.parts(eta)
	lp := density.PoissonLogSum(k, t.vals(eta), t.pslice(p, 0, eta))
	return t.scalarNode(opDensity, lp, p, eta)
}

// NegBin2Log returns Σᵢ log NegBin(kᵢ; mean e^(ηᵢ), dispersion φᵢ).
func (t *Tape) NegBin2Log(k []int, eta, phi Vec) Vec {
	p := t.parts(eta, phi)
	lp := density.NegBin2LogSum(k, t.vals(eta), t.vals(phi), t.pslice(p, 0, eta), t.pslice(p, 1, phi))
	return t.scalarNode(opDensity, lp, p, eta, phi)
}

// CategoricalLogit returns Σᵢ log softmax(ηᵢ)_yᵢ for the |y|×K row-major
// logits eta.
func (t *Tape) CategoricalLogit(y []int, eta Vec) Vec {
	p := t.parts(eta)
	lp := density.CategoricalLogitSum(y, t.vals(eta), t.pslice(p, 0, eta))
	return t.scalarNode(opDensity, lp, p, eta)
}

// BernoulliProbit returns Σᵢ log Bernoulli(yᵢ; Φ(ηᵢ)), yᵢ ∈ {0, 1}.
func (t *Tape) BernoulliProbit(y []int, eta Vec) Vec {
	p := t.parts(eta)
	lp := density.BernoulliProbitSum(y, t.vals(eta), t.pslice(p, 0, eta))
	return t.scalarNode(opDensity, lp, p, eta)
}
