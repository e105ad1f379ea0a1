package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"strings"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// The SG-MCMC family and the optimisers: SGLD, pSGLD, SGHMC, their cyclical
// forms, GD and SGD. Their default steps are package sampler's rules.

func init() {
	sgmcmc := samplerKind{minibatch: true}
	withM := sgmcmc
	withM.laplace = true
	registerSampler(&samplerDef{name: "sgld", family: "SG-MCMC", kind: withM, build: buildSGLD,
		summary: "stochastic-gradient Langevin dynamics (Welling & Teh 2011), Laplace-preconditioned"})
	registerSampler(&samplerDef{name: "csgld", family: "SG-MCMC", kind: withM, build: buildSGLD,
		summary: "cyclical SGLD (Zhang et al. 2020): cosine steps, exploration then sampling in each cycle"})
	registerSampler(&samplerDef{name: "psgld", family: "SG-MCMC", kind: sgmcmc, flags: []string{"psgld"}, build: buildPSGLD,
		summary: "preconditioned SGLD (Li et al. 2016): RMSProp-like adaptive diagonal preconditioner"})
	registerSampler(&samplerDef{name: "sghmc", family: "SG-MCMC", kind: withM, flags: []string{"sghmc"}, build: buildSGHMC,
		summary: "stochastic-gradient HMC (Chen et al. 2014), friction α; --thermostat: SGNHT"})
	registerSampler(&samplerDef{name: "csghmc", family: "SG-MCMC", kind: withM, flags: []string{"sghmc"}, build: buildSGHMC,
		summary: "cyclical SGHMC (Zhang et al. 2020)"})
	registerSampler(&samplerDef{name: "baoab", family: "SG-MCMC", kind: withM, flags: []string{"sghmc"}, build: buildBAOAB, check: checkBAOAB,
		summary: "underdamped Langevin, BAOAB splitting (Leimkuhler & Matthews 2013): exact Gaussian marginals at any stable step; --friction α"})
	optim := samplerKind{optimiser: true}
	registerSampler(&samplerDef{name: "gd", family: "optimisers", kind: optim, build: buildSGD,
		summary: "gradient descent on all data (a trajectory, not posterior draws)"})
	optim.minibatch = true
	registerSampler(&samplerDef{name: "sgd", family: "optimisers", kind: optim, build: buildSGD,
		summary: "stochastic gradient descent (Robbins & Monro 1951)"})
	registerSampler(&samplerDef{name: "adam", family: "optimisers", kind: optim, build: buildAdam,
		summary: "Adam (Kingma & Ba 2015) on minibatches, step 1e-3 per coordinate unless --step (lecture notes' Note 15)"})
	registerSampler(&samplerDef{name: "adagrad", family: "optimisers", kind: optim, build: buildAdaGrad,
		summary: "AdaGrad (Duchi et al. 2011) on minibatches, step 0.1 unless --step (Note 15)"})
	registerSampler(&samplerDef{name: "rmsprop", family: "optimisers", kind: optim, build: buildRMSProp,
		summary: "RMSProp (Tieleman & Hinton 2012) on minibatches, step 1e-3 unless --step (Note 15)"})
	registerSampler(&samplerDef{name: "momentum", family: "optimisers", kind: optim, flags: []string{"momentum"}, build: buildMomentum,
		summary: "heavy-ball momentum SGD (Polyak 1964) on minibatches, v ← βv + ηĝ (Note 15); default η = (1−β)/N"})
	registerSampler(&samplerDef{name: "polyak", family: "optimisers", kind: optim, build: buildPolyak,
		summary: "SGD with Polyak–Ruppert iterate averaging from the end of the burn-in (Mandt et al. §6.1): the draws are the running average"})
	registerFlags(flagGroup{name: "momentum", title: "momentum flags", define: func(fs *flag.FlagSet) any {
		o := &momentumFlags{}
		fs.Float64Var(&o.beta, "beta", 0.9, "heavy-ball momentum `β` ∈ (0, 1) of --sampler momentum: v ← βv + ηĝ, θ ← θ + v")
		return o
	}})

	registerFlags(flagGroup{name: "psgld", title: "pSGLD flags", define: func(fs *flag.FlagSet) any {
		o := &psgldFlags{}
		fs.Float64Var(&o.alpha, "alpha", 0.99, "pSGLD's moving-average weight `α` of V ← αV + (1−α)ḡ⊙ḡ (1 freezes V)")
		fs.Float64Var(&o.lambda, "lambda", 1e-5, "pSGLD's `λ` in G = diag(1 ⊘ (λ + √V))")
		fs.BoolVar(&o.correction, "gamma", false, "pSGLD: add Li et al.'s correction term Γ (off by default, as in common practice; costs one more gradient per step)")
		return o
	}})
	registerFlags(flagGroup{name: "sghmc", title: "SGHMC flags", define: func(fs *flag.FlagSet) any {
		o := &sghmcFlags{}
		fs.Float64Var(&o.friction, "friction", 0.1, "SGHMC friction `α` ∈ (0, 1]: v ← (1−α)v + η M⁻¹ĝ + N(0, 2αητM⁻¹), θ ← θ + v (α = 1 is SGLD)")
		fs.BoolVar(&o.thermostat, "thermostat", false, "adaptive friction ξ ← ξ + vᵀMv/d − ητ started at --friction (SGNHT, Ding et al. 2014)")
		return o
	}})
	samplerTable["psgld"].check = func(c *runConfig) error {
		o := opt[*psgldFlags](c, "psgld")
		switch {
		case !(o.alpha > 0 && o.alpha <= 1):
			return inputErrorf("--alpha %v: expected 0 < α ≤ 1", o.alpha)
		case !(o.lambda > 0) || math.IsInf(o.lambda, 0):
			return inputErrorf("--lambda %v: expected a positive number", o.lambda)
		}
		return nil
	}
	samplerTable["momentum"].check = func(c *runConfig) error {
		if o := opt[*momentumFlags](c, "momentum"); !(o.beta > 0 && o.beta < 1) {
			return inputErrorf("--beta %v: expected 0 < β < 1", o.beta)
		}
		return nil
	}
	checkFriction := func(c *runConfig) error {
		if o := opt[*sghmcFlags](c, "sghmc"); !(o.friction > 0 && o.friction <= 1) {
			return inputErrorf("--friction %v: expected 0 < α ≤ 1", o.friction)
		}
		return nil
	}
	samplerTable["sghmc"].check = checkFriction
	samplerTable["csghmc"].check = checkFriction
}

