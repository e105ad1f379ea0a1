package formula

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/ad"
	"github.com/langevin-go/langevin/transform"
)

// Families of the response, as brms names them.
var Families = []string{"gaussian", "bernoulli", "probit", "poisson", "negbinomial", "student", "binomial"}

// Options are the settings of New. The zero value is the default: the
// gaussian family and brms's default priors.
type Options struct {
	// Family is one of Families ("" means gaussian; "logistic" is an alias
	// of bernoulli).
	Family string
	// Priors overrides the default prior of a class (Intercept, b, sd, cor,
	// sigma, nu, shape); see ParsePriors.
	Priors map[string]Prior
	// Trials names the column of the numbers of trials of the binomial
	// family (brms's y | trials(n)): the response counts the successes.
	// The population-level columns are then centred at their means
	// weighted by the trials, so that a table of binomial cells is the
	// same posterior as its Bernoulli rows (brms centres at the cells'
	// unweighted means, which moves the Intercept prior a little).
	Trials string
	// Centring chooses the parameterisation of the group effects:
	// "centred", "noncentred", or "" for the rule (CentredMinRows).
	Centring string
	// Unscaled keeps the population-level design in the data's units
	// inside the model (θ's b block is then b itself). The zero value
	// scales it: see Model's doc.
	Unscaled bool
	// MaxDesignBytes, if positive, bounds the bytes of the design's
	// columns (8 a row and column): a formula whose terms would make more
	// is an error naming the term, found before the memory is taken.
	MaxDesignBytes int64
}

// CentredMinRows is the rule of the group effects' parameterisation: a
// term whose every level has at least this many rows is centred
// (parameters r_j ~ N(0, diag(sd) Ω diag(sd))), otherwise non-centred
// (r_j = diag(sd) L z_j, z_j ~ N(0, I), as brms). With few rows per level
// the data hardly inform r_j and the centred form has a funnel between sd
// and the r_j; with many, the data pin each r_j and it is the non-centred
// form whose z_j = r_j/sd all move with sd — a ridge whose joint mode sits
// far from the posterior mass (sd at 16 for a true 0.8 with 1,000 groups
// of 100 rows, 4.7 for a true 1 with 30 groups of 100 bernoulli rows), so
// no Laplace approximation or constant preconditioner fits it (Betancourt &
// Girolami 2015, "Hamiltonian Monte Carlo for hierarchical models"). 100
// Bernoulli rows give a level's intercept a data precision of about 25 (at
// p = ½) against a prior precision 1/sd² of about 1–4 for the usual
// scales. Measured: 3,000 bernoulli rows in 30 levels of 100, centred,
// the block-arrow SG-MCMC plan in 1.8 s of CPU against 37 s for NUTS on
// the non-centred form, every population-level and scale parameter within
// 0.11 NUTS sd and sds within 5% (docs/formulas.md). Not the median
// level: on 10⁵ bernoulli rows in 1,000 levels of random size (median
// 100, fewest about 70) with varying slopes the centred joint density
// has no mode that Newton's method or L-BFGS reaches — after the effects
// given the scales converge, the slopes' sd and correlation run to the
// funnel's neck (sd → 0, correlation → 1), where the joint density is
// unbounded — so the run would stop at the MAP.
const CentredMinRows = 100

// GaussianCentredKappa is the gaussian family's second centring rule: a
// term whose levels have fewer than CentredMinRows rows is still centred
// when κ = n_min·τ̂²/σ̂² ≥ 10 (informedLevels) — the data precision of the
// intercept of the level with the fewest rows, n_min/σ², at least ten
// times the prior precision 1/τ² that the group sd gives it, so that the
// posterior of every r_j is set by its rows (shrinkage below 1/11) and the
// centred form has no funnel, while the non-centred z_j = r_j/sd would all
// move with sd. The bernoulli reference of CentredMinRows is κ ≈ 100·0.8²/4
// = 16 (100 rows at p = ½, sd 0.8). Gaussian rows inform a level far more
// than bernoulli ones: on 10⁵ rows in 1,000 levels (σ = 0.7, sd 0.8, the
// fewest 71 rows) κ ≈ 37.
const GaussianCentredKappa = 10.0

// informedLevels returns κ = n_min·τ̂²/σ̂² of GaussianCentredKappa from the
// rows: σ̂² the pooled variance of y − offset about its level's mean (the
// population-level predictors' share left in, so σ̂² is too large and κ
// errs towards the non-centred form), τ̂² = max(0, the variance of the
// level means less the mean of σ̂²/n_j) the spread of the level means
// beyond their sampling error, n_min the rows of the smallest level.
func informedLevels(y, offset []float64, codes, count []int) float64 {
	J := len(count)
	sum := make([]float64, J)
	for i, v := range y {
		if offset != nil {
			v -= offset[i]
		}
		sum[codes[i]] += v
	}
	for j := range sum {
		sum[j] /= float64(max(count[j], 1))
	}
	var ss float64
	for i, v := range y {
		if offset != nil {
			v -= offset[i]
		}
		d := v - sum[codes[i]]
		ss += d * d
	}
	if len(y) <= J {
		return 0
	}
	s2 := ss / float64(len(y)-J)
	var mm, m2, noise float64
	for j, v := range sum {
		mm += v
		m2 += v * v
		noise += s2 / float64(max(count[j], 1))
	}
	mm /= float64(J)
	tau2 := m2/float64(J) - mm*mm
	tau2 = tau2*float64(J)/float64(J-1) - noise/float64(J)
	if !(tau2 > 0) || !(s2 > 0) {
		return 0
	}
	return float64(slices.Min(count)) * tau2 / s2
}

