package experiment

import (
	"context"
	"fmt"
	"io"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

func init() {
	Register(Experiment{
		Name:    "report-fig1",
		Summary: "the seed report's Fig. 1: a random walk (RWM), Langevin dynamics and gradient descent on a 2-D correlated Gaussian from one start — two samplers that spread over the target, one optimiser that stops at the mode",
		Run:     runReportFig1,
	})
}

// fig1Path is one method's path on the 2-D target: every iterate.
type fig1Path struct {
	label, setting string
	x, y           []float64
}

// reportFig1Start is the common start, 4–5 sds from the mode.
var reportFig1Start = []float64{-3, 2.5}

// reportFig1 runs, on N(0, [[1, ρ], [ρ, 1]]) with ρ = 0.9, from
// reportFig1Start, iters steps of random-walk Metropolis (σ = 0.5, no
// adaptation), of the unadjusted Langevin algorithm θ ← θ + η∇log p(θ) +
// √(2η)ξ (SGLD on the exact gradient, η = 0.05) and of gradient descent
// θ ← θ + η∇log p(θ) (η = 0.05), keeping every iterate.
func reportFig1(ctx context.Context, iters int, seed uint64) ([]fig1Path, error) {
	m, err := model.NewGauss2(0.9)
	if err != nil {
		return nil, err
	}
	runs := []struct {
		label, setting string
		s              langevin.Sampler
	}{
		{"random walk (RWM)", "σ = 0.5", sampler.RWM{Step: 0.5, Adapt: sampler.Adapt{Tune: sampler.TuneNone}}},
		{"Langevin (unadjusted)", "η = 0.05", sampler.SGLD{Step: schedule.Constant(0.05)}},
		{"gradient descent", "η = 0.05", sampler.GD(schedule.Constant(0.05))},
	}
	var out []fig1Path
	for k, r := range runs {
		tr, err := langevin.Run(ctx, m, r.s, langevin.Options{Chains: 1, Iters: iters, Seed: seed + uint64(k),
			Init: langevin.InitAt{Points: [][]float64{reportFig1Start}}})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.label, err)
		}
		p := fig1Path{label: r.label, setting: r.setting, x: []float64{reportFig1Start[0]}, y: []float64{reportFig1Start[1]}}
		for _, d := range tr.Draws[0] {
			p.x, p.y = append(p.x, d[0]), append(p.y, d[1])
		}
		out = append(out, p)
	}
	return out, nil
}

// checkReportFig1 returns an error unless the figure's claim holds: the
// two samplers' second halves have the target's spread (sds within 25% of
// 1 and correlation within 0.1 of 0.9 — a few hundred correlated draws)
// while gradient descent ends within 10⁻³ of the mode with no spread.
func checkReportFig1(paths []fig1Path) error {
	for _, p := range paths[:2] {
		h := len(p.x) / 2
		mx, sx := meanSD(p.x[h:])
		my, sy := meanSD(p.y[h:])
		var c float64
		for i := h; i < len(p.x); i++ {
			c += (p.x[i] - mx) * (p.y[i] - my)
		}
		r := c / float64(len(p.x)-h-1) / (sx * sy)
		if math.Abs(sx-1) > 0.25 || math.Abs(sy-1) > 0.25 || math.Abs(r-0.9) > 0.1 {
			return fmt.Errorf("%s: sds %.3f, %.3f and correlation %.3f; the target's are 1, 1 and 0.9", p.label, sx, sy, r)
		}
	}
	gd := paths[2]
	if end := math.Hypot(gd.x[len(gd.x)-1], gd.y[len(gd.y)-1]); end > 1e-3 {
		return fmt.Errorf("gradient descent ends %.3g from the mode", end)
	}
	return nil
}

