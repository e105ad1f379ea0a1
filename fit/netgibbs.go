package fit

import (
	"fmt"
	"math"

	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// netGibbsShare is the largest share of the sampling's multiply-adds that
// the output layer's exact draws may take: one draw every GibbsEvery steps
// with Flops(draw) ≤ netGibbsShare · GibbsEvery · (cost of a step).
const netGibbsShare = 1.0

// netGibbs returns the plan's Gibbs block of the output layer (sghmc only)
// and how often it is drawn, by the rule: for a homoscedastic Gaussian
// network (model.OutputConditional) the output layer is redrawn exactly from
// its conditional given the hidden layers and σ² every k steps, k the
// smallest number for which the draws cost at most netGibbsShare of the
// steps (a step costs about 3·B·d multiply-adds: the forward and backward
// passes of a batch of B through d parameters; a draw
// OutputConditional.Flops). every < 0 turns it off, every > 0 sets k.
// Reason: the output layer's directions that the data leave to the prior
// (the function where there are no data) have preconditioned curvatures
// 10⁻⁶ of the stiffest direction's and relax in ~10⁷ SGHMC steps; an exact
// draw of the layer moves along them at once.
func netGibbs(m Network, batch, every int) (func() (sampler.Conditional, error), int, string) {
	if every < 0 {
		return nil, 0, ""
	}
	mm, ok := m.(*model.MLP)
	if !ok {
		return nil, 0, ""
	}
	c, err := mm.NewOutputConditional()
	if err != nil {
		return nil, 0, fmt.Sprintf("off: %v", err)
	}
	why := "set"
	if every == 0 {
		step := 3 * float64(batch) * float64(m.Dim())
		every = max(1, int(math.Ceil(c.Flops()/(netGibbsShare*step))))
		why = fmt.Sprintf("a draw costs %.3g multiply-adds (forward pass and ΦᵀΦ on the %d rows, factor of the %d×%d precision), a step about 3·B·d = %.3g: at most %.0f%% of the steps' cost", c.Flops(), m.Len(), c.Size(), c.Size(), step, 100*netGibbsShare)
	}
	mk := func() (sampler.Conditional, error) { return mm.NewOutputConditional() }
	return mk, every, fmt.Sprintf("the output layer's %d parameters drawn exactly from their Gaussian conditional given the hidden layers and σ² (all rows) every %d steps (%s): the directions the data leave to the prior (the function where there are no data) relax in ~10⁷ SGHMC steps, an exact draw moves along them at once", c.Size(), every, why)
}
