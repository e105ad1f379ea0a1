package experiment

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

func init() {
	Register(Experiment{
		Name:    "report-cost",
		Summary: "the seed report's §4.5 as one table: CPU cost per iteration of SGLD (batch 100), MALA and RWM against N on logistic regression (d = 10)",
		Run:     runReportCost,
	})
}

// costRow is the CPU time per iteration of each method at one N.
type costRow struct {
	n               int
	sgld, mala, rwm time.Duration
	iters           [3]int
	sgldB           int
}

// costData returns a logistic regression on n rows of d standard-normal
// features, labels from weights N(0, 1/d) (seeded).
func costData(n, d int, seed uint64) (*model.Logistic, error) {
	rng := rand.New(rand.NewPCG(seed, 77))
	w := make([]float64, d)
	for j := range w {
		w[j] = rng.NormFloat64() / float64(d)
	}
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		var z float64
		for j := 0; j < d; j++ {
			v := rng.NormFloat64()
			X.Set(i, j, v)
			z += w[j] * v
		}
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			y[i] = 1
		}
	}
	return model.NewLogistic(X, y, model.LogisticOptions{PriorScale: 1})
}

// reportCost measures, for each N, the process CPU time per iteration of
// SGLD (batches of 100, constant step), MALA and RWM (full data, fixed
// steps, no adaptation), one chain each from zero, the iteration counts
// chosen so that each measurement does about the same work. One worker:
// the process's CPU time is the chain's.
func reportCost(ctx context.Context, ns []int, seed uint64) ([]costRow, error) {
	const d, batch = 10, 100
	var rows []costRow
	for _, n := range ns {
		m, err := costData(n, d, seed)
		if err != nil {
			return nil, err
		}
		full := max(20, 2_000_000/n) // full-data iterations: ≈ 2·10⁶ row evaluations
		r := costRow{n: n, sgldB: batch, iters: [3]int{20000, full, full}}
		samplers := []langevin.Sampler{
			sampler.SGLD{Step: schedule.Constant(1e-3), Batch: sampler.Minibatch{Size: batch}},
			sampler.MALA{Step: 1e-3, Adapt: sampler.Adapt{Tune: sampler.TuneNone}},
			sampler.RWM{Step: 1e-3, Adapt: sampler.Adapt{Tune: sampler.TuneNone}},
		}
		for k, s := range samplers {
			t0 := processCPU()
			if _, err := langevin.Run(ctx, m, s, langevin.Options{Chains: 1, Workers: 1, Iters: r.iters[k], Thin: r.iters[k], Seed: seed,
				Init: langevin.InitAt{Points: [][]float64{make([]float64, m.Dim())}}}); err != nil {
				return nil, err
			}
			per := (processCPU() - t0) / time.Duration(r.iters[k])
			switch k {
			case 0:
				r.sgld = per
			case 1:
				r.mala = per
			case 2:
				r.rwm = per
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

func runReportCost(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := NewFlags("report-cost", "N up to 10⁶ (≈ 10× the time)")
	pg, err := c.ParsePage(args, stdout, "report-cost: cost per iteration against N (seed report §4.5)")
	if err != nil {
		return err
	}
	ns := []int{1000, 10_000, 100_000}
	if c.Full {
		ns = append(ns, 1_000_000)
	}
	rows, err := reportCost(ctx, ns, c.Seed)
	if err != nil {
		return err
	}
	pg.Printf("Command: `langevin experiment report-cost --out DIR` (`--full`: N up to 10⁶).\n\nLogistic regression, d = 10 standard-normal features and an intercept, one chain from zero, one worker; CPU time (user + system) per iteration in µs. SGLD draws batches of 100; MALA and RWM evaluate all N rows per iteration (RWM one log density, MALA a log density and its gradient).\n\n| N | SGLD (B = 100), µs | MALA, µs | RWM, µs | MALA / SGLD |\n|---|---|---|---|---|\n")
	fmt.Fprintf(stdout, "CPU µs per iteration\n%10s %16s %12s %12s %12s\n", "N", "SGLD (B = 100)", "MALA", "RWM", "MALA / SGLD")
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	for _, r := range rows {
		ratio := float64(r.mala) / float64(r.sgld)
		pg.Printf("| %d | %.3g | %.3g | %.3g | %.0f |\n", r.n, us(r.sgld), us(r.mala), us(r.rwm), ratio)
		fmt.Fprintf(stdout, "%10d %16.3g %12.3g %12.3g %12.0f\n", r.n, us(r.sgld), us(r.mala), us(r.rwm), ratio)
	}
	pg.Printf("\nSGLD's cost per iteration does not grow with N (its batch is fixed); MALA's and RWM's grow linearly. Per effective draw the comparison also needs the step each can take — see `langevin run`'s auto: lines and docs/performance.md.\n")
	return pg.Write(stdout)
}
