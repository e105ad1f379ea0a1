package plot

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langevin-go/langevin/diag"
	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

func randomWalk(n int, seed uint64) (x, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	x, y = make([]float64, n), make([]float64, n)
	v := 0.0
	for i := range y {
		v = 0.99*v + rng.NormFloat64()
		x[i], y[i] = float64(i+1), v
	}
	return x, y
}

// envelopeCovers checks that in every one of bins groups the reduced series
// reaches the minimum and the maximum of the full series there.
func envelopeCovers(x, y []float64, bins int, red plotter.XYs) error {
	n := len(y)
	for b := 0; b < bins; b++ {
		lo, hi := b*n/bins, (b+1)*n/bins
		mn, mx := math.Inf(1), math.Inf(-1)
		for _, v := range y[lo:hi] {
			mn, mx = math.Min(mn, v), math.Max(mx, v)
		}
		rmn, rmx := math.Inf(1), math.Inf(-1)
		for _, p := range red {
			if p.X >= x[lo] && p.X <= x[hi-1] {
				rmn, rmx = math.Min(rmn, p.Y), math.Max(rmx, p.Y)
			}
		}
		if rmn != mn || rmx != mx {
			return fmt.Errorf("group %d: reduced range [%g, %g], full [%g, %g]", b, rmn, rmx, mn, mx)
		}
	}
	return nil
}

// Envelope keeps the exact per-group range of a 100,000-point series in at
// most 2·bins points, in order; plain decimation to the same number of
// points (every k-th draw) fails the same check.
func TestEnvelope(t *testing.T) {
	x, y := randomWalk(100000, 1)
	y[54321] = 40 // a spike that decimation misses
	red := Envelope(x, y, Bins, nil)
	if len(red) > 2*Bins {
		t.Errorf("%d points, want ≤ %d", len(red), 2*Bins)
	}
	for i := 1; i < len(red); i++ {
		if !(red[i].X > red[i-1].X) {
			t.Fatalf("x not increasing at %d: %g after %g", i, red[i].X, red[i-1].X)
		}
	}
	if err := envelopeCovers(x, y, Bins, red); err != nil {
		t.Error(err)
	}
	var dec plotter.XYs
	step := len(y) / (2 * Bins)
	for i := 0; i < len(y); i += step {
		dec = append(dec, plotter.XY{X: x[i], Y: y[i]})
	}
	if err := envelopeCovers(x, y, Bins, dec); err == nil {
		t.Error("plain decimation passed the envelope check")
	}
	// Short series come back whole, NaNs dropped.
	short := Envelope([]float64{1, 2, 3}, []float64{1, math.NaN(), 3}, 10, nil)
	if len(short) != 2 || short[1].Y != 3 {
		t.Errorf("short series: %v", short)
	}
}

func TestPredictiveBand(t *testing.T) {
	// 101 draws: point 0 has probabilities 0, 0.01, …, 1; point 1 is 0.9
	// throughout; point 2 is 0.2 throughout.
	probs := make([][]float64, 101)
	for s := range probs {
		probs[s] = []float64{float64(s) / 100, 0.9, 0.2}
	}
	b, err := PredictiveBand(probs, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
	if !near(b.Mean[0], 0.5) || !near(b.Lo[0], 0.05) || !near(b.Hi[0], 0.95) {
		t.Errorf("point 0: mean %g, band [%g, %g], want 0.5, [0.05, 0.95]", b.Mean[0], b.Lo[0], b.Hi[0])
	}
	if !near(b.Lo[1], 0.9) || !near(b.Hi[1], 0.9) {
		t.Errorf("point 1: band [%g, %g]", b.Lo[1], b.Hi[1])
	}
	if fmt.Sprint(b.Order) != "[2 0 1]" {
		t.Errorf("order %v, want [2 0 1]", b.Order)
	}
	if _, err := PredictiveBand(probs, 1.5); err == nil {
		t.Error("level 1.5 accepted")
	}
	if _, err := PredictiveBand([][]float64{{1, 2}, {1}}, 0.9); err == nil {
		t.Error("ragged draws accepted")
	}
}

// The 2-D histogram of standard normal draws integrates to the mass inside
// the range and matches the normal density at the centre within Monte Carlo
// error.
func TestHistogram2D(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	n := 200000
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
	}
	g, err := Histogram2D(x, y, -2, 2, -2, 2, 20, 20)
	if err != nil {
		t.Fatal(err)
	}
	var mass float64
	for _, row := range g.Values {
		for _, v := range row {
			mass += v * 0.2 * 0.2
		}
	}
	in := math.Pow(math.Erf(2/math.Sqrt2), 2) // P(|x| < 2, |y| < 2)
	if math.Abs(mass-in) > 1e-12+4*math.Sqrt(in*(1-in)/float64(n)) {
		t.Errorf("mass %g, want %g", mass, in)
	}
	// Cell [0, 0.2]²: probability p ≈ (Φ(0.2) − ½)², density p/0.04.
	p := math.Pow(0.5*math.Erf(0.2/math.Sqrt2), 2)
	got := g.Values[10][10]
	if se := math.Sqrt(p/float64(n)) / 0.04; math.Abs(got-p/0.04) > 4*se {
		t.Errorf("density in cell [0, 0.2]²: %g, want %g ± %g", got, p/0.04, 4*se)
	}
	if _, err := Histogram2D(x, y[:5], -2, 2, -2, 2, 20, 20); err == nil {
		t.Error("unequal lengths accepted")
	}
	if _, err := Histogram2D(x, y, 2, -2, -2, 2, 20, 20); err == nil {
		t.Error("empty range accepted")
	}
}

