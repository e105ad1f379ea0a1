package fit

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// The SG-MCMC family and the optimisers: SGLD, pSGLD, SGHMC, their cyclical
// forms, GD and SGD. Their default steps are package sampler's rules.

// cyclicalMisfit is the known way of the cyclical samplers of missing a
// unimodal posterior (SamplerDef.misfit).
const cyclicalMisfit = "A cyclical schedule keeps only the draws at small steps of each cycle; on a unimodal posterior a short run keeps few of them near equilibrium (more {iters}, or {sampler} sgld)."

func init() {
	sgmcmc := SamplerKind{Minibatch: true}
	withM := sgmcmc
	withM.laplace = true
	RegisterSampler(&SamplerDef{name: "sgld", family: "SG-MCMC", Kind: withM, Build: buildSGLD,
		summary: "stochastic-gradient Langevin dynamics (Welling & Teh 2011), Laplace-preconditioned"})
	RegisterSampler(&SamplerDef{name: "csgld", family: "SG-MCMC", Kind: withM, Build: buildSGLD, misfit: cyclicalMisfit,
		summary: "cyclical SGLD (Zhang et al. 2020): cosine steps, exploration then sampling in each cycle"})
	RegisterSampler(&SamplerDef{name: "psgld", family: "SG-MCMC", Kind: sgmcmc, flags: []string{"psgld"}, Build: buildPSGLD,
		summary: "preconditioned SGLD (Li et al. 2016): RMSProp-like adaptive diagonal preconditioner"})
	RegisterSampler(&SamplerDef{name: "sghmc", family: "SG-MCMC", Kind: withM, flags: []string{"sghmc"}, Build: buildSGHMC,
		summary: "stochastic-gradient HMC (Chen et al. 2014), friction α; {thermostat}: SGNHT"})
	RegisterSampler(&SamplerDef{name: "csghmc", family: "SG-MCMC", Kind: withM, flags: []string{"sghmc"}, Build: buildSGHMC, misfit: cyclicalMisfit,
		summary: "cyclical SGHMC (Zhang et al. 2020)"})
	RegisterSampler(&SamplerDef{name: "baoab", family: "SG-MCMC", Kind: withM, flags: []string{"sghmc"}, Build: buildBAOAB, Check: checkBAOAB,
		summary: "underdamped Langevin, BAOAB splitting (Leimkuhler & Matthews 2013): exact Gaussian marginals at any stable step; {friction} α"})
	optim := SamplerKind{Optimiser: true}
	RegisterSampler(&SamplerDef{name: "gd", family: "optimisers", Kind: optim, Build: buildSGD,
		summary: "gradient descent on all data (a trajectory, not posterior draws)"})
	optim.Minibatch = true
	RegisterSampler(&SamplerDef{name: "sgd", family: "optimisers", Kind: optim, Build: buildSGD,
		summary: "stochastic gradient descent (Robbins & Monro 1951)"})
	RegisterSampler(&SamplerDef{name: "adam", family: "optimisers", Kind: optim, Build: buildAdam,
		summary: "Adam (Kingma & Ba 2015) on minibatches, step 1e-3 per coordinate unless {step} (lecture notes' Note 15)"})
	RegisterSampler(&SamplerDef{name: "adagrad", family: "optimisers", Kind: optim, Build: buildAdaGrad,
		summary: "AdaGrad (Duchi et al. 2011) on minibatches, step 0.1 unless {step} (Note 15)"})
	RegisterSampler(&SamplerDef{name: "rmsprop", family: "optimisers", Kind: optim, Build: buildRMSProp,
		summary: "RMSProp (Tieleman & Hinton 2012) on minibatches, step 1e-3 unless {step} (Note 15)"})
	RegisterSampler(&SamplerDef{name: "momentum", family: "optimisers", Kind: optim, flags: []string{"momentum"}, Build: buildMomentum,
		summary: "heavy-ball momentum SGD (Polyak 1964) on minibatches, v ← βv + ηĝ (Note 15); default η = (1−β)/N"})
	RegisterSampler(&SamplerDef{name: "polyak", family: "optimisers", Kind: optim, Build: buildPolyak,
		summary: "SGD with Polyak–Ruppert iterate averaging from the end of the burn-in (Mandt et al. §6.1): the draws are the running average"})
	RegisterFlags(FlagGroup{Name: "momentum", Title: "momentum flags", Define: func(fs FlagDefiner) any {
		o := &momentumFlags{}
		fs.Float64Var(&o.beta, "beta", 0.9, "heavy-ball momentum `β` ∈ (0, 1) of {sampler} momentum: v ← βv + ηĝ, θ ← θ + v")
		return o
	}})

	RegisterFlags(FlagGroup{Name: "psgld", Title: "pSGLD flags", Define: func(fs FlagDefiner) any {
		o := &psgldFlags{}
		fs.Float64Var(&o.alpha, "alpha", 0.99, "pSGLD's moving-average weight `α` of V ← αV + (1−α)ḡ⊙ḡ (1 freezes V)")
		fs.Float64Var(&o.lambda, "lambda", 1e-5, "pSGLD's `λ` in G = diag(1 ⊘ (λ + √V))")
		fs.BoolVar(&o.correction, "gamma", false, "pSGLD: add Li et al.'s correction term Γ (off by default, as in common practice; costs one more gradient per step)")
		return o
	}})
	RegisterFlags(FlagGroup{Name: "sghmc", Title: "SGHMC flags", Define: func(fs FlagDefiner) any {
		o := &sghmcFlags{}
		fs.Float64Var(&o.friction, "friction", 0.1, "SGHMC friction `α` ∈ (0, 1]: v ← (1−α)v + η M⁻¹ĝ + N(0, 2αητM⁻¹), θ ← θ + v (α = 1 is SGLD)")
		fs.BoolVar(&o.thermostat, "thermostat", false, "adaptive friction ξ ← ξ + vᵀMv/d − ητ started at {friction} (SGNHT, Ding et al. 2014)")
		return o
	}})
	SamplerTable["psgld"].Check = func(c *Config) error {
		o := Opt[*psgldFlags](c, "psgld")
		switch {
		case !(o.alpha > 0 && o.alpha <= 1):
			return InputErrorf("{alpha} %v: expected 0 < α ≤ 1", o.alpha)
		case !(o.lambda > 0) || math.IsInf(o.lambda, 0):
			return InputErrorf("{lambda} %v: expected a positive number", o.lambda)
		}
		return nil
	}
	SamplerTable["momentum"].Check = func(c *Config) error {
		if o := Opt[*momentumFlags](c, "momentum"); !(o.beta > 0 && o.beta < 1) {
			return InputErrorf("{beta} %v: expected 0 < β < 1", o.beta)
		}
		return nil
	}
	checkFriction := func(c *Config) error {
		if o := Opt[*sghmcFlags](c, "sghmc"); !(o.friction > 0 && o.friction <= 1) {
			return InputErrorf("{friction} %v: expected 0 < α ≤ 1", o.friction)
		}
		return nil
	}
	SamplerTable["sghmc"].Check = checkFriction
	SamplerTable["csghmc"].Check = checkFriction
}

