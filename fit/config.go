package fit

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/internal/budget"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// MaxChains bounds {chains}: each chain holds its own buffers and file.
const MaxChains = 1024

// Config is the configuration of langevin run: parsed once from the
// command line by parseRun, with every default resolved, and only read
// afterwards. Scripts call the flags: extend them, do not rename.
type Config struct {
	// data
	Data, Test, Target, Format string
	Columns                    ColumnFlags // {id}, {drop}, {categorical}, {missing}
	TestFrac                   float64
	Split                      int // {data} a UCI benchmark folder: its split
	Standardize                bool
	N, K                       int     // generated data: points, spiral arms
	Noise                      float64 // generated data: noise
	// Labels, when not nil, are the two response values recoded as the
	// binary labels 0, 1 (data.TwoLabels): found by the run's reading of
	// {data}, from model.json for predict and compare.
	Labels []float64
	// model
	Formula    FormulaConfig // {formula}, {family}, {priors}
	Stan       string        // {stan}: a Stan program; {data} is its data in CmdStan's JSON format
	Rows       string        // {rows}: the Stan program's row count (a data int); its likelihood is subsampled by rows
	Model      string
	Intercept  bool
	PriorScale float64
	Mlp        mlpConfig
	GradNoise  float64 // toy targets
	Rho        float64 // gauss2
	Offset     string  // poisson, negbin: offset column
	Exposure   string  // poisson, negbin: exposure column (offset = log exposure)
	Nu         float64 // robust: fixed degrees of freedom (0: estimated)
	// run
	Sampler                     string
	Def                         *SamplerDef
	Chains, Iters, Burnin, Thin int
	ChainID                     int // run only this chain (1-based) of the chains; 0: all
	Seed                        uint64
	Init, Precond, Out          string
	Quiet, Report, Overwrite    bool
	TargetESS                   float64       // {sampler} auto: stop at this min bulk-ESS
	MaxTime                     time.Duration // time budget of the job, every sampler (0: none)
	Resume                      string        // {resume} DIR (handled before the flags are parsed: resumeArgs)
	Checkpoint                  time.Duration // {checkpoint}: time between checkpoints (0: none)
	Planned                     bool          // {sampler} sgld untuned: auto's plan with SGLD forced (plannedSGLD)
	PlanKind                    string        // {sampler} auto: the kind of sampler its plan must take ("": the cost rule; fit.Run's method)
	PrecondWhy                  string        // why {precond} defaulted to none (multimodal target or cyclical sampler); printed with the result
	// step size
	Step                float64
	StepSet             bool
	Schedule            string
	StepB, Decay        float64
	StepFloor           float64 // {step-floor}: schedule.Floored on the polynomial schedule; 0: none
	Cycles              int
	Explore             float64
	Temperature, TStart float64
	// stochastic gradients
	Batch           int
	Replace, Cv     bool
	Clip, ClipValue float64
	NoiseEvery      int

	Set  map[string]bool // flags given on the command line
	Opts map[string]any  // the sampler groups' own flags (flagGroup)

	// rhat is the R̂ rule of the run's stop, for its warnings (set by
	// {sampler} auto's Adjust; zero: R̂ ≤ 1.01 for every quantity).
	rhat RHatRule
}

// mlpConfig are the flags of {model} mlp.
type mlpConfig struct {
	Hidden, Activation, Likelihood string
	Classes                        int
	NoiseVar                       float64
	LearnNoise                     bool
	NoiseModel                     string // auto|homo|hetero (Gaussian networks)
	MapIters, MapBatch             int
	MapLR                          float64
	ChainWeights                   string // stacking|equal: the chains' weights in the predictive
}

// Reads reports whether the sampler reads the flag group group.
func (d *SamplerDef) Reads(group string) bool {
	for _, g := range d.flags {
		if g == group {
			return true
		}
	}
	return false
}

// Toy reports whether the model is a toy target that needs no data.
func (c *Config) Toy() bool { return !(model.Spec{Kind: c.Model}).NeedsData() }

// plannedTuning are the flags that tune SGLD by hand: any of them keeps
// {sampler} sgld on its own rules (the noise-fraction step under the
// stability cap, the diagonal preconditioner, {iters} iterations).
var plannedTuning = []string{"step", "iters", "precond", "schedule", "step-b", "decay", "step-floor",
	"temperature", "temperature-start", "replace", "clip", "clip-value", "chain-id"}