type psgldFlags struct {
	alpha, lambda float64
	correction    bool // --gamma: add Γ
}

type momentumFlags struct{ beta float64 }

type sghmcFlags struct {
	friction   float64
	thermostat bool
}

// familyStep is the default step of the SG-MCMC samplers with friction α
// (1 for SGLD): sampler.StepToyStable on the toy targets, otherwise
// sampler.StepNoiseFraction (gradient noise about 5% of the injected noise).
func familyStep(b *buildEnv, friction float64) float64 {
	if b.c.toy() {
		if lam, ok := modeCurvature(b.m); ok && b.c.sampler == "csgld" {
			// A multimodal toy target: the cycles must leave the modes.
			eta := sampler.StepCyclicalExplore(lam)
			if !b.c.stepSet {
				b.stepNote = fmt.Sprintf("auto:     step: η₀ = %.3g = 7/(3λ), λ = %.3g the curvature of a mode: each cycle's peak exceeds the mode's stability limit 2/λ = %.3g, which throws the chain out of its mode (sampler.StepCyclicalExplore; Zhang et al.'s 0.07); %d cycles",
					eta, lam, 2/lam, b.c.cycles)
			} else if b.c.step <= 2/lam {
				b.stepNote = fmt.Sprintf("warning:  --step %.3g: the cycles' peak stays within a mode's stability limit 2/λ = %.3g (λ = %.3g), so the chain will not leave its starting mode; the default η₀ = %.3g would", b.c.step, 2/lam, lam, eta)
			}
			return eta
		}
		if lam, ok := modeCurvature(b.m); ok && b.c.sampler == "csghmc" {
			// SGHMC with friction α is stable for ηλ < 2(2 − α); beyond it its
			// momentum does not bounce between the modes but diverges (on
			// mixture25 at 7/6 of the limit: 10¹²⁰ within 20,000 steps).
			eta := sampler.StepToyStable
			if b.c.stepSet {
				eta = b.c.step
			}
			if lim := 2 * (2 - friction) / lam; eta < lim {
				b.stepNote = fmt.Sprintf("warning:  csghmc at η₀ = %.3g stays within a mode's stability limit 2(2−α)/λ = %.3g (λ = %.3g, α = %g): its cycles will not leave the starting mode, and beyond the limit its momentum diverges; --sampler csgld leaves the modes by default (η₀ = %.3g, 30 cycles)",
					eta, lim, lam, friction, sampler.StepCyclicalExplore(lam))
			}
		}
		return sampler.StepToyStable
	}
	return sampler.StepNoiseFraction(b.m.Len(), b.c.batch, friction, b.c.precond == "laplace")
}

