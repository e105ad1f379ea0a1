// Command scaling generates the data of the scaling benchmark of
// docs/scaling-out.md and holds its first, library-level version: Bayesian
// logistic regression on N generated rows of 10 features, read from a
// data.Store, with the old default SGLD (MAP by L-BFGS, the diagonal Laplace
// preconditioner and start, η = 0.1·B/N, B = 10, 4 chains of 500,000
// iterations, burn-in 50,000, thin 450; it did not mix at large N). The
// benchmark now runs the command line itself (bench/scaling/run.sh:
// scaling gen, langevin convert, langevin run --data FILE.lvs with the
// default sampler).
//
//	scaling gen -n N -out data.csv        # generate (seeded) CSV
//	scaling convert -in data.csv -out data.lvs [-float64]
//	scaling fit -in data.lvs [-iters I]   # MAP, Laplace, SGLD, prediction
//
// Each step prints its wall time; run them under /usr/bin/time -v for the
// peak resident memory.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/approx"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// p is the number of features; beta the true coefficients, intercept first.
const p = 10

var beta = [p + 1]float64{-0.5, 1, -1, 0.5, -0.5, 0.25, -0.25, 0.125, -0.125, 0, 0}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: scaling gen|convert|fit [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "convert":
		err = convert(os.Args[2:])
	case "fit":
		err = fit(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaling:", err)
		os.Exit(1)
	}
}

// gen writes N rows x ~ N(0, I₁₀), y ~ Bernoulli(σ(β₀ + xᵀβ)) as CSV, with 7
// significant digits (float32's precision).
func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ExitOnError)
	n := fs.Int("n", 1000000, "rows")
	out := fs.String("out", "data.csv", "output CSV")
	seed := fs.Uint64("seed", 1, "seed")
	fs.Parse(args)
	t0 := time.Now()
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for j := 1; j <= p; j++ {
		fmt.Fprintf(w, "x%d,", j)
	}
	w.WriteString("y\n")
	rng := rand.New(rand.NewPCG(*seed, 0))
	var buf []byte
	var x [p]float64
	for i := 0; i < *n; i++ {
		buf = buf[:0]
		z := beta[0]
		for j := range x {
			x[j] = float64(float32(rng.NormFloat64()))
			z += beta[j+1] * x[j]
			buf = strconv.AppendFloat(buf, x[j], 'g', 7, 32)
			buf = append(buf, ',')
		}
		y := 0
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			y = 1
		}
		buf = strconv.AppendInt(buf, int64(y), 10)
		buf = append(buf, '\n')
		w.Write(buf)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	st, _ := os.Stat(*out)
	fmt.Printf("gen: %d rows, %d bytes, %.1f s\n", *n, st.Size(), time.Since(t0).Seconds())
	return nil
}

// convert writes a Store from a CSV file.
func convert(args []string) error {
	fs := flag.NewFlagSet("convert", flag.ExitOnError)
	in := fs.String("in", "data.csv", "input CSV")
	out := fs.String("out", "data.lvs", "output store")
	f64 := fs.Bool("float64", false, "store float64 (default float32)")
	fs.Parse(args)
	t0 := time.Now()
	c, err := data.OpenCSV(*in, data.CSVOptions{Target: "y"})
	if err != nil {
		return err
	}
	defer c.Close()
	n, err := data.WriteStore(*out, c, data.StoreOptions{Float32: !*f64, Source: *in})
	if err != nil {
		return err
	}
	st, _ := os.Stat(*out)
	fmt.Printf("convert: %d rows, %d bytes, %.1f s\n", n, st.Size(), time.Since(t0).Seconds())
	return nil
}

