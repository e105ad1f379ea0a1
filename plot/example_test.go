package plot_test

import (
	"fmt"
	"math"

	"github.com/langevin-go/langevin/plot"
)

// Envelope keeps, of each group of consecutive draws, the smallest and the
// largest: a spike survives the reduction.
func ExampleEnvelope() {
	x := make([]float64, 1000)
	y := make([]float64, 1000)
	for i := range x {
		x[i] = float64(i + 1)
		y[i] = math.Sin(float64(i) / 50)
	}
	y[567] = 5 // a spike
	red := plot.Envelope(x, y, 10, nil)
	top := red[0]
	for _, p := range red {
		if p.Y > top.Y {
			top = p
		}
	}
	fmt.Printf("%d points; highest %.0f at iteration %.0f\n", len(red), top.Y, top.X)
	// Output: 20 points; highest 5 at iteration 568
}

// A trace plot of two chains with the first 100 iterations shaded as
// burn-in, written as SVG.
func ExampleTrace() {
	chains := make([]plot.Series, 2)
	for c := range chains {
		for t := 1; t <= 500; t++ {
			chains[c].X = append(chains[c].X, float64(t))
			chains[c].Y = append(chains[c].Y, math.Cos(float64(t*(c+1))/40))
		}
	}
	p, err := plot.Trace("theta", chains, 100)
	if err != nil {
		fmt.Println(err)
		return
	}
	svg, err := plot.Encode(p, plot.Width, plot.Height, "svg")
	fmt.Println(err == nil && len(svg) > 0)
	// Output: true
}

// Ticks keeps gonum's tick placement and relabels the major ticks: here as
// percentages of a probability axis.
func ExampleTicks() {
	t := plot.Ticks{Label: func(v float64) string { return fmt.Sprintf("%.0f%%", 100*v) }}
	for _, tk := range t.Ticks(0, 1) {
		if tk.Label != "" {
			fmt.Print(tk.Label, " ")
		}
	}
	fmt.Println()
	// Output: 0% 50% 100%
}