type psgldFlags struct {
	alpha, lambda float64
	correction    bool // {gamma}: add Γ
}

type momentumFlags struct{ beta float64 }

type sghmcFlags struct {
	friction   float64
	thermostat bool
}

// familyStep is the default step of the SG-MCMC samplers with friction α
// (1 for SGLD): sampler.StepToyStable on the toy targets, otherwise
// sampler.StepNoiseFraction (gradient noise about 5% of the injected noise).
func familyStep(b *BuildEnv, friction float64) float64 {
	if b.C.Toy() {
		if lam, ok := modeCurvature(b.M); ok && b.C.Sampler == "csgld" {
			// A multimodal toy target: the cycles must leave the modes.
			eta := sampler.StepCyclicalExplore(lam)
			if !b.C.StepSet {
				b.StepNote = fmt.Sprintf("auto:     step: η₀ = %.3g = 7/(3λ), λ = %.3g the curvature of a mode: each cycle's peak exceeds the mode's stability limit 2/λ = %.3g, which throws the chain out of its mode (sampler.StepCyclicalExplore; Zhang et al.'s 0.07); %d cycles",
					eta, lam, 2/lam, b.C.Cycles)
			} else if b.C.Step <= 2/lam {
				b.StepNote = fmt.Sprintf("warning:  {step} %.3g: the cycles' peak stays within a mode's stability limit 2/λ = %.3g (λ = %.3g), so the chain will not leave its starting mode; the default η₀ = %.3g would", b.C.Step, 2/lam, lam, eta)
			}
			return eta
		}
		if lam, ok := modeCurvature(b.M); ok && b.C.Sampler == "csghmc" {
			// SGHMC with friction α is stable for ηλ < 2(2 − α); beyond it its
			// momentum does not bounce between the modes but diverges (on
			// mixture25 at 7/6 of the limit: 10¹²⁰ within 20,000 steps).
			eta := sampler.StepToyStable
			if b.C.StepSet {
				eta = b.C.Step
			}
			if lim := 2 * (2 - friction) / lam; eta < lim {
				b.StepNote = fmt.Sprintf("warning:  csghmc at η₀ = %.3g stays within a mode's stability limit 2(2−α)/λ = %.3g (λ = %.3g, α = %g): its cycles will not leave the starting mode, and beyond the limit its momentum diverges; {sampler} csgld leaves the modes by default (η₀ = %.3g, 30 cycles)",
					eta, lim, lam, friction, sampler.StepCyclicalExplore(lam))
			}
		}
		return sampler.StepToyStable
	}
	return sampler.StepNoiseFraction(b.M.Len(), b.C.Batch, friction, b.C.Precond == "laplace")
}

