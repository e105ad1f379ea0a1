package plot

import (
	"math"
	"testing"

	"gonum.org/v1/plot/vg"
)

func TestReliabilityBins(t *testing.T) {
	p := []float64{0.05, 0.15, 0.12, 0.95, 1, 0.55}
	y := []float64{0, 1, 0, 1, 1, -1}
	got := ReliabilityBins(p, y, 10)
	want := []ReliabilityBin{
		{Lo: 0, Hi: 0.1, N: 1, MeanProb: 0.05, Freq: 0},
		{Lo: 0.1, Hi: 0.2, N: 2, MeanProb: 0.135, Freq: 0.5},
		{Lo: 0.5, Hi: 0.6, N: 1, MeanProb: 0.55, Freq: 0},
		{Lo: 0.9, Hi: 1, N: 2, MeanProb: 0.975, Freq: 1}, // p = 1 falls in the last bin
	}
	if len(got) != len(want) {
		t.Fatalf("bins %+v\nwant %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.N != w.N || math.Abs(g.MeanProb-w.MeanProb) > 1e-12 || g.Freq != w.Freq || math.Abs(g.Lo-w.Lo) > 1e-12 {
			t.Errorf("bin %d: %+v, want %+v", i, g, w)
		}
	}
}

func TestPPCPValue(t *testing.T) {
	rep := []float64{1, 2, 3, 4}
	for _, tc := range []struct{ obs, want float64 }{{0, 1}, {2.5, 0.5}, {3, 0.375}, {5, 0}} {
		if got := PPCPValue(tc.obs, rep); got != tc.want {
			t.Errorf("PPCPValue(%v) = %v, want %v", tc.obs, got, tc.want)
		}
	}
}

func TestDiagnosticPlots(t *testing.T) {
	y := []float64{0, 1, 1, 0, 1}
	if _, err := Reliability("r", []string{"a"}, [][]float64{{0.1, 0.8, 0.7, 0.3, 0.9}}, y, 5); err != nil {
		t.Error(err)
	}
	if _, err := Reliability("r", []string{"a"}, [][]float64{{0.1}}, y, 5); err == nil {
		t.Error("Reliability accepted 1 probability for 5 labels")
	}
	x := []float64{0, 1, 2}
	b, err := Bands("b", x, []string{"m"}, [][]float64{{0, 1, 2}}, [][]float64{{-1, 0, 1}}, [][]float64{{1, 2, 3}}, []float64{0.5}, []float64{0.7}, math.Sin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Encode(b, 10*vg.Centimeter, 8*vg.Centimeter, "png"); err != nil {
		t.Error(err)
	}
	if _, err := Bands("b", x, []string{"m"}, [][]float64{{0, 1}}, [][]float64{{-1, 0, 1}}, [][]float64{{1, 2, 3}}, nil, nil, nil); err == nil {
		t.Error("Bands accepted a short mean")
	}
	pp, err := PPC("sd", 1.5, []float64{1, 1.2, 1.1, 0.9, 1.3})
	if err != nil || pp.Title.Text != "sd: p < 0.2" || !pp.Legend.Left {
		t.Errorf("PPC: %v, title %q (want \"sd: p < 0.2\", no replication reaches 1.5 of 5), legend left %v (want true: the observed line is on the right)", err, pp.Title.Text, pp.Legend.Left)
	}
	if pp, err := PPC("sd", 1.1, []float64{1, 1.2, 1.1, 0.9, 1.3}); err != nil || pp.Title.Text != "sd: p = 0.500" {
		t.Errorf("PPC: %v, title %q, want \"sd: p = 0.500\"", err, pp.Title.Text)
	}
	if _, err := PPC("sd", 1, []float64{1}); err == nil {
		t.Error("PPC accepted one replication")
	}
}

// TestMarginals: the density estimate of N(0, 1) quantiles integrates to
// 1 over ±5 and peaks at 0 at about 1/√(2π); Marginals draws two runs and
// rejects mismatched labels.
func TestMarginals(t *testing.T) {
	a := make([]float64, 4000)
	for i := range a {
		u := (float64(i) + 0.5) / float64(len(a))
		a[i] = math.Sqrt2 * math.Erfinv(2*u-1) // normal quantiles, sorted
	}
	g := kdeCurve(a, -5, 5, 401)
	var area, peak, at float64
	for i := 1; i < len(g); i++ {
		area += (g[i].X - g[i-1].X) * (g[i].Y + g[i-1].Y) / 2
		if g[i].Y > peak {
			peak, at = g[i].Y, g[i].X
		}
	}
	if math.Abs(area-1) > 0.005 || math.Abs(at) > 0.05 || math.Abs(peak-0.3989) > 0.01 {
		t.Errorf("area %.4f, peak %.4f at %.3f; want 1, 0.399 at 0", area, peak, at)
	}
	b := make([]float64, len(a))
	for i, v := range a {
		b[i] = v + 1
	}
	if _, err := Marginals("x", []string{"a", "b"}, [][][]float64{{a}, {b[:2000], b[2000:]}}, true); err != nil {
		t.Error(err)
	}
	if _, err := Marginals("x", []string{"a"}, nil, false); err == nil {
		t.Error("Marginals accepted 1 label for 0 runs")
	}
}
