package fit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// The samplers of Mandt, Hoffman & Blei (2017) and their references: constant
// SGD with its KL-optimal settings, SGFS, IASG, and independent draws from
// the Laplace approximation. Their settings come from the run's Laplace
// approximation and the gradient covariance V (their BBᵀ) at the MAP
// (package sampler's Mandt recipes); {step}, when given, overrides η.

func init() {
	k := SamplerKind{Minibatch: true}
	for _, e := range []struct{ name, summary, misfit string }{
		{"csgd", "constant SGD at the KL-optimal step η* = 2D/Tr Cov(ĝ) (Theorem 1)", constSGDMisfit},
		{"csgd-diag", "constant SGD, optimal diagonal preconditioner (Corollary 3)", constSGDMisfit},
		{"csgd-full", "constant SGD, optimal full preconditioner 2 Cov(ĝ)⁻¹ (Theorem 2)", csgdFullMisfit},
		{"csgd-sqrt", "constant SGD, square-root preconditioner and its optimal step (Theorem 7)", constSGDMisfit},
		{"csgd-momentum", "constant SGD with momentum μ at η = μ·η*", constSGDMisfit},
		{"csgd-rkl", "constant SGD at the step minimising the reverse KL(posterior ‖ stationary) (Appendix C)", constSGDMisfit},
		{"sgfs", "stochastic gradient Fisher scoring (Ahn et al. 2012), full", sgfsMisfit},
		{"sgfs-diag", "stochastic gradient Fisher scoring, diagonal ({hmax} caps it)", sgfsMisfit},
		{"sgfs-scalar", "stochastic gradient Fisher scoring, KL-optimal scalar preconditioner 2D/Tr(C + E) (Corollary 6)", sgfsMisfit},
		{"iasg", "iterate-averaged SGD (Algorithm 1): means of N/S iterates at η = 0.05/λmax", iasgMisfit},
		{"laplace", "independent draws from the Laplace approximation N(MAP, H⁻¹)", ""},
	} {
		RegisterSampler(&SamplerDef{name: e.name, family: "Mandt et al. (2017)", summary: e.summary, misfit: e.misfit, Kind: k,
			flags: []string{"mandt"}, Build: buildMandt, Check: checkMandt})
	}
	RegisterFlags(FlagGroup{Name: "mandt", Title: "Mandt et al. flags", Define: func(fs FlagDefiner) any {
		o := &mandtFlags{}
		fs.Float64Var(&o.eps, "eps", 2, "SGFS's `ε`: injected noise E = (4/ε)·Cov(ĝ), preconditioner 2(Cov(ĝ)+E)⁻¹ (sgfs, sgfs-diag; sgfs-scalar: 2D/Tr(Cov(ĝ)+E))")
		fs.Float64Var(&o.hmax, "hmax", 0, "SGFS-d's largest preconditioner entry `H` (our units: Mandt et al.'s h_max/N); 0: off (sgfs-diag)")
		fs.Float64Var(&o.momentum, "momentum", 0.1, "friction `μ` of csgd-momentum (v ← (1−μ)v + ηĝ; default η = μ·η*)")
		fs.IntVar(&o.window, "window", 0, "iterates averaged per IASG draw (0: N/B, one pass)")
		fs.IntVar(&o.noiseBatches, "noise-est-batches", 0, "estimate the gradient covariance BBᵀ at the MAP from `K` minibatches (0: exactly, from all N observations)")
		return o
	}})
}

// The known ways of the samplers of Mandt et al. of missing the posterior
// (SamplerDef.misfit).
const (
	constSGDMisfit = "Constant SGD with a scalar or diagonal preconditioner is KL-optimal within its family (Mandt et al. 2017), not exact: its stationary covariance matches the posterior's only where the gradient noise has the posterior's shape."
	csgdFullMisfit = "csgd-full preconditions by 2(S/N²)·Cov(ĝ)⁻¹ (Mandt et al. 2017, Theorem 2), whose stationary covariance is the posterior's only in the quadratic, Gaussian-noise (Ornstein–Uhlenbeck) picture; the inverse gradient covariance lengthens the steps along directions of small gradient noise, where the chain can make long excursions out of the quadratic region (an sd ratio far above the 90% width ratio: heavy tails), and an estimated covariance ({noise-est-batches}) adds its own error to the inverse."
	sgfsMisfit     = "SGFS's stationary covariance matches the posterior only for a quadratic log posterior with Gaussian minibatch noise (Ahn et al. 2012; Mandt et al. 2017, §5)."
	iasgMisfit     = "IASG's averaged iterates have the posterior's covariance only when a window of N/S iterates spans many of constant SGD's correlation times and the step keeps within Mandt, Hoffman & Blei's (2017) bounds (their Assumption 5); on an ill-conditioned posterior no window of one pass does both."
)

