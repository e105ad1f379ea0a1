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