func runReportFig1(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := NewFlags("report-fig1", "")
	iters := c.Int("iters", 2000, "steps `N` per method (2000: the Langevin chain spans ≈ 50 of its correlation times along the long axis, 1/(η·λmin) = 38 steps)")
	pg, err := c.ParsePage(args, stdout, "report-fig1: random walk, Langevin dynamics and gradient descent in 2-D (seed report, Fig. 1)")
	if err != nil {
		return err
	}
	if *iters < 100 {
		return Usagef("--iters %d: expected at least 100", *iters)
	}
	paths, err := reportFig1(ctx, *iters, c.Seed)
	if err != nil {
		return err
	}
	cerr := checkReportFig1(paths)
	post := [2][2]float64{{1, 0.9}, {0.9, 1}}
	var row []*gplot.Plot
	for k, p := range paths {
		pl := newPlot(p.label+", "+p.setting, "θ₁", "θ₂")
		for _, sd := range []float64{1, 2, 3} {
			pl.Add(ellipse(0, 0, post, sd, refColor, true))
		}
		path := line(p.x, p.y, col(k), false)
		path.Width = vg.Points(0.5)
		pts := points(p.x, p.y, col(k), circle, vg.Points(1.2))
		start := points(p.x[:1], p.y[:1], refColor, ring, vg.Points(4))
		pl.Add(path, pts, start)
		pl.Legend.Add(fmt.Sprintf("%d iterates", len(p.x)-1), pts)
		pl.Legend.Add("start", start)
		pl.Legend.Add("1, 2, 3 sd of the target", line([]float64{0}, []float64{0}, refColor, true))
		pl.Legend.Top, pl.Legend.Left = true, false
		pl.Legend.XOffs, pl.Legend.YOffs = -vg.Millimeter, -vg.Millimeter
		pl.X.Min, pl.X.Max, pl.Y.Min, pl.Y.Max = -4, 4, -4, 5.2
		row = append(row, pl)
	}
	if err := pg.Tiles("paths", fmt.Sprintf("%d steps of a random walk (random-walk Metropolis), of unadjusted Langevin dynamics and of gradient descent on a 2-D Gaussian with correlation 0.9 (dashed: 1, 2 and 3 sd), all from the same start (ring): the two samplers spread over the target, gradient descent runs to the mode and stops.", *iters), [][]*gplot.Plot{row}, 39*vg.Centimeter, 13*vg.Centimeter); err != nil {
		return err
	}
	pg.Printf("Command: `langevin experiment report-fig1 --out DIR`.\n\nThe seed report's Figure 1 illustrates the three dynamics on a 2-D density. Here: N(0, [[1, 0.9], [0.9, 1]]) from (−3, 2.5); RWM with σ = 0.5 (no adaptation), the unadjusted Langevin step θ ← θ + η∇log p(θ) + √(2η)ξ and gradient descent θ ← θ + η∇log p(θ), both at η = 0.05.\n\n| method | sd θ₁, θ₂ (second half) | correlation | final distance to the mode |\n|---|---|---|---|\n")
	for _, p := range paths {
		h := len(p.x) / 2
		_, sx := meanSD(p.x[h:])
		_, sy := meanSD(p.y[h:])
		mx, _ := meanSD(p.x[h:])
		my, _ := meanSD(p.y[h:])
		var cv float64
		for i := h; i < len(p.x); i++ {
			cv += (p.x[i] - mx) * (p.y[i] - my)
		}
		r := cv / float64(len(p.x)-h-1) / (sx * sy)
		end := math.Hypot(p.x[len(p.x)-1], p.y[len(p.y)-1])
		pg.Printf("| %s | %.3f, %.3f | %.3f | %.3g |\n", p.label, sx, sy, r, end)
		fmt.Fprintf(stdout, "%-22s sd %.3f, %.3f  correlation %.3f  final |θ| %.3g\n", p.label, sx, sy, r, end)
	}
	if cerr != nil {
		fmt.Fprintf(stdout, "warning: %v\n", cerr)
		pg.Printf("\n**Warning:** %v\n", cerr)
	}
	return pg.Write(stdout)
}