// groupTerm is one varying-effects term (terms | g) in the model.
type groupTerm struct {
	name                string   // grouping factor, brms spelling ("g", "a:b")
	coefs               []string // "Intercept", "x", …
	rcols               []string // R column names of the coefficients (for new data)
	z                   *ad.Matrix
	codes               []int
	levels              []string
	corr                bool
	K, J                int
	sd, L               transform.Block
	zb                  transform.Block // z (non-centred) or r (centred)
	centred             bool
	forced              bool        // Options.Centring chose the form, not the rule
	minRows             int         // rows of the level with the fewest
	kappa               float64     // gaussian: informedLevels (0: not computed)
	perm                []int       // K×K transpose, for the centred prior's factor
	ident               []float64   // K×K identity: the factor of an uncorrelated term
	zeroK               []float64   // K zeros: the centred prior's mean
	genSD, genCor, genR ad.GenBlock // among the derived quantities
	src                 Group
	scales, invScales   []float64 // the design's columns were divided by scales
	invScalesJK         []float64 // invScales repeated for each level (J×K)
	hz, hcodes          int       // handles of z and codes in Model.packed
}

// Model is a Bayesian regression model built from a formula and a table:
//
//	η = α + X_c β + Σ_g Z_g r_g[g_i] + offset,  y ~ family(η),
//
// where X_c is the population-level design centred at its column means
// (when the model has an intercept; α is the intercept of the centred
// design, reported as b_Intercept = α − x̄ᵀβ, as brms does), and each
// group term's effects are non-centred, r_j = diag(sd) L z_j with
// z_j ~ N(0, I) (ad.CholeskyEffects). It is a langevin.Model on the
// unconstrained θ of its layout (block names as in brms's Stan code: b,
// Intercept, sigma, sd_1, L_1, z_1, …) whose derived quantities are the
// parameters as brms reports them: b_Intercept, b_x, sd_g__Intercept,
// cor_g__Intercept__x, sigma, nu, shape, and the group effects, written
// r_g.j.k in CmdStan CSV (BrmsNames gives brms's r_g[level,coef]).
//
// Scaled design: inside the model each column of X_c is divided by its
// root mean square s (its sd when centred; weighted by the trials for
// the binomial family), and θ's b block holds b·s, the coefficient of the
// scaled column; b_… = θ_b/s are reported in the data's units, the prior
// on b is evaluated at b in the data's units (a prior set in those units
// means what it says; the constant −Σ log s of the change of variables is
// dropped), and b_Intercept is unchanged. The posterior of b is the same;
// the sampler's coordinates are as well conditioned in natural units (age
// in years, a loan in currency units) as after scale(): the condition
// number of −H on such data falls from 4·10⁸ to 5 (TestScaledDesign).
// Group-level design columns are not centred (as brms) but divided by
// their root mean square s_k the same way: θ's sd_k and effects are those
// of the scaled column (sd_k·s_k, r_jk·s_k), and sd_g__x, r_g[…,x] and the
// prior on sd are in the data's units; correlations are unchanged.
// Options.Unscaled keeps the designs as given.
type Model struct {
	*ad.Model
	Formula *Formula
	Family  string
	priors  []priorLine
	prior   map[string]Prior

	n         int
	intercept bool
	xnames    []string // R column names of X
	means     []float64
	scales    []float64 // X's columns were divided by these (1: not scaled)
	invScales []float64
	x         *ad.Matrix
	y         []float64
	yi        []int
	trials    []int // binomial: the trials of each row
	offset    []float64
	zeros     []float64
	groups    []*groupTerm
	book      codebook
	gen       *ad.Generated
	brms      []string
	genBI     ad.GenBlock // b_Intercept among the derived quantities
	genB      ad.GenBlock // b_…
	packed    *ad.Packed  // the rows as records, for minibatches (nil: not packed)
	handles   struct{ x, y, yi, trials, offset int }

	bI, bB, bAux transform.Block
	hasB, hasAux bool
	auxName      string

	warnings []string // Warnings

	coll *collapsed // the gaussian likelihood's sufficient statistics (nil: none)

	taylorMu   sync.Mutex
	taylorLast *taylor // TaylorAt's last expansion
}

