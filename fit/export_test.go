package fit

// SetBlockMAPHandOver sets the function BlockMAP tells why its Newton
// iterations stopped and where L-BFGS goes on from (nil: none).
func SetBlockMAPHandOver(f func(why string, theta []float64)) { blockMAPHandOver = f }

// SetBlockMAPWarmup sets BlockMAP's L-BFGS iterations before Newton's and
// returns a function that restores them.
func SetBlockMAPWarmup(n int) (restore func()) {
	old := blockMAPWarmup
	blockMAPWarmup = n
	return func() { blockMAPWarmup = old }
}

// Pilot runs the SG-MCMC plan's pilot (pilot) and returns why the plan
// cannot be trusted ("" when it can).
var Pilot = pilot
