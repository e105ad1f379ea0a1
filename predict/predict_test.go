package predict_test

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/predict"
)

var (
	_ predict.Classifier = (*model.MLP)(nil)
	_ predict.Classifier = (*model.Logistic)(nil)
	_ predict.Regressor  = (*model.MLP)(nil)
	_ predict.Regressor  = (*model.Linear)(nil)
	_ predict.Classifier = (*model.Softmax)(nil)
)

// table is a classifier whose draw θ = (s) gives the fixed probabilities
// probs[s] at every row.
type table struct{ probs [][]float64 }

func (t table) NumClasses() int { return len(t.probs[0]) }
func (t table) ClassProbs(th []float64, X *mat.Dense, dst *mat.Dense) {
	n, _ := X.Dims()
	for i := 0; i < n; i++ {
		dst.SetRow(i, t.probs[int(th[0])])
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	c := table{[][]float64{{1, 0, 0}, {0, 1, 0}, {0.5, 0.5, 0}, {0.5, 0.25, 0.25}}}
	X := mat.NewDense(2, 1, nil)
	for _, tc := range []struct {
		draws            [][]float64
		probs            []float64
		total, exp, mi   float64
		lower0, upper0   float64
		level            float64
		noIntervalsWants bool
	}{
		// Two confident draws that disagree: all uncertainty is epistemic.
		{[][]float64{{0}, {1}}, []float64{0.5, 0.5, 0}, math.Ln2, 0, math.Ln2, 0, 1, 0.9, false},
		// Two identical uncertain draws: all aleatoric.
		{[][]float64{{2}, {2}}, []float64{0.5, 0.5, 0}, math.Ln2, math.Ln2, 0, 0.5, 0.5, 0.5, false},
		{[][]float64{{3}}, []float64{0.5, 0.25, 0.25}, 1.5 * math.Ln2, 1.5 * math.Ln2, 0, 0, 0, 0, true},
	} {
		res, err := predict.Classify(c, tc.draws, X, predict.ClassifyOptions{Level: tc.level})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			for k, want := range tc.probs {
				if got := res.Probs.At(i, k); math.Abs(got-want) > 1e-15 {
					t.Errorf("%v: p[%d][%d] = %v, want %v", tc.draws, i, k, got, want)
				}
			}
			for _, q := range []struct {
				name      string
				got, want float64
			}{{"entropy", res.Entropy[i], tc.total}, {"expected entropy", res.Expected[i], tc.exp}, {"mutual information", res.MutualInfo[i], tc.mi}} {
				if math.Abs(q.got-q.want) > 1e-15 {
					t.Errorf("%v: %s = %v, want %v", tc.draws, q.name, q.got, q.want)
				}
			}
		}
		if tc.noIntervalsWants != (res.Lower == nil) {
			t.Errorf("%v: intervals %v", tc.draws, res.Lower)
		} else if res.Lower != nil {
			// Two draws, level 0.9: type-7 quantiles 0.05 and 0.95 of {0, 1}.
			lo, hi := res.Lower.At(0, 0), res.Upper.At(0, 0)
			if tc.lower0 == 0 && (math.Abs(lo-0.05) > 1e-15 || math.Abs(hi-0.95) > 1e-15) {
				t.Errorf("%v: interval [%v, %v], want [0.05, 0.95]", tc.draws, lo, hi)
			}
			if tc.lower0 == 0.5 && (lo != 0.5 || hi != 0.5) {
				t.Errorf("%v: interval [%v, %v], want [0.5, 0.5]", tc.draws, lo, hi)
			}
		}
	}
	if _, err := predict.Classify(c, nil, X, predict.ClassifyOptions{}); err == nil {
		t.Error("no draws: no error")
	}
	if _, err := predict.Classify(c, [][]float64{{0}}, X, predict.ClassifyOptions{Level: 1}); err == nil {
		t.Error("level 1: no error")
	}
}

// shift is a regressor f(x; θ) = θ₀ with noise variance θ₁.
type shift struct{}

func (shift) RegressionMean(th []float64, X *mat.Dense, dst []float64) {
	for i := range dst {
		dst[i] = th[0]
	}
}
func (shift) NoiseVar(th []float64) float64 { return th[1] }

