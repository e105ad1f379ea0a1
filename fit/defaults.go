package fit

import "time"

// DefaultConfig returns the configuration of langevin run with no flag
// given, before Resolve: each field holds its flag's default (the command
// defines its flags with these values), no flag is set, and the sampler is
// auto.
func DefaultConfig() *Config {
	c := &Config{
		Data: "australian", TestFrac: 0.2, Format: "auto", Standardize: true, N: 1000, Noise: 0.1, K: 3,
		Model: "logistic", Intercept: true, Rho: 0.9,
		Sampler: "auto", TargetESS: 400, Chains: 4, Iters: 500000, Burnin: 50000, Thin: 450, Seed: 1,
		Init: "laplace", Precond: "laplace", Checkpoint: 30 * time.Second,
		Schedule: "const", StepB: 1, Decay: 0.55, Cycles: 1, Temperature: 1,
		Batch: 10, NoiseEvery: 10,
		Mlp: mlpConfig{Hidden: "50", Activation: "relu", NoiseVar: 1, NoiseModel: "auto", LearnNoise: true,
			MapIters: 20000, MapBatch: 32, ChainWeights: "stacking", MapLR: 1e-3},
		Set:  map[string]bool{},
		Opts: map[string]any{},
	}
	c.Columns.Missing = "error"
	c.Formula.Family = "gaussian"
	for _, g := range FlagGroups {
		c.Opts[g.Name] = g.Define(defaults{})
	}
	c.Def = SamplerTable[c.Sampler]
	return c
}

// defaults is the FlagDefiner that sets each setting to its default.
type defaults struct{}

func (defaults) BoolVar(p *bool, _ string, v bool, _ string)          { *p = v }
func (defaults) IntVar(p *int, _ string, v int, _ string)             { *p = v }
func (defaults) Float64Var(p *float64, _ string, v float64, _ string) { *p = v }
func (defaults) StringVar(p *string, _ string, v string, _ string)    { *p = v }