// plannedSGLD reports whether {sampler} sgld runs on {sampler} auto's plan
// with SGLD forced (PlanOptions.Kind = "sgld"): the step by
// sampler.ChooseStep under the dense Laplace preconditioner, control
// variates where they pay, the plan's burn-in, and a run until
// {target-ess} — the same rules as auto's SGLD branch, for the same reason
// (the old fixed 500,000 iterations at the capped step do not converge on
// correlated posteriors). Only for data models other than networks, and
// only when no flag of plannedTuning is given.
func (c *Config) plannedSGLD() bool {
	if c.Sampler != "sgld" || c.Toy() || c.Model == "mlp" {
		return false
	}
	for _, f := range plannedTuning {
		if c.Set[f] {
			return false
		}
	}
	return true
}

// Resolve sets the defaults that depend on the model and the sampler.
func (c *Config) Resolve() error {
	if c.Toy() && !c.Set["batch"] {
		c.Batch = 0 // one observation: full batch
	}
	if c.Sampler == "auto" && !c.Set["sampler"] && (c.Set["step"] || c.Set["schedule"]) {
		// A step or schedule given without a sampler tunes SGLD, the
		// default before {sampler} auto.
		c.Sampler, c.Def = "sgld", SamplerTable["sgld"]
	}
	if c.Model == "mlp" {
		// {sampler} auto (the default) runs the network plan
		// (sampler.NewNetPlan): its own starts, modes and preconditioner.
		switch {
		case c.Sampler != "auto" && !c.Set["init"]:
			c.Init = "map"
		case c.Sampler == "auto" && c.Set["init"]:
			return InputErrorf("{init} %s: {sampler} auto on a network starts each chain at its own mode (the network plan's multi-start MAP)", c.Init)
		case c.Sampler == "auto":
			c.Init = "prior" // not used: the plan starts the chains at its modes
		}
		if c.Sampler == "auto" && (c.Set["map-batch"] || c.Set["map-lr"]) {
			return InputErrorf("{map-batch}/{map-lr}: {sampler} auto on a network runs Adam at {batch} with its own learning rate (10⁻² decaying to 10⁻³); {map-iters} sets its iterations")
		}
		if !c.Set["precond"] {
			c.Precond = "none"
		}
	}
	if why := multimodalWhy(c.Model, c.Sampler); why != "" && !c.Set["precond"] && c.Precond == "laplace" {
		c.Precond, c.PrecondWhy = "none", why
	}
	c.Planned = c.plannedSGLD()
	if c.Sampler == "csgld" || c.Sampler == "csghmc" {
		if c.Set["schedule"] && c.Schedule != "cyclic" {
			return InputErrorf("{schedule} %s: {sampler} %s runs on the cyclic schedule", c.Schedule, c.Sampler)
		}
		c.Schedule = "cyclic"
		if !c.Set["explore"] {
			c.Explore = 0.5
		}
		if c.Sampler == "csgld" && c.Model == "mixture25" && !c.Set["cycles"] {
			// One cycle explores once: Zhang et al.'s 30 (printed with the step).
			c.Cycles = min(sampler.CyclesExplore, c.Iters)
		}
	}
	if c.Sampler != "auto" && !c.Planned {
		// {max-time} holds for every sampler (the draws so far are kept);
		// the ESS rule is the plan's
		if c.Set["target-ess"] {
			return InputErrorf("{target-ess}: only for {sampler} auto (the default) and an untuned {sampler} sgld")
		}
	}
	if c.Def.Kind.Exact {
		return c.resolveExact()
	}
	if c.Def.resolve != nil {
		return c.Def.resolve(c)
	}
	if c.Sampler == "swag" && c.Model == "mlp" {
		swagNetLength(c)
	}
	if c.Sampler == "iasg" && c.Model == "mlp" {
		iasgNetLength(c)
	}
	if c.Sampler == "sgld" && c.Set["chain-id"] && !c.Set["iters"] && c.Chains > 1 && !c.Toy() && c.Model != "mlp" {
		// Without {chain-id}, an untuned {sampler} sgld runs auto's plan,
		// whose length needs all chains.
		return InputErrorf("{chain-id} with {sampler} sgld: give {iters} (the run of all chains would otherwise follow auto's plan, whose {target-ess} rule needs all chains)")
	}
	if c.Sampler == "auto" || c.Planned {
		// {iters} is a maximum; burn-in and thinning are chosen by rule.
		if c.Set["chain-id"] {
			// One chain of the analysis cannot see the others' ESS: it runs
			// to {iters}, as every chain of a run with {target-ess} 0 does.
			if !c.Set["iters"] {
				return InputErrorf("{chain-id} with {sampler} auto: give {iters} (the {target-ess} rule needs all chains, so a chain run alone runs to {iters}; its chains are those of {chains} K {iters} N {target-ess} 0)")
			}
			if c.Set["target-ess"] && c.TargetESS != 0 {
				return InputErrorf("{target-ess} %v with {chain-id}: a chain run alone runs to {iters} (the rule needs all chains); leave it out, or 0", c.TargetESS)
			}
			c.TargetESS = 0
		}
		if !c.Set["iters"] {
			c.Iters = 10_000_000
		}
		if !c.Set["burnin"] {
			c.Burnin = 0
		}
		if !c.Set["thin"] {
			c.Thin = 1
		}
		if !(c.TargetESS >= 0) || math.IsInf(c.TargetESS, 1) {
			return InputErrorf("{target-ess} %v: expected a number ≥ 0 (0: no ESS rule, run to {iters})", c.TargetESS)
		}
		if c.MaxTime < 0 {
			return InputErrorf("{max-time} %v: expected a duration ≥ 0", c.MaxTime)
		}
		return nil
	}
	if c.Set["iters"] && !c.Set["burnin"] {
		// Proportional to the defaults (50,000 of 500,000, thin 450): an
		// explicit {iters} alone never makes the burn-in too long.
		c.Burnin = c.Iters / 10
		if !c.Set["thin"] {
			c.Thin = max(1, int(float64(c.Iters)*450/500000+0.5))
		}
	}
	return nil
}