type priorLine struct{ class, prior, why string }

// New builds the model of formula f on the table.
func New(f *Formula, tab Table, opt Options) (*Model, error) {
	fam := opt.Family
	switch fam {
	case "":
		fam = "gaussian"
	case "logistic", "logit":
		fam = "bernoulli"
	}
	ok := false
	for _, g := range Families {
		ok = ok || g == fam
	}
	if !ok {
		return nil, fmt.Errorf("family %q: expected one of %s", opt.Family, strings.Join(Families, ", "))
	}
	n := tab.Len()
	if n == 0 {
		return nil, fmt.Errorf("no rows")
	}
	m := &Model{Formula: f, Family: fam, n: n, intercept: f.Intercept, book: codebook{}, prior: opt.Priors}
	if err := f.responseAmongPredictors(); err != nil {
		return nil, err
	}
	e := &env{tab: tab, book: m.book, train: true, maxBytes: opt.MaxDesignBytes}
	if f.Trials != "" {
		if opt.Trials != "" && opt.Trials != f.Trials {
			return nil, &SyntaxError{f.TrialsPos, fmt.Sprintf("trials(%s) in the formula and trials column %q in the options: expected one", f.Trials, opt.Trials)}
		}
		if fam != "binomial" {
			return nil, &SyntaxError{f.TrialsPos, fmt.Sprintf("y | trials(%s) is the binomial family's response, the family is %s: use the binomial family (--family binomial)", f.Trials, fam)}
		}
		opt.Trials = f.Trials
	}
	if (fam == "binomial") != (opt.Trials != "") {
		return nil, fmt.Errorf("family %s with trials column %q: the binomial family needs the column of the trials (y | trials(n) ~ …), and only it", fam, opt.Trials)
	}
	if opt.Trials != "" {
		v, err := e.num(&Expr{Op: "col", Name: opt.Trials, Text: opt.Trials})
		if err != nil {
			return nil, fmt.Errorf("trials: %v", err)
		}
		m.trials = make([]int, n)
		for i, t := range v {
			if t != math.Trunc(t) || t < 1 {
				return nil, fmt.Errorf("trials %s = %v at row %d: expected a whole number ≥ 1", opt.Trials, t, i+1)
			}
			m.trials[i] = int(t)
		}
	}
	if err := m.response(e, f.Response); err != nil {
		return nil, err
	}
	names, cols, err := e.terms(f.Terms, f.Intercept)
	if err != nil {
		return nil, err
	}
	m.xnames = names
	sep := m.separated(names, cols)
	P := len(cols)
	m.means = make([]float64, P)
	for j, c := range cols {
		if f.Intercept {
			m.means[j] = weightedMean(c, m.trials)
			cj := make([]float64, n) // c may be a column of the table
			for i, v := range c {
				cj[i] = v - m.means[j]
			}
			cols[j] = cj
		}
	}
	m.scales, m.invScales = scaleColumns(cols, n, m.trials, opt.Unscaled)
	// The designs are stored by columns only (full-data passes); a
	// minibatch reads its rows from the records of Model.pack.
	m.x = ad.NewMatrixCols(n, cols)
	m.zeros = make([]float64, n)
	if len(f.Offsets) > 0 {
		m.offset = make([]float64, n)
		for _, o := range f.Offsets {
			v, err := e.num(o)
			if err != nil {
				return nil, err
			}
			for i, u := range v {
				m.offset[i] += u
			}
		}
	}
	seen := map[string]bool{}
	for _, g := range f.Groups {
		if seen[g.Name()] {
			return nil, &SyntaxError{g.Pos, fmt.Sprintf("a second group-level term on %s: write one term, (1 + x | %s) or (1 + x || %s)", g.Name(), g.Name(), g.Name())}
		}
		seen[g.Name()] = true
		gt := &groupTerm{name: g.Name(), corr: g.Correlated, src: g}
		gn, gc, err := e.terms(g.Terms, g.Intercept)
		if err != nil {
			return nil, err
		}
		if g.Intercept {
			gt.coefs, gt.rcols = append(gt.coefs, "Intercept"), append(gt.rcols, "(Intercept)")
			one := make([]float64, n)
			for i := range one {
				one[i] = 1
			}
			gc = append([][]float64{one}, gc...)
		}
		for _, c := range gn {
			gt.coefs, gt.rcols = append(gt.coefs, brmsName(c)), append(gt.rcols, c)
		}
		gt.K = len(gc)
		// Each column of the term's design is divided by its root mean
		// square (not centred, as brms); the intercept's column of ones
		// keeps 1. θ's sd and effects are then of the scaled columns.
		gt.scales, gt.invScales = scaleColumns(gc, n, m.trials, opt.Unscaled)
		gt.z = ad.NewMatrixCols(n, gc)
		if gt.codes, gt.levels, err = e.grouping(g); err != nil {
			return nil, err
		}
		gt.J = len(gt.levels)
		if gt.J < 2 {
			return nil, &SyntaxError{g.Pos, fmt.Sprintf("grouping factor %s has %d level: expected at least 2", g.Name(), gt.J)}
		}
		gt.invScalesJK = make([]float64, gt.J*gt.K)
		for j := 0; j < gt.J; j++ {
			copy(gt.invScalesJK[j*gt.K:], gt.invScales)
		}
		gt.ident = make([]float64, gt.K*gt.K)
		gt.perm = make([]int, gt.K*gt.K)
		gt.zeroK = make([]float64, gt.K)
		for k := 0; k < gt.K; k++ {
			gt.ident[k*gt.K+k] = 1
			for j := 0; j < gt.K; j++ {
				gt.perm[k*gt.K+j] = j*gt.K + k
			}
		}
		count := make([]int, gt.J)
		for i, c := range gt.codes {
			if m.trials != nil {
				count[c] += m.trials[i] // a binomial cell counts its Bernoulli rows
			} else {
				count[c]++
			}
		}
		gt.minRows = slices.Min(count)
		switch opt.Centring {
		case "":
			gt.centred = gt.minRows >= CentredMinRows
			if fam == "gaussian" && !gt.centred {
				gt.kappa = informedLevels(m.y, m.offset, gt.codes, count)
				gt.centred = gt.kappa >= GaussianCentredKappa
			}
		case "centred":
			gt.centred, gt.forced = true, true
		case "noncentred":
			gt.forced = true
		default:
			return nil, fmt.Errorf("centring %q: expected centred, noncentred or empty (the rule)", opt.Centring)
		}
		m.groups = append(m.groups, gt)
	}
	if err := m.setPriors(); err != nil {
		return nil, err
	}
	if sep != "" {
		b := "b_" + brmsName(sep)
		if m.prior["b"].Dist == "flat" {
			return nil, fmt.Errorf("the predictor %s separates the outcomes of %s (every row on one side of a value has y = 1, every row on the other y = 0): the likelihood keeps growing as %s → ±∞, and under the flat prior on b the posterior is improper (the draws drift without bound); give b a proper prior (--priors 'b ~ normal(0, 2.5)'), or leave %s out", sep, f.Response.Text, b, sep)
		}
		m.warnings = append(m.warnings, fmt.Sprintf("the predictor %s separates the outcomes of %s: the likelihood keeps growing as %s → ±∞, so its posterior is set by the prior on b (%s) alone", sep, f.Response.Text, b, m.prior["b"]))
	}
	m.build(P)
	return m, nil
}

