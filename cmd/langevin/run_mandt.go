package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/sampler"
)

// The samplers of Mandt, Hoffman & Blei (2017) and their references.
var mandtSamplers = []string{"csgd", "csgd-diag", "csgd-full", "csgd-sqrt", "csgd-momentum", "sgfs", "sgfs-diag", "iasg", "laplace"}

// mandtFlags are the flags of the constant-SGD family.
type mandtFlags struct {
	eps, hmax, momentum float64
	window              int
	noiseBatches        int
}

func addMandtFlags(fs *flag.FlagSet, f *mandtFlags) {
	fs.Float64Var(&f.eps, "eps", 2, "SGFS's `ε`: injected noise E = (4/ε)·Cov(ĝ), preconditioner 2(Cov(ĝ)+E)⁻¹ (sgfs, sgfs-diag)")
	fs.Float64Var(&f.hmax, "hmax", 0, "SGFS-d's largest preconditioner entry `H` (our units: Mandt et al.'s h_max/N); 0: off (sgfs-diag)")
	fs.Float64Var(&f.momentum, "momentum", 0.1, "friction `μ` of csgd-momentum (v ← (1−μ)v + ηĝ; default η = μ·η*)")
	fs.IntVar(&f.window, "window", 0, "iterates averaged per IASG draw (0: N/B, one pass)")
	fs.IntVar(&f.noiseBatches, "noise-est-batches", 0, "estimate the gradient covariance BBᵀ at the MAP from `K` minibatches (0: exactly, from all N observations)")
}

func (mf *mandtFlags) validate(f *runFlags) error {
	isMandt := false
	for _, s := range mandtSamplers {
		isMandt = isMandt || s == f.sampler
	}
	switch {
	case isMandt && toyModel(f.model) && f.sampler != "laplace":
		return inputErrorf("--sampler %s with --model %s: constant SGD, SGFS and IASG are tuned to the minibatch gradient noise of a data model (--model linear|logistic); the toy targets have none", f.sampler, f.model)
	case !(mf.eps > 0) || math.IsInf(mf.eps, 0):
		return inputErrorf("--eps %v: expected a positive number", mf.eps)
	case !(mf.hmax >= 0) || math.IsInf(mf.hmax, 0):
		return inputErrorf("--hmax %v: expected h ≥ 0 (0: off)", mf.hmax)
	case mf.hmax > 0 && f.sampler != "sgfs-diag":
		return inputErrorf("--hmax applies to --sampler sgfs-diag only")
	case !(mf.momentum > 0 && mf.momentum <= 1):
		return inputErrorf("--momentum %v: expected 0 < μ ≤ 1", mf.momentum)
	case mf.window < 0:
		return inputErrorf("--window %d: expected ≥ 1 (0: N/B)", mf.window)
	case mf.noiseBatches < 0:
		return inputErrorf("--noise-est-batches %d: expected ≥ 0 (0: exact)", mf.noiseBatches)
	case isMandt && f.sampler != "laplace" && f.batch < 2:
		return inputErrorf("--batch %d: --sampler %s needs minibatches of at least 2", f.batch, f.sampler)
	}
	return nil
}

// buildMandtSampler returns the sampler with its optimal settings (Mandt et
// al.'s recipes in package sampler, from the run's Laplace approximation and
// the gradient covariance V, their BBᵀ, at the MAP); --step, when given,
// overrides η.
func buildMandtSampler(ctx context.Context, f *runFlags, m langevin.Model, lap *approx.RunLaplace) (langevin.Sampler, error) {
	l, err := lap.Approx(ctx)
	if err != nil {
		return nil, fmt.Errorf("--sampler %s: %w", f.sampler, err)
	}
	if f.sampler == "laplace" {
		return l.Sampler(), nil
	}
	d, n, s := m.Dim(), m.Len(), f.batch
	if s > n {
		return nil, inputErrorf("--batch %d: expected at most N = %d", s, n)
	}
	V := mat.NewSymDense(d, nil)
	if f.mandt.noiseBatches > 0 {
		err = sampler.EstimateGradCov(m, l.Mean, s, f.mandt.noiseBatches, rand.New(rand.NewPCG(f.seed, 0xb0b)), V)
	} else {
		err = sampler.GradCov(m, l.Mean, V)
	}
	if err != nil {
		return nil, err
	}
	mb := sampler.Minibatch{Size: s, Replace: f.replace}
	var c sampler.ConstSGD
	switch f.sampler {
	case "csgd":
		c = sampler.MandtConstSGD(V, n, mb)
	case "csgd-diag":
		c = sampler.MandtConstSGDDiag(V, n, mb)
	case "csgd-full":
		if c, err = sampler.MandtConstSGDFull(V, n, mb); err != nil {
			return nil, err
		}
	case "csgd-sqrt":
		c = sampler.MandtConstSGDSqrt(V, n, mb)
	case "csgd-momentum":
		c = sampler.MandtConstSGDMomentum(V, n, mb, f.mandt.momentum)
	case "sgfs", "sgfs-diag":
		return sampler.SGFS{Batch: mb, GradCov: V, Eps: f.mandt.eps, Diag: f.sampler == "sgfs-diag", Hmax: f.mandt.hmax}, nil
	default: // iasg
		ia, err := sampler.MandtIASG(l.Prec, mb, f.mandt.window)
		if err != nil {
			return nil, fmt.Errorf("--sampler iasg: %w", err)
		}
		if f.set["step"] {
			ia.Eta = f.step
		}
		return ia, nil
	}
	if f.set["step"] {
		c.Eta = f.step
	}
	return c, nil
}