// OneOf returns an input error naming {flag}Name unless v is one of allowed.
func OneOf(flagName, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return InputErrorf("{%s} %q: expected one of %s", flagName, v, strings.Join(allowed, ", "))
}

// Validate checks the settings that need no data and returns an input error
// naming the first flag out of range.
func (c *Config) Validate() error {
	if c.Checkpoint < 0 {
		return InputErrorf("{checkpoint} %v: expected a duration ≥ 0 (0: no checkpoints)", c.Checkpoint)
	}
	if c.Set["checkpoint"] && c.Out == "" && !c.Report {
		return InputErrorf("{checkpoint} %v: checkpoints go into the run's directory: give {out} DIR", c.Checkpoint)
	}
	if !c.Set["thin"] && c.Iters > c.Burnin && c.Thin > c.Iters-c.Burnin {
		// The default thin suits the default run length; a short run
		// keeps about 1000 draws per chain instead of one.
		c.Thin = max(1, (c.Iters-c.Burnin)/1000)
	}
	for _, o := range []struct {
		name, v string
		allowed []string
	}{
		{"schedule", c.Schedule, []string{"const", "poly", "cyclic"}},
		{"init", c.Init, []string{"zero", "map", "prior", "laplace", "random", "uniform"}},
		{"precond", c.Precond, []string{"laplace", "none"}},
		{"format", c.Format, append(append([]string{"auto"}, data.Formats()...), "uci")},
	} {
		if err := OneOf(o.name, o.v, o.allowed...); err != nil {
			return err
		}
	}
	pos := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return InputErrorf("{%s} %v: expected a positive number", name, v)
		}
		return nil
	}
	for _, p := range []struct {
		name string
		v    float64
		need bool
	}{{"step", c.Step, c.StepSet}, {"prior-scale", c.PriorScale, c.Set["prior-scale"]}, {"temperature", c.Temperature, true}} {
		if p.need {
			if err := pos(p.name, p.v); err != nil {
				return err
			}
		}
	}
	glmOffset := c.Model == "poisson" || c.Model == "negbin"
	switch {
	case c.Offset != "" && c.Exposure != "":
		return InputErrorf("{offset} %s and {exposure} %s: give one (the offset is the log of the exposure)", c.Offset, c.Exposure)
	case (c.Set["offset"] || c.Set["exposure"]) && !glmOffset:
		return InputErrorf("{offset}/{exposure}: only for {model} poisson|negbin, not %s", c.Model)
	case c.Set["nu"] && c.Model != "robust":
		return InputErrorf("{nu}: only for {model} robust, not %s", c.Model)
	case c.Set["nu"] && (!(c.Nu > 0) || math.IsInf(c.Nu, 0)):
		return InputErrorf("{nu} %v: expected a positive number", c.Nu)
	case c.Chains < 1 || c.Chains > MaxChains:
		return InputErrorf("{chains} %d: expected 1 to %d", c.Chains, MaxChains)
	case c.ChainID < 0 || c.ChainID > c.Chains:
		return InputErrorf("{chain-id} %d: expected a chain number from 1 to {chains} (%d), or 0 for all", c.ChainID, c.Chains)
	case c.Iters < 1:
		return InputErrorf("{iters} %d: expected at least 1", c.Iters)
	case c.Burnin < 0 || c.Burnin >= c.Iters:
		return InputErrorf("{burnin} %d: expected 0 ≤ burn-in < {iters} (%d)", c.Burnin, c.Iters)
	case c.Thin < 1:
		return InputErrorf("{thin} %d: expected at least 1", c.Thin)
	case c.Thin > c.Iters-c.Burnin:
		return InputErrorf("{thin} %d: more than the %d sampling iterations ({iters} %d − {burnin} %d): each chain would keep one draw, too few for any diagnostic", c.Thin, c.Iters-c.Burnin, c.Iters, c.Burnin)
	case c.Batch < 0:
		return InputErrorf("{batch} %d: expected 0 (full batch) or a positive size", c.Batch)
	case c.Cycles < 1 || c.Cycles > c.Iters:
		return InputErrorf("{cycles} %d: expected 1 ≤ cycles ≤ {iters} (%d)", c.Cycles, c.Iters)
	case !(c.Decay >= 0) || math.IsInf(c.Decay, 0):
		return InputErrorf("{decay} %v: expected γ ≥ 0", c.Decay)
	case !(c.StepFloor >= 0) || math.IsInf(c.StepFloor, 0):
		return InputErrorf("{step-floor} %v: expected a step ≥ 0 (0: no floor)", c.StepFloor)
	case c.StepFloor > 0 && c.Schedule != "poly":
		return InputErrorf("{step-floor} %v: floors the polynomial schedule; expected {schedule} poly, got %s", c.StepFloor, c.Schedule)
	case !(c.StepB > -1) || math.IsInf(c.StepB, 0):
		return InputErrorf("{step-b} %v: expected b > −1", c.StepB)
	case !(c.Clip >= 0) || math.IsInf(c.Clip, 0):
		return InputErrorf("{clip} %v: expected c ≥ 0 (0: off)", c.Clip)
	case !(c.ClipValue >= 0) || math.IsInf(c.ClipValue, 0):
		return InputErrorf("{clip-value} %v: expected c ≥ 0 (0: off)", c.ClipValue)
	case !(c.TestFrac >= 0 && c.TestFrac < 1):
		return InputErrorf("{test-frac} %v: expected a fraction in [0, 1) (0: fit on all the data, no test set)", c.TestFrac)
	case c.NoiseEvery < 0:
		return InputErrorf("{noise-every} %d: expected ≥ 0", c.NoiseEvery)
	case c.Def.Kind.needsBurnin && c.Burnin < 1:
		return InputErrorf("{burnin} %d: {sampler} %s fits its approximation during burn-in: expected at least 1", c.Burnin, c.Sampler)
	case !(c.Explore >= 0 && c.Explore < 1):
		return InputErrorf("{explore} %v: expected a fraction 0 ≤ F < 1", c.Explore)
	case !(c.TStart >= 0) || math.IsInf(c.TStart, 0):
		return InputErrorf("{temperature-start} %v: expected T0 > 0 (0: off)", c.TStart)
	case c.TStart > 0 && c.Burnin == 0:
		return InputErrorf("{temperature-start} %v: needs a burn-in to anneal over ({burnin} > 0)", c.TStart)
	case !(c.GradNoise >= 0) || math.IsInf(c.GradNoise, 0):
		return InputErrorf("{grad-noise} %v: expected an sd ≥ 0", c.GradNoise)
	case !(math.Abs(c.Rho) < 1):
		return InputErrorf("{rho} %v: expected −1 < ρ < 1", c.Rho)
	case c.Cv && (!c.Def.Kind.Minibatch || c.Batch == 0):
		return InputErrorf("{cv}: needs a minibatch sampler ({batch} > 0, not gd)")
	case c.Explore > 0 && c.Schedule != "cyclic":
		return InputErrorf("{explore} %v: only the cyclic schedule has an exploration phase ({schedule} cyclic or {sampler} csgld|csghmc)", c.Explore)
	case c.GradNoise > 0 && !c.Toy():
		return InputErrorf("{grad-noise}: only for the toy targets ({model} gauss2|mixture25)")
	case c.Init == "random" && c.Model != "mlp":
		return InputErrorf("{init} random: only for {model} mlp (a network's random fan-in start; other models: zero|map|prior|laplace|uniform)")
	case c.Toy() && c.Set["batch"] && c.Batch > 1:
		return InputErrorf("{batch} %d: the toy target %s has a single observation (use 0 or 1)", c.Batch, c.Model)
	}
	return c.validateMLP()
}