// response reads y and checks it against the family.
func (m *Model) response(e *env, r *Expr) error {
	if codes, levels, isCat, err := e.factor(r); err != nil {
		return err
	} else if isCat {
		if m.Family != "bernoulli" && m.Family != "probit" || len(levels) != 2 {
			return &SyntaxError{r.Pos, fmt.Sprintf("response %s is categorical with levels %s: expected numbers (or two levels for the bernoulli family)", r.Text, preview(levels))}
		}
		m.y = make([]float64, len(codes))
		for i, k := range codes {
			m.y[i] = float64(k) // R: the second level is the success
		}
	} else {
		y, err := e.num(r)
		if err != nil {
			return err
		}
		m.y = y
	}
	switch m.Family {
	case "bernoulli", "probit", "poisson", "negbinomial", "binomial":
		m.yi = make([]int, len(m.y))
		for i, v := range m.y {
			bad := v != math.Trunc(v) || v < 0 || (m.Family == "bernoulli" || m.Family == "probit") && v > 1 ||
				m.trials != nil && v > float64(m.trials[i])
			if bad {
				want := "a count 0, 1, 2, …"
				switch m.Family {
				case "bernoulli", "probit":
					want = "0 or 1"
				case "binomial":
					want = fmt.Sprintf("a count of successes 0 … %d (the trials)", m.trials[i])
				}
				return &SyntaxError{r.Pos, fmt.Sprintf("response %s = %v at row %d: the %s family expects %s", r.Text, v, i+1, m.Family, want)}
			}
			m.yi[i] = int(v)
		}
	}
	return nil
}