type mandtFlags struct {
	eps, hmax, momentum  float64
	window, noiseBatches int
}

func checkMandt(c *Config) error {
	o := Opt[*mandtFlags](c, "mandt")
	switch {
	case c.Model == "mlp" && !c.StepSet && c.Sampler != "laplace" && !netMandtRule[c.Sampler]:
		return InputErrorf("{sampler} %s with {model} mlp: its settings come from the Hessian and the gradient covariance at the MAP, and no rule caps them for a network's curvature; give {step}, or use {sampler} csgd, csgd-diag or iasg (a rule step capped for stability), or the default {sampler} auto (the network plan: step from the measured curvature)", c.Sampler)
	case c.Toy() && c.Sampler != "laplace":
		return InputErrorf("{sampler} %s with {model} %s: constant SGD, SGFS and IASG are tuned to the minibatch gradient noise of a data model ({model} linear|logistic); the toy targets have none", c.Sampler, c.Model)
	case !(o.eps > 0) || math.IsInf(o.eps, 0):
		return InputErrorf("{eps} %v: expected a positive number", o.eps)
	case !(o.hmax >= 0) || math.IsInf(o.hmax, 0):
		return InputErrorf("{hmax} %v: expected h ≥ 0 (0: off)", o.hmax)
	case o.hmax > 0 && c.Sampler != "sgfs-diag":
		return InputErrorf("{hmax} applies to {sampler} sgfs-diag only")
	case !(o.momentum > 0 && o.momentum <= 1):
		return InputErrorf("{momentum} %v: expected 0 < μ ≤ 1", o.momentum)
	case o.window < 0:
		return InputErrorf("{window} %d: expected ≥ 1 (0: N/B)", o.window)
	case o.noiseBatches < 0:
		return InputErrorf("{noise-est-batches} %d: expected ≥ 0 (0: exact)", o.noiseBatches)
	case c.Sampler != "laplace" && c.Batch < 2:
		return InputErrorf("{batch} %d: {sampler} %s needs minibatches of at least 2", c.Batch, c.Sampler)
	}
	return nil
}

