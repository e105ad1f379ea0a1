package fit

import (
	"context"
	"fmt"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/schedule"
)

// SamplerDef is one entry of langevin run's sampler table: {sampler}'s
// help, validation and description come from the table, and a new sampler
// is one file that registers its entry from an init function (see
// docs/contributing.md).
type SamplerDef struct {
	name    string
	family  string // one of families: groups run -h and the list of {sampler}
	summary string // one line for run -h
	// flags names the flag groups the sampler reads besides the common
	// ones (see flagGroup); giving a flag of a group no chosen sampler reads
	// is an error naming the samplers that read it.
	flags []string
	// kind says what the draws are and what the sampler needs.
	Kind SamplerKind
	// build returns the sampler for the run (called once, after the data,
	// the model and, when needed, the Laplace approximation).
	Build func(ctx context.Context, b *BuildEnv) (langevin.Sampler, error)
	// check, when not nil, validates the configuration for this sampler.
	Check func(c *Config) error
	// resolve, when not nil, sets the sampler's own defaults of the run
	// (chains, iterations, burn-in, thinning, initial points) in place of
	// the SG-MCMC ones, and refuses the flags it cannot honour.
	resolve func(c *Config) error
	// misfit, when not empty, names the sampler's known way of missing the
	// posterior, for the misfit warning (misfitWhy; empty: the bias of a
	// stochastic-gradient sampler).
	misfit string
}

// Family is the sampler's family, one of Families.
func (d *SamplerDef) Family() string { return d.family }

// SamplerKind describes how the run treats a sampler.
type SamplerKind struct {
	Optimiser   bool // GD/SGD: the draws are a trajectory
	Exact       bool // full-data MCMC with warm-up (own iteration defaults)
	laplace     bool // takes the Laplace diagonal as preconditioner ({precond} laplace)
	Minibatch   bool // reads {batch} and takes {cv}
	needsBurnin bool // fits during burn-in (SWAG, VI)
	NoWarmup    bool // the burn-in is not kept (ensemble: every member's Adam path, d numbers an iteration)
}

// Families are the families of samplers, in the order of run -h.
var Families = []string{"optimisers", "SG-MCMC", "Mandt et al. (2017)", "approximations", "exact", "automatic"}

var (
	SamplerTable = map[string]*SamplerDef{}
	samplerOrder []string // registration order
)

// RegisterSampler adds d to SamplerTable; a name registered twice panics.
func RegisterSampler(d *SamplerDef) {
	if _, dup := SamplerTable[d.name]; dup {
		panic("langevin: sampler " + d.name + " registered twice")
	}
	found := false
	for _, f := range Families {
		found = found || f == d.family
	}
	if !found || d.Build == nil {
		panic("langevin: sampler " + d.name + ": unknown family or no build function")
	}
	SamplerTable[d.name] = d
	samplerOrder = append(samplerOrder, d.name)
	Methods[d.name] = familyMethod[d.family](d.name)
}

// SamplerNames returns the registered names, family by family.
func SamplerNames() []string {
	var names []string
	for _, f := range Families {
		names = append(names, SamplersOf(f)...)
	}
	return names
}

// SamplersOf returns the registered samplers of family, in registration order.
func SamplersOf(family string) []string {
	var names []string
	for _, n := range samplerOrder {
		if SamplerTable[n].family == family {
			names = append(names, n)
		}
	}
	return names
}

// SamplerHelp lists the samplers by family, for run -h.
func SamplerHelp() string {
	var sb strings.Builder
	for _, f := range Families {
		fmt.Fprintf(&sb, "  %s:\n", f)
		for _, n := range SamplersOf(f) {
			fmt.Fprintf(&sb, "    %-14s %s\n", n, SamplerTable[n].summary)
		}
	}
	return sb.String()
}

// Readers returns the samplers that read the flag group g.
func Readers(g string) []string {
	var names []string
	for _, n := range SamplerNames() {
		for _, fg := range SamplerTable[n].flags {
			if fg == g {
				names = append(names, n)
			}
		}
	}
	return names
}

