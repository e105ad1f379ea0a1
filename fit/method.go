package fit

// Method is how Run draws from the posterior: an entry of Methods with its
// settings, each zero setting meaning the entry's rule (stated in the
// result's notes). A nil Method follows the plan, Auto{}, as gonum's
// optimize.Minimize chooses its method when given nil.
//
// The families' types are the methods: Auto (the plan), SGMCMC, Exact,
// Mandt, Approximation and Optimiser, each with the name of its sampler in
// Kind; Methods holds every registered sampler as the zero value of its
// family's type.
type Method interface {
	// Name is the method's entry in Methods ("auto", "sgld", "nuts", …).
	Name() string
	// Configure sets the method in the configuration c of a run: its
	// sampler and its nonzero settings, as given.
	Configure(c *Config) error
}

// Methods is the table of methods by name, every sampler of the table of
// samplers (RegisterSampler) with its rules: what langevin run's sampler
// setting names and run -h lists (SamplerNames, SamplerHelp).
var Methods = map[string]Method{}

// familyMethod makes the method of a registered sampler of each family.
var familyMethod = map[string]func(name string) Method{
	"optimisers":          func(n string) Method { return Optimiser{Kind: n} },
	"SG-MCMC":             func(n string) Method { return SGMCMC{Kind: n} },
	"Mandt et al. (2017)": func(n string) Method { return Mandt{Kind: n} },
	"approximations":      func(n string) Method { return Approximation{Kind: n} },
	"exact":               func(n string) Method { return Exact{Kind: n} },
	"automatic":           func(string) Method { return Auto{} },
}

// The methods of the plan with its kind of sampler forced.
var (
	NUTS Method = Auto{Kind: "nuts"} // exact NUTS with the plan's metric and start
	SGLD Method = Auto{Kind: "sgld"} // SGLD with the plan's step, preconditioner and estimator
)

// Auto is the plan (NewPlan; for a network, NewNetPlan): exact NUTS where
// its cost is small, else SGLD with control variates where they pay, the
// dense Laplace preconditioner and the step and burn-in by rule, run until
// the ESS target. Kind forces the plan's kind of sampler: "nuts" or "sgld"
// ("": the cost rule chooses).
type Auto struct{ Kind string }

// Name is "auto".
func (Auto) Name() string { return "auto" }

// Configure sets the plan, with its kind forced when Kind is given (SGLD
// forced is the untuned sampler sgld, which runs the plan).
func (a Auto) Configure(c *Config) error {
	if a.Kind != "" && a.Kind != "nuts" && a.Kind != "sgld" {
		return InputErrorf("fit.Auto{Kind: %q}: expected nuts, sgld or empty (the cost rule)", a.Kind)
	}
	c.Sampler = "auto"
	if a.Kind == "sgld" {
		c.Sampler = "sgld" // untuned: auto's plan with SGLD forced
	} else {
		c.PlanKind = a.Kind
	}
	c.Def = SamplerTable[c.Sampler]
	return nil
}

// SGMCMC is a stochastic-gradient MCMC sampler: Kind sgld, csgld, psgld,
// sghmc, csghmc or baoab. Step, when > 0, is the constant step η of the
// update θ ← θ + ηĝ + √(2ητ)ξ (0: the sampler's rule; an untuned sgld runs
// the plan); Temperature τ, when > 0, tempers the target p(θ|D)^{1/τ} (0:
// τ = 1).
type SGMCMC struct {
	Kind        string
	Step        float64
	Temperature float64
}

// Name is Kind.
func (m SGMCMC) Name() string { return m.Kind }

// Configure sets the sampler, its step and its temperature.
func (m SGMCMC) Configure(c *Config) error {
	if err := setSampler(c, m.Kind, "SG-MCMC", m.Step); err != nil {
		return err
	}
	if m.Temperature > 0 {
		c.Temperature = m.Temperature
		c.Set["temperature"] = true
	}
	return nil
}

