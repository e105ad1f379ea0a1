package fit

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/sampler"
)

// nutsFixture is the reference of TestNetPlanAgainstNUTS: a long NUTS run on
// the 1-10-1 tanh network of gapNet(t, 50) (learned noise, fan-in prior,
// standardised response), summarised at netRefX: the posterior mean and
// variance of f(x), E[σ²], and their Monte Carlo standard errors (from the
// bulk-ESS of each quantity).
type nutsFixture struct {
	X        []float64 `json:"x"`
	MeanF    []float64 `json:"mean_f"`
	VarF     []float64 `json:"var_f"`
	SEMeanF  []float64 `json:"se_mean_f"`
	SEVarF   []float64 `json:"se_var_f"`
	Sigma2   float64   `json:"sigma2"`
	SESigma2 float64   `json:"se_sigma2"`
	Draws    int       `json:"draws"`
	Chains   int       `json:"chains"`
	Warm     int       `json:"warmup"`
}

// netRefX: inside the data (±1, ±1.5), in the gap (0) and outside (±2.5).
var netRefX = []float64{-2.5, -1.5, -1, 0, 1, 1.5, 2.5}

const nutsFixturePath = "testdata/netplan_nuts_gap1d50.json"

// netSummary returns, at netRefX, the mean and variance over the draws of
// f(x), their MC standard errors, and E[σ²] with its standard error.
func netSummary(m Network, chains [][][]float64) (meanF, varF, seM, seV []float64, s2, seS2 float64) {
	X := mat.NewDense(len(netRefX), 1, append([]float64(nil), netRefX...))
	nx := len(netRefX)
	d := m.Dim()
	type col = [][]float64
	f := make([]col, nx)
	f2 := make([]col, nx)
	sg := make(col, len(chains))
	for i := range f {
		f[i], f2[i] = make(col, len(chains)), make(col, len(chains))
	}
	vals := make([]float64, nx)
	for c, ch := range chains {
		for i := range f {
			f[i][c], f2[i][c] = make([]float64, len(ch)), make([]float64, len(ch))
		}
		sg[c] = make([]float64, len(ch))
		for s, th := range ch {
			m.FunctionValues(th[:d], X, vals)
			for i, v := range vals {
				f[i][c][s] = v
			}
			sg[c][s] = m.(interface{ NoiseVar([]float64) float64 }).NoiseVar(th[:d])
		}
	}
	mean := func(cs col) (mu, se float64) {
		var n float64
		for _, ch := range cs {
			for _, v := range ch {
				mu += v
				n++
			}
		}
		mu /= n
		var v2 float64
		for _, ch := range cs {
			for _, v := range ch {
				v2 += (v - mu) * (v - mu)
			}
		}
		return mu, math.Sqrt(v2 / n / diag.ESSBulk(cs))
	}
	for i := range f {
		mu, se := mean(f[i])
		for c := range f2[i] {
			for s, v := range f[i][c] {
				f2[i][c][s] = (v - mu) * (v - mu)
			}
		}
		vf, sev := mean(f2[i])
		meanF, seM = append(meanF, mu), append(seM, se)
		varF, seV = append(varF, vf), append(seV, sev)
	}
	s2, seS2 = mean(sg)
	return
}

func traceChains(tr *langevin.Trace) [][][]float64 {
	short := math.MaxInt
	for _, c := range tr.Draws {
		short = min(short, len(c))
	}
	out := make([][][]float64, len(tr.Draws))
	for c, rows := range tr.Draws {
		out[c] = rows[:short]
	}
	return out
}