func TestRegress(t *testing.T) {
	t.Parallel()
	X := mat.NewDense(1, 1, nil)
	// One draw f = 2, σ² = 4: y ~ N(2, 4), 95% interval 2 ± 1.959964·2.
	res, err := predict.Regress(shift{}, [][]float64{{2, 4}}, X, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	const z = 1.959963984540054
	if math.Abs(res.ObsLower[0]-(2-2*z)) > 1e-9 || math.Abs(res.ObsUpper[0]-(2+2*z)) > 1e-9 {
		t.Errorf("observation interval [%v, %v], want 2 ± %v", res.ObsLower[0], res.ObsUpper[0], 2*z)
	}
	if res.Lower[0] != 2 || res.Upper[0] != 2 || res.Mean[0] != 2 {
		t.Errorf("function: mean %v interval [%v, %v], want 2, [2, 2]", res.Mean[0], res.Lower[0], res.Upper[0])
	}
	// Draws f ∈ {−1, 1}, no noise: the mixture is two point masses.
	res, err = predict.Regress(shift{}, [][]float64{{-1, 0}, {1, 0}}, X, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if res.Mean[0] != 0 || math.Abs(res.Lower[0]+0.5) > 1e-15 || math.Abs(res.Upper[0]-0.5) > 1e-15 {
		t.Errorf("two draws: mean %v, interval [%v, %v], want 0, [−0.5, 0.5]", res.Mean[0], res.Lower[0], res.Upper[0])
	}
	if _, err := predict.Regress(shift{}, [][]float64{{0, 1}}, X, 0); err == nil {
		t.Error("level 0: no error")
	}
}

// TestScoreRegression checks the RMSE and the mixture's log density against
// a direct sum: draws (f, σ²) = (0, 1) and (2, 4) at y = 1 and y = −1.
func TestScoreRegression(t *testing.T) {
	t.Parallel()
	X := mat.NewDense(2, 1, nil)
	draws := [][]float64{{0, 1}, {2, 4}}
	y := []float64{1, -1}
	res, err := predict.ScoreRegression(shift{}, draws, X, y)
	if err != nil {
		t.Fatal(err)
	}
	norm := func(y, m, v float64) float64 { return math.Exp(-(y-m)*(y-m)/(2*v)) / math.Sqrt(2*math.Pi*v) }
	var lpd float64
	for _, yi := range y {
		lpd += math.Log((norm(yi, 0, 1) + norm(yi, 2, 4)) / 2)
	}
	lpd /= 2
	if math.Abs(res.LPD-lpd) > 1e-12 {
		t.Errorf("LPD %v, want %v", res.LPD, lpd)
	}
	// The predictive mean is 1 at both rows: errors 0 and 2.
	if want := math.Sqrt(2); math.Abs(res.RMSE-want) > 1e-12 {
		t.Errorf("RMSE %v, want %v", res.RMSE, want)
	}
	if _, err := predict.ScoreRegression(shift{}, nil, X, y); err == nil {
		t.Error("no draws: no error")
	}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	p := mat.NewDense(4, 2, []float64{
		0.9, 0.1,
		0.2, 0.8,
		0.6, 0.4,
		0.3, 0.7,
	})
	y := []float64{0, 1, 1, -1}
	m, err := predict.Evaluate(p, y, 10)
	if err != nil {
		t.Fatal(err)
	}
	wantNLL := -(math.Log(0.9) + math.Log(0.8) + math.Log(0.4) + math.Log(0.3)) / 4
	wantBrier := (2*0.01 + 2*0.04 + 2*0.36 + 2*0.49) / 4
	// Confidences 0.9 (hit), 0.8 (hit), 0.6 (miss), 0.7 (miss), one per bin.
	wantECE := (0.1 + 0.2 + 0.6 + 0.7) / 4
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"accuracy", m.Accuracy, 0.5}, {"NLL", m.NLL, wantNLL}, {"Brier", m.Brier, wantBrier}, {"ECE", m.ECE, wantECE}} {
		if math.Abs(c.got-c.want) > 1e-12 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if m.Confusion[0][0] != 1 || m.Confusion[0][1] != 1 || m.Confusion[1][0] != 1 || m.Confusion[1][1] != 1 {
		t.Errorf("confusion %v, want [[1 1] [1 1]]", m.Confusion)
	}
	for _, c := range []struct {
		y    []float64
		want string
	}{{[]float64{0, 1, 2, 0}, "row 3: label 2"}, {[]float64{0, 1}, "2 labels for 4 rows"}, {[]float64{0, 0.5, 1, 1}, "row 2: label 0.5"}} {
		if _, err := predict.Evaluate(p, c.y, 0); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("labels %v: error %v, want %q", c.y, err, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	p := mat.NewDense(2, 3, []float64{0.6, 0.3, 0.1, 0.2, 0.2, 0.6})
	q := mat.NewDense(2, 3, []float64{0.4, 0.5, 0.1, 0.1, 0.1, 0.8})
	agree, tv, err := predict.Compare(p, q)
	if err != nil {
		t.Fatal(err)
	}
	if agree != 0.5 || math.Abs(tv-(0.2+0.2)/2) > 1e-15 {
		t.Errorf("agreement %v, tv %v; want 0.5, 0.2", agree, tv)
	}
	if _, _, err := predict.Compare(p, mat.NewDense(3, 3, nil)); err == nil {
		t.Error("shape mismatch: no error")
	}
}

func TestWriteCSV(t *testing.T) {
	t.Parallel()
	c := table{[][]float64{{0.25, 0.75}}}
	X := mat.NewDense(2, 1, nil)
	res, err := predict.Classify(c, [][]float64{{0}}, X, predict.ClassifyOptions{Level: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if err := res.WriteCSV(&sb, []float64{1, 0}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Split(sb.String(), "\n")[1], "1,0.25,0.25,0.25,0.75,0.75,0.75,0.562335,0.562335,0"; got != want {
		t.Errorf("row %q, want %q", got, want)
	}
	reg, err := predict.Regress(shift{}, [][]float64{{2, 0}}, X, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	sb.Reset()
	if err := reg.WriteCSV(&sb, []float64{1, 3}); err != nil {
		t.Fatal(err)
	}
	if got := sb.String(); got != "y,mean,f_lower,f_upper,y_lower,y_upper\n1,2,2,2,2,2\n3,2,2,2,2,2\n" {
		t.Errorf("regression CSV:\n%s", got)
	}
}

// TestClassifyParallelSameBits: Classify splits the rows among goroutines;
// the result equals the one-goroutine sum over draws bit for bit, whatever
// GOMAXPROCS, and equals a direct sum over the draws.
func TestClassifyParallelSameBits(t *testing.T) {
	const n, p, k, S = 1500, 4, 3, 40
	rng := rand.New(rand.NewPCG(3, 4))
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	for i := range n {
		for j := range p {
			X.Set(i, j, rng.NormFloat64())
		}
		y[i] = float64(rng.IntN(k))
	}
	m, err := model.NewSoftmax(X, y, model.SoftmaxOptions{Classes: k})
	if err != nil {
		t.Fatal(err)
	}
	draws := make([][]float64, S)
	for s := range draws {
		draws[s] = make([]float64, m.Dim())
		for j := range draws[s] {
			draws[s][j] = rng.NormFloat64()
		}
	}
	classify := func(procs int) *predict.Classification {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		res, err := predict.Classify(m, draws, X, predict.ClassifyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	one := classify(1)
	// The direct sum, draw by draw over all rows.
	pr := mat.NewDense(n, k, nil)
	sum := mat.NewDense(n, k, nil)
	for _, th := range draws {
		m.ClassProbs(th, X, pr)
		sum.Add(sum, pr)
	}
	sum.Scale(1.0/S, sum)
	if !mat.Equal(one.Probs, sum) {
		t.Fatal("Classify's mean probabilities differ from the direct sum over draws")
	}
	only, err := predict.Classify(m, draws, X, predict.ClassifyOptions{ProbsOnly: true})
	if err != nil || !mat.Equal(only.Probs, one.Probs) || only.Entropy != nil || only.Expected != nil || only.MutualInfo != nil {
		t.Errorf("ProbsOnly: probabilities differ, or entropies computed (%v)", err)
	}
	for _, procs := range []int{2, 3, 8} {
		got := classify(procs)
		if !mat.Equal(got.Probs, one.Probs) || !slices.Equal(got.Expected, one.Expected) || !slices.Equal(got.Entropy, one.Entropy) {
			t.Errorf("GOMAXPROCS %d: Classify differs from one goroutine's", procs)
		}
	}
}