func buildMandt(ctx context.Context, b *BuildEnv) (langevin.Sampler, error) {
	c, m := b.C, b.M
	if net, ok := m.(*model.MLP); ok && c.Sampler == "laplace" && net.NumClasses() == 0 {
		return buildGLMLaplace(ctx, b, net)
	}
	if c.Sampler == "laplace" {
		// The negative Hessian's eigenvalues floored at the prior's
		// curvature (approx.LaplaceFloored): a network's MAP from Adam is
		// not an exact mode and its Hessian is often indefinite; at an
		// exact mode nothing changes.
		l, note, err := b.Lap.Floored(ctx)
		if err != nil {
			return nil, fmt.Errorf("{sampler} laplace: %w", err)
		}
		b.StepNote = note
		return l.Sampler(), nil
	}
	_, isNet := m.(*model.MLP)
	var l *approx.LaplaceApprox
	var err error
	if isNet {
		// A network's Hessian at Adam's mode is often indefinite: the
		// floored Laplace approximation (netMandtLaplace).
		var note string
		l, note, err = netMandtLaplace(ctx, b)
		b.StepNote = note
	} else {
		l, err = b.Lap.Approx(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("{sampler} %s: %w", c.Sampler, err)
	}
	o := Opt[*mandtFlags](c, "mandt")
	d, n, s := m.Dim(), m.Len(), c.Batch
	if s > n {
		return nil, InputErrorf("{batch} %d: expected at most N = %d", s, n)
	}
	V := mat.NewSymDense(d, nil)
	if o.noiseBatches > 0 {
		err = sampler.EstimateGradCov(m, l.Mean, s, o.noiseBatches, rand.New(rand.NewPCG(c.Seed, 0xb0b)), V)
	} else {
		err = sampler.GradCov(m, l.Mean, V)
	}
	if err != nil {
		return nil, err
	}
	mb := sampler.Minibatch{Size: s, Replace: c.Replace}
	b.MisfitHint = batchHint(s, n)
	var cs sampler.ConstSGD
	recipe, constant := constSGDRecipes[c.Sampler]
	switch {
	case constant:
		if cs, err = recipe(V, n, mb, o, l.Prec); err != nil {
			return nil, err
		}
	case strings.HasPrefix(c.Sampler, "sgfs"):
		if c.Sampler == "sgfs-scalar" {
			b.recordStep(sampler.SGFSScalarStep(V, n, s, o.eps))
		}
		return sampler.SGFS{Batch: mb, GradCov: V, Eps: o.eps, Diag: c.Sampler == "sgfs-diag", Scalar: c.Sampler == "sgfs-scalar", Hmax: o.hmax}, nil
	default: // iasg
		ia, err := sampler.MandtIASG(l.Prec, mb, o.window)
		if err != nil {
			return nil, fmt.Errorf("{sampler} iasg: %w", err)
		}
		if c.StepSet {
			ia.Eta = c.Step
		} else if isNet {
			b.StepNote = strings.TrimSpace(b.StepNote + fmt.Sprintf("\nauto:     step: η = %.4g = 0.05/λmax, λmax = %.4g the largest eigenvalue of the Laplace precision at the MAP (eigenvalues floored at the prior's curvature: a network's Hessian there is indefinite): the minibatch curvature adds about 5%% variance", ia.Eta, 0.05/ia.Eta))
		}
		window := o.window
		if window == 0 {
			window = max(1, n/s)
		}
		b.MisfitHint = strings.TrimSpace(iasgHint(l.Prec, ia.Eta, window) + " " + b.MisfitHint)
		if isNet && !c.Set["iters"] {
			b.StepNote = strings.TrimSpace(b.StepNote + "\n" + iasgNetLengthNote(c, window))
		}
		b.recordStep(ia.Eta)
		return ia, nil
	}
	if c.StepSet {
		cs.Eta = c.Step
	} else if isNet && netMandtRule[c.Sampler] {
		var line string
		if cs, line, err = capNetStep(cs, l.Prec, c.Sampler); err != nil {
			return nil, err
		}
		b.StepNote = strings.TrimSpace(b.StepNote + "\nauto:     " + line)
	}
	b.recordStep(cs.Eta)
	return cs, nil
}

// constSGDRecipes are the settings of constant SGD of Mandt et al. (2017),
// by sampler: from the gradient covariance V at the MAP, N, the minibatches,
// the sampler's flags and the Laplace precision.
var constSGDRecipes = map[string]func(V *mat.SymDense, n int, mb sampler.Minibatch, o *mandtFlags, prec *mat.SymDense) (sampler.ConstSGD, error){
	"csgd": func(V *mat.SymDense, n int, mb sampler.Minibatch, _ *mandtFlags, _ *mat.SymDense) (sampler.ConstSGD, error) {
		return sampler.MandtConstSGD(V, n, mb), nil
	},
	"csgd-diag": func(V *mat.SymDense, n int, mb sampler.Minibatch, _ *mandtFlags, _ *mat.SymDense) (sampler.ConstSGD, error) {
		return sampler.MandtConstSGDDiag(V, n, mb), nil
	},
	"csgd-full": func(V *mat.SymDense, n int, mb sampler.Minibatch, _ *mandtFlags, _ *mat.SymDense) (sampler.ConstSGD, error) {
		return sampler.MandtConstSGDFull(V, n, mb)
	},
	"csgd-sqrt": func(V *mat.SymDense, n int, mb sampler.Minibatch, _ *mandtFlags, _ *mat.SymDense) (sampler.ConstSGD, error) {
		return sampler.MandtConstSGDSqrt(V, n, mb), nil
	},
	"csgd-momentum": func(V *mat.SymDense, n int, mb sampler.Minibatch, o *mandtFlags, _ *mat.SymDense) (sampler.ConstSGD, error) {
		return sampler.MandtConstSGDMomentum(V, n, mb, o.momentum), nil
	},
	"csgd-rkl": func(V *mat.SymDense, n int, mb sampler.Minibatch, _ *mandtFlags, prec *mat.SymDense) (sampler.ConstSGD, error) {
		cs, err := approx.MandtConstSGDReverseKL(prec, V, n, mb)
		if err != nil {
			return cs, fmt.Errorf("{sampler} csgd-rkl: %w", err)
		}
		return cs, nil
	},
}

// netMandtRule are the samplers of Mandt et al. that run on a network with
// no {step}: constant SGD at η* or with the diagonal M*, capped for
// stability (capNetStep), and IASG at 0.05/λmax of the floored Laplace
// precision.
var netMandtRule = map[string]bool{"csgd": true, "csgd-diag": true, "iasg": true}