// annealing returns the temperature-annealing settings: from {temperature-start}
// over the burn-in, or off.
func annealing(c *Config) (float64, int) {
	if c.TStart == 0 {
		return 0, 0
	}
	return c.TStart, c.Burnin
}

func (b *BuildEnv) minibatch() sampler.Minibatch {
	mb := sampler.Minibatch{Size: b.C.Batch, Replace: b.C.Replace}
	if b.C.Cv {
		mb.CV = b.MapTh
	}
	return mb
}

func (b *BuildEnv) clipping() sampler.Clipping {
	return sampler.Clipping{Norm: b.C.Clip, Value: b.C.ClipValue}
}

func buildSGLD(ctx context.Context, b *BuildEnv) (langevin.Sampler, error) {
	if b.C.Planned {
		return buildAuto(ctx, b) // {sampler} sgld untuned: the plan's SGLD
	}
	sched, err := b.schedule(b.stabilityCap(ctx, familyStep(b, 1)))
	if err != nil {
		return nil, err
	}
	c := b.C
	ts, burn := c.TStart, c.Burnin
	if c.Sampler == "csgld" {
		ts, burn = annealing(c)
	}
	return sampler.SGLD{Step: sched, Batch: b.minibatch(), Temperature: c.Temperature, Clip: b.clipping(), NoiseEvery: c.NoiseEvery,
		Precond: b.Precond, TemperatureStart: ts, BurnIn: burn}, nil
}

func buildPSGLD(_ context.Context, b *BuildEnv) (langevin.Sampler, error) {
	a := sampler.StepPSGLDRelax(b.M.Len(), b.C.Batch)
	if b.C.Toy() {
		a = sampler.StepToyStable
	}
	sched, err := b.schedule(a)
	if err != nil {
		return nil, err
	}
	o := Opt[*psgldFlags](b.C, "psgld")
	ts, burn := annealing(b.C)
	return sampler.PSGLD{Step: sched, Batch: b.minibatch(), Alpha: o.alpha, Lambda: o.lambda, Correction: o.correction,
		Temperature: b.C.Temperature, Clip: b.clipping(), TemperatureStart: ts, BurnIn: burn}, nil
}

func buildSGHMC(_ context.Context, b *BuildEnv) (langevin.Sampler, error) {
	o := Opt[*sghmcFlags](b.C, "sghmc")
	sched, err := b.schedule(familyStep(b, o.friction))
	if err != nil {
		return nil, err
	}
	ts, burn := annealing(b.C)
	return sampler.SGHMC{Step: sched, Batch: b.minibatch(), Friction: o.friction, Precond: b.Precond, Thermostat: o.thermostat,
		Temperature: b.C.Temperature, Clip: b.clipping(), TemperatureStart: ts, BurnIn: burn}, nil
}

func buildSGD(_ context.Context, b *BuildEnv) (langevin.Sampler, error) {
	sched, err := b.schedule(sampler.StepUnitMeanLoss(b.M.Len()))
	if err != nil {
		return nil, err
	}
	s := sampler.SGD{Step: sched, Clip: b.clipping()}
	if b.C.Sampler == "sgd" {
		s.Batch = b.minibatch()
	}
	return s, nil
}

// buildAdam is Adam ascent on the log posterior with minibatches; its step
// is about the distance a coordinate moves per step whatever N, so the
// default is Kingma & Ba's 10⁻³, not a rate in units of the loss.
func buildAdam(_ context.Context, b *BuildEnv) (langevin.Sampler, error) {
	sched, err := b.schedule(1e-3)
	if err != nil {
		return nil, err
	}
	return sampler.Adam{Step: sched, Batch: b.minibatch(), Clip: b.clipping()}, nil
}

