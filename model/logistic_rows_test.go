package model_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/data"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
	"github.com/langevin-go/langevin/schedule"
)

// australianStore writes the standardised Australian data to a float64 store
// and returns it with the same data in memory.
func australianStore(t testing.TB) (*data.Store, *data.Dataset) {
	ds := data.Australian()
	data.FitScaler(ds.X).Transform(ds.X)
	var b strings.Builder
	b.WriteString(strings.Join(ds.Names, ",") + ",class\n")
	for i := 0; i < ds.Len(); i++ {
		for j := 0; j < ds.Dim(); j++ {
			b.WriteString(strconv.FormatFloat(ds.X.At(i, j), 'g', -1, 64) + ",")
		}
		b.WriteString(strconv.FormatFloat(ds.Y[i], 'g', -1, 64) + "\n")
	}
	dir := t.TempDir()
	csv := filepath.Join(dir, "a.csv")
	if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := data.OpenCSV(csv, data.CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	path := filepath.Join(dir, "a.lvs")
	if _, err := data.WriteStore(path, c, data.StoreOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := data.OpenStore(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, ds
}

// TestLogisticRowsMatchesInMemory: on a memory-mapped store the model gives
// the log likelihood, gradient and Hessian of the in-memory model bit for
// bit, on minibatches and on the full pass (which sums in the same order), finite-difference-checked gradients, no allocations, and
// the same SGLD draws bit for bit.
func TestLogisticRowsMatchesInMemory(t *testing.T) {
	s, ds := australianStore(t)
	mem, err := model.NewLogistic(ds.X, ds.Y, model.LogisticOptions{PriorScale: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := model.NewLogisticRows(s, model.LogisticOptions{PriorScale: 2})
	if err != nil {
		t.Fatal(err)
	}
	d := mem.Dim()
	if rows.Dim() != d || rows.Len() != mem.Len() {
		t.Fatalf("dims %d/%d, want %d/%d", rows.Dim(), rows.Len(), d, mem.Len())
	}
	theta := make([]float64, d)
	for j := range theta {
		theta[j] = 0.3 * math.Sin(float64(j+1))
	}
	batch := []int{3, 600, 3, 41, 689, 0}
	for _, b := range [][]int{batch, nil} {
		g1, g2 := make([]float64, d), make([]float64, d)
		v1, v2 := mem.LogLik(theta, b, g1), rows.LogLik(theta, b, g2)
		if math.Float64bits(v1) != math.Float64bits(v2) {
			t.Errorf("batch %v: loglik %v, want %v", b, v2, v1)
		}
		for j := range g1 {
			if math.Float64bits(g1[j]) != math.Float64bits(g2[j]) {
				t.Errorf("batch %v: grad[%d] %v, want %v", b, j, g2[j], g1[j])
			}
		}
		if err := langevin.CheckGradient(rows, theta, b, 1e-6); err != nil {
			t.Error(err)
		}
	}
	h1, h2 := make([]float64, d*d), make([]float64, d*d)
	mem.Hessian(theta, h1)
	rows.Hessian(theta, h2)
	for k := range h1 {
		if math.Float64bits(h1[k]) != math.Float64bits(h2[k]) {
			t.Fatalf("Hessian[%d] = %v, want %v", k, h2[k], h1[k])
		}
	}
	g := make([]float64, d)
	if a := testing.AllocsPerRun(50, func() { rows.LogLik(theta, batch, g) }); a != 0 {
		t.Errorf("LogLik on a batch: %v allocs, want 0", a)
	}
	if a := testing.AllocsPerRun(5, func() { rows.LogLik(theta, nil, g) }); a != 0 {
		t.Errorf("LogLik on all rows: %v allocs, want 0", a)
	}
	run := func(m langevin.Model) *langevin.Trace {
		tr, err := langevin.Run(context.Background(), m, sampler.SGLD{Step: schedule.Constant(1e-3), Batch: sampler.Minibatch{Size: 32}},
			langevin.Options{Chains: 2, Iters: 500, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	a, b := run(mem), run(rows)
	for c := range a.Draws {
		for i := range a.Draws[c] {
			for j, v := range a.Draws[c][i] {
				if math.Float64bits(v) != math.Float64bits(b.Draws[c][i][j]) {
					t.Fatalf("chain %d draw %d %s: %v in memory, %v from the store", c+1, i+1, a.Names[j], v, b.Draws[c][i][j])
				}
			}
		}
	}
}

// badRows serves labels 0, 1, 2.
type badRows struct{}

func (badRows) Len() int { return 3 }
func (badRows) Dim() int { return 1 }
func (badRows) ReadRows(lo int, x, y []float64) {
	for i := range y {
		x[i], y[i] = 1, float64(lo+i)
	}
}

func TestLogisticRowsLabels(t *testing.T) {
	_, err := model.NewLogisticRows(badRows{}, model.LogisticOptions{})
	if le, ok := err.(*model.LabelError); !ok || le.Row != 3 || le.Value != 2 {
		t.Errorf("error %v, want a *LabelError at row 3", err)
	}
}

// TestLogisticRowsViews: on a view of 9,000 rows (several blocks of 4096:
// the training side of a hashed split, standardised on the fly) the model
// equals the in-memory model of the same rows bit for bit on the full pass,
// its gradient passes the finite-difference check, and Subset holds the
// rows of a batch (the same log likelihood and gradient to rounding).
func TestLogisticRowsViews(t *testing.T) {
	const n, p = 9000, 3
	rng := rand.New(rand.NewPCG(1, 2))
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := range n {
		z := 0.2
		for j := range p {
			v := float64(j) + rng.NormFloat64()
			X.Set(i, j, v)
			z += 0.5 * v
		}
		if rng.Float64() < 1/(1+math.Exp(-z)) {
			y[i] = 1
		}
	}
	ds := &data.Dataset{X: X, Y: y}
	train, _ := data.SplitRows(ds, 0.2, 1)
	sc := data.FitScalerRows(train)
	view := sc.View(train)
	rows, err := model.NewLogisticRows(view, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	k := train.Len()
	mx, my := make([]float64, k*p), make([]float64, k)
	view.ReadRows(0, mx, my)
	mem, err := model.NewLogistic(mat.NewDense(k, p, mx), my, model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	theta := []float64{0.1, -0.3, 0.7, 0.2}
	g1, g2 := make([]float64, 4), make([]float64, 4)
	v1, v2 := mem.LogLik(theta, nil, g1), rows.LogLik(theta, nil, g2)
	if math.Float64bits(v1) != math.Float64bits(v2) {
		t.Errorf("full pass: %v, in memory %v", v2, v1)
	}
	for j := range g1 {
		if math.Float64bits(g1[j]) != math.Float64bits(g2[j]) {
			t.Errorf("full-pass gradient %d: %v, in memory %v", j, g2[j], g1[j])
		}
	}
	batch := []int{0, 17, k - 1, 4095, 4096, 17}
	for _, b := range [][]int{nil, batch} {
		if err := langevin.CheckGradient(rows, theta, b, 1e-6); err != nil {
			t.Errorf("batch %v: %v", b, err)
		}
	}
	sub, err := rows.Subset(batch)
	if err != nil {
		t.Fatal(err)
	}
	g3 := make([]float64, 4)
	clear(g2)
	v2, v3 := rows.LogLik(theta, batch, g2), sub.LogLik(theta, nil, g3)
	if math.Abs(v2-v3) > 1e-12*math.Abs(v2) {
		t.Errorf("Subset: log likelihood %v, want %v", v3, v2)
	}
	for j := range g2 {
		if math.Abs(g2[j]-g3[j]) > 1e-12*(1+math.Abs(g2[j])) {
			t.Errorf("Subset: gradient %d: %v, want %v", j, g3[j], g2[j])
		}
	}
	if !rows.Streamed() || mem.Streamed() {
		t.Error("Streamed")
	}
}

// countingRows counts the rows read.
type countingRows struct {
	*data.Store
	n int
}

func (c *countingRows) ReadRows(lo int, x, y []float64) {
	c.n += len(y)
	c.Store.ReadRows(lo, x, y)
}

// TestLogisticLogLikPair: LogLikPair equals two LogLik calls bit for bit,
// values and gradients, on Rows and in memory, and on Rows reads each row of
// the batch once (the control-variate estimator uses it: a streamed run
// equals the in-memory one bit for bit, TestRunStoreStreamsLikeMemory).
func TestLogisticLogLikPair(t *testing.T) {
	s, ds := australianStore(t)
	cr := &countingRows{Store: s}
	rows, err := model.NewLogisticRows(cr, model.LogisticOptions{PriorScale: 2})
	if err != nil {
		t.Fatal(err)
	}
	mem, err := model.NewLogistic(ds.X, ds.Y, model.LogisticOptions{PriorScale: 2})
	if err != nil {
		t.Fatal(err)
	}
	d := mem.Dim()
	rng := rand.New(rand.NewPCG(8, 9))
	a, b := make([]float64, d), make([]float64, d)
	for j := range a {
		a[j], b[j] = 0.3*rng.NormFloat64(), 0.3*rng.NormFloat64()
	}
	batch := make([]int, 2500) // > 1000: the products are flushed to logs
	for k := range batch {
		batch[k] = rng.IntN(mem.Len())
	}
	for _, m := range []*model.Logistic{rows, mem} {
		ga, gb, wa, wb := make([]float64, d), make([]float64, d), make([]float64, d), make([]float64, d)
		before := cr.n
		la, lb := m.LogLikPair(a, b, batch, ga, gb)
		read := cr.n - before
		wantA, wantB := m.LogLik(a, batch, wa), m.LogLik(b, batch, wb)
		if la != wantA || lb != wantB || !slices.Equal(ga, wa) || !slices.Equal(gb, wb) {
			t.Errorf("LogLikPair (%v, %v) differs from LogLik (%v, %v) or its gradients", la, lb, wantA, wantB)
		}
		if m == rows && read != len(batch) {
			t.Errorf("LogLikPair read %d rows for a batch of %d", read, len(batch))
		}
		if la2, lb2 := m.LogLikPair(a, b, batch, nil, nil); la2 != wantA || lb2 != wantB {
			t.Errorf("LogLikPair without gradients: (%v, %v), want (%v, %v)", la2, lb2, wantA, wantB)
		}
	}
}