// fit runs MAP, the Laplace diagonal, SGLD and the posterior predictive
// mean of every row, timing each.
func fit(args []string) error {
	fs := flag.NewFlagSet("fit", flag.ExitOnError)
	in := fs.String("in", "data.lvs", "input store")
	iters := fs.Int("iters", 500000, "iterations per chain")
	chains := fs.Int("chains", 4, "chains")
	batch := fs.Int("batch", 10, "minibatch size")
	predDraws := fs.Int("pred-draws", 20, "draws used for the predictive mean of every row")
	budget := fs.Int64("budget", 0, "bytes of randomly read pages after which the store hands its pages back (0: the default)")
	mmap := fs.Bool("mmap", false, "memory-map the store (default: pread)")
	inMem := fs.Bool("in-memory", false, "read the whole store into memory and use model.NewLogistic (the comparison)")
	fs.Parse(args)
	ctx := context.Background()
	t0 := time.Now()
	s, err := data.OpenStore(*in)
	if err != nil {
		return err
	}
	defer s.Close()
	if *mmap {
		if err := s.Map(); err != nil {
			return err
		}
	}
	if *budget > 0 {
		s.Budget = *budget
	}
	var m *model.Logistic
	if *inMem {
		ds := s.Dataset()
		m, err = model.NewLogistic(ds.X, ds.Y, model.LogisticOptions{})
	} else {
		m, err = model.NewLogisticRows(s, model.LogisticOptions{})
	}
	if err != nil {
		return err
	}
	n := m.Len()
	fmt.Printf("open+check labels: N = %d, mapped %v, %.1f s\n", n, s.Mapped(), time.Since(t0).Seconds())

	t0 = time.Now()
	lap := &approx.RunLaplace{Model: m}
	mapTheta, err := lap.MAP(ctx)
	if err != nil {
		return err
	}
	tMAP := time.Since(t0)
	t0 = time.Now()
	variance, err := lap.Diag(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("MAP: %.1f s, Laplace diagonal: %.1f s\n", tMAP.Seconds(), time.Since(t0).Seconds())

	// Shuffled epochs keep a permutation of N indices per chain (8N bytes):
	// at N = 10⁸ that is 800 MB a chain, so batches are drawn with
	// replacement (the same distribution to within B/N).
	sgld := sampler.SGLD{
		Step:       schedule.Constant(sampler.StepNoiseFraction(n, *batch, 1, true)),
		Batch:      sampler.Minibatch{Size: *batch, Replace: true},
		Precond:    variance,
		NoiseEvery: 10,
	}
	t0 = time.Now()
	tr, err := langevin.Run(ctx, m, sgld, langevin.Options{
		Chains: *chains, Iters: *iters, BurnIn: *iters / 10, Thin: max(1, *iters*9/10/250), Seed: 1,
		Init: laplaceInit{mean: mapTheta, variance: variance},
	})
	if err != nil {
		return err
	}
	fmt.Printf("SGLD: %d chains × %d iterations, batch %d, η = %.3g: %.1f s\n", *chains, *iters, *batch, sgld.Step.At(1), time.Since(t0).Seconds())
	fmt.Print(diag.Summarize(tr.Names, tr.Params()))

	// Predictive mean of every row, streamed in blocks.
	rows := tr.Rows()
	step := max(1, len(rows) / *predDraws)
	var draws [][]float64
	for k := 0; k < len(rows) && len(draws) < *predDraws; k += step {
		draws = append(draws, rows[k])
	}
	t0 = time.Now()
	const block = 1 << 14
	x := make([]float64, block*p)
	y := make([]float64, block)
	pr := make([]float64, block)
	q := make([]float64, block)
	var correct int
	for lo := 0; lo < n; lo += block {
		k := min(block, n-lo)
		s.ReadRows(lo, x[:k*p], y[:k])
		X := mat.NewDense(k, p, x[:k*p])
		clear(pr[:k])
		for _, th := range draws {
			m.Predict(th, X, q[:k])
			for i, v := range q[:k] {
				pr[i] += v / float64(len(draws))
			}
		}
		for i := 0; i < k; i++ {
			if (pr[i] >= 0.5) == (y[i] == 1) {
				correct++
			}
		}
	}
	el := time.Since(t0)
	fmt.Printf("predict: %d rows × %d draws: %.1f s (%.1f ns per row·draw), accuracy %.4f\n",
		n, len(draws), el.Seconds(), float64(el.Nanoseconds())/float64(n)/float64(len(draws)), float64(correct)/float64(n))
	return nil
}

// laplaceInit starts each chain at a draw from N(MAP, diag(H⁻¹)), as
// `langevin run --init laplace`.
type laplaceInit struct{ mean, variance []float64 }

func (in laplaceInit) Init(_ context.Context, _ langevin.Model, _ int, rng *rand.Rand, dst []float64) error {
	for j := range dst {
		dst[j] = in.mean[j] + math.Sqrt(in.variance[j])*rng.NormFloat64()
	}
	return nil
}
