package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/plot"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

func init() {
	Register(Experiment{
		Name:    "mandt-fig1",
		Summary: "Mandt et al. 2017 Fig. 1: posterior against constant SGD, full-preconditioned SGD and BBVI on wine, 2-D projections with 3-sd ellipses",
		Run:     runMandtFig1,
	})
}

// fig1Method is one panel: the Gaussian fitted to a method's iterates (or
// BBVI's variational Gaussian) and some of its points, all in the plane of
// the posterior's largest and smallest principal components (coordinates
// relative to the posterior mean).
type fig1Method struct {
	label   string
	setting string
	x, y    []float64     // projected points
	mean    [2]float64    // projected mean
	cov     [2][2]float64 // projected covariance
	pred    [2][2]float64 // projected predicted stationary covariance (eq. 13, its preconditioned form, the mean-field optimum)
	kl      float64       // KL(fit ‖ posterior) in all D dimensions
}

type fig1Result struct {
	w       *wineSetup
	post    [2][2]float64 // projected posterior covariance (diagonal)
	methods []fig1Method
	elapsed time.Duration
}

// project returns the 2-D projection onto the unit vectors u, v of a
// covariance.
func project(c mat.Symmetric, u, v []float64) [2][2]float64 {
	q := func(a, b []float64) float64 {
		return mat.Inner(mat.NewVecDense(len(a), a), c, mat.NewVecDense(len(b), b))
	}
	return [2][2]float64{{q(u, u), q(u, v)}, {q(v, u), q(v, v)}}
}

// principalPlane returns the unit eigenvectors of the posterior covariance
// with the largest (u) and the smallest (v) variance.
func (w *wineSetup) principalPlane() (u, v []float64) {
	d := w.target().Dim()
	var eig mat.EigenSym
	eig.Factorize(w.post, true)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	return mat.Col(nil, d-1, &vecs), mat.Col(nil, 0, &vecs)
}

