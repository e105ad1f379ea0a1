package stan

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

// logisticData returns n rows of k correlated features and 0/1 labels from
// a logistic regression, as CmdStan JSON (N, K, X, y) and as a matrix and
// labels.
func logisticData(n, k int, seed uint64) (string, *mat.Dense, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	X := mat.NewDense(n, k, nil)
	y := make([]float64, n)
	rowsX := make([][]float64, n)
	yi := make([]int, n)
	beta := []float64{1, -0.5, 0.25, 0.8, -1.2}
	for i := 0; i < n; i++ {
		z := rng.NormFloat64()
		eta := 0.3
		rowsX[i] = make([]float64, k)
		for j := 0; j < k; j++ {
			x := 0.7*z + 0.7*rng.NormFloat64() // correlated features
			X.Set(i, j, x)
			rowsX[i][j] = x
			eta += beta[j%len(beta)] * x
		}
		if rng.Float64() < 1/(1+math.Exp(-eta)) {
			y[i], yi[i] = 1, 1
		}
	}
	b, _ := json.Marshal(map[string]any{"N": n, "K": k, "X": rowsX, "y": yi})
	return string(b), X, y
}

const rowsHead = `data { int<lower=0> N; int<lower=1> K; matrix[N, K] X; array[N] int<lower=0, upper=1> y; }
parameters { real alpha; vector[K] beta; }
`

// rowsPrograms are logistic regressions written the ways applied users
// write them, each with a N(0, 1) prior on the intercept and coefficients.
var rowsPrograms = map[string]string{
	"vectorised": rowsHead + `model { alpha ~ normal(0, 1); beta ~ normal(0, 1); y ~ bernoulli_logit(alpha + X * beta); }`,
	"target": rowsHead + `model {
  target += normal_lpdf(alpha | 0, 1) + normal_lpdf(beta | 0, 1);
  target += bernoulli_logit_lpmf(y | alpha + X * beta);
}`,
	"glm": rowsHead + `model { alpha ~ std_normal(); beta ~ std_normal(); y ~ bernoulli_logit_glm(X, alpha, beta); }`,
	"local": rowsHead + `model {
  vector[N] eta = alpha + X * beta;
  alpha ~ normal(0, 1);
  beta ~ normal(0, 1);
  y ~ bernoulli_logit(eta);
}`,
	"loop": rowsHead + `model {
  alpha ~ normal(0, 1);
  for (k in 1:K) beta[k] ~ normal(0, 1);
  for (n in 1:N) {
    real eta = alpha + X[n] * beta;
    target += bernoulli_logit_lpmf(y[n] | eta);
  }
}`,
	"loop into a local": rowsHead + `model {
  vector[N] eta;
  for (n in 1:N) eta[n] = alpha + dot_product(X[n], beta);
  y ~ bernoulli_logit(eta);
  alpha ~ normal(0, 1);
  beta ~ normal(0, 1);
}`,
}