// setPriors sets brms's default priors, or the overrides, with reasons.
func (m *Model) setPriors() error {
	scale, loc := 2.5, 0.0
	var link func(float64) float64
	switch m.Family {
	case "gaussian", "student":
		link = func(v float64) float64 { return v }
	case "poisson", "negbinomial":
		link = func(v float64) float64 {
			if v == 0 {
				v += 0.1
			}
			return math.Log(v)
		}
	}
	why := "brms default: location 0, scale 2.5"
	if link != nil {
		yl := make([]float64, len(m.y))
		for i, v := range m.y {
			yl[i] = link(v)
		}
		scale = round1(math.Max(2.5, mad(yl)))
		loc = round1(median(yl))
		why = "brms default: location median(link(y)), scale max(2.5, mad(link(y))), rounded to 0.1"
		if m.offset != nil {
			mo, _ := meanSD(m.offset)
			loc -= mo
			why = "brms default: location median(link(y)) rounded to 0.1 minus the mean offset, scale max(2.5, mad(link(y))) rounded to 0.1"
		}
	}
	set := func(class string, def Prior, why string) Prior {
		if p, ok := m.prior[class]; ok {
			m.priors = append(m.priors, priorLine{class, p.String(), "set by the user"})
			return p
		}
		m.priors = append(m.priors, priorLine{class, def.String(), why})
		return def
	}
	pr := map[string]Prior{}
	if m.intercept {
		pr["Intercept"] = set("Intercept", Prior{"student_t", []float64{3, loc, scale}}, why+"; on the intercept of the centred predictors")
	}
	if len(m.xnames) > 0 {
		pr["b"] = set("b", Prior{Dist: "flat"}, "brms default: improper flat")
	}
	if len(m.groups) > 0 {
		pr["sd"] = set("sd", Prior{"student_t", []float64{3, 0, scale}}, "brms default: half student_t, scale as the intercept's")
		corr := false
		for _, g := range m.groups {
			corr = corr || g.corr && g.K > 1
		}
		if corr {
			pr["cor"] = set("cor", Prior{"lkj", []float64{1}}, "brms default: uniform over correlation matrices")
		}
	}
	switch m.Family {
	case "gaussian", "student":
		pr["sigma"] = set("sigma", Prior{"student_t", []float64{3, 0, scale}}, "brms default: half student_t, scale as the intercept's")
	}
	if m.Family == "student" {
		pr["nu"] = set("nu", Prior{"gamma", []float64{2, 0.1}}, "brms default (Juárez and Steel 2010), nu > 1")
	}
	if m.Family == "negbinomial" {
		pr["shape"] = set("shape", Prior{"gamma", []float64{0.01, 0.01}}, "brms default")
	}
	for class := range m.prior {
		if _, ok := pr[class]; !ok {
			return fmt.Errorf("prior on %s: the model has no parameter of that class", class)
		}
	}
	m.prior = pr
	return nil
}

// PriorLines returns the model's priors, one "class ~ prior  (reason)"
// line each.
func (m *Model) PriorLines() []string {
	out := make([]string, len(m.priors))
	for i, p := range m.priors {
		out[i] = fmt.Sprintf("%-9s ~ %-26s (%s)", p.class, p.prior, p.why)
	}
	return out
}

