package main

import (
	"flag"
	"math"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// familyFlags are the flags of the SG-MCMC family (pSGLD, SGHMC, cyclical
// samplers, control variates, tempering) and of the toy targets.
type familyFlags struct {
	friction         float64
	alpha, lambda    float64
	explore          float64
	cv               bool
	thermostat       bool
	temperatureStart float64
	gradNoise        float64
	rho              float64

	cvCentre []float64 // the MAP, set by cmdRun when --cv is given
}

func addFamilyFlags(fs *flag.FlagSet, f *familyFlags) {
	fs.Float64Var(&f.friction, "friction", 0.1, "SGHMC friction `α` ∈ (0, 1]: v ← (1−α)v + η M⁻¹ĝ + N(0, 2αητM⁻¹), θ ← θ + v (α = 1 is SGLD)")
	fs.Float64Var(&f.alpha, "alpha", 0.99, "pSGLD's moving-average weight `α` of V ← αV + (1−α)ḡ⊙ḡ (1 freezes V)")
	fs.Float64Var(&f.lambda, "lambda", 1e-5, "pSGLD's `λ` in G = diag(1 ⊘ (λ + √V))")
	fs.Float64Var(&f.explore, "explore", 0, "fraction `F` of each cycle of the cyclic schedule spent exploring (no injected noise, draws not kept); csgld/csghmc default 0.5")
	fs.BoolVar(&f.thermostat, "thermostat", false, "SGHMC/cSGHMC: adaptive friction ξ ← ξ + vᵀMv/d − ητ started at --friction (SGNHT, Ding et al. 2014)")
	fs.BoolVar(&f.cv, "cv", false, "control-variate gradient estimator around the MAP (Baker et al. 2019), for every stochastic-gradient sampler")
	fs.Float64Var(&f.temperatureStart, "temperature-start", 0, "anneal the temperature geometrically from `T0` to --temperature over the burn-in (0: off)")
	fs.Float64Var(&f.gradNoise, "grad-noise", 0, "toy targets: sd `S` of the N(0, S²I) noise injected into the gradient")
	fs.Float64Var(&f.rho, "rho", 0.9, "gauss2: correlation `ρ` of the two coordinates")
}

// toyModel reports whether the model is a toy target that needs no data.
func toyModel(name string) bool { return name == "gauss2" || name == "mixture25" }

// familySampler reports whether the sampler is one of the SG-MCMC family
// (sampling, not optimising).
func familySampler(name string) bool {
	switch name {
	case "sgld", "psgld", "sghmc", "csgld", "csghmc":
		return true
	}
	return false
}

// usesPrecond reports whether the sampler takes the Laplace preconditioner
// (SGLD's M, SGHMC's inverse mass M⁻¹).
func usesPrecond(f *runFlags) bool {
	return f.precond == "laplace" && (f.sampler == "sgld" || f.sampler == "csgld" || f.sampler == "sghmc" || f.sampler == "csghmc")
}

func (f *runFlags) validateFamily() error {
	ff := &f.family
	switch {
	case !(ff.friction > 0 && ff.friction <= 1):
		return inputErrorf("--friction %v: expected 0 < α ≤ 1", ff.friction)
	case !(ff.alpha > 0 && ff.alpha <= 1):
		return inputErrorf("--alpha %v: expected 0 < α ≤ 1", ff.alpha)
	case !(ff.lambda > 0) || math.IsInf(ff.lambda, 0):
		return inputErrorf("--lambda %v: expected a positive number", ff.lambda)
	case !(ff.explore >= 0 && ff.explore < 1):
		return inputErrorf("--explore %v: expected a fraction 0 ≤ F < 1", ff.explore)
	case !(ff.temperatureStart >= 0) || math.IsInf(ff.temperatureStart, 0):
		return inputErrorf("--temperature-start %v: expected T0 > 0 (0: off)", ff.temperatureStart)
	case ff.temperatureStart > 0 && f.burnin == 0:
		return inputErrorf("--temperature-start %v: needs a burn-in to anneal over (--burnin > 0)", ff.temperatureStart)
	case !(ff.gradNoise >= 0) || math.IsInf(ff.gradNoise, 0):
		return inputErrorf("--grad-noise %v: expected an sd ≥ 0", ff.gradNoise)
	case !(math.Abs(ff.rho) < 1):
		return inputErrorf("--rho %v: expected −1 < ρ < 1", ff.rho)
	case ff.thermostat && f.sampler != "sghmc" && f.sampler != "csghmc":
		return inputErrorf("--thermostat: only for --sampler sghmc|csghmc")
	case ff.cv && (f.sampler == "gd" || f.batch == 0):
		return inputErrorf("--cv: needs a minibatch sampler (--batch > 0, not gd)")
	case ff.explore > 0 && f.schedule != "cyclic" && f.sampler != "csgld" && f.sampler != "csghmc":
		return inputErrorf("--explore %v: only the cyclic schedule has an exploration phase (--schedule cyclic or --sampler csgld|csghmc)", ff.explore)
	case (f.sampler == "csgld" || f.sampler == "csghmc") && f.set["schedule"] && f.schedule != "cyclic":
		return inputErrorf("--schedule %s: --sampler %s runs on the cyclic schedule", f.schedule, f.sampler)
	case f.gradNoise() > 0 && !toyModel(f.model):
		return inputErrorf("--grad-noise: only for the toy targets (--model gauss2|mixture25)")
	case toyModel(f.model) && f.set["batch"] && f.batch > 1:
		return inputErrorf("--batch %d: the toy target %s has a single observation (use 0 or 1)", f.batch, f.model)
	}
	if f.sampler == "csgld" || f.sampler == "csghmc" {
		f.schedule = "cyclic"
	}
	return nil
}

func (f *runFlags) gradNoise() float64 { return f.family.gradNoise }

// toyData stands in for the data of a toy target: no observations.
func toyData(f *runFlags) *data.Dataset {
	if !f.set["batch"] {
		f.batch = 0 // one observation: full batch
	}
	return &data.Dataset{Source: "no data (toy target " + f.model + ")"}
}

// familyExplore is the exploration fraction of the cyclic schedule.
func familyExplore(f *runFlags) float64 {
	if !f.set["explore"] && (f.sampler == "csgld" || f.sampler == "csghmc") {
		return 0.5
	}
	return f.family.explore
}

// familyDefaultStep is the default step of the family's samplers (ok false:
// not one of them). With the Laplace preconditioner (in M⁻¹ units for SGHMC)
// the gradient noise adds about ηN/(2αB) to the relative variance (α = 1 for
// SGLD), so η = 0.1·αB/N keeps it near 5%; without it, the rule is divided
// by N. pSGLD's G ≈ √B/s near the mode makes its preconditioned curvature
// about N s√B (s the per-observation gradient sd), so η = c·√B/N² gives a
// relaxation time of about 1/(c·s) steps; c = 1 (η ≈ 1e-5 for the default
// job) gives a bulk-ESS close to SGLD's default on the Australian data.
// Toy targets (N = 1, curvature up to 10 for
// gauss2 with ρ = 0.9, 33 for mixture25) use 0.01.
func familyDefaultStep(f *runFlags, n int) (float64, bool) {
	if !familySampler(f.sampler) {
		return 0, false
	}
	if toyModel(f.model) {
		return sampler.StepToyStable, true
	}
	if f.sampler == "sgld" {
		return 0, false // defaultStep
	}
	if f.sampler == "psgld" {
		return sampler.StepPSGLDRelax(n, f.batch), true
	}
	alpha := 1.0
	if f.sampler == "sghmc" || f.sampler == "csghmc" {
		alpha = f.family.friction
	}
	return sampler.StepNoiseFraction(n, f.batch, alpha, f.precond == "laplace"), true
}

// buildFamilySampler builds pSGLD, SGHMC, cSGLD and cSGHMC.
func buildFamilySampler(f *runFlags, sched schedule.Schedule, mb sampler.Minibatch, clip sampler.Clipping, precond []float64) langevin.Sampler {
	ts, burn := f.family.temperatureStart, f.burnin
	if ts == 0 {
		burn = 0
	}
	switch f.sampler {
	case "psgld":
		return sampler.PSGLD{Step: sched, Batch: mb, Alpha: f.family.alpha, Lambda: f.family.lambda,
			Temperature: f.temperature, Clip: clip, TemperatureStart: ts, BurnIn: burn}
	case "sghmc", "csghmc":
		var mass []float64
		if precond != nil {
			mass = make([]float64, len(precond))
			for j, p := range precond {
				mass[j] = 1 / p
			}
		}
		return sampler.SGHMC{Step: sched, Batch: mb, Friction: f.family.friction, Mass: mass, Thermostat: f.family.thermostat,
			Temperature: f.temperature, Clip: clip, TemperatureStart: ts, BurnIn: burn}
	default: // csgld
		return sampler.SGLD{Step: sched, Batch: mb, Temperature: f.temperature, Clip: clip, NoiseEvery: f.noiseEvery,
			Precond: precond, TemperatureStart: ts, BurnIn: burn}
	}
}

// noiseFree strips injected gradient noise, for the MAP and the Laplace
// preconditioner.
func noiseFree(m langevin.Model) langevin.Model {
	if nm, ok := m.(model.NoisyGradient); ok {
		return nm.Model
	}
	return m
}