// TestRowsAgainstLogistic checks NewRows on logistic regressions written
// six ways against model.Logistic: LogPrior alone (the prior terms), and
// LogLik on the whole data and on minibatches (the row terms), values and
// gradients, to rounding.
func TestRowsAgainstLogistic(t *testing.T) {
	js, X, y := logisticData(300, 3, 1)
	h, err := model.NewLogistic(X, y, model.LogisticOptions{PriorScale: 1})
	if err != nil {
		t.Fatal(err)
	}
	d, err := ParseData("rows.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range rowsPrograms {
		t.Run(name, func(t *testing.T) {
			prog, err := Parse("rows.stan", src)
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewRows(prog, d, "N")
			if err != nil {
				t.Fatal(err)
			}
			if m.Len() != 300 || m.Dim() != 4 {
				t.Fatalf("Len %d, Dim %d: want 300, 4", m.Len(), m.Dim())
			}
			rng := rand.New(rand.NewPCG(2, 3))
			for _, batch := range [][]int{nil, {7}, {0, 299, 12, 12, 150}} {
				th := []float64{0.3 * rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
				g1, g2 := make([]float64, 4), make([]float64, 4)
				a := m.LogLik(th, batch, g1)
				b := h.LogLik(th, batch, g2)
				close(t, "LogLik", batch, a, b, g1, g2)
				if name == "vectorised" || name == "loop" || name == "local" { // normal_lpdf's constants dropped by ~
					g1, g2 = make([]float64, 4), make([]float64, 4)
					a = m.LogPrior(th, g1) + m.LogLik(th, nil, g1)
					b = langevin.LogPosterior(h, th, g2)
					// ~ drops the prior's −(d/2) log 2π
					close(t, "log posterior", nil, a-2*math.Log(2*math.Pi), b, g1, g2)
				}
			}
		})
	}
}

func close(t *testing.T, what string, batch []int, a, b float64, ga, gb []float64) {
	t.Helper()
	if math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(b)) {
		t.Errorf("%s on %v: Stan program %v, model.Logistic %v", what, batch, a, b)
	}
	for j := range ga {
		if math.Abs(ga[j]-gb[j]) > 1e-8*math.Max(1, math.Abs(gb[j])) {
			t.Errorf("%s on %v: gradient %d: Stan program %v, model.Logistic %v", what, batch, j, ga[j], gb[j])
		}
	}
}

// TestRowsRefused: programs whose model block does not separate into row
// terms are refused, naming the statement and what mixes the rows.
func TestRowsRefused(t *testing.T) {
	js, _, _ := logisticData(20, 2, 1)
	d, err := ParseData("rows.json", []byte(js))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, model, want string }{
		{"a sum used nonlinearly", `target += log(exp(bernoulli_logit_lpmf(y | alpha + X * beta)));`,
			"rows.stan:4:1: --rows N: this statement is not a sum of one term per row: exp of a sum over the rows"},
		{"a sum plus a prior term", `target += normal_lpdf(alpha | 0, 1) + bernoulli_logit_lpmf(y | alpha + X * beta);`,
			"rows.stan:4:1: --rows N: this statement is not a sum of one term per row: a sum over the rows used in '+' other than added to the target"},
		{"lagged rows", `for (n in 2:N) y[n] ~ bernoulli_logit(alpha + y[n-1]);`,
			"rows.stan:4:1: --rows N: this statement is not a sum of one term per row: the rows of y are indexed other than by the loop for (n in 1:N)"},
		{"an accumulator", `real s = 0; for (n in 1:N) s += X[n, 1]; alpha ~ normal(s, 1);`,
			"rows.stan:4:13: --rows N: this statement is not a sum of one term per row: s, declared outside the loop over the rows, is assigned there"},
		{"a mean", `alpha ~ normal(mean(X[:, 1]), 1);`,
			"rows.stan:4:7: --rows N: this statement is not a sum of one term per row: mean of row-wise values mixes the rows"},
		{"a product across rows", `target += X[:, 1]' * to_vector(y) * alpha;`,
			"rows.stan:4:1: --rows N: this statement is not a sum of one term per row: the transpose of row-wise values"},
		{"a multivariate density", `to_vector(y) ~ multi_normal(X * beta, diag_matrix(rep_vector(1, N)));`,
			"rows.stan:4:14: --rows N: this statement is not a sum of one term per row: multi_normal of row-wise values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog, err := Parse("rows.stan", rowsHead+"model {\n"+c.model+"\n}")
			if err != nil {
				t.Fatal(err)
			}
			_, err = NewRows(prog, d, "N")
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("got %v\nwant %s…", err, c.want)
			}
		})
	}
	// the row count and the row columns
	prog, _ := Parse("rows.stan", rowsPrograms["vectorised"])
	for rows, want := range map[string]string{
		"M": "rows.stan: --rows M: the data block declares no int M (the number of rows)",
		"K": "rows.stan: --rows K: no variable of the data block has first dimension K",
	} {
		if _, err := NewRows(prog, d, rows); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("--rows %s: got %v, want %s…", rows, err, want)
		}
	}
	prog, _ = Parse("rows.stan", rowsPrograms["vectorised"]+"\ngenerated quantities { vector[N] eta = alpha + X * beta; }")
	if m, err := NewRows(prog, d, "N"); err != nil || len(m.Notes) != 1 || m.Notes[0] != "rows.stan:4:34: the generated quantities read the row columns: each draw's are computed on all N rows" {
		t.Errorf("generated quantities over the rows: %v, notes %q", err, m.Notes)
	}
	prog, _ = Parse("rows.stan", "data { int N; vector[N] y; }\nparameters { vector[N] mu; }\nmodel { y ~ normal(mu, 1); }")
	d2, _ := ParseData("d.json", []byte(`{"N": 3, "y": [1, 2, 3]}`))
	if _, err := NewRows(prog, d2, "N"); err == nil || !strings.Contains(err.Error(), "rows.stan:2:24: --rows N: mu has one value per row") {
		t.Errorf("a parameter per row: got %v", err)
	}
}

