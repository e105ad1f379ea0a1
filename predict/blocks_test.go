package predict_test

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
)

// line is a regressor f(x; θ) = θ₀ + θ₁x₁ with noise variance 1.
type line struct{}

func (line) RegressionMean(th []float64, X *mat.Dense, dst []float64) {
	for i := range dst {
		dst[i] = th[0] + th[1]*X.At(i, 0)
	}
}
func (line) NoiseVar([]float64) float64 { return 1 }

func randomX(n, p int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 1))
	X := mat.NewDense(n, p, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
	}
	return X
}

func randomDraws(s, d int, shift float64, seed uint64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([][]float64, s)
	for i := range out {
		out[i] = make([]float64, d)
		for j := range out[i] {
			out[i][j] = shift + 0.3*rng.NormFloat64()
		}
	}
	return out
}

// Regress and Classify in blocks (S·n above the budget) give, bit for bit,
// what they give on the rows one part at a time.
func TestPredictBlocks(t *testing.T) {
	defer predict.SetBlockBudget(10000)()
	const S, n = 30, 2000 // S·n = 6e4 > the budget: blocks of 333 rows
	if predict.BlockRows(S, 1, n) >= n {
		t.Fatalf("BlockRows(%d, 1, %d) = %d: the test needs more than one block", S, n, predict.BlockRows(S, 1, n))
	}
	X := randomX(n, 1, 1)
	draws := randomDraws(S, 2, 0, 3)
	all, err := predict.Regress(line{}, draws, X, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range [][2]int{{0, 100}, {100, n}} {
		Xp := X.Slice(part[0], part[1], 0, 1).(*mat.Dense)
		r, err := predict.Regress(line{}, draws, Xp, 0.9)
		if err != nil {
			t.Fatal(err)
		}
		for i := range r.Mean {
			k := part[0] + i
			if r.Mean[i] != all.Mean[k] || r.Lower[i] != all.Lower[k] || r.ObsUpper[i] != all.ObsUpper[k] {
				t.Fatalf("row %d: blocked Regress differs from the rows alone", k)
			}
		}
	}
	// Classify with intervals: 2 classes, S·n·2 > budget.
	Xl := randomX(n, 2, 5)
	lg, err := model.NewLogistic(Xl, make([]float64, n), model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cdraws := randomDraws(S, 3, 0.2, 7)
	call, err := predict.Classify(lg, cdraws, Xl, predict.ClassifyOptions{Level: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	Xp := Xl.Slice(1500, n, 0, 2).(*mat.Dense)
	cp, err := predict.Classify(lg, cdraws, Xp, predict.ClassifyOptions{Level: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	// Row 1700 directly: the type-7 5% quantile of p(y = 1) over the draws.
	row := Xl.Slice(1700, 1701, 0, 2).(*mat.Dense)
	p1 := make([]float64, S)
	one := mat.NewDense(1, 2, nil)
	for s, th := range cdraws {
		lg.ClassProbs(th, row, one)
		p1[s] = one.At(0, 1)
	}
	sort.Float64s(p1)
	h := 0.05 * (S - 1)
	lo := int(h)
	want := p1[lo] + (h-float64(lo))*(p1[lo+1]-p1[lo])
	if got := call.Lower.At(1700, 1); math.Abs(got-want) > 1e-15 {
		t.Fatalf("row 1700: lower 5%% bound %.17g, direct %.17g", got, want)
	}
	for i := 0; i < n-1500; i++ {
		if cp.Lower.At(i, 1) != call.Lower.At(1500+i, 1) || cp.Upper.At(i, 0) != call.Upper.At(1500+i, 0) {
			t.Fatalf("row %d: blocked Classify intervals differ from the rows alone", 1500+i)
		}
	}
}

// Function-space R̂: chains of draws from the same distribution agree
// (R̂ ≈ 1); a chain shifted by 0.5 (1.7 draw sds) shows up.
func TestClassConvergence(t *testing.T) {
	const n = 50
	X := randomX(n, 2, 9)
	lg, err := model.NewLogistic(X, make([]float64, n), model.LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	same := [][][]float64{randomDraws(500, 3, 0, 1), randomDraws(500, 3, 0, 2), randomDraws(500, 3, 0, 3)}
	c, err := predict.ClassConvergence(lg, same, X)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("same: %v", c)
	if c.MaxRHat > 1.02 || c.MinESS < 1000 {
		t.Errorf("independent draws from one distribution: %v", c)
	}
	apart := [][][]float64{randomDraws(500, 3, 0, 1), randomDraws(500, 3, 0, 2), randomDraws(500, 3, 0.5, 3)}
	c, err = predict.ClassConvergence(lg, apart, X)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("apart: %v", c)
	if c.MaxRHat < 1.1 {
		t.Errorf("one chain shifted: %v, want max R̂ > 1.1", c)
	}
	r, err := predict.RegressConvergence(line{}, apart, randomX(n, 1, 4))
	if err != nil {
		t.Fatal(err)
	}
	if r.MaxRHat < 1.1 {
		t.Errorf("regression, one chain shifted: %v, want max R̂ > 1.1", r)
	}
}
