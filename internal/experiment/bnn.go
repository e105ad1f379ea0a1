package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// Helpers shared by the Bayesian neural network experiments (moons, spirals,
// gap1d) and by langevin run --model mlp.

// mapSettings are the settings of an Adam MAP fit.
type mapSettings struct {
	iters, batch int
	lr           float64
}

// fitMAP maximises the log posterior of m with Adam from a Glorot
// initialisation drawn from chain stream number chain of seed, and returns
// the final iterate.
func fitMAP(ctx context.Context, m *model.MLP, s mapSettings, seed uint64, chain int) ([]float64, error) {
	theta := make([]float64, m.Dim())
	rng := langevin.ChainRNG(seed, chain)
	m.GlorotInit(theta, rng)
	return sampler.FitAdam(ctx, m, theta, sampler.AdamFit{Iters: s.iters, Batch: s.batch, LR: s.lr}, rng)
}

// cyclicSettings describe cyclical SGLD: cycles of cycleLen updates with the
// cosine schedule from eta0 (η, so Welling & Teh's ε₀ = 2·eta0), batch size
// and temperature; one draw is kept at the end of each cycle.
type cyclicSettings struct {
	eta0             float64
	cycles, cycleLen int
	batch            int
	temperature      float64
	explore          float64 // fraction of each cycle without noise (cSGLD's exploration)
	chains           int
	// burnCycles cycles are run before the cycles whose draws are kept
	// (cycles counts the kept ones).
	burnCycles int
}

// relaxCycles returns the number of cycles of the cosine schedule from eta0
// with cycleLen updates after which the variance of a weight the data do not
// constrain (prior N(0, s²)) has relaxed from 0 to within 5% of s². Such a
// weight follows the discretised Ornstein–Uhlenbeck process θ ← (1 − η/s²)θ
// + √(2η)ξ, whose variance approaches s² as 1 − exp(−2Ση/s²); within 5%
// needs Ση ≥ 1.5 s². One cycle of L updates sums to Ση = η₀(L+1)/2
// (Σ_{k<L} cos(πk/L) = 1).
func relaxCycles(eta0 float64, cycleLen int, s float64) int {
	return int(math.Ceil(1.5 * s * s / (eta0 * float64(cycleLen+1) / 2)))
}

// sampleCyclic runs cyclical SGLD (sampler.CSGLD) from theta0 and returns
// the draws of all chains: one per cycle per chain, at the end of each cycle,
// where the step is smallest. Run keeps the first post-burn-in iteration in
// a sampling phase and then every Thin-th such iteration; a cycle of L steps
// has K = L − ⌈explore·L⌉ sampling steps, so BurnIn = L−1 and Thin = K keep
// iterations L, 2L, …. With burnCycles = b the first b cycles are run and
// discarded (BurnIn = bL + L − 1).
func sampleCyclic(ctx context.Context, m *model.MLP, theta0 []float64, s cyclicSettings, seed uint64) ([][]float64, error) {
	if s.burnCycles < 0 {
		return nil, Usagef("%d burn-in cycles: expected ≥ 0", s.burnCycles)
	}
	total := s.cycles + s.burnCycles
	iters := total * s.cycleLen
	smp := sampler.CSGLD(s.eta0, iters, total, s.explore, sampler.Minibatch{Size: s.batch})
	smp.Temperature = s.temperature
	sched := smp.Step.(schedule.Cyclical)
	kept := 0
	for k := 1; k <= s.cycleLen; k++ {
		if !sched.Exploring(k) {
			kept++
		}
	}
	if kept == 0 {
		return nil, Usagef("exploration fraction %v leaves no sampling step in a cycle of %d", s.explore, s.cycleLen)
	}
	tr, err := langevin.Run(ctx, m, smp, langevin.Options{
		Chains: max(1, s.chains), Iters: iters, BurnIn: (s.burnCycles+1)*s.cycleLen - 1, Thin: kept, Seed: seed,
		Init: langevin.InitAt{Points: [][]float64{theta0}},
	})
	if err != nil {
		return nil, err
	}
	var draws [][]float64
	for _, c := range tr.Draws {
		for _, th := range c {
			draws = append(draws, th[:m.Dim()])
		}
	}
	return draws, nil
}