// validateMLP checks the flags of {model} mlp.
func (c *Config) validateMLP() error {
	if c.Model != "mlp" {
		return nil
	}
	m := &c.Mlp
	if _, err := parseHidden(m.Hidden); err != nil {
		return err
	}
	if _, err := model.ParseActivation(m.Activation); err != nil {
		return InputErrorf("{activation}: %v", err)
	}
	if m.Likelihood != "" {
		if _, err := model.ParseLikelihood(m.Likelihood); err != nil {
			return InputErrorf("{likelihood}: %v", err)
		}
	}
	switch {
	case m.Classes < 0 || m.Classes == 1:
		return InputErrorf("{classes} %d: expected at least 2 (0: from the labels)", m.Classes)
	case m.NoiseModel != "" && m.NoiseModel != "auto" && m.NoiseModel != "homo" && m.NoiseModel != "hetero":
		return InputErrorf("{noise-model} %q: expected auto, homo or hetero", m.NoiseModel)
	case m.NoiseModel == "hetero" && (c.Set["noise-var"] || c.Set["learn-noise"]):
		return InputErrorf("{noise-model} hetero with {noise-var} or {learn-noise}: the heteroscedastic network's noise is its second output (give {noise-model} homo, or drop them)")
	case !(m.NoiseVar > 0):
		return InputErrorf("{noise-var} %v: expected σ² > 0", m.NoiseVar)
	case m.ChainWeights != "" && m.ChainWeights != "stacking" && m.ChainWeights != "equal":
		return InputErrorf("{chain-weights} %q: expected stacking or equal", m.ChainWeights)
	case m.MapIters < 1 || m.MapBatch < 1 || !(m.MapLR > 0):
		return InputErrorf("{map-iters} %d, {map-batch} %d, {map-lr} %v: expected positive numbers", m.MapIters, m.MapBatch, m.MapLR)
	case c.Precond == "laplace" || c.Init == "laplace":
		return InputErrorf("{model} mlp: {init} laplace and {precond} laplace are not available (use {init} map|prior|zero, {precond} none)")
	}
	return nil
}

