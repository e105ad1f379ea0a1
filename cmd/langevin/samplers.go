package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/schedule"
)

// A samplerDef is one entry of langevin run's sampler table: --sampler's
// help, validation and description come from the table, and a new sampler
// is one file that registers its entry from an init function (see
// docs/contributing.md).
type samplerDef struct {
	name    string
	family  string // one of families: groups run -h and the list of --sampler
	summary string // one line for run -h
	// flags names the flag groups the sampler reads besides the common
	// ones (see flagGroup); giving a flag of a group no chosen sampler reads
	// is an error naming the samplers that read it.
	flags []string
	// kind says what the draws are and what the sampler needs.
	kind samplerKind
	// build returns the sampler for the run (called once, after the data,
	// the model and, when needed, the Laplace approximation).
	build func(ctx context.Context, b *buildEnv) (langevin.Sampler, error)
	// check, when not nil, validates the configuration for this sampler.
	check func(c *runConfig) error
	// resolve, when not nil, sets the sampler's own defaults of the run
	// (chains, iterations, burn-in, thinning, initial points) in place of
	// the SG-MCMC ones, and refuses the flags it cannot honour.
	resolve func(c *runConfig) error
}

// samplerKind describes how the run treats a sampler.
type samplerKind struct {
	optimiser   bool // GD/SGD: the draws are a trajectory
	exact       bool // full-data MCMC with warm-up (own iteration defaults)
	laplace     bool // takes the Laplace diagonal as preconditioner (--precond laplace)
	minibatch   bool // reads --batch and takes --cv
	needsBurnin bool // fits during burn-in (SWAG, VI)
	noWarmup    bool // the burn-in is not kept (ensemble: every member's Adam path, d numbers an iteration)
}

// The families, in the order of run -h.
var families = []string{"optimisers", "SG-MCMC", "Mandt et al. (2017)", "approximations", "exact", "automatic"}

var (
	samplerTable = map[string]*samplerDef{}
	samplerOrder []string // registration order
)

func registerSampler(d *samplerDef) {
	if _, dup := samplerTable[d.name]; dup {
		panic("langevin: sampler " + d.name + " registered twice")
	}
	found := false
	for _, f := range families {
		found = found || f == d.family
	}
	if !found || d.build == nil {
		panic("langevin: sampler " + d.name + ": unknown family or no build function")
	}
	samplerTable[d.name] = d
	samplerOrder = append(samplerOrder, d.name)
}

// samplerNames returns the registered names, family by family.
func samplerNames() []string {
	var names []string
	for _, f := range families {
		names = append(names, samplersOf(f)...)
	}
	return names
}

func samplersOf(family string) []string {
	var names []string
	for _, n := range samplerOrder {
		if samplerTable[n].family == family {
			names = append(names, n)
		}
	}
	return names
}

// samplerHelp lists the samplers by family, for run -h.
func samplerHelp() string {
	var sb strings.Builder
	for _, f := range families {
		fmt.Fprintf(&sb, "  %s:\n", f)
		for _, n := range samplersOf(f) {
			fmt.Fprintf(&sb, "    %-14s %s\n", n, samplerTable[n].summary)
		}
	}
	return sb.String()
}

// readers returns the samplers that read the flag group g.
func readers(g string) []string {
	var names []string
	for _, n := range samplerNames() {
		for _, fg := range samplerTable[n].flags {
			if fg == g {
				names = append(names, n)
			}
		}
	}
	return names
}

// buildEnv is what a sampler's build function gets: the configuration, the
// model, the run's one Laplace approximation and the preconditioner chosen
// from it.
type buildEnv struct {
	c       *runConfig
	m       langevin.Model
	lap     *approx.RunLaplace
	precond []float64  // diag of the Laplace covariance with --precond laplace, else nil
	mapTh   []float64  // the MAP (nil when not found)
	points  *mat.Dense // held-out points at which a network's convergence is judged (nil: none)

	// Set by the build: the step-size schedule (nil when the sampler has
	// none) and its a (the step of --step or of the default rule), recorded
	// with the draws.
	sched schedule.Schedule
	stepA float64

	auto *autoRun // set by --sampler auto's build
	// glm, set by --sampler laplace on a regression network, is the
	// linearised Laplace approximation: its draws predict through the
	// network linearised at the MAP.
	glm *approx.GLMLaplace
	// stepNote, set by SGLD's build, says how the step stands against the
	// stability cap (see stabilityCap); printed with the summary.
	stepNote string
	// schedNote warns of a polynomial decay outside 0.5 < γ ≤ 1
	// (schedule.Polynomial.Warning); printed before the run and with the
	// summary.
	schedNote string
}

// recordStep records a sampler's own constant step (one not from --schedule).
func (b *buildEnv) recordStep(eta float64) { b.sched, b.stepA = schedule.Constant(eta), eta }

// schedule returns the step-size schedule of the flags, with the default
// step a of the rule when --step is not given.
func (b *buildEnv) schedule(a float64) (schedule.Schedule, error) {
	c := b.c
	if c.stepSet {
		a = c.step
	}
	var s schedule.Schedule
	switch c.schedule {
	case "const":
		s = schedule.Constant(a)
	case "cyclic":
		s = schedule.Cyclical{Eta0: a, Iters: c.iters, Cycles: c.cycles, Explore: c.explore}
	default:
		poly := schedule.Polynomial{A: a, B: c.stepB, Gamma: c.decay}
		s = poly
		if c.stepFloor > 0 {
			s = schedule.Floored{S: poly, Floor: c.stepFloor}
		}
		if w := poly.Warning(); w != "" {
			b.schedNote = "warning: --decay: " + w
		}
	}
	if err := s.Validate(); err != nil {
		return nil, inputErrorf("--step/--schedule: %v", err)
	}
	b.sched, b.stepA = s, a
	return s, nil
}

// flagGroup is a set of flags shown together by run -h; the groups of the
// samplers' own flags are stored in runConfig.opts under their name.
type flagGroup struct {
	name, title string
	// define defines the group's flags on fs and returns the value they are
	// parsed into (stored in runConfig.opts[name]).
	define func(fs *flag.FlagSet) any
}

var flagGroups []flagGroup

func registerFlags(g flagGroup) { flagGroups = append(flagGroups, g) }

// opt returns the parsed flags of group name, as the type its define
// function returned.
func opt[T any](c *runConfig, name string) T { return c.opts[name].(T) }

// familyMembers returns the registered samplers of a family, in registration
// order.
func familyMembers(family string) []string {
	var names []string
	for _, n := range samplerOrder {
		if samplerTable[n].family == family {
			names = append(names, n)
		}
	}
	return names
}
