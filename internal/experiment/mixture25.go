package experiment

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

func init() {
	Register(Experiment{
		Name:    "mixture25",
		Summary: "Zhang et al. (2020) Fig. 7 / report Fig. 7: modes of a 25-Gaussian mixture visited by SGLD and cSGLD over 50,000 steps",
		Run:     cliRun(runMixture25),
	})
}

// The multimodal benchmark of Zhang, Li, Zhang, Chen & Wilson (2020, §5.1):
// the mixture of 25 Gaussians N((2i, 2j), 0.03·I), i, j ∈ {−2, …, 2}, with
// gradient ∇log p(θ) + N(0, I) (model.NoisyGradient, SD 1), 50,000 steps from
// a uniform start in [−10, 10]².
//
// Conventions. Zhang et al.'s SGLD/cSGLD update is θ ← θ − α∇U(θ) + √(2α(1−β)) ξ
// with U = −log p and β = αV/2 (V = 1, the variance of the gradient noise):
// that is langevin's θ ← θ + η ĝ + √(2ητ) ξ with η = α and τ = 1, except that
// their injected variance 2α − α²V subtracts the gradient noise's α²V (so
// that the total is exactly 2α) while langevin's SGLD injects 2η (total 2η +
// η², 2.2% more at η = 0.043 and 3.5% at 0.07). Their steps carry over
// unchanged:
//
//   - SGLD: η = 0.043 for t ≤ 500, then 0.043 (t − 500)^(−0.55);
//   - cSGLD: η₀ = 0.07 on the cosine schedule with 30 cycles (L = ⌈50000/30⌉
//     = 1667 steps), the first 50 steps of each cycle dropped. Here those 50
//     steps are the exploration phase (Explore = 50/1667) of langevin's cSGLD,
//     which injects no noise in them (the gradient noise remains); Zhang et
//     al.'s code injects noise throughout and only drops the draws.
//
// A mode counts as visited when at least 0.5% of the kept draws lie within 3
// sd (3·√0.03) of its centre.

// zhangSGLDStep is Zhang et al.'s SGLD schedule: A for t ≤ T, then
// A (t − T)^(−γ).
type zhangSGLDStep struct {
	a, gamma float64
	t0       int
}

func (s zhangSGLDStep) At(t int) float64 {
	if t <= s.t0 {
		return s.a
	}
	return s.a * math.Pow(float64(t-s.t0), -s.gamma)
}

func (s zhangSGLDStep) Validate() error { return nil }

// mixture25Method is one method's result: the kept draws of each seed (one
// chain per seed) and the number of modes each visited.
type mixture25Method struct {
	Name  string
	Draws [][][]float64 // [seed][draw][2]
	Modes []int
}

// MeanModes is the number of visited modes averaged over seeds.
func (r mixture25Method) MeanModes() float64 {
	var s float64
	for _, k := range r.Modes {
		s += float64(k)
	}
	return s / float64(len(r.Modes))
}

// mixture25Run runs SGLD and cSGLD for the given number of seeds (chains,
// one per seed, with independent uniform starts) and returns their results.
func mixture25Run(ctx context.Context, seeds int, seed uint64, iters int) ([]mixture25Method, error) {
	mix := model.NewMixture25()
	m := model.NoisyGradient{Model: mix, SD: 1, Seed: seed}
	rng := rand.New(rand.NewPCG(seed, 0x25))
	starts := make([][]float64, seeds)
	for i := range starts {
		starts[i] = []float64{-10 + 20*rng.Float64(), -10 + 20*rng.Float64()}
	}
	cycles := 30
	l := (iters + cycles - 1) / cycles
	methods := []struct {
		name string
		s    langevin.Sampler
	}{
		{"SGLD", sampler.SGLD{Step: zhangSGLDStep{a: 0.043, gamma: 0.55, t0: 500}}},
		{"cSGLD", sampler.SGLD{Step: schedule.Cyclical{Eta0: 0.07, Iters: iters, Cycles: cycles, Explore: 50 / float64(l)}}},
	}
	var out []mixture25Method
	for _, meth := range methods {
		tr, err := langevin.Run(ctx, m, meth.s, langevin.Options{
			Chains: seeds, Iters: iters, Seed: seed, Init: langevin.InitAt{Points: starts}})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", meth.name, err)
		}
		r := mixture25Method{Name: meth.name, Draws: tr.Draws}
		for _, d := range tr.Draws {
			r.Modes = append(r.Modes, modesVisited(mix, d, 0.005))
		}
		out = append(out, r)
	}
	return out, nil
}

