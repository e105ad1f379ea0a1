package fit

import (
	"context"

	"fmt"
	"github.com/langevin-go/langevin"
	"math"
	"math/rand/v2"

	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// netGibbsShare is the largest share of the sampling's multiply-adds that
// the output layer's exact draws may take: one draw every GibbsEvery steps
// with Flops(draw) ≤ netGibbsShare · GibbsEvery · (cost of a step). A
// quarter: on the validation rows (docs/validation.md) a share of 1 gained
// more log-likelihood on yacht and boston but took wine's run to 11.6 s of
// CPU, over the 10 s a small UCI split may take, and lost more there.
const netGibbsShare = 0.25

// netGibbs returns the plan's Gibbs block of the output layer (sghmc only)
// and how often it is drawn, by the rule: for a homoscedastic Gaussian
// network with a learned σ² (model.OutputConditional) the output layer is redrawn exactly from
// its conditional given the hidden layers and σ² every k steps, k the
// smallest number for which the draws cost at most netGibbsShare of the
// steps (a step costs about 3·B·d multiply-adds: the forward and backward
// passes of a batch of B through d parameters; a draw
// OutputConditional.Flops). every < 0 turns it off, every > 0 sets k.
// Reason: the output layer's directions that the data leave to the prior
// (the function where there are no data) have preconditioned curvatures
// 10⁻⁶ of the stiffest direction's and relax in ~10⁷ SGHMC steps; an exact
// draw of the layer moves along them at once.
func netGibbs(m Network, batch, every, units int) (func() (sampler.Conditional, error), int, string) {
	if every < 0 {
		return nil, 0, ""
	}
	mm, ok := m.(*model.MLP)
	if !ok {
		return nil, 0, ""
	}
	if mm.Likelihood() != model.LikGaussian {
		return nil, 0, "" // classifiers: no conjugate output layer, nothing to say
	}
	c, err := mm.NewOutputConditional()
	if err != nil {
		return nil, 0, fmt.Sprintf("off: %v", err)
	}
	if !mm.LearnsNoise() {
		// Measured: gap1d with {learn-noise}=false {noise-var} 1e-8 (σ²
		// fixed 10⁶ times below the data's noise) made the conditional the
		// least-squares fit of an ill-conditioned ΦᵀΦ at each hidden layer
		// (output weights of 128 against the modes' ±6) and every chain
		// left the plausible region after 3 restarts.
		return nil, 0, "off: σ² is fixed ({learn-noise}=false): with a σ² the data do not support, the output layer's conditional is an ill-conditioned least-squares fit (gap1d at σ² = 10⁻⁸: output weights of 128, every chain diverged); with σ² learned its conditional is drawn"
	}
	var moves string
	if units > 0 {
		if err := c.SetUnitMoves(units); err != nil {
			return nil, 0, fmt.Sprintf("off: %v", err)
		}
		moves = fmt.Sprintf(", after %d Metropolis–Hastings moves of the last hidden layer's units (each redrawn from its prior, the output layer integrated out) and %d random-walk moves of log σ²", units, model.UnitNoiseMoves)
	}
	why := "set"
	if every == 0 {
		step := 3 * float64(batch) * float64(m.Dim())
		every = max(1, int(math.Ceil(c.Flops()/(netGibbsShare*step))))
		why = fmt.Sprintf("a draw costs %.3g multiply-adds (forward pass and ΦᵀΦ on the %d rows, factor of the %d×%d precision), a step about 3·B·d = %.3g: at most %.0f%% of the steps' cost", c.Flops(), m.Len(), c.Size(), c.Size(), step, 100*netGibbsShare)
	}
	mk := func() (sampler.Conditional, error) {
		c, err := mm.NewOutputConditional()
		if err == nil {
			err = c.SetUnitMoves(units)
		}
		return c, err
	}
	return mk, every, fmt.Sprintf("the output layer's %d parameters drawn exactly from their Gaussian conditional given the hidden layers and σ² (all rows) every %d steps%s (%s): the directions the data leave to the prior (the function where there are no data) relax in ~10⁷ SGHMC steps, an exact draw moves along them at once", c.Size(), every, moves, why)
}

// netGibbsProbes is the number of exact output-layer draws from each mode
// at which gibbsLambdaMax measures the curvature.
const netGibbsProbes = 2

// gibbsProbes returns the largest preconditioned curvature λmax(MH) at
// netGibbsProbes exact draws of the output layer from each of the plan's
// modes (the other parameters at the mode), and those draws (the probes,
// where the plan also measures the gradient noise: precondGradVar). The Gibbs draws put the output
// weights at the scale of their conditional, which along the directions the
// data leave to the prior is the prior's: far larger than at the mode, and
// the hidden layers' curvature grows with the square of the output weights
// (measured on gap1d with output prior scale 4: λmax 77 at the modes, 241
// to 398 at the chains' last draws, η·λmax up to 0.47 against the budget's
// 0.1). The draws and the power iterations use their own random stream
// (seed, 0x676962), so the rest of the plan is as without Gibbs.
func gibbsProbes(ctx context.Context, m Network, p *NetPlan, rows []int, seed uint64) (float64, [][]float64, error) {
	rng := rand.New(rand.NewPCG(seed, 0x676962))
	c, err := p.Gibbs()
	if err != nil {
		return 0, nil, err
	}
	var lmax float64
	var probes [][]float64
	for _, mode := range p.Modes {
		for range netGibbsProbes {
			th := append([]float64(nil), mode...)
			if err := c.Draw(th, 1, rng); err != nil {
				return 0, nil, err
			}
			l, err := lambdaMaxHVP(ctx, m, th, p.Precond, rows, rng)
			if err != nil {
				return 0, nil, err
			}
			lmax = max(lmax, l)
			probes = append(probes, th)
		}
	}
	return lmax, probes, nil
}

// precondGradVar returns Σⱼ Mⱼ² varᵢ ∂ⱼlog p(zᵢ|θ), the per-row variance of
// the likelihood's gradient over the rows idx, weighted by the square of the
// preconditioner M: times N²/B(1 − B/N) it is tr(MCM), C the covariance of
// the minibatch gradient at θ.
func precondGradVar(m langevin.Model, theta []float64, idx []int, precond []float64) float64 {
	d := m.Dim()
	s1, s2 := make([]float64, d), make([]float64, d)
	rowGradMoments(m, theta, idx, s1, s2)
	k := float64(len(idx))
	var t float64
	for j := range s1 {
		mu := s1[j] / k
		t += precond[j] * precond[j] * (s2[j]/k - mu*mu)
	}
	return t
}

// rowGradMoments overwrites sum and sumSq with Σᵢ gᵢⱼ and Σᵢ gᵢⱼ² over the
// rows idx, gᵢ = ∇log p(zᵢ|θ) the per-row gradients of the likelihood at
// theta (one row at a time): the moments behind the empirical Fisher
// information and the minibatch gradient's variance.
func rowGradMoments(m langevin.Model, theta []float64, idx []int, sum, sumSq []float64) {
	clear(sum)
	clear(sumSq)
	langevin.RowGrads(m, theta, idx, langevin.RowTerms{}, make([]float64, m.Dim()), nil, func(_ int, g []float64) error {
		for j, v := range g {
			sum[j] += v
			sumSq[j] += v * v
		}
		return nil
	})
}
