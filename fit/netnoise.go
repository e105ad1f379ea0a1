package fit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/model"
)

// The noise model of a regression network: homoscedastic (one σ², the
// log_sigma2 parameter) or heteroscedastic (log σ²(x) the network's second
// output, model.MLPOptions.Hetero). Neither is right for every data set: a
// heteroscedastic network wins where the noise varies with x (protein's
// published best, −2.83, is a deep ensemble's heteroscedastic networks at
// an RMSE of 4.71; a homoscedastic Gaussian at our 4.33 cannot pass
// −½ log(2π·4.33²) − ½ ≈ −2.88), and overfits its variance where it does
// not. So the data choose, on rows they do not fit.

// noiseHoldFrac is the fraction of the training rows the noise rule holds
// out, and noiseMinHeld the fewest it holds out.
const (
	noiseHoldFrac = 0.2
	noiseMinHeld  = 20
	// noiseZ is the evidence the rule asks for: the heteroscedastic
	// network is chosen when its held-out log density per row beats the
	// homoscedastic one's by more than noiseZ standard errors of the
	// paired mean difference (the simpler model otherwise).
	noiseZ = 2
)

// NoiseChoice is what [ChooseNoise] measured and chose.
type NoiseChoice struct {
	Hetero     bool
	Fit, Held  int     // rows fitted and held out
	Homo, Het  float64 // mean held-out log density per row (y's units as fitted)
	Diff, SE   float64 // mean paired difference Het − Homo per row and its standard error
	Iters      int     // Adam iterations of each MAP
	HeldSource string  // what the rows held out are
}

// String is the rule's auto: line (without the "auto:" key).
func (c NoiseChoice) String() string {
	which := "homoscedastic (one σ²)"
	if c.Hetero {
		which = "heteroscedastic (log σ²(x) the network's second output)"
	}
	return fmt.Sprintf("noise: %s: held-out log density per row, MAP networks fitted on %d of the training rows (Adam, %d iterations) and scored on the other %d (seeded): homoscedastic %.4f, heteroscedastic %.4f, difference %+.4f ± %.4f (%.1f SE; heteroscedastic only beyond %d SE)",
		which, c.Fit, c.Iters, c.Held, c.Homo, c.Het, c.Diff, c.SE, c.Diff/math.Max(c.SE, 1e-300), noiseZ)
}

// ChooseNoise chooses the noise model of the regression network of spec
// (kind mlp, Gaussian) on the training rows X, y, by a rule: it holds out
// a seeded 20% of the rows (at least 20), fits the homoscedastic and the
// heteroscedastic network's MAP on the rest (one fan-in start each, Adam
// by the network plan's rule: [NetMAPIters], [NetMAPSchedule], minibatches
// of batch rows, 0 meaning min(n, 32)), and compares their log predictive
// densities on the held-out rows, row by row: with dᵢ the
// heteroscedastic minus the homoscedastic log density of row i, the
// heteroscedastic network is chosen when mean(d) > 2·sd(d)/√n_held, the
// simpler one otherwise. The comparison is paired, so the rows' own
// difficulty cancels. It costs two MAP fits on 80% of the rows (a run fits
// 4 MAPs on all of them).
func ChooseNoise(ctx context.Context, spec model.Spec, X *mat.Dense, y []float64, seed uint64, batch int) (NoiseChoice, error) {
	n, p := X.Dims()
	held := max(noiseMinHeld, int(noiseHoldFrac*float64(n)))
	if n < 2*held {
		return NoiseChoice{}, fmt.Errorf("%d training rows: the noise rule needs at least %d (it holds out %d)", n, 2*noiseMinHeld, noiseMinHeld)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6e6f697365)) // "noise"
	perm := rng.Perm(n)
	nf := n - held
	Xf, Xh := mat.NewDense(nf, p, nil), mat.NewDense(held, p, nil)
	yf, yh := make([]float64, nf), make([]float64, held)
	for k, i := range perm {
		if k < nf {
			Xf.SetRow(k, X.RawRowView(i))
			yf[k] = y[i]
		} else {
			Xh.SetRow(k-nf, X.RawRowView(i))
			yh[k-nf] = y[i]
		}
	}
	if batch == 0 {
		batch = min(nf, 32)
	}
	c := NoiseChoice{Fit: nf, Held: held, Iters: NetMAPIters(nf, batch)}
	lpd := [2][]float64{make([]float64, held), make([]float64, held)}
	mu, v := make([]float64, held), make([]float64, held)
	var homo *model.MLP
	var start []float64
	for k, het := range []bool{false, true} {
		s := spec
		s.Hetero = het
		mm, err := s.Build(Xf, yf)
		if err != nil {
			return c, err
		}
		m, ok := mm.(*model.MLP)
		if !ok || m.NumClasses() != 0 {
			return c, fmt.Errorf("the noise rule needs a regression network, not %T", mm)
		}
		// Both from the same start and the same minibatches: the
		// heteroscedastic network starts as the homoscedastic one
		// (variance head flat at its σ²), so the difference measures the
		// noise model, not two starts' luck.
		r := rand.New(rand.NewPCG(seed, 0x6e6f697365))
		th := make([]float64, m.Dim())
		if !het {
			m.InitPoint(th, r)
			homo, start = m, append([]float64(nil), th...)
		} else {
			m.HeteroFrom(homo, start, th)
			scratch := make([]float64, homo.Dim())
			homo.InitPoint(scratch, r) // the same state of r as the homoscedastic fit had
		}
		mode, err := NetMAP(ctx, m, th, c.Iters, batch, r)
		if err != nil {
			return c, fmt.Errorf("the noise rule's %s MAP: %w", map[bool]string{false: "homoscedastic", true: "heteroscedastic"}[het], err)
		}
		m.RegressionMean(mode, Xh, mu)
		m.NoiseVars(mode, Xh, v)
		for i := range yh {
			d := yh[i] - mu[i]
			lpd[k][i] = -0.5*math.Log(2*math.Pi*v[i]) - 0.5*d*d/v[i]
		}
	}
	var sd float64
	for i := range yh {
		c.Homo += lpd[0][i]
		c.Het += lpd[1][i]
	}
	c.Homo /= float64(held)
	c.Het /= float64(held)
	c.Diff = c.Het - c.Homo
	for i := range yh {
		e := lpd[1][i] - lpd[0][i] - c.Diff
		sd += e * e
	}
	c.SE = math.Sqrt(sd/float64(held-1)) / math.Sqrt(float64(held))
	c.Hetero = c.Diff > noiseZ*c.SE
	return c, nil
}
