package fit

import (
	"context"
	"fmt"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/model"
)

// buildGLMLaplace is {sampler} laplace on a regression network: the
// linearised (GLM) Laplace approximation at the MAP network
// (approx.GLMLaplace), whose draws N(θ̂, Λ⁻¹), Λ the generalised
// Gauss–Newton matrix plus the prior's precision, predict through the
// network linearised at θ̂. The weight-space Laplace approximation pushed
// through the nonlinear network predicts nonsense (UCI boston: test
// log-likelihood −2,334, RMSE 671).
func buildGLMLaplace(ctx context.Context, b *BuildEnv, net *model.MLP) (langevin.Sampler, error) {
	if b.MapTh == nil {
		return nil, fmt.Errorf("{sampler} laplace on a network: no MAP network to linearise at")
	}
	g, err := approx.NewGLMLaplace(ctx, net, b.MapTh)
	if err != nil {
		return nil, fmt.Errorf("{sampler} laplace: %w", err)
	}
	b.Glm = g
	form := "full"
	if g.Diagonal {
		form = fmt.Sprintf("diagonal (more than %d parameters)", approx.GLMFullMax)
	}
	ggn, noise := "generalised Gauss–Newton", "σ² at the MAP"
	if net.Hetero() {
		// The Gaussian's Fisher in (μ, log σ²) is diag(e^{−s}, ½).
		ggn, noise = "generalised Gauss–Newton of both heads (Fisher diag(1/σ²(x), ½) of the mean and log σ²(x))", "σ²(x) of the MAP network"
	}
	b.StepNote = fmt.Sprintf("laplace:  linearised (GLM) Laplace approximation at the MAP network (Immer et al. 2021): precision = %s + prior, %s, %d parameters; the draws predict through the network linearised at the MAP (f(x; θ̂) + J(x)(θ − θ̂), %s)", ggn, form, net.Dim(), noise)
	return g.Sampler(), nil
}