// BuildEnv is what a sampler's build function gets: the configuration, the
// model, the run's one Laplace approximation and the preconditioner chosen
// from it.
type BuildEnv struct {
	C       *Config
	M       langevin.Model
	Lap     *approx.RunLaplace
	Precond []float64  // diag of the Laplace covariance with {precond} laplace, else nil
	MapTh   []float64  // the MAP (nil when not found)
	Points  *mat.Dense // held-out points at which a network's convergence is judged (nil: none)

	// Set by the build: the step-size schedule (nil when the sampler has
	// none) and its a (the step of {step} or of the default rule), recorded
	// with the draws.
	Sched schedule.Schedule
	StepA float64

	Auto *autoRun // set by {sampler} auto's build
	// Init, when set by the build, gives the chains' initial points
	// ({sampler} nuts on a formula model with group terms, without {init}).
	Init langevin.Initializer
	// Glm, set by {sampler} laplace on a regression network, is the
	// linearised Laplace approximation: its draws predict through the
	// network linearised at the MAP.
	Glm *approx.GLMLaplace
	// stepNote, set by SGLD's build, says how the step stands against the
	// stability cap (see stabilityCap); printed with the summary.
	StepNote string
	// schedNote warns of a polynomial decay outside 0.5 < γ ≤ 1
	// (schedule.Polynomial.Warning); printed before the run and with the
	// summary.
	SchedNote string
	// MisfitHint, set by a build that can measure why its sampler would
	// miss the posterior on these data (IASG's window against its
	// correlation time, a batch close to N), is added to the misfit
	// warning (PrintMisfit).
	MisfitHint string
}

// recordStep records a sampler's own constant step (one not from {schedule}).
func (b *BuildEnv) recordStep(eta float64) { b.Sched, b.StepA = schedule.Constant(eta), eta }

// schedule returns the step-size schedule of the flags, with the default
// step a of the rule when {step} is not given.
func (b *BuildEnv) schedule(a float64) (schedule.Schedule, error) {
	c := b.C
	if c.StepSet {
		a = c.Step
	}
	var s schedule.Schedule
	switch c.Schedule {
	case "const":
		s = schedule.Constant(a)
	case "cyclic":
		s = schedule.Cyclical{Eta0: a, Iters: c.Iters, Cycles: c.Cycles, Explore: c.Explore}
	default:
		poly := schedule.Polynomial{A: a, B: c.StepB, Gamma: c.Decay}
		s = poly
		if c.StepFloor > 0 {
			s = schedule.Floored{S: poly, Floor: c.StepFloor}
		}
		if w := poly.Warning(); w != "" {
			b.SchedNote = "warning: {decay}: " + w
		}
	}
	if err := s.Validate(); err != nil {
		return nil, InputErrorf("{step}/{schedule}: %v", err)
	}
	b.Sched, b.StepA = s, a
	return s, nil
}

// FlagGroup is a set of flags shown together by run -h; the groups of the
// samplers' own flags are stored in runConfig.opts under their name.
type FlagGroup struct {
	Name, Title string
	// Define defines the group's flags on fs and returns the value they are
	// parsed into (stored in Config.Opts[name]).
	Define func(fs FlagDefiner) any
}

// FlagDefiner is where a flag group defines its settings: the command's
// flag set (a *flag.FlagSet), or DefaultConfig's record of their defaults.
type FlagDefiner interface {
	BoolVar(p *bool, name string, value bool, usage string)
	IntVar(p *int, name string, value int, usage string)
	Float64Var(p *float64, name string, value float64, usage string)
	StringVar(p *string, name string, value string, usage string)
}

var FlagGroups []FlagGroup

// RegisterFlags adds the flag group g to FlagGroups.
func RegisterFlags(g FlagGroup) { FlagGroups = append(FlagGroups, g) }

// Opt returns the parsed flags of group name, as the type its define
// function returned.
func Opt[T any](c *Config, name string) T { return c.Opts[name].(T) }

// BlockPlanned reports whether {sampler} auto's plan preconditions with a
// block-arrow Hessian (a hierarchical model; see BlockPlanned).
func (b *BuildEnv) BlockPlanned() bool {
	return b.Auto != nil && b.Auto.plan != nil && b.Auto.plan.Arrow != nil
}