// TestRowsSplitTheTarget: for programs of other shapes (a varying
// intercept indexed by a row column, a Gaussian regression with a scale, a
// Poisson GLM, a loop with a branch, a per-row term that reads no data) the
// prior and row terms of NewRows add up to New's whole target, and the row
// terms of a minibatch are the sum of those of its rows, values and
// gradients.
func TestRowsSplitTheTarget(t *testing.T) {
	data := `{"N": 6, "G": 2, "g": [1, 2, 1, 2, 2, 1], "x": [0.1, -0.4, 1.2, 0.3, -1, 0.5],
  "y": [0.3, -0.2, 1.9, 0.1, -0.8, 1.1], "k": [0, 2, 5, 1, 0, 3]}`
	head := `data { int N; int G; array[N] int<lower=1, upper=G> g; vector[N] x; vector[N] y; array[N] int k; }
`
	for name, src := range map[string]string{
		"varying intercept": head + `parameters { vector[G] mu; real b; real<lower=0> sigma; }
model { mu ~ normal(0, 1); b ~ normal(0, 1); sigma ~ exponential(1);
  target += normal_lpdf(y | mu[g] + x * b, sigma); }`,
		"poisson glm": head + `transformed data { matrix[N, 1] X = to_matrix(x, N, 1); }
parameters { real a; vector[1] b; }
model { a ~ normal(0, 1); b ~ normal(0, 1); k ~ poisson_log_glm(X, a, b); }`,
		"loop with a branch": head + `parameters { real a; real<lower=0> s; }
model { a ~ normal(0, 2); s ~ lognormal(0, 1);
  for (n in 1:N) { if (k[n] > 0) y[n] ~ normal(a * x[n], s); else target += -0.5 * square(y[n] / s) - log(s); } }`,
		"a term per row without data": head + `parameters { real a; }
model { for (n in 1:N) target += -0.01 * square(a); a ~ normal(0, 1); y ~ normal(a, 1); }`,
	} {
		t.Run(name, func(t *testing.T) {
			prog, err := Parse("m.stan", src)
			if err != nil {
				t.Fatal(err)
			}
			d, _ := ParseData("d.json", []byte(data))
			whole, err := New(prog, d)
			if err != nil {
				t.Fatal(err)
			}
			prog, _ = Parse("m.stan", src)
			m, err := NewRows(prog, d, "N")
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(5, 6))
			dim := m.Dim()
			th := make([]float64, dim)
			for j := range th {
				th[j] = 0.5 * rng.NormFloat64()
			}
			g1, g2 := make([]float64, dim), make([]float64, dim)
			a := m.LogPrior(th, g1) + m.LogLik(th, nil, g1)
			b := whole.LogPrior(th, g2)
			close(t, "prior + rows vs the whole target", nil, a, b, g1, g2)
			batch := []int{4, 0, 4, 2}
			g1, g2 = make([]float64, dim), make([]float64, dim)
			a = m.LogLik(th, batch, g1)
			b = 0
			for _, i := range batch {
				b += m.LogLik(th, []int{i}, g2)
			}
			close(t, "a minibatch vs its rows", batch, a, b, g1, g2)
		})
	}
}