// annealing returns the temperature-annealing settings: from --temperature-start
// over the burn-in, or off.
func annealing(c *runConfig) (float64, int) {
	if c.tStart == 0 {
		return 0, 0
	}
	return c.tStart, c.burnin
}

func (b *buildEnv) minibatch() sampler.Minibatch {
	mb := sampler.Minibatch{Size: b.c.batch, Replace: b.c.replace}
	if b.c.cv {
		mb.CV = b.mapTh
	}
	return mb
}

func (b *buildEnv) clipping() sampler.Clipping {
	return sampler.Clipping{Norm: b.c.clip, Value: b.c.clipValue}
}

func buildSGLD(ctx context.Context, b *buildEnv) (langevin.Sampler, error) {
	if b.c.planned {
		return buildAuto(ctx, b) // --sampler sgld untuned: the plan's SGLD
	}
	sched, err := b.schedule(b.stabilityCap(ctx, familyStep(b, 1)))
	if err != nil {
		return nil, err
	}
	c := b.c
	ts, burn := c.tStart, c.burnin
	if c.sampler == "csgld" {
		ts, burn = annealing(c)
	}
	return sampler.SGLD{Step: sched, Batch: b.minibatch(), Temperature: c.temperature, Clip: b.clipping(), NoiseEvery: c.noiseEvery,
		Precond: b.precond, TemperatureStart: ts, BurnIn: burn}, nil
}

func buildPSGLD(_ context.Context, b *buildEnv) (langevin.Sampler, error) {
	a := sampler.StepPSGLDRelax(b.m.Len(), b.c.batch)
	if b.c.toy() {
		a = sampler.StepToyStable
	}
	sched, err := b.schedule(a)
	if err != nil {
		return nil, err
	}
	o := opt[*psgldFlags](b.c, "psgld")
	ts, burn := annealing(b.c)
	return sampler.PSGLD{Step: sched, Batch: b.minibatch(), Alpha: o.alpha, Lambda: o.lambda, Correction: o.correction,
		Temperature: b.c.temperature, Clip: b.clipping(), TemperatureStart: ts, BurnIn: burn}, nil
}

func buildSGHMC(_ context.Context, b *buildEnv) (langevin.Sampler, error) {
	o := opt[*sghmcFlags](b.c, "sghmc")
	sched, err := b.schedule(familyStep(b, o.friction))
	if err != nil {
		return nil, err
	}
	ts, burn := annealing(b.c)
	return sampler.SGHMC{Step: sched, Batch: b.minibatch(), Friction: o.friction, Precond: b.precond, Thermostat: o.thermostat,
		Temperature: b.c.temperature, Clip: b.clipping(), TemperatureStart: ts, BurnIn: burn}, nil
}

func buildSGD(_ context.Context, b *buildEnv) (langevin.Sampler, error) {
	sched, err := b.schedule(sampler.StepUnitMeanLoss(b.m.Len()))
	if err != nil {
		return nil, err
	}
	s := sampler.SGD{Step: sched, Clip: b.clipping()}
	if b.c.sampler == "sgd" {
		s.Batch = b.minibatch()
	}
	return s, nil
}