func parseHidden(s string) ([]int, error) {
	if s == "" || s == "0" {
		return nil, nil
	}
	return parseInts("hidden", s)
}

// Spec returns the model of the configuration (before the data resolve it).
func (c *Config) Spec() model.Spec {
	s := model.Spec{Kind: c.Model, NoIntercept: !c.Intercept}
	if c.Set["prior-scale"] {
		s.PriorScale = c.PriorScale
	}
	if set := kindSettings[c.Model]; set != nil {
		set(c, &s)
	}
	if c.Toy() && c.GradNoise > 0 {
		s.GradNoise, s.Seed = c.GradNoise, c.Seed
	}
	return s
}

// kindSettings set, by model kind, the settings of the kind's own flags in
// its spec (model.Spec lists the fields each kind reads).
var kindSettings = map[string]func(c *Config, s *model.Spec){
	"mlp": func(c *Config, s *model.Spec) {
		s.Hidden, _ = parseHidden(c.Mlp.Hidden)
		s.Activation, s.Likelihood, s.Classes = c.Mlp.Activation, c.Mlp.Likelihood, c.Mlp.Classes
		s.NoiseVar, s.LearnNoise = c.Mlp.NoiseVar, c.Mlp.LearnNoise
		s.NetDefaults = true // model.MLPDefaults: fan-in prior, standardised response
	},
	"gauss2":  func(c *Config, s *model.Spec) { s.Rho = c.Rho },
	"poisson": glmOffset,
	"negbin":  glmOffset,
	"robust":  func(c *Config, s *model.Spec) { s.Nu = c.Nu },
}

