package langevin

// Keeper is implemented by chains that produce usable draws only at some
// iterations, such as cyclical SG-MCMC, whose exploration phase at the start
// of each cycle is optimisation only. After every post-burn-in Step, Run asks
// Keep: iterations where it returns false are skipped, and thinning counts only
// the kept iterations (every Thin-th kept iteration is stored, starting with
// the first). A chain that does not implement Keeper keeps every iteration.
// Burn-in iterations and Options.SaveWarmup are not affected.
type Keeper interface {
	// Keep reports whether the current position (after the last Step) is a
	// draw to keep.
	Keep() bool
}

// KeptRows returns bounds on the rows of draws a run with these options
// holds in memory per chain: warm, the saved warm-up draws
// (⌈BurnIn/Thin⌉ with SaveWarmup, else 0), and post, the kept draws after
// the burn-in: ⌈(Iters − BurnIn)/Thin⌉, or with MaxKeep = M at most
// M + 2⌈CheckEvery/Thin⌉ + 2 (between rounds a chain holds at most M draws
// plus what a round adds; a round that halves them leaves at most
// (M + 2C/t)/2 + C/(2t) ≤ M + 2C/t, t the starting thinning). The counts
// saturate at math.MaxInt64 instead of overflowing. Options that Run would
// refuse give (0, 0).
func (o Options) KeptRows() (warm, post int64) {
	if o.defaults() != nil {
		return 0, 0
	}
	thin := int64(o.Thin)
	ceil := func(n int64) int64 { return n/thin + min(n%thin, 1) }
	post = ceil(int64(o.Iters) - int64(o.BurnIn))
	if o.MaxKeep > 0 {
		post = min(post, int64(o.MaxKeep)+2*ceil(int64(o.CheckEvery))+2)
	}
	if o.SaveWarmup {
		warm = ceil(int64(o.BurnIn))
	}
	return warm, post
}