// build lays out the parameters and writes the log density.
func (m *Model) build(P int) {
	l := &transform.Layout{}
	if P > 0 {
		m.bB, m.hasB = l.Add("b", transform.Identity(P)), true
	}
	if m.intercept {
		m.bI = l.Add("Intercept", transform.Identity(1))
	}
	switch m.Family {
	case "gaussian", "student":
		m.bAux, m.hasAux, m.auxName = l.Add("sigma", transform.Positive(1)), true, "sigma"
	case "negbinomial":
		m.bAux, m.hasAux, m.auxName = l.Add("shape", transform.Positive(1)), true, "shape"
	}
	var bNu transform.Block
	if m.Family == "student" {
		bNu = l.Add("nu", transform.Lower{L: 1, N: 1})
	}
	for i, g := range m.groups {
		s := strconv.Itoa(i + 1)
		g.sd = l.Add("sd_"+s, transform.Positive(g.K))
		if g.corr && g.K > 1 {
			g.L = l.Add("L_"+s, transform.CholeskyCorr(g.K))
		}
		if g.centred {
			g.zb = l.Add("r_"+s, transform.Identity(g.J*g.K), g.J, g.K)
		} else {
			g.zb = l.Add("z_"+s, transform.Identity(g.J*g.K), g.J, g.K)
		}
	}
	// Generated quantities: the parameters as brms reports them.
	gq := &ad.Generated{}
	var gB, gBI, gAux, gNu ad.GenBlock
	if m.intercept {
		gBI = gq.AddNamed([]string{"b_Intercept"})
	}
	if P > 0 {
		names := make([]string, P)
		for j, c := range m.xnames {
			names[j] = "b_" + brmsName(c)
		}
		gB = gq.AddNamed(names)
	}
	gSD := make([]ad.GenBlock, len(m.groups))
	gCor := make([]ad.GenBlock, len(m.groups))
	corIdx := make([][]int, len(m.groups))
	for i, g := range m.groups {
		names := make([]string, g.K)
		for k, c := range g.coefs {
			names[k] = "sd_" + g.name + "__" + c
		}
		gSD[i] = gq.AddNamed(names)
		if g.corr && g.K > 1 {
			var cn []string
			for k := 1; k < g.K; k++ { // brms order: (1,2), (1,3), (2,3), …
				for j := 0; j < k; j++ {
					cn = append(cn, "cor_"+g.name+"__"+g.coefs[j]+"__"+g.coefs[k])
					corIdx[i] = append(corIdx[i], j*g.K+k)
				}
			}
			gCor[i] = gq.AddNamed(cn)
		}
	}
	if m.hasAux {
		gAux = gq.AddNamed([]string{m.auxName})
	}
	if m.Family == "student" {
		gNu = gq.AddNamed([]string{"nu"})
	}
	gR := make([]ad.GenBlock, len(m.groups))
	for i, g := range m.groups {
		names := make([]string, 0, g.J*g.K)
		for j := 0; j < g.J; j++ {
			for k := 0; k < g.K; k++ {
				names = append(names, fmt.Sprintf("r_%s.%d.%d", g.name, j+1, k+1))
				m.brms = append(m.brms, fmt.Sprintf("r_%s[%s,%s]", g.name, g.levels[j], g.coefs[k]))
			}
		}
		gR[i] = gq.AddNamed(names)
	}
	m.gen = gq
	m.genBI, m.genB = gBI, gB
	for i, g := range m.groups {
		g.genSD, g.genCor, g.genR = gSD[i], gCor[i], gR[i]
	}
	pr := m.prior
	prior := func(t *ad.Tape) ad.Vec {
		lp := t.Const(0)
		add := func(v ad.Vec) { lp = t.Add(lp, v) }
		var b ad.Vec
		if P > 0 {
			// θ's b block is the coefficient of the scaled columns, b·s;
			// the prior and the report are of b in the data's units.
			b = t.Mul(t.Param(m.bB), t.Data(m.invScales))
			add(pr["b"].logDensity(t, b, 0, false))
			t.Generate(gB, b)
		}
		if m.intercept {
			a := t.Param(m.bI)
			add(pr["Intercept"].logDensity(t, a, 0, false))
			bi := a
			if P > 0 {
				bi = t.Sub(a, t.Dot(t.Data(m.means), b))
			}
			t.Generate(gBI, bi)
		}
		if m.hasAux {
			v := t.Param(m.bAux)
			add(pr[m.auxName].logDensity(t, v, 0, true))
			t.Generate(gAux, v)
		}
		if m.Family == "student" {
			v := t.Param(bNu)
			add(pr["nu"].logDensity(t, v, 1, true))
			t.Generate(gNu, v)
		}
		for i, g := range m.groups {
			// θ's sd is of the scaled columns; the prior and the report
			// are of the data's units (Model's doc).
			sd := t.Param(g.sd)
			sdData := t.Mul(sd, t.Data(g.invScales))
			add(pr["sd"].logDensity(t, sdData, 0, true))
			t.Generate(gSD[i], sdData)
			if g.corr && g.K > 1 {
				L := t.Param(g.L)
				add(t.LKJCorrCholesky(L, pr["cor"].Args[0]))
				t.Generate(gCor[i], t.Select(t.Gram(L, g.K), corIdx[i]))
			}
			if !g.centred {
				add(t.Normal(t.Param(g.zb), t.Const(0), t.Const(1)))
				continue
			}
			// Centred: r_j ~ N(0, diag(sd) Ω diag(sd)), Ω = LLᵀ; the
			// covariance's factor diag(sd)·L is the transpose of
			// CholeskyEffects(sd, L, I).
			L := t.Data(g.ident)
			if g.corr && g.K > 1 {
				L = t.Param(g.L)
			}
			fac := t.Select(t.CholeskyEffects(sd, L, t.Data(g.ident)), g.perm)
			add(t.MultiNormalCholesky(t.Param(g.zb), t.Data(g.zeroK), fac))
		}
		return lp
	}
	m.pack(P)
	m.coll = m.collapse()
	lik := func(t *ad.Tape, batch []int) ad.Vec {
		if batch == nil && m.coll != nil {
			return m.collapsedLik(t, m.coll, P)
		}
		// A minibatch reads its rows' records (Model.pack) into contiguous
		// arrays first: the same values, so the same results bit for bit.
		X, y, yi, trials, offset := m.x, m.y, m.yi, m.trials, m.offset
		var gb *ad.Gathered
		if m.packed != nil && len(batch) > 0 {
			gb = t.Gather(m.packed, batch)
			batch = gb.Index()
			h := &m.handles
			if P > 0 {
				X = gb.Matrix(h.x)
			}
			if m.Family == "gaussian" || m.Family == "student" {
				y = gb.Floats(h.y)
			}
			if yi != nil {
				yi = gb.Ints(h.yi)
			}
			if trials != nil {
				trials = gb.Ints(h.trials)
			}
			if offset != nil {
				offset = gb.Floats(h.offset)
			}
		}
		var eta ad.Vec
		switch {
		case P > 0:
			eta = t.MatVec(X, t.Param(m.bB), batch)
			if m.intercept {
				eta = t.Add(eta, t.Param(m.bI))
			}
		case m.intercept:
			eta = t.Add(t.Rows(m.zeros, batch), t.Param(m.bI))
		default:
			eta = t.Rows(m.zeros, batch)
		}
		for i, g := range m.groups {
			L := t.Data(g.ident)
			if g.corr && g.K > 1 {
				L = t.Param(g.L)
			}
			var r ad.Vec
			if g.centred {
				r = t.Param(g.zb)
			} else {
				r = t.CholeskyEffects(t.Param(g.sd), L, t.Param(g.zb))
			}
			t.Generate(gR[i], t.Mul(r, t.Data(g.invScalesJK)))
			z, codes := g.z, g.codes
			if gb != nil {
				z, codes = gb.Matrix(g.hz), gb.Ints(g.hcodes)
			}
			eta = t.Add(eta, t.GroupMatVec(z, r, codes, batch))
		}
		if batch != nil && len(batch) == 0 {
			return t.Const(0)
		}
		if offset != nil {
			eta = t.Add(eta, t.Rows(offset, batch))
		}
		switch m.Family {
		case "gaussian":
			return t.Normal(t.Rows(y, batch), eta, t.Param(m.bAux))
		case "student":
			return t.StudentT(t.Rows(y, batch), t.Param(bNu), eta, t.Param(m.bAux))
		case "bernoulli":
			return t.BernoulliLogit(t.IntRows(yi, batch), eta)
		case "binomial":
			return t.BinomialLogit(t.IntRows(yi, batch), t.IntRows(trials, batch), eta)
		case "probit":
			return t.BernoulliProbit(t.IntRows(yi, batch), eta)
		case "poisson":
			return t.PoissonLog(t.IntRows(yi, batch), eta)
		case "negbinomial":
			return t.NegBin2Log(t.IntRows(yi, batch), eta, t.Param(m.bAux))
		}
		panic("formula: family " + m.Family)
	}
	m.Model = ad.New(l, m.n, prior, lik).WithGenerated(gq)
}