// glmOffset sets the count models' offset or exposure column.
func glmOffset(c *Config, s *model.Spec) {
	s.Offset = c.Offset
	if c.Exposure != "" {
		s.Offset, s.Exposure = c.Exposure, true
	}
}

// UsesLaplacePrecond reports whether the sampler gets the Laplace diagonal.
func (c *Config) UsesLaplacePrecond() bool { return c.Precond == "laplace" && c.Def.Kind.laplace }

// UsesLaplacePrecondOn is UsesLaplacePrecond for the model m: not under
// {sampler} auto's plan on a hierarchical model, whose block-arrow Hessian
// replaces the dense one (BlockPlanned), or whose cost plan brings its own
// metric (CostPlanned); not for {sampler} nuts on a CostPlanned model
// without {precond}, whose build takes the Laplace diagonal only at a mode
// that is not degenerate.
func (c *Config) UsesLaplacePrecondOn(m langevin.Model) bool {
	if c.Sampler == "auto" && (BlockPlanned(m, nil) || CostPlanned(m) || DiagPlanned(m, c.planKind())) {
		return false
	}
	if c.Sampler == "nuts" && !c.Set["precond"] && CostPlanned(m) {
		return false // buildExact: the Laplace diagonal only at a mode that is not degenerate
	}
	return c.UsesLaplacePrecond()
}

// planKind is the PlanOptions of {sampler} auto's plan as far as they
// decide its path (DiagPlanned): the sampler it is made to plan.
func (c *Config) planKind() *PlanOptions {
	o := &PlanOptions{}
	if c.Planned {
		o.Kind = "sgld"
	}
	if c.PlanKind != "" {
		o.Kind = c.PlanKind
	}
	return o
}

// UsesLaplaceInitOn reports whether the initial points of a run on m need
// the Laplace diagonal ({init} laplace): not when {sampler} auto's
// block-arrow plan (BlockPlanned) starts the chains at its own draws from
// N(θ̂, H⁻¹) (InitBlockArrow, unless {init} was given), since the diagonal
// costs 2d full-data gradients — 4,010 on 10⁶ rows at d = 2,005, more than
// the plan and the MAP together — that nothing would use; nor under a
// cost plan (CostPlanned), which starts the chains off a degenerate mode,
// nor for {sampler} nuts on such a model without {init} (buildExact).
func (c *Config) UsesLaplaceInitOn(m langevin.Model) bool {
	if c.Init != "laplace" {
		return false
	}
	if c.Sampler == "nuts" && !c.Set["init"] && CostPlanned(m) {
		return false // buildExact chooses the initial points
	}
	return !(c.Sampler == "auto" && !c.Set["init"] && (BlockPlanned(m, nil) || CostPlanned(m) || DiagPlanned(m, c.planKind())))
}

// Describe is the sampler's name and batch for the output's first line.
func (c *Config) Describe() string {
	var sb strings.Builder
	sb.WriteString(strings.ToUpper(c.Sampler))
	switch {
	case c.Def.Kind.Exact:
		sb.WriteString(" (full data)")
	case !c.Def.Kind.Minibatch:
	case c.Batch == 0:
		sb.WriteString(" (full batch)")
	default:
		fmt.Fprintf(&sb, " (batch %d)", c.Batch)
	}
	return sb.String()
}

