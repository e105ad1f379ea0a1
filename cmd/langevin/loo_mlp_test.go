package main

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
)

// TestLooMLPRegression: an MLP regression standardises its response (the
// network models z = (y − ȳ)/s_y), and langevin loo scores it in y's
// units. Each row's lpd = elpd_loo + p_loo from the pointwise CSV is
// checked against log (1/S) Σₛ N(yᵢ; ȳ + s_y·fₛ(xᵢ), s_y²·σₛ²) written out
// from the network's outputs and noise variance, with ȳ and s_y the mean
// and sd (divisor n) of the responses computed here; leaving out the
// change of variables would be off by log s_y ≈ 1 a row.
func TestLooMLPRegression(t *testing.T) {
	csvPath := looData(t, 60)
	dir := filepath.Join(t.TempDir(), "mlp")
	args := append([]string{"run", "--model", "mlp", "--data", csvPath, "--target", "y", "--hidden", "4", "--test-frac", "0", "--out", dir}, quick...)
	if code, _, errOut := runMain(args...); code != 0 {
		t.Fatalf("mlp run: exit %d: %s", code, errOut)
	}
	pw := filepath.Join(t.TempDir(), "pw.csv")
	code, out, errOut := runMain("loo", dir, "--out", pw)
	if code != 0 {
		t.Fatalf("loo: exit %d: %s%s", code, out, errOut)
	}
	t.Logf("%s", out)
	recs := readCSVFile(t, csvPath)
	N := len(recs) - 1
	d := &data.Dataset{X: mat.NewDense(N, 3, nil), Y: make([]float64, N), Names: recs[0][:3], Target: "y"}
	for i, r := range recs[1:] {
		for j := range 3 {
			d.X.Set(i, j, mustFloat(t, r[j]))
		}
		d.Y[i] = mustFloat(t, r[3])
	}
	r, err := readRuns([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	mf, sc, err := readModelFile(r)
	if err != nil {
		t.Fatal(err)
	}
	// the rows in the order of the run's training set (--test-frac 0 still
	// shuffles them), which is the order of langevin loo's rows
	if mf.Split != nil {
		if d, err = applySplit(mf.Split, d, "train", csvPath); err != nil {
			t.Fatal(err)
		}
	}
	X, y := d.X, d.Y
	var ybar float64
	for _, v := range y {
		ybar += v / float64(N)
	}
	var ss float64
	for _, v := range y {
		ss += (v - ybar) * (v - ybar)
	}
	sy := math.Sqrt(ss / float64(N))
	if sc == nil || math.Abs(sc.TargetMean-ybar) > 1e-12*sy || math.Abs(sc.TargetScale-sy) > 1e-12*sy {
		t.Fatalf("scaler.json's response standardisation %+v: want mean %v, sd %v", sc, ybar, sy)
	}
	sc.Transform(X)
	z := make([]float64, N) // any responses: the outputs do not depend on them
	m, err := mf.Spec.Build(X, z)
	if err != nil {
		t.Fatal(err)
	}
	mlp, ok := m.(*model.MLP)
	if !ok {
		t.Fatalf("model %T: want *model.MLP", m)
	}
	draws := r.Trace.Rows()
	ll := mat.NewDense(N, len(draws), nil)
	f := make([]float64, N)
	for s, th := range draws {
		th = th[:m.Dim()]
		mlp.RegressionMean(th, X, f)
		v := sy * sy * mlp.NoiseVar(th)
		for i := range N {
			mu := ybar + sy*f[i]
			ll.Set(i, s, -0.5*math.Log(2*math.Pi*v)-(y[i]-mu)*(y[i]-mu)/(2*v))
		}
	}
	pts := readCSVFile(t, pw)
	if len(pts) != N+1 {
		t.Fatalf("%s: %d lines, want %d", pw, len(pts), N+1)
	}
	var worst float64
	for i, p := range pts[1:] {
		got := mustFloat(t, p[2]) + mustFloat(t, p[3])
		want := logMeanExp(ll.RawRowView(i))
		worst = math.Max(worst, math.Abs(got-want))
		if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
			t.Errorf("row %d: lpd %v from langevin loo, %v written out", i+1, got, want)
		}
	}
	t.Logf("s_y %.4g (log s_y %.3g); largest difference in a row's lpd: %.2g", sy, math.Log(sy), worst)
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
