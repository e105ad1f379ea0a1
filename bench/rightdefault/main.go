// Command rightdefault measures langevin's automatic plan (fit.NewPlan:
// NUTS where cheap, otherwise SGLD with control variates, step and burn-in
// by rule, run until min bulk-ESS 400 and R̂ ≤ 1.01) on generated logistic
// regressions, phase by phase, against NUTS (where affordable) or the
// Laplace approximation, for docs/right-by-default.md.
//
//	rightdefault -n 1000000 -d 20 [-nuts] [-kind sgld]
//
// Data: xᵢⱼ ~ N(0, 1), P(yᵢ = 1) = σ(−0.5 + Σⱼ βⱼxᵢⱼ), βⱼ = (−1)ʲ/√d, seed 1.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/fit"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

func main() {
	n := flag.Int("n", 100000, "observations N")
	d := flag.Int("d", 20, "features")
	nuts := flag.Bool("nuts", false, "also run NUTS (1000 warm-up + 1000 draws, 4 chains, dense metric from the Laplace covariance) as the reference")
	kind := flag.String("kind", "", "force the plan's sampler: nuts|sgld")
	linear := flag.String("linear", "", "print the exact posterior of the linear regression (langevin run's defaults, raw features, intercept, target the last column) on this CSV `FILE` and exit")
	flag.Parse()
	if *linear != "" {
		ds, err := data.ReadCSV(*linear, data.CSVOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "rightdefault:", err)
			os.Exit(1)
		}
		m, err := model.NewLinear(ds.X, ds.Y, model.LinearOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, "rightdefault:", err)
			os.Exit(1)
		}
		post := m.Posterior()
		mean, sd := post.Mean(), post.SD()
		for j, name := range m.ParamNames() {
			fmt.Printf("%-12s %12.6g %12.6g\n", name, mean[j], sd[j])
		}
		fmt.Printf("%-12s %12.6g %12.6g\n", "sigma2", post.Sigma2Mean(), post.Sigma2SD())
		return
	}
	if err := run(*n, *d, *nuts, *kind); err != nil {
		fmt.Fprintln(os.Stderr, "rightdefault:", err)
		os.Exit(1)
	}
}

func run(n, d int, withNUTS bool, kind string) error {
	ctx := context.Background()
	t0 := time.Now()
	rng := rand.New(rand.NewPCG(1, 1))
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	raw := X.RawMatrix().Data
	for i := 0; i < n; i++ {
		eta := -0.5
		for j := 0; j < d; j++ {
			x := rng.NormFloat64()
			raw[i*d+j] = x
			b := 1 / math.Sqrt(float64(d))
			if j%2 == 1 {
				b = -b
			}
			eta += b * x
		}
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i] = 1
		}
	}
	m, err := model.NewLogistic(X, y, model.LogisticOptions{})
	if err != nil {
		return err
	}
	tGen := time.Since(t0)
	t1 := time.Now()
	c1 := cpu()
	p, err := fit.NewPlan(ctx, m, fit.PlanOptions{Kind: kind, Seed: 1})
	if err != nil {
		return err
	}
	tPlan := time.Since(t1)
	c2 := cpu()
	fmt.Printf("N = %d, d = %d (%d parameters)\n%v", n, d, m.Dim(), p)
	burn := p.BurnIn
	if p.Kind == "nuts" {
		burn = 1000
		s := p.Sampler.(sampler.NUTS)
		s.Adapt.Warmup = burn
		p.Sampler = s
	}
	t2 := time.Now()
	var why string
	every := 100
	if p.Kind == "sgld" {
		every = max(100, int(10*p.Step.AutocorrSteps(p.Step.Eta)))
	}
	tr, err := langevin.Run(ctx, m, p.Sampler, langevin.Options{
		Chains: 4, Iters: 10_000_000, BurnIn: burn, Seed: 1,
		Init:  fit.InitGaussian{Mean: p.MAP, Cov: p.Cov},
		Until: fit.UntilESS(m.Dim(), 400, time.Now(), 0, &why), CheckEvery: every, MaxKeep: 250,
	})
	if err != nil {
		return err
	}
	tSample := time.Since(t2)
	c3 := cpu()
	t3 := time.Now()
	k, err := fit.TraceKSD(m, tr, p.MAP, p.Cov, fit.KSDOptions{Seed: 1})
	if err != nil {
		return err
	}
	tKSD := time.Since(t3)
	c4 := cpu()
	ess, _ := fit.MinESSBulk(tr, m.Dim())
	rh, _ := fit.MaxRHat(tr, m.Dim())
	last := tr.Iters[0][len(tr.Iters[0])-1]
	fmt.Printf("stopped: %s at iteration %d (thin %d)\n", why, last, tr.Thin)
	fmt.Printf("ksd: %v\n", k)
	fmt.Printf("time: data %.2f s, MAP+plan %.2f s, sampling %.2f s, KSD %.2f s; whole job (without data) %.2f s\n",
		tGen.Seconds(), tPlan.Seconds(), tSample.Seconds(), tKSD.Seconds(), (tPlan + tSample + tKSD).Seconds())
	fmt.Printf("cpu:  MAP+plan %.2f s, sampling %.2f s, KSD %.2f s; whole job (without data) %.2f s\n", c2-c1, c3-c2, c4-c3, c4-c1)
	mean, sd := moments(tr, m.Dim())
	refMean, refSD := p.MAP, make([]float64, m.Dim())
	refName := "Laplace"
	for j := range refSD {
		refSD[j] = math.Sqrt(p.Cov.At(j, j))
	}
	if withNUTS {
		t4 := time.Now()
		s := sampler.NUTS{PrecondFull: p.Cov, Adapt: sampler.Adapt{Warmup: 1000, Metric: sampler.MetricDense}}
		ntr, err := langevin.Run(ctx, m, s, langevin.Options{Chains: 4, Iters: 2000, BurnIn: 1000, Seed: 2,
			Init: fit.InitGaussian{Mean: p.MAP, Cov: p.Cov}})
		if err != nil {
			return err
		}
		fmt.Printf("nuts: sampling %.2f s wall, %.2f s CPU (+ MAP/Hessian %.2f s)\n", time.Since(t4).Seconds(), cpu()-c4, tPlan.Seconds())
		refMean, refSD = moments(ntr, m.Dim())
		refName = "NUTS"
	}
	var worstMean, worstSD float64
	for j := range mean {
		worstMean = math.Max(worstMean, math.Abs(mean[j]-refMean[j])/refSD[j])
		worstSD = math.Max(worstSD, math.Abs(sd[j]/refSD[j]-1))
	}
	fmt.Printf("error vs %s: max |mean − ref|/sd %.3f, max |sd/ref − 1| %.3f; min bulk-ESS %.0f, max R̂ %.4f\n", refName, worstMean, worstSD, ess, rh)
	return nil
}

// cpu returns the process's CPU time (user + system) so far, in seconds.
func cpu() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func moments(tr *langevin.Trace, d int) (mean, sd []float64) {
	mean, sd = make([]float64, d), make([]float64, d)
	var n float64
	for _, c := range tr.Draws {
		for _, r := range c {
			n++
			for j := 0; j < d; j++ {
				mean[j] += r[j]
				sd[j] += r[j] * r[j]
			}
		}
	}
	for j := range mean {
		mean[j] /= n
		sd[j] = math.Sqrt(sd[j]/n - mean[j]*mean[j])
	}
	return mean, sd
}