// TestNetPlanAgainstNUTS: the default network plan's predictive at points
// inside, between and outside the data agrees with a long NUTS run (the
// exact answer up to its own Monte Carlo error), and the same comparison
// fails for a sampler at temperature 2 (injected noise √2 too large) and
// for a likelihood scaled by ½ (a wrong N/|B|).
//
// Tolerance: |a − b| ≤ 4·√(seₐ² + se_b²) + bias, the standard errors from
// the bulk-ESS of each quantity in each run, and a bias allowance of 10% of
// the reference's sd of f for the mean, and 15% for Var f and E[σ²] (the step
// budget η·λmax = 0.1 allows about 5% variance inflation along the stiffest
// direction; the rest covers modes that the two runs weigh differently).
// The slips change Var f by a factor about 2, far outside.
//
// The NUTS fixture: LANGEVIN_NUTS_FIXTURE=1 go test ./fit -run AgainstNUTS
// (4 chains × 1,000 warm-up + 2,000 draws, tree depth ≤ 8: minutes of CPU).
func TestNetPlanAgainstNUTS(t *testing.T) {
	if os.Getenv("LANGEVIN_NUTS_FIXTURE") == "" && os.Getenv("LANGEVIN_LONG_TESTS") == "" {
		t.Skip("about 60 s of CPU: LANGEVIN_LONG_TESTS=1 runs it (numbers in docs/right-by-default.md)")
	}
	m := gapNet(t, 50)
	ctx := context.Background()
	p, err := NewNetPlan(ctx, m, NetPlanOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("LANGEVIN_NUTS_FIXTURE") != "" {
		const warm, draws = 1000, 2000
		tr, err := langevin.Run(ctx, m, sampler.NUTS{MaxDepth: 8, Precond: p.Precond, Adapt: sampler.Adapt{Warmup: warm}},
			langevin.Options{Chains: 4, Iters: warm + draws, BurnIn: warm, Init: p.Init(), Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		fx := nutsFixture{X: netRefX, Draws: draws, Chains: 4, Warm: warm}
		fx.MeanF, fx.VarF, fx.SEMeanF, fx.SEVarF, fx.Sigma2, fx.SESigma2 = netSummary(m, traceChains(tr))
		b, _ := json.MarshalIndent(fx, "", "  ")
		if err := os.WriteFile(nutsFixturePath, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(nutsFixturePath)
	if err != nil {
		t.Fatal(err)
	}
	var ref nutsFixture
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	run := func(p *NetPlan, mm Network) []string {
		var conv *FunctionConvergence
		tr, err := langevin.Run(ctx, mm, p.Sampler, langevin.Options{Chains: 4, Iters: 3 * p.MaxIters, BurnIn: p.BurnIn,
			Init: p.Init(), Seed: 1, Until: p.Until(mm, 200, &conv), CheckEvery: max(200, p.BurnIn/4), MaxKeep: 500})
		if err != nil {
			t.Fatal(err)
		}
		mf, vf, sem, sev, s2, ses2 := netSummary(m, traceChains(tr))
		var bad []string
		for i, x := range ref.X {
			sd := math.Sqrt(ref.VarF[i])
			if d := math.Abs(mf[i] - ref.MeanF[i]); d > 4*math.Hypot(sem[i], ref.SEMeanF[i])+0.1*sd {
				bad = append(bad, "mean f("+ftoa(x)+") "+ftoa(mf[i])+" vs NUTS "+ftoa(ref.MeanF[i]))
			}
			if d := math.Abs(vf[i] - ref.VarF[i]); d > 4*math.Hypot(sev[i], ref.SEVarF[i])+0.15*ref.VarF[i] {
				bad = append(bad, "var f("+ftoa(x)+") "+ftoa(vf[i])+" vs NUTS "+ftoa(ref.VarF[i]))
			}
		}
		if d := math.Abs(s2 - ref.Sigma2); d > 4*math.Hypot(ses2, ref.SESigma2)+0.15*ref.Sigma2 {
			bad = append(bad, "E σ² "+ftoa(s2)+" vs NUTS "+ftoa(ref.Sigma2))
		}
		t.Logf("%s: %v; σ² %.4g (NUTS %.4g); var f %v (NUTS %v)", p.Kind, conv, s2, ref.Sigma2, vf, ref.VarF)
		return bad
	}
	if bad := run(p, m); len(bad) > 0 {
		t.Errorf("the default plan disagrees with NUTS: %v", bad)
	}
	// Slips: temperature 2; the likelihood weighed by ½ (N/|B| halved).
	hot := &NetPlan{Kind: p.Kind, Eta: p.Eta, Precond: p.Precond, Batch: p.Batch, Modes: p.Modes,
		BurnIn: p.BurnIn, MaxIters: p.MaxIters, Points: p.Points, temperature: 2}
	hot.setSampler()
	if bad := run(hot, m); len(bad) == 0 {
		t.Error("temperature 2 (noise √2 too large) passed the comparison")
	}
	half := halfLik{m}
	if bad := run(p, half); len(bad) == 0 {
		t.Error("the likelihood weighed by ½ (a wrong N/|B|) passed the comparison")
	}
}

type halfLik struct{ Network }

func (h halfLik) LogLik(th []float64, b []int, g []float64) float64 {
	if g == nil {
		return h.Network.LogLik(th, b, nil) / 2
	}
	tmp := make([]float64, len(g))
	ll := h.Network.LogLik(th, b, tmp)
	for j, v := range tmp {
		g[j] += v / 2
	}
	return ll / 2
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