// pack stores the model's rows a second time as one record per row
// (ad.Packed: the centred design, each group term's design and codes, the
// response, trials and offset), so that a minibatch reads one or two cache
// lines per row rather than one per row of each array: on 10⁶ rows of
// y ~ x + (1 + x | g) a 44,196-row batch's gradient cost ~110 ns a row
// against ~39 ns a row in a full pass, the difference being those lines
// (BenchmarkScaleRowsBatchGradient). Models whose counts do not fit in 32
// bits are not packed.
func (m *Model) pack(P int) {
	pk := ad.NewPacked(m.n)
	h := &m.handles
	if P > 0 {
		h.x = pk.Matrix(m.x)
	}
	for _, g := range m.groups {
		g.hz = pk.Matrix(g.z)
	}
	realY := m.Family == "gaussian" || m.Family == "student"
	if realY {
		h.y = pk.Floats(m.y)
	}
	if m.offset != nil {
		h.offset = pk.Floats(m.offset)
	}
	for _, g := range m.groups {
		g.hcodes = pk.Ints(g.codes)
	}
	if m.yi != nil {
		h.yi = pk.Ints(m.yi)
	}
	if m.trials != nil {
		h.trials = pk.Ints(m.trials)
	}
	if pk.Pack() == nil {
		m.packed = pk
		return
	}
	m.x.AddRows() // minibatches then read the designs' rows
	for _, g := range m.groups {
		g.z.AddRows()
	}
}

// DerivedNames returns the names of the parameters as brms reports them,
// stored after θ in every draw: b_Intercept, b_…, sd_…, cor_…, sigma, nu,
// shape, then the group effects r_g.j.k (level j, coefficient k).
func (m *Model) DerivedNames() []string { return m.gen.Names() }

// Derive writes the quantities of DerivedNames at θ into dst.
func (m *Model) Derive(theta, dst []float64) { m.Model.Generate(theta, dst) }

// BrmsNames returns DerivedNames as brms spells them: the same names, with
// r_g.j.k written r_g[level,coef].
func (m *Model) BrmsNames() []string {
	names := m.gen.Names()
	out := make([]string, len(names))
	copy(out, names)
	copy(out[len(out)-len(m.brms):], m.brms)
	return out
}

// GroupEffect reports whether the named parameter or derived quantity is
// a group-level effect: a column of the blocks r_1, r_2, … (centred) or
// z_1, … (non-centred) of θ, or a derived r_g.j.k (fit.GroupEffects: the
// R̂ rule judges these thousands of exchangeable quantities as one family).
// Every other name of the model begins with b, Intercept, sd_, L_, cor_,
// sigma, shape or nu.
func (m *Model) GroupEffect(name string) bool {
	if len(m.groups) == 0 {
		return false
	}
	return strings.HasPrefix(name, "r_") || strings.HasPrefix(name, "z_")
}

// HasGroups reports whether the model has group-level terms.
func (m *Model) HasGroups() bool { return len(m.groups) > 0 }