// farESS returns the median over the rows of G where far is true of the
// bulk effective sample size (diag.ESSBulk) of the per-draw class
// probabilities p(y = c | x, θₛ) (the smallest over the classes c), with the
// draws split into the given number of equally long chains. It measures how
// many independent network functions away from the data the draws hold: the
// predictive entropy there is an average over them. At most 256 of the far
// points, evenly spaced in the order of G, enter the median.
func farESS(m *model.MLP, draws [][]float64, chains int, G *mat.Dense, far []bool) float64 {
	var all []int
	for i, f := range far {
		if f {
			all = append(all, i)
		}
	}
	stride := max(1, (len(all)+255)/256)
	var rows []int
	for i := 0; i < len(all); i += stride {
		rows = append(rows, all[i])
	}
	if len(rows) == 0 || len(draws) < 4*chains {
		return math.NaN()
	}
	_, p := G.Dims()
	X := mat.NewDense(len(rows), p, nil)
	for i, r := range rows {
		X.SetRow(i, G.RawRowView(r))
	}
	k := m.NumClasses()
	probs := mat.NewDense(len(rows), k, nil)
	per := len(draws) / chains
	// vals[i][c][chain][s]
	vals := make([][][][]float64, len(rows))
	for i := range vals {
		vals[i] = make([][][]float64, k)
		for c := range vals[i] {
			vals[i][c] = make([][]float64, chains)
			for ch := range vals[i][c] {
				vals[i][c][ch] = make([]float64, per)
			}
		}
	}
	for s, th := range draws[:per*chains] {
		m.ClassProbs(th, X, probs)
		for i := range rows {
			for c := 0; c < k; c++ {
				vals[i][c][s/per][s%per] = probs.At(i, c)
			}
		}
	}
	ess := make([]float64, len(rows))
	for i := range rows {
		ess[i] = math.Inf(1)
		for c := 0; c < k; c++ {
			if e := diag.ESSBulk(vals[i][c]); !math.IsNaN(e) {
				ess[i] = min(ess[i], e)
			}
		}
	}
	sort.Float64s(ess)
	return ess[len(ess)/2]
}

// grid returns the points of a regular grid over [x0, x1] × [y0, y1] with
// step h, one per row.
func grid(x0, x1, y0, y1, h float64) *mat.Dense {
	nx := int(math.Round((x1-x0)/h)) + 1
	ny := int(math.Round((y1-y0)/h)) + 1
	g := mat.NewDense(nx*ny, 2, nil)
	for i := 0; i < nx; i++ {
		for j := 0; j < ny; j++ {
			g.Set(i*ny+j, 0, x0+float64(i)*h)
			g.Set(i*ny+j, 1, y0+float64(j)*h)
		}
	}
	return g
}

// farFrom reports for each row of G whether it is farther than r from every
// row of X (Euclidean).
func farFrom(G, X *mat.Dense, r float64) []bool {
	n, _ := G.Dims()
	m, p := X.Dims()
	far := make([]bool, n)
	for i := 0; i < n; i++ {
		far[i] = true
		g := G.RawRowView(i)
		for k := 0; k < m; k++ {
			x := X.RawRowView(k)
			var d2 float64
			for j := 0; j < p; j++ {
				d2 += (g[j] - x[j]) * (g[j] - x[j])
			}
			if d2 <= r*r {
				far[i] = false
				break
			}
		}
	}
	return far
}

// meanWhere returns the mean of v over the indices where mask is true (all
// when mask is nil) and how many there are.
func meanWhere(v []float64, mask []bool) (float64, int) {
	var s float64
	n := 0
	for i, x := range v {
		if mask == nil || mask[i] {
			s += x
			n++
		}
	}
	return s / float64(n), n
}

// classifierReport holds what the classification experiments print and test.
type classifierReport struct {
	mapTest, bnnTest *predict.Metrics
	// Mean predictive entropy (nats): of the BNN and of the MAP network on
	// grid points farther than 1.0 from every training point, and of the BNN
	// at the training points.
	bnnFar, mapFar, bnnTrain float64
	nFar                     int
	draws                    int
	agreement, tv            float64 // BNN vs MAP on the test points
}