// projectFit returns the panel of a method labelled label: its points pts,
// and the mean and covariance of the Gaussian fitted to them, projected on
// the plane of u and v relative to the posterior mean, with the KL
// divergence of that Gaussian from the posterior in all D dimensions. The
// panel is filled in even when the KL divergence fails.
func (w *wineSetup) projectFit(label, setting string, u, v []float64, pts [][]float64, mean []float64, cov *mat.SymDense) (fig1Method, error) {
	fm := fig1Method{label: label, setting: setting}
	dm := make([]float64, len(w.mean))
	for j := range dm {
		dm[j] = mean[j] - w.mean[j]
	}
	fm.mean = [2]float64{dot(dm, u), dot(dm, v)}
	fm.cov = project(cov, u, v)
	for _, p := range pts {
		for j := range dm {
			dm[j] = p[j] - w.mean[j]
		}
		fm.x = append(fm.x, dot(dm, u))
		fm.y = append(fm.y, dot(dm, v))
	}
	var err error
	fm.kl, err = klGauss(mean, cov, w.mean, w.post)
	return fm, err
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// mandtFig1 runs constant SGD at η* (Theorem 1), SGD with the optimal full
// preconditioner M = 2Cov(ĝ)⁻¹ at η = 1 (Theorem 2: the stationary
// covariance is the posterior's), each one chain of iters steps from the
// mean, and mean-field BBVI (approx.FitVI, reparameterisation gradients,
// minibatches of S, Polyak averaging over the second half), and projects
// each onto the plane of the posterior's largest and smallest principal
// components.
func mandtFig1(ctx context.Context, w *wineSetup, iters int, seed uint64) (*fig1Result, error) {
	start := time.Now()
	m := w.target()
	d, n := m.Dim(), m.Len()
	u, v := w.principalPlane()
	r := &fig1Result{w: w, post: project(w.post, u, v)}
	mb := sampler.Minibatch{Size: w.s, Replace: true}
	full, err := sampler.OptimalFull(w.v, n, w.s)
	if err != nil {
		return nil, err
	}
	eta := sampler.OptimalStep(w.v, n, w.s)
	preds, err := w.fig1Predictions(eta, full)
	if err != nil {
		return nil, err
	}
	runs := []struct {
		label, setting string
		s              sampler.ConstSGD
	}{
		{"constant SGD", "η* = " + num(eta), sampler.ConstSGD{Eta: eta, Batch: mb}},
		{"SGD, full preconditioner", "M = 2·Cov(ĝ)^−1, η = 1", sampler.ConstSGD{Eta: 1, Batch: mb, PrecondFull: full}},
	}
	add := func(label, setting string, pts [][]float64, mean []float64, cov *mat.SymDense) error {
		fm, err := w.projectFit(label, setting, u, v, pts, mean, cov)
		fm.pred = project(preds[len(r.methods)], u, v)
		r.methods = append(r.methods, fm)
		return err
	}
	for k, rn := range runs {
		tr, err := langevin.Run(ctx, m, rn.s, langevin.Options{
			Chains: 1, Iters: iters, BurnIn: iters / 20, Thin: max(1, iters/20000), Seed: seed + uint64(k),
			Init: langevin.InitAt{Points: [][]float64{w.mean}},
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rn.label, err)
		}
		mean, cov := sampleMeanCov(tr.Draws[0])
		pts := tr.Draws[0]
		if len(pts) > 600 {
			pts = thinPoints(pts, 600)
		}
		if err := add(rn.label, rn.setting, pts, mean, cov); err != nil {
			return nil, err
		}
	}
	vi := approx.VI{Step: schedule.Polynomial{A: 0.1, B: 100, Gamma: 0.6}, Batch: sampler.Minibatch{Size: w.s}, AverageFrom: iters / 2}
	q, err := approx.FitVI(ctx, m, vi, w.mean, iters, langevin.ChainRNG(seed, 99))
	if err != nil {
		return nil, fmt.Errorf("BBVI: %w", err)
	}
	cov := mat.NewSymDense(d, nil)
	for j, sd := range q.SD {
		cov.SetSym(j, j, sd*sd)
	}
	rng := langevin.ChainRNG(seed, 100)
	var pts [][]float64
	for i := 0; i < 600; i++ {
		p := make([]float64, d)
		q.Sample(p, rng)
		pts = append(pts, p)
	}
	if err := add("BBVI (mean field)", "ρ = 0.1(100 + t)^−0.6", pts, q.Mean, cov); err != nil {
		return nil, err
	}
	r.elapsed = time.Since(start)
	return r, nil
}

// fig1Predictions returns the predicted stationary covariances of the
// three methods of Fig. 1 on the quadratic approximation of the log
// posterior, Hessian −Λ, with gradient-noise covariance C = Cov(ĝ):
// constant SGD at step η, eq. 13, ΛΣ + ΣΛ = ηC; SGD with the
// preconditioner M = LLᵀ at step 1, ΛMΣ… in the coordinates y = L⁻¹θ,
// AΣ_y + Σ_yA = LᵀCL with A = LᵀΛL, Σ = LΣ_yLᵀ (Theorem 2: the posterior's
// Λ⁻¹ when M = 2C⁻¹… at the optimum); and mean-field BBVI's optimum for a
// Gaussian, diag(1/Λⱼⱼ).
func (w *wineSetup) fig1Predictions(eta float64, precond *mat.SymDense) ([]*mat.SymDense, error) {
	c := w.gradNoise()
	var q mat.SymDense
	q.ScaleSym(eta, c)
	eq13, err := approx.SolveLyapunov(w.prec, &q)
	if err != nil {
		return nil, err
	}
	var chol mat.Cholesky
	if !chol.Factorize(precond) {
		return nil, fmt.Errorf("mandt-fig1: the full preconditioner is not positive definite")
	}
	var l mat.TriDense
	chol.LTo(&l)
	var a, qc, tmp mat.Dense
	tmp.Mul(w.prec, &l)
	a.Mul(l.T(), &tmp)
	tmp.Mul(c, &l)
	qc.Mul(l.T(), &tmp)
	d := w.prec.SymmetricDim()
	sym := func(x *mat.Dense) *mat.SymDense {
		s := mat.NewSymDense(d, nil)
		for i := 0; i < d; i++ {
			for j := i; j < d; j++ {
				s.SetSym(i, j, (x.At(i, j)+x.At(j, i))/2)
			}
		}
		return s
	}
	sy, err := approx.SolveLyapunov(sym(&a), sym(&qc))
	if err != nil {
		return nil, err
	}
	var pre mat.Dense
	tmp.Mul(sy, l.T())
	pre.Mul(&l, &tmp)
	mf := mat.NewSymDense(d, nil)
	for j := 0; j < d; j++ {
		mf.SetSym(j, j, 1/w.prec.At(j, j))
	}
	return []*mat.SymDense{eq13, sym(&pre), mf}, nil
}

func thinPoints(x [][]float64, k int) [][]float64 {
	out := make([][]float64, 0, k)
	for i := 0; i < k; i++ {
		out = append(out, x[i*len(x)/k])
	}
	return out
}

func sampleMeanCov(x [][]float64) ([]float64, *mat.SymDense) {
	d := len(x[0])
	mean := make([]float64, d)
	for _, p := range x {
		for j, v := range p[:d] {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(len(x))
	}
	cov := mat.NewSymDense(d, nil)
	for _, p := range x {
		for a := 0; a < d; a++ {
			for b := a; b < d; b++ {
				cov.SetSym(a, b, cov.At(a, b)+(p[a]-mean[a])*(p[b]-mean[b]))
			}
		}
	}
	cov.ScaleSym(1/float64(len(x)-1), cov)
	return mean, cov
}

// klGauss is KL(N(m0, S0) ‖ N(m1, S1)).
func klGauss(m0 []float64, s0 *mat.SymDense, m1 []float64, s1 *mat.SymDense) (float64, error) {
	var c1 mat.Cholesky
	if !c1.Factorize(s1) {
		return math.NaN(), fmt.Errorf("KL: covariance not positive definite")
	}
	var c0 mat.Cholesky
	if !c0.Factorize(s0) {
		return math.NaN(), fmt.Errorf("KL: fitted covariance not positive definite")
	}
	d := len(m0)
	var x mat.Dense
	if err := c1.SolveTo(&x, s0); err != nil {
		return math.NaN(), err
	}
	dm := make([]float64, d)
	for j := range dm {
		dm[j] = m1[j] - m0[j]
	}
	var y mat.VecDense
	if err := c1.SolveVecTo(&y, mat.NewVecDense(d, dm)); err != nil {
		return math.NaN(), err
	}
	return 0.5 * (mat.Trace(&x) + dot(dm, y.RawVector().Data) - float64(d) + c1.LogDet() - c0.LogDet()), nil
}

func runMandtFig1(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c, pg, w, err := startWine("mandt-fig1", "10× longer runs (2·10⁶ steps per method)",
		"mandt-fig1: posterior against constant SGD, preconditioned SGD and BBVI (Mandt et al. 2017, Fig. 1)", args, stdout)
	if err != nil {
		return err
	}
	wl, err := wineLogistic(c.Lookup("data-dir").Value.String(), w.s)
	if err != nil {
		return err
	}
	iters := 200_000
	if c.Full {
		iters *= 10
	}
	var results []*fig1Result
	for _, ws := range []*wineSetup{w, wl} {
		r, err := mandtFig1(ctx, ws, iters, c.Seed)
		if err != nil {
			return fmt.Errorf("%s: %w", ws.label, err)
		}
		results = append(results, r)
	}
	var rows [][]*gplot.Plot
	for _, r := range results {
		rows = append(rows, fig1Row(r))
	}
	if err := pg.Tiles("projections", "Iterates of constant SGD and of SGD with the optimal full preconditioner, and draws of mean-field BBVI, in the plane of the posterior's largest and smallest principal components (relative to the posterior mean), with the 3-sd ellipses of the Gaussian fitted to them (solid), of the predicted stationary distribution (dotted: eq. 13, its preconditioned form, the mean-field optimum) and of the posterior (dashed). Top: linear regression of wine quality; bottom: logistic regression (quality ≥ 7), its posterior the Laplace approximation.", rows, 42*vg.Centimeter, 26*vg.Centimeter); err != nil {
		return err
	}
	pg.Printf("Command: `langevin experiment mandt-fig1 --out DIR` (%.0f s on 2 cores; `--full`: 10× longer runs).\n\n", results[0].elapsed.Seconds()+results[1].elapsed.Seconds())
	pg.Printf("Mandt, Hoffman & Blei (2017), Fig. 1 (§4, Theorems 1 and 2): the paper's top row is linear regression, its bottom row logistic regression; both here on the white-wine data (N = %d, 11 standardised features and an intercept). Linear: noise variance 1, prior precision 1, so the posterior is exactly Gaussian. Logistic: is the quality ≥ 7 (21.6%% of the wines)? Prior sd 1; the reference is the Laplace approximation at the MAP (as in the paper's Table 1 for its logistic data). One chain of %d steps per SGD method from the posterior mean (5%% burn-in), minibatches of %d with replacement; BBVI: %d steps of mean-field reparameterisation-gradient VI. The predicted ellipses solve the stationary (Ornstein–Uhlenbeck) equations on the quadratic approximation at the mode: eq. 13, ΛΣ + ΣΛ = η Cov(ĝ), for constant SGD; the same in the coordinates of the preconditioner for preconditioned SGD (Theorem 2: the posterior); and diag(1/Λⱼⱼ) for mean-field VI.\n\n", w.m.Len(), iters, w.s, iters)
	for _, r := range results {
		pg.Printf("**%s**\n\n| method | setting | projected sd, largest PC: fit / predicted | smallest PC: fit / predicted | KL(fit || posterior), all %d dimensions |\n|---|---|---|---|---|\n", r.w.label, r.w.target().Dim())
		pg.Printf("| exact posterior | | %.3g | %.3g | 0 |\n", math.Sqrt(r.post[0][0]), math.Sqrt(r.post[1][1]))
		fmt.Fprintf(stdout, "%s: N = %d, D = %d, S = %d; %d steps per SGD run (%.1f s)\n", r.w.label, r.w.target().Len(), r.w.target().Dim(), r.w.s, iters, r.elapsed.Seconds())
		for _, m := range r.methods {
			pg.Printf("| %s | %s | %.3g / %.3g | %.3g / %.3g | %.3g |\n", m.label, m.setting, math.Sqrt(m.cov[0][0]), math.Sqrt(m.pred[0][0]), math.Sqrt(m.cov[1][1]), math.Sqrt(m.pred[1][1]), m.kl)
			fmt.Fprintf(stdout, "  %-26s sd along PCs %.3g, %.3g (predicted %.3g, %.3g; posterior %.3g, %.3g)  KL %.3g\n", m.label, math.Sqrt(m.cov[0][0]), math.Sqrt(m.cov[1][1]), math.Sqrt(m.pred[0][0]), math.Sqrt(m.pred[1][1]), math.Sqrt(r.post[0][0]), math.Sqrt(r.post[1][1]), m.kl)
		}
		pg.Printf("\n")
	}
	pg.Printf("As in the paper: constant SGD's stationary covariance has the wrong shape (its noise follows Cov(ĝ), not Λ⁻¹) and is where eq. 13 puts it; the optimal full preconditioner makes it the posterior's (Theorem 2); mean-field BBVI is too narrow along the correlated directions, at its predicted optimum. The paper's own data and axes are not given, so its numbers do not compare; the KL column of the linear row is the wine row of `mandt-table1` at a shorter run.\n")
	return pg.Write(stdout)
}

// fig1Row draws one problem's three panels on one scale: 3.8 sd of the
// widest fitted, predicted or exact direction.
func fig1Row(r *fig1Result) []*gplot.Plot {
	var sx, sy float64
	for _, m := range r.methods {
		sx = math.Max(sx, math.Sqrt(math.Max(m.cov[0][0], m.pred[0][0])))
		sy = math.Max(sy, math.Sqrt(math.Max(m.cov[1][1], m.pred[1][1])))
	}
	sx = math.Max(sx, math.Sqrt(r.post[0][0])) * 3.8
	sy = math.Max(sy, math.Sqrt(r.post[1][1])) * 3.8
	var row []*gplot.Plot
	for k, m := range r.methods {
		p := newPlot(strings.Fields(r.w.label)[0]+": "+m.label+", "+m.setting, "largest principal component", "smallest principal component")
		pts := points(m.x, m.y, plot.Translucent(col(k), 110), circle, vg.Points(1.3))
		fit := ellipse(m.mean[0], m.mean[1], m.cov, 3, col(k), false)
		pred := ellipse(0, 0, m.pred, 3, col(k), false)
		pred.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
		pred.Width = vg.Points(2)
		post := ellipse(0, 0, r.post, 3, refColor, true)
		p.Add(pts, fit, pred, post)
		p.Legend.Add("points", pts)
		p.Legend.Add("3 sd of the fit", fit)
		p.Legend.Add("3 sd predicted", pred)
		p.Legend.Add("3 sd of the posterior", post)
		p.Legend.Top, p.Legend.Left = true, true
		p.X.Min, p.X.Max = -sx, sx
		p.Y.Min, p.Y.Max = -sy, 1.9*sy
		row = append(row, p)
	}
	return row
}