// Exact is a full-data MCMC sampler with a tuned step: Kind nuts, mala or
// rwm. Step, when > 0, is the initial step (0: tuned from the start);
// TargetAccept, when > 0, the mean acceptance statistic the warm-up tunes
// the step to (0: 0.8 nuts, 0.574 mala, 0.234 rwm); MaxDepth, when > 0,
// NUTS's largest tree depth (0: 10); Metric "dense" adapts a dense metric
// ("": diagonal).
type Exact struct {
	Kind         string
	Step         float64
	TargetAccept float64
	MaxDepth     int
	Metric       string
}

// Name is Kind.
func (m Exact) Name() string { return m.Kind }

// Configure sets the sampler and its settings.
func (m Exact) Configure(c *Config) error {
	if err := setSampler(c, m.Kind, "exact", m.Step); err != nil {
		return err
	}
	o := *Opt[*ExactFlags](c, "exact") // a copy: c's defaults are not shared
	if m.TargetAccept > 0 {
		o.targetAccept = m.TargetAccept
		c.Set["target-accept"] = true
	}
	if m.MaxDepth > 0 {
		o.maxDepth = m.MaxDepth
		c.Set["max-depth"] = true
	}
	if m.Metric != "" {
		o.Metric = m.Metric
		c.Set["metric"] = true
	}
	c.Opts["exact"] = &o
	return nil
}

// Mandt is a sampler of Mandt, Hoffman & Blei (2017) or its references,
// tuned from the Laplace approximation and the gradient covariance at the
// MAP: Kind csgd, csgd-diag, csgd-full, csgd-sqrt, csgd-momentum, csgd-rkl,
// sgfs, sgfs-diag, sgfs-scalar, iasg or laplace. Step, when > 0, overrides
// the step η of the recipe; Momentum, when > 0, is csgd-momentum's μ (0:
// 0.1); Eps, when > 0, SGFS's ε (0: 2); Window, when > 0, the iterates an
// IASG draw averages (0: N/B).
type Mandt struct {
	Kind     string
	Step     float64
	Momentum float64
	Eps      float64
	Window   int
}

// Name is Kind.
func (m Mandt) Name() string { return m.Kind }

// Configure sets the sampler and its settings.
func (m Mandt) Configure(c *Config) error {
	if err := setSampler(c, m.Kind, "Mandt et al. (2017)", m.Step); err != nil {
		return err
	}
	o := *Opt[*mandtFlags](c, "mandt")
	if m.Momentum > 0 {
		o.momentum = m.Momentum
		c.Set["momentum"] = true
	}
	if m.Eps > 0 {
		o.eps = m.Eps
		c.Set["eps"] = true
	}
	if m.Window > 0 {
		o.window = m.Window
		c.Set["window"] = true
	}
	c.Opts["mandt"] = &o
	return nil
}

// Approximation is an approximation of the posterior that draws from what
// it fitted: Kind swag, vi or ensemble (a network's deep ensemble). Step,
// when > 0, is SWAG's constant SGD step (0: Mandt's η*).
type Approximation struct {
	Kind string
	Step float64
}

// Name is Kind.
func (m Approximation) Name() string { return m.Kind }

// Configure sets the approximation and its step.
func (m Approximation) Configure(c *Config) error {
	return setSampler(c, m.Kind, "approximations", m.Step)
}

// Optimiser is an optimiser whose iterates are the draws (a trajectory, not
// posterior draws): Kind gd, sgd, adam, adagrad, rmsprop, momentum or
// polyak. Step, when > 0, is its step (0: the optimiser's rule).
type Optimiser struct {
	Kind string
	Step float64
}

// Name is Kind.
func (m Optimiser) Name() string { return m.Kind }

// Configure sets the optimiser and its step.
func (m Optimiser) Configure(c *Config) error {
	return setSampler(c, m.Kind, "optimisers", m.Step)
}

// setSampler sets the sampler name of family in c and, when step > 0, its
// constant step.
func setSampler(c *Config, name, family string, step float64) error {
	d := SamplerTable[name]
	if d == nil || d.family != family {
		return InputErrorf("{sampler} %q: expected one of %v (the %s family of Methods)", name, SamplersOf(family), family)
	}
	c.Sampler, c.Def = name, d
	c.Set["sampler"] = true
	if step > 0 {
		c.Step, c.StepSet = step, true
		c.Set["step"] = true
	}
	return nil
}