// buildAdam is Adam ascent on the log posterior with minibatches; its step
// is about the distance a coordinate moves per step whatever N, so the
// default is Kingma & Ba's 10⁻³, not a rate in units of the loss.
func buildAdam(_ context.Context, b *buildEnv) (langevin.Sampler, error) {
	sched, err := b.schedule(1e-3)
	if err != nil {
		return nil, err
	}
	return sampler.Adam{Step: sched, Batch: b.minibatch(), Clip: b.clipping()}, nil
}

// buildAdaGrad is AdaGrad ascent on minibatches; its accumulated ĝ² makes
// each coordinate's step decay like 1/√t, so a constant 0.1 is its default.
func buildAdaGrad(_ context.Context, b *buildEnv) (langevin.Sampler, error) {
	sched, err := b.schedule(0.1)
	if err != nil {
		return nil, err
	}
	return sampler.AdaGrad{Step: sched, Batch: b.minibatch(), Clip: b.clipping()}, nil
}

// buildRMSProp is RMSProp ascent on minibatches; like Adam its step is a
// distance per coordinate, 10⁻³ by default.
func buildRMSProp(_ context.Context, b *buildEnv) (langevin.Sampler, error) {
	sched, err := b.schedule(1e-3)
	if err != nil {
		return nil, err
	}
	return sampler.RMSProp{Step: sched, Batch: b.minibatch(), Clip: b.clipping()}, nil
}

// checkBAOAB: --friction is BAOAB's α = 1 − c; the thermostat and the
// temperature annealing are SGHMC's.
func checkBAOAB(c *runConfig) error {
	if o := opt[*sghmcFlags](c, "sghmc"); !(o.friction > 0 && o.friction <= 1) {
		return inputErrorf("--friction %v: expected 0 < α ≤ 1", o.friction)
	} else if o.thermostat {
		return inputErrorf("--thermostat: only for --sampler sghmc|csghmc (SGNHT)")
	}
	if c.tStart > 0 {
		return inputErrorf("--temperature-start: --sampler baoab samples at --temperature throughout")
	}
	return nil
}

// buildBAOAB: the step η = h² of SGHMC's rule at the friction α (the same
// units), M the Laplace diagonal.
func buildBAOAB(_ context.Context, b *buildEnv) (langevin.Sampler, error) {
	o := opt[*sghmcFlags](b.c, "sghmc")
	sched, err := b.schedule(familyStep(b, o.friction))
	if err != nil {
		return nil, err
	}
	return sampler.BAOAB{Step: sched, Batch: b.minibatch(), Friction: o.friction, Precond: b.precond,
		Temperature: b.c.temperature, Clip: b.clipping()}, nil
}

// buildMomentum is heavy-ball momentum ascent on minibatches. Its default
// step (1−β)/N makes the effective step η/(1−β) of a slowly varying
// gradient SGD's default 1/N.
func buildMomentum(_ context.Context, b *buildEnv) (langevin.Sampler, error) {
	o := opt[*momentumFlags](b.c, "momentum")
	sched, err := b.schedule((1 - o.beta) * sampler.StepUnitMeanLoss(b.m.Len()))
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
func buildPolyak(ctx context.Context, b *buildEnv) (langevin.Sampler, error) {
	a := b.stabilityCap(ctx, sampler.StepUnitMeanLoss(b.m.Len()))
	sched, err := b.schedule(a)
	if err != nil {
		return nil, err
	}
	if !b.c.stepSet && !strings.HasPrefix(b.stepNote, "warning") {
		b.stepNote = fmt.Sprintf("step:     η = %.3g = min(1/N, 0.1/λmax(H) at the MAP); averaged from iteration %d (after the burn-in); on a non-quadratic log posterior the average of constant-step SGD stays O(η) from the MAP: a smaller --step shrinks that bias and slows the start",
			a, b.c.burnin+1)
	}
	return sampler.PolyakSGD{Step: sched, Batch: b.minibatch(), Clip: b.clipping(), Start: b.c.burnin}, nil
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