// buildAdaGrad is AdaGrad ascent on minibatches; its accumulated ĝ² makes
// each coordinate's step decay like 1/√t, so a constant 0.1 is its default.
func buildAdaGrad(_ context.Context, b *BuildEnv) (langevin.Sampler, error) {
	sched, err := b.schedule(0.1)
	if err != nil {
		return nil, err
	}
	return sampler.AdaGrad{Step: sched, Batch: b.minibatch(), Clip: b.clipping()}, nil
}

// buildRMSProp is RMSProp ascent on minibatches; like Adam its step is a
// distance per coordinate, 10⁻³ by default.
func buildRMSProp(_ context.Context, b *BuildEnv) (langevin.Sampler, error) {
	sched, err := b.schedule(1e-3)
	if err != nil {
		return nil, err
	}
	return sampler.RMSProp{Step: sched, Batch: b.minibatch(), Clip: b.clipping()}, nil
}

// checkBAOAB: {friction} is BAOAB's α = 1 − c; the thermostat and the
// temperature annealing are SGHMC's.
func checkBAOAB(c *Config) error {
	if o := Opt[*sghmcFlags](c, "sghmc"); !(o.friction > 0 && o.friction <= 1) {
		return InputErrorf("{friction} %v: expected 0 < α ≤ 1", o.friction)
	} else if o.thermostat {
		return InputErrorf("{thermostat}: only for {sampler} sghmc|csghmc (SGNHT)")
	}
	if c.TStart > 0 {
		return InputErrorf("{temperature-start}: {sampler} baoab samples at {temperature} throughout")
	}
	return nil
}

// buildBAOAB: the step η = h² of SGHMC's rule at the friction α (the same
// units), M the Laplace diagonal.
func buildBAOAB(_ context.Context, b *BuildEnv) (langevin.Sampler, error) {
	o := Opt[*sghmcFlags](b.C, "sghmc")
	sched, err := b.schedule(familyStep(b, o.friction))
	if err != nil {
		return nil, err
	}
	return sampler.BAOAB{Step: sched, Batch: b.minibatch(), Friction: o.friction, Precond: b.Precond,
		Temperature: b.C.Temperature, Clip: b.clipping()}, nil
}

// buildMomentum is heavy-ball momentum ascent on minibatches. Its default
// step (1−β)/N makes the effective step η/(1−β) of a slowly varying
// gradient SGD's default 1/N.
func buildMomentum(_ context.Context, b *BuildEnv) (langevin.Sampler, error) {
	o := Opt[*momentumFlags](b.C, "momentum")
	sched, err := b.schedule((1 - o.beta) * sampler.StepUnitMeanLoss(b.M.Len()))
	if err != nil {
		return nil, err
	}
	return sampler.Momentum{Step: sched, Batch: b.minibatch(), Clip: b.clipping(), Beta: o.beta}, nil
}

// buildPolyak is SGD with the iterates averaged from the end of the burn-in
// on (tail averaging: the start's bias does not enter the average). Its
// default step is SGD's 1/N capped at 0.1/λmax(H) (stabilityCap): on a
// non-quadratic log posterior the average of constant-step SGD is off the
// MAP by O(η) (on Australian credit 0.14 at 1/N = 0.0018, ηλmax ≈ 1;
// 0.002 at η = 10⁻⁴).
func buildPolyak(ctx context.Context, b *BuildEnv) (langevin.Sampler, error) {
	a := b.stabilityCap(ctx, sampler.StepUnitMeanLoss(b.M.Len()))
	sched, err := b.schedule(a)
	if err != nil {
		return nil, err
	}
	if !b.C.StepSet && !strings.HasPrefix(b.StepNote, "warning") {
		b.StepNote = fmt.Sprintf("step:     η = %.3g = min(1/N, 0.1/λmax(H) at the MAP); averaged from iteration %d (after the burn-in); on a non-quadratic log posterior the average of constant-step SGD stays O(η) from the MAP: a smaller {step} shrinks that bias and slows the start",
			a, b.C.Burnin+1)
	}
	return sampler.PolyakSGD{Step: sched, Batch: b.minibatch(), Clip: b.clipping(), Start: b.C.Burnin}, nil
}

// modeCurvature returns the curvature λ = 1/s² of a mode of a mixture toy
// target (model.Mixture, possibly with injected gradient noise).
func modeCurvature(m langevin.Model) (float64, bool) {
	if ng, ok := m.(model.NoisyGradient); ok {
		m = ng.Model
	}
	if mx, ok := m.(*model.Mixture); ok && mx.K() > 1 {
		return 1 / mx.Var(), true
	}
	return 0, false
}