// Every figure renders to a PNG that decodes at the requested size and to
// SVG; bad input is an error, not a panic.
func TestRender(t *testing.T) {
	x, y := randomWalk(5000, 2)
	_, y2 := randomWalk(5000, 3)
	chains := []Series{{X: x, Y: y}, {X: x, Y: y2}}
	inj, grad := make([]float64, len(x)), make([]float64, len(x))
	for i := range inj {
		inj[i] = 1e-3
		grad[i] = 1e-2 * math.Exp(-x[i]/500)
	}
	cross, _ := diag.Crossover(x, inj, grad)
	probs := make([][]float64, 50)
	rng := rand.New(rand.NewPCG(4, 4))
	for s := range probs {
		probs[s] = make([]float64, 30)
		for i := range probs[s] {
			probs[s][i] = 1 / (1 + math.Exp(-(float64(i-15)/4 + 0.5*rng.NormFloat64())))
		}
	}
	band, _ := PredictiveBand(probs, 0.9)
	labels := make([]float64, 30)
	for i := range labels {
		labels[i] = float64(i % 2)
	}
	grid := NewGrid(-2, 2, -2, 2, 40, 30, func(a, b float64) float64 { return 1 / (1 + math.Exp(-a-b)) })
	figs := map[string]func() (*gplot.Plot, error){
		"trace":   func() (*gplot.Plot, error) { return Trace("beta.1", chains, 1000) },
		"density": func() (*gplot.Plot, error) { return Density("beta.1", [][]float64{y, y2}, 40, normalPDF, "N(0, 1)") },
		"acf":     func() (*gplot.Plot, error) { return Autocorrelation("beta.1", [][]float64{y, y2}, 100) },
		"pair":    func() (*gplot.Plot, error) { return Pair("a", "b", [][]float64{y}, [][]float64{y2}, 1000) },
		"step":    func() (*gplot.Plot, error) { return StepSize(x, inj, 1000) },
		"noise":   func() (*gplot.Plot, error) { return NoiseCrossover(x, inj, grad, 1000, cross) },
		"sorted":  func() (*gplot.Plot, error) { return SortedPredictive("test", band, 0.9, labels) },
		"map": func() (*gplot.Plot, error) {
			return Map("P(y = 1)", grid, 0, 1, Points{X: y[:30], Y: y2[:30], Label: labels})
		},
		"density2d": func() (*gplot.Plot, error) {
			return Density2D("samples", y, y2, -20, 20, -20, 20, 50, 50, Points{X: []float64{0}, Y: []float64{0}})
		},
	}
	for name, f := range figs {
		p, err := f()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		b, err := Encode(p, Width, Height, "png")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: PNG does not decode: %v", name, err)
			continue
		}
		if w := img.Bounds().Dx(); w < 500 {
			t.Errorf("%s: PNG %d pixels wide", name, w)
		}
		s, err := Encode(p, Width, Height, "svg")
		if err != nil || !bytes.Contains(s, []byte("<svg")) {
			t.Errorf("%s: SVG: %v", name, err)
		}
	}
	dir := t.TempDir()
	p, _ := figs["trace"]()
	if err := Save(p, Width, Height, filepath.Join(dir, "t.svg")); err != nil {
		t.Error(err)
	}
	if err := Save(p, Width, Height, filepath.Join(dir, "t.gif")); err == nil || !strings.Contains(err.Error(), ".png or .svg") {
		t.Errorf("Save .gif: %v", err)
	}
	if _, err := Encode(p, Width, Height, "gif"); err == nil {
		t.Error("Encode gif accepted")
	}

	bad := map[string]func() (*gplot.Plot, error){
		"trace no chains": func() (*gplot.Plot, error) { return Trace("a", nil, 0) },
		"trace ragged":    func() (*gplot.Plot, error) { return Trace("a", []Series{{X: x, Y: y[:3]}}, 0) },
		"trace all NaN": func() (*gplot.Plot, error) {
			return Trace("a", []Series{{X: []float64{1}, Y: []float64{math.NaN()}}}, 0)
		},
		"density one draw":  func() (*gplot.Plot, error) { return Density("a", [][]float64{{1}}, 10, nil, "") },
		"acf constant":      func() (*gplot.Plot, error) { return Autocorrelation("a", [][]float64{{1, 1, 1}}, 2) },
		"pair ragged":       func() (*gplot.Plot, error) { return Pair("a", "b", [][]float64{y}, [][]float64{y2[:4]}, 10) },
		"step none":         func() (*gplot.Plot, error) { return StepSize(x[:2], []float64{0, -1}, 0) },
		"noise ragged":      func() (*gplot.Plot, error) { return NoiseCrossover(x, inj[:2], grad, 0, 0) },
		"sorted empty":      func() (*gplot.Plot, error) { return SortedPredictive("a", Band{}, 0.9, nil) },
		"map empty range":   func() (*gplot.Plot, error) { return Map("a", grid, 1, 1, Points{}) },
		"map bad grid":      func() (*gplot.Plot, error) { return Map("a", Grid{Xs: []float64{1}}, 0, 1, Points{}) },
		"density2d ragged":  func() (*gplot.Plot, error) { return Density2D("a", y, y2[:2], 0, 1, 0, 1, 5, 5, Points{}) },
		"sorted bad labels": func() (*gplot.Plot, error) { return SortedPredictive("a", band, 0.9, labels[:2]) },
		"densitymap bad grid": func() (*gplot.Plot, error) {
			return DensityMap("a", Grid{Xs: []float64{1, 2}, Ys: []float64{1, 2}}, Points{})
		},
	}
	for name, f := range bad {
		if _, err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func normalPDF(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }

// A 100,000-draw trace renders to PNG in well under a second: ≈ 0.17 s on
// an idle 2-core machine (without Envelope ≈ 7 s). The check uses the CPU
// time of the best of three renderings, which the load of a shared machine
// does not inflate.
func TestTrace100kUnderASecond(t *testing.T) {
	best, wall := time.Duration(math.MaxInt64), time.Duration(0)
	for range 3 {
		c0, w0 := cpuTime(), time.Now()
		if _, err := Encode(trace100k(1), Width, Height, "png"); err != nil {
			t.Fatal(err)
		}
		if d := cpuTime() - c0; d < best {
			best, wall = d, time.Since(w0)
		}
	}
	if best > time.Second {
		t.Errorf("100,000-draw trace took %v of CPU time to build and render", best)
	} else {
		t.Logf("100,000-draw trace built and rendered in %v of CPU time (%v wall)", best, wall)
	}
}

func trace100k(chains int) *gplot.Plot {
	s := make([]Series, chains)
	for c := range s {
		x, y := randomWalk(100000, uint64(c))
		s[c] = Series{X: x, Y: y}
	}
	p, err := Trace("theta", s, 10000)
	if err != nil {
		panic(err)
	}
	return p
}

// BenchmarkTrace100k builds and renders to PNG the trace plot of one chain
// of 100,000 draws (the envelope included). Besides ns/op (wall time) it
// reports cpu-ms/op, which the load of a shared machine does not inflate.
func BenchmarkTrace100k(b *testing.B) {
	x, y := randomWalk(100000, 1)
	b.ReportAllocs()
	c0 := cpuTime()
	defer func() { b.ReportMetric(float64(cpuTime()-c0)/1e6/float64(b.N), "cpu-ms/op") }()
	for b.Loop() {
		p, err := Trace("theta", []Series{{X: x, Y: y}}, 10000)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Encode(p, Width, Height, "png"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnvelope100k reduces a 100,000-draw series to 2·Bins points into
// a reused destination: no allocations.
func BenchmarkEnvelope100k(b *testing.B) {
	x, y := randomWalk(100000, 1)
	dst := make(plotter.XYs, 0, 2*Bins)
	b.ReportAllocs()
	for b.Loop() {
		dst = Envelope(x, y, Bins, dst)
	}
}

func TestBinaryEntropy(t *testing.T) {
	for _, c := range []struct{ p, want float64 }{
		{0, 0}, {1, 0}, {0.5, math.Ln2},
		{0.1, -0.1*math.Log(0.1) - 0.9*math.Log(0.9)},
	} {
		if got := BinaryEntropy(c.p); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("H(%g) = %g, want %g", c.p, got, c.want)
		}
	}
	for _, p := range []float64{-0.1, 1.1, math.NaN()} {
		if !math.IsNaN(BinaryEntropy(p)) {
			t.Errorf("H(%g) not NaN", p)
		}
	}
	g := EntropyGrid(NewGrid(0, 1, 0, 1, 3, 2, func(x, _ float64) float64 { return x }))
	if g.Values[1][1] != math.Ln2 || g.Values[0][0] != 0 {
		t.Errorf("entropy grid %v", g.Values)
	}
}