// StochasticGradientCaveat is the statement a run must print when a
// stochastic-gradient sampler draws from a model with group-level terms:
// a group's effects get gradient only from that group's rows in a
// minibatch, so their gradient noise is large, and the funnel between sd
// and the effects defeats a constant preconditioner; SGLD through the
// plan was measured wrong on such a model (R̂ 1.15, bulk-ESS 30 on 2,000
// rows and 20 groups) — hence the draws are to be trusted only where the
// convergence checks pass.
const StochasticGradientCaveat = "a stochastic-gradient sampler on a model with group-level terms is not validated (measured: R̂ up to 1.15 on 20 groups); trust the draws only if no R̂/ESS/KSD warning follows, or run --sampler nuts"

// GroupNames returns the names of the model's grouping factors, in the
// formula's order.
func (m *Model) GroupNames() []string {
	out := make([]string, len(m.groups))
	for i, g := range m.groups {
		out[i] = g.name
	}
	return out
}

// Groups describes the model's grouping factors: name, number of levels,
// coefficients.
func (m *Model) Groups() []string {
	out := make([]string, len(m.groups))
	for i, g := range m.groups {
		kind := "correlated"
		if !g.corr || g.K == 1 {
			kind = "uncorrelated"
		}
		param := fmt.Sprintf("effects non-centred, r = diag(sd)·L·z (a level has %d rows < %d)", g.minRows, CentredMinRows)
		if g.kappa > 0 {
			param = fmt.Sprintf("effects non-centred, r = diag(sd)·L·z (a level has %d rows < %d, and its rows inform its intercept %.3g× its prior < %g)", g.minRows, CentredMinRows, g.kappa, GaussianCentredKappa)
		}
		if g.centred {
			param = fmt.Sprintf("effects centred, r ~ N(0, diag(sd)·Ω·diag(sd)) (every level has ≥ %d rows, the fewest %d)", CentredMinRows, g.minRows)
			if g.kappa > 0 {
				param = fmt.Sprintf("effects centred, r ~ N(0, diag(sd)·Ω·diag(sd)) (the level with the fewest rows, %d, informs its intercept %.3g× its prior ≥ %g)", g.minRows, g.kappa, GaussianCentredKappa)
			}
		}
		if g.forced {
			param = "effects non-centred, r = diag(sd)·L·z (as asked)"
			if g.centred {
				param = "effects centred, r ~ N(0, diag(sd)·Ω·diag(sd)) (as asked)"
			}
		}
		out[i] = fmt.Sprintf("%s: %d levels, %s (%s); %s", g.name, g.J, strings.Join(g.coefs, ", "), kind, param)
	}
	return out
}

// HessianBlocks implements langevin.BlockStructured: the effects z (J
// levels × K coefficients, non-centred) of the group term with the most
// of them are the block term — a row of data belongs to one level, so two
// levels' z never share a second derivative; everything else (b,
// Intercept, sd, L, sigma, the other terms' effects) is the border. A
// second term's effects are in the border, not blocks of their own,
// because crossed factors share rows: their second derivatives between
// the terms are not zero, and dropping them can make the Schur complement
// indefinite (both terms' intercepts inform the population intercept).
func (m *Model) HessianBlocks() []langevin.BlockTerm {
	var best *groupTerm
	for _, g := range m.groups {
		if best == nil || g.J*g.K > best.J*best.K {
			best = g
		}
	}
	if best == nil {
		return nil
	}
	return []langevin.BlockTerm{{Offset: best.zb.Off, Levels: best.J, K: best.K}}
}

// PrintedNames maps the names of a draw's columns (θ's, then
// DerivedNames) to the names a summary prints: brms's spelling of the
// derived quantities (b_x, sd_g__Intercept, r_g[level,Intercept]), and
// nothing for θ's columns (b.1, Intercept, sd_1.1, L_1…, z_1.j.k: the
// unconstrained parameters of the scaled design, internal to the model);
// a name absent from the map is not printed. The chain files keep
// CmdStan's names (r_g.j.k): a comma cannot stand in their header.
func (m *Model) PrintedNames() map[string]string {
	names, brms := m.DerivedNames(), m.BrmsNames()
	out := make(map[string]string, len(names))
	for i, n := range names {
		out[n] = brms[i]
	}
	return out
}

// scaleColumns divides each of the n-row design columns cols by its scale
// s_j (designScale; 1 when unscaled), replacing a column by a scaled copy
// (a column may be the table's own), and returns the scales and their
// reciprocals: the one rule for the population-level and the group-level
// designs.
func scaleColumns(cols [][]float64, n int, trials []int, unscaled bool) (scales, inv []float64) {
	scales, inv = make([]float64, len(cols)), make([]float64, len(cols))
	for j, c := range cols {
		scales[j] = 1
		if !unscaled {
			scales[j] = designScale(c, trials)
		}
		inv[j] = 1 / scales[j]
		if scales[j] != 1 {
			cj := make([]float64, n)
			for i, v := range c {
				cj[i] = v * inv[j]
			}
			cols[j] = cj
		}
	}
	return scales, inv
}