// modesVisited counts the components of mix with at least frac of the draws
// within 3 sd of their centre.
func modesVisited(mix *model.Mixture, draws [][]float64, frac float64) int {
	r := 3 * math.Sqrt(mix.Var())
	visited := 0
	for k := 0; k < mix.K(); k++ {
		c := mix.Center(k)
		n := 0
		for _, x := range draws {
			var d2 float64
			for j, v := range c {
				d2 += (x[j] - v) * (x[j] - v)
			}
			if d2 <= r*r {
				n++
			}
		}
		if len(draws) > 0 && float64(n) >= frac*float64(len(draws)) {
			visited++
		}
	}
	return visited
}

func runMixture25(args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("experiment mixture25", flag.ContinueOnError)
	seeds := fs.Int("seeds", 10, "number of seeds `K` (independent starts and chains) to average over")
	seed := fs.Uint64("seed", 1, "base random `seed`")
	iters := fs.Int("iters", 50000, "steps `N` per chain")
	out := fs.String("out", "", "write DIR/modes.csv (modes visited per method and seed) and DIR/draws.csv (every kept draw)")
	if err := ParseFlags(fs, args, stdout); err != nil {
		return err
	}
	switch {
	case *seeds < 1:
		return Usagef("--seeds %d: expected at least 1", *seeds)
	case *iters <= 1500:
		// 30 cycles of ⌈iters/30⌉ steps, each starting with 50 exploration steps.
		return Usagef("--iters %d: expected more than 1500 (30 cSGLD cycles, each longer than its 50 exploration steps)", *iters)
	}
	start := time.Now()
	res, err := mixture25Run(context.Background(), *seeds, *seed, *iters)
	if err != nil {
		return err
	}
	printMixture25(stdout, res, *iters, time.Since(start))
	if *out != "" {
		if err := writeMixture25(*out, res); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "written:  %s, %s\n", filepath.Join(*out, "modes.csv"), filepath.Join(*out, "draws.csv"))
		if err := writeMixture25Figures(*out, res, *iters, stdout); err != nil { // experiment_mixture25_plots.go
			return err
		}
	}
	return nil
}

func printMixture25(w io.Writer, res []mixture25Method, iters int, elapsed time.Duration) {
	fmt.Fprintf(w, "mixture of 25 Gaussians, %d steps from a uniform start in [-10, 10]², gradient noise N(0, I), %d seeds\n\n", iters, len(res[0].Modes))
	fmt.Fprintf(w, "%-6s  %10s  %11s  %s\n", "method", "kept draws", "modes (avg)", "modes per seed")
	for _, r := range res {
		fmt.Fprintf(w, "%-6s  %10d  %11.1f  %v\n", r.Name, len(r.Draws[0]), r.MeanModes(), r.Modes)
	}
	fmt.Fprintf(w, "\n(a mode counts when ≥ 0.5%% of kept draws lie within 3 sd of its centre; %.1fs)\n", elapsed.Seconds())
}

func writeMixture25(dir string, res []mixture25Method) error {
	if err := makeOut(dir); err != nil {
		return err
	}
	write := func(name string, fill func(w *bufio.Writer)) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return Usagef("--out %s: %v", dir, err)
		}
		w := bufio.NewWriter(f)
		fill(w)
		if err := w.Flush(); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	if err := write("modes.csv", func(w *bufio.Writer) {
		fmt.Fprintln(w, "method,seed,modes")
		for _, r := range res {
			for s, k := range r.Modes {
				fmt.Fprintf(w, "%s,%d,%d\n", r.Name, s+1, k)
			}
		}
	}); err != nil {
		return err
	}
	return write("draws.csv", func(w *bufio.Writer) {
		fmt.Fprintln(w, "method,seed,theta.1,theta.2")
		for _, r := range res {
			for s, d := range r.Draws {
				for _, x := range d {
					fmt.Fprintf(w, "%s,%d,%s,%s\n", r.Name, s+1, strconv.FormatFloat(x[0], 'g', 8, 64), strconv.FormatFloat(x[1], 'g', 8, 64))
				}
			}
		}
	})
}