// scoreClassifier evaluates the MAP network and the BNN's draws on the test
// set, the grid and the training points, and writes the grid to
// dir/grid.csv when dir is not empty.
func scoreClassifier(m *model.MLP, mapTheta []float64, draws [][]float64, trainX, testX *mat.Dense, testY []float64, G *mat.Dense, dir string) (*classifierReport, error) {
	r := &classifierReport{draws: len(draws)}
	mapOnly := [][]float64{mapTheta}
	bt, err := predict.Classify(m, draws, testX, predict.ClassifyOptions{})
	if err != nil {
		return nil, err
	}
	mt, _ := predict.Classify(m, mapOnly, testX, predict.ClassifyOptions{})
	if r.bnnTest, err = predict.Evaluate(bt.Probs, testY, 0); err != nil {
		return nil, err
	}
	if r.mapTest, err = predict.Evaluate(mt.Probs, testY, 0); err != nil {
		return nil, err
	}
	r.agreement, r.tv, _ = predict.Compare(bt.Probs, mt.Probs)
	bg, _ := predict.Classify(m, draws, G, predict.ClassifyOptions{})
	mg, _ := predict.Classify(m, mapOnly, G, predict.ClassifyOptions{})
	far := farFrom(G, trainX, 1.0)
	r.bnnFar, r.nFar = meanWhere(bg.Entropy, far)
	r.mapFar, _ = meanWhere(mg.Entropy, far)
	if r.nFar == 0 {
		return nil, fmt.Errorf("no grid point is farther than 1.0 from the training data: widen the grid")
	}
	btr, _ := predict.Classify(m, draws, trainX, predict.ClassifyOptions{})
	r.bnnTrain, _ = meanWhere(btr.Entropy, nil)
	if dir != "" {
		if err := writeGrid(filepath.Join(dir, "grid.csv"), G, bg, mg, far); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func writeGrid(path string, G *mat.Dense, b, m *predict.Classification, far []bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	_, k := b.Probs.Dims()
	fmt.Fprint(fh, "x1,x2")
	for c := 0; c < k; c++ {
		fmt.Fprintf(fh, ",p_bnn.%d", c)
	}
	for c := 0; c < k; c++ {
		fmt.Fprintf(fh, ",p_map.%d", c)
	}
	fmt.Fprintln(fh, ",entropy_bnn,expected_entropy_bnn,mutual_info_bnn,entropy_map,far")
	n, _ := G.Dims()
	for i := 0; i < n; i++ {
		fmt.Fprintf(fh, "%g,%g", G.At(i, 0), G.At(i, 1))
		for c := 0; c < k; c++ {
			fmt.Fprintf(fh, ",%.6g", b.Probs.At(i, c))
		}
		for c := 0; c < k; c++ {
			fmt.Fprintf(fh, ",%.6g", m.Probs.At(i, c))
		}
		fmt.Fprintf(fh, ",%.6g,%.6g,%.6g,%.6g,%t\n", b.Entropy[i], b.Expected[i], b.MutualInfo[i], m.Entropy[i], far[i])
	}
	return fh.Close()
}

func (r *classifierReport) print(w io.Writer) {
	fmt.Fprintf(w, "%-28s %9s %9s %9s %9s\n", "test set", "accuracy", "NLL", "Brier", "ECE")
	for _, row := range []struct {
		name string
		m    *predict.Metrics
	}{{"MAP network", r.mapTest}, {fmt.Sprintf("BNN (%d draws)", r.draws), r.bnnTest}} {
		fmt.Fprintf(w, "%-28s %9.4f %9.4f %9.4f %9.4f\n", row.name, row.m.Accuracy, row.m.NLL, row.m.Brier, row.m.ECE)
	}
	fmt.Fprintf(w, "\nBNN vs MAP on the test set: agreement %.4f, total variation %.4f\n", r.agreement, r.tv)
	fmt.Fprintf(w, "\nmean predictive entropy (nats):\n")
	fmt.Fprintf(w, "  grid points > 1.0 from training data (%d): BNN %.4f, MAP %.4f   ratio %.2f (acceptance ≥ 1.5)\n", r.nFar, r.bnnFar, r.mapFar, r.bnnFar/r.mapFar)
	fmt.Fprintf(w, "  training points: BNN %.4f   far/train ratio %.2f (acceptance ≥ 3)\n", r.bnnTrain, r.bnnFar/r.bnnTrain)
}