// parseInts parses a comma-separated list of positive integers given to the
// flag {name}.
func parseInts(name, s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, InputErrorf("{%s} %q: expected comma-separated positive integers", name, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// multimodalWhy says why a Laplace preconditioner, the curvature of one
// mode, would be wrong by default for this model and sampler: a target known
// to have many modes (mixture25), or a cyclical sampler, whose large steps
// are meant to move between modes. Empty: the Laplace default stands.
func multimodalWhy(modelName, samplerName string) string {
	switch {
	case modelName == "mixture25":
		return "the target has 25 modes; a Laplace preconditioner fitted at one mode shrinks the steps to that mode's width"
	case samplerName == "csgld" || samplerName == "csghmc":
		return "{sampler} " + samplerName + " explores several modes; a Laplace preconditioner fitted at one mode would keep it there"
	}
	return ""
}

// ColumnFlags are the flags that say how a table's columns are read.
type ColumnFlags struct {
	Id, Drop, Categorical, Missing string
	NA, Sep, Decimal               string       // {na}, {sep}, {decimal}
	Coding                         *data.Coding // reading new rows: the run's coding
	OptionalTarget                 bool         // predict: the target may be absent
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// ReadSettings returns the read flags as model.json records them (nil
// when none differs from the default).
func (f *ColumnFlags) ReadSettings() *data.ReadSettings {
	rs := data.ReadSettings{NA: f.NA, Sep: f.Sep, Decimal: f.Decimal}
	if rs.Decimal == "." {
		rs.Decimal = ""
	}
	if rs == (data.ReadSettings{}) {
		return nil
	}
	return &rs
}

// UseRead sets the read flags from a run's settings rs (nil: none), but
// not those given (set[flag]): predict reads new rows as the run read its
// data, unless told otherwise.
func (f *ColumnFlags) UseRead(rs *data.ReadSettings, set map[string]bool) {
	if rs == nil {
		return
	}
	if !set["na"] && rs.NA != "" {
		f.NA = rs.NA
	}
	if !set["sep"] && rs.Sep != "" {
		f.Sep = rs.Sep
	}
	if !set["decimal"] && rs.Decimal != "" {
		f.Decimal = rs.Decimal
	}
}

// Check validates the column settings.
func (f *ColumnFlags) Check() error {
	if f.Missing != data.MissingError && f.Missing != data.MissingDrop && f.Missing != "" {
		return InputErrorf("{missing} %q: expected error or drop", f.Missing)
	}
	if f.Decimal != "" && f.Decimal != "." && f.Decimal != "," {
		return InputErrorf("{decimal} %q: expected . or ,", f.Decimal)
	}
	if _, err := f.delimiter(); err != nil {
		return err
	}
	if f.Decimal == "," && f.Sep == "," {
		return InputErrorf("{decimal} , with {sep} ,: the cells could not be told apart ({sep} ; is the usual delimiter with a decimal comma)")
	}
	return nil
}

// delimiter is {sep} as a rune (0: told from the file).
func (f *ColumnFlags) delimiter() (rune, error) {
	switch f.Sep {
	case "":
		return 0, nil
	case "tab", `\t`, "\t":
		return '\t', nil
	case "space", " ":
		return ' ', nil
	}
	if r := []rune(f.Sep); len(r) == 1 && r[0] != '"' && r[0] != '\n' && r[0] != '\r' {
		return r[0], nil
	}
	return 0, InputErrorf("{sep} %q: expected one character (or tab, space)", f.Sep)
}

// CsvOptions returns the reader's options for the target column target.
func (f *ColumnFlags) CsvOptions(target string) data.CSVOptions {
	delim, _ := f.delimiter() // checked by Check
	var dec rune
	if f.Decimal == "," {
		dec = ','
	}
	return data.CSVOptions{Target: target, ID: f.Id, Drop: splitList(f.Drop), Categorical: splitList(f.Categorical),
		Missing: f.Missing, Coding: f.Coding, OptionalTarget: f.OptionalTarget,
		NA: splitList(f.NA), Delimiter: delim, Decimal: dec}
}

// TableOptions returns the options of a named-column table (a {formula}
// run's data), with memory bound maxBytes.
func (f *ColumnFlags) TableOptions(maxBytes int64) data.TableOptions {
	o := f.CsvOptions("")
	return data.TableOptions{Missing: f.Missing, NA: o.NA, Delimiter: o.Delimiter, Decimal: o.Decimal, MaxBytes: maxBytes}
}

// FormulaConfig is the model of a {formula} run: the formula, its family
// and its priors.
type FormulaConfig struct {
	Text, Family, Priors string
}

// InputError is a usage or input error: exit code 2.
type InputError struct{ Err error }

func (e InputError) Error() string { return e.Err.Error() }
func (e InputError) Unwrap() error { return e.Err }

// InputErrorf is an InputError with fmt.Errorf's message.
func InputErrorf(format string, a ...any) error { return InputError{fmt.Errorf(format, a...)} }

// DefaultReportDir is where langevin run {report} writes when {out} is not
// given.
const DefaultReportDir = "langevin-out"

// IsUCI reports whether {data} is a folder of the UCI regression benchmark
// (data.UCI): {split} K picks its split.
func (c *Config) IsUCI() bool {
	return c.Format == "uci" || (c.Format == "auto" && data.IsUCIDir(c.Data))
}

// OffsetColumn returns the {offset} or {exposure} column and its flag ("" if
// neither).
func (c *Config) OffsetColumn() (col, flagName string) {
	if c.Exposure != "" {
		return c.Exposure, "{exposure}"
	}
	if c.Offset != "" {
		return c.Offset, "{offset}"
	}
	return "", ""
}

// EarlyOptions are the run options as far as they are known before the
// MAP and the plan, for the memory check: {sampler} auto's burn-in and
// rounds are the plan's, so its count is a lower bound until then.
func (c *Config) EarlyOptions() langevin.Options {
	o := langevin.Options{Chains: c.Chains, Iters: c.Iters, BurnIn: c.Burnin, Thin: c.Thin, SaveWarmup: true}
	if c.ChainID > 0 {
		o.Chains = 1
	}
	if (c.Sampler == "auto" || c.Planned) && !c.Set["thin"] {
		o.Thin, o.MaxKeep, o.CheckEvery = 1, MaxKeep(c.TargetESS, c.Chains), 100
	}
	return o
}

// ChainsText says which chains ran: "4 chains", or "chain 2 of 4".
func (c *Config) ChainsText() string {
	if c.ChainID > 0 {
		return fmt.Sprintf("chain %d of %d", c.ChainID, c.Chains)
	}
	return fmt.Sprintf("%d chains", c.Chains)
}

// IsStoreData reports whether {data} names a store file.
func (c *Config) IsStoreData() bool {
	return c.Data != "-" && (c.Format == "store" || (c.Format == "auto" && data.IsStore(c.Data)))
}

// Streams reports whether the run Streams {data} from a store: a store and
// a model that reads rows.
func (c *Config) Streams() bool {
	return c.IsStoreData() && slices.Contains(model.RowKinds, c.Model)
}

// CheckStoreFits refuses a store that a model reading its data into memory
// would hold in more than the memory budget (3 copies of 8 bytes a value:
// the data, the model's and a transpose).
func (c *Config) CheckStoreFits() error {
	st, err := data.OpenStore(c.Data)
	if err != nil {
		return InputError{Err: err}
	}
	defer st.Close()
	need := 3 * 8 * int64(st.Len()) * int64(st.Dim()+1)
	limit := budget.Memory()
	if need > limit {
		return InputErrorf("{data} %s: a store of %d rows × %d features: {model} %s reads its data into memory, about %s, more than %s (half this machine's memory); only {model} %v Streams a store",
			c.Data, st.Len(), st.Dim(), c.Model, budget.FmtBytes(need), budget.FmtBytes(limit), model.RowKinds)
	}
	return nil
}

// Initializer returns the initial points of {init}: zero, a draw from the
// prior, a network's random fan-in start (random), CmdStan's start
// (uniform: each unconstrained coordinate uniform on (−2, 2), the default
// of a Stan program), the MAP, or the MAP plus a draw from the diagonal
// Laplace approximation N(MAP, diag(laplace)) (laplace, the default).
func (c *Config) Initializer(mapTheta, laplace []float64) langevin.Initializer {
	switch c.Init {
	case "zero":
		return langevin.InitZero{}
	case "prior":
		return langevin.InitPrior{}
	case "uniform":
		return langevin.InitUniform{}
	case "random":
		return model.InitGlorot{} // a network's random fan-in start
	case "map":
		return langevin.InitAt{Points: [][]float64{mapTheta}}
	case "laplace":
		return approx.InitLaplace{Mean: mapTheta, Var: laplace}
	}
	return nil
}
