package stan

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// programs exercise the supported constructs; each is checked against
// finite differences.
var programs = []struct{ name, src, data string }{
	{"bounds", `
data { int N; vector[N] y; real lo; }
parameters {
  real<lower=lo> a;
  real<upper=3> b;
  real<lower=-1, upper=2> c;
  real<lower=0, upper=(1 - c / 4)> d;
  vector<lower=0>[2] e;
  real<offset=1, multiplier=2> f;
  vector<offset=a, multiplier=e[1]>[2] g;
  array[2] real<lower=0> h;
}
model {
  y ~ normal(a + b + c + d, e[1] + e[2]);
  f ~ normal(1, 2);
  g ~ normal(a, e[1]);
  h ~ exponential(1);
  b ~ student_t(3, 0, 2);
  c ~ logistic(0, 1);
}`, `{"N": 3, "y": [0.5, 1, 2], "lo": -1}`},
	{"structured", `
parameters {
  simplex[3] s;
  ordered[3] o;
  positive_ordered[2] po;
  cholesky_factor_corr[3] L;
  array[2] simplex[2] ss;
  vector[3] z;
}
model {
  s ~ dirichlet([1, 2, 3]');
  o ~ normal(0, 3);
  po ~ gamma(2, 1);
  L ~ lkj_corr_cholesky(2);
  for (k in 1:2) ss[k] ~ dirichlet(rep_vector(2, 2));
  z ~ multi_normal_cholesky(rep_vector(0, 3), diag_pre_multiply([1, 2, 3]', L));
}`, ``},
	{"functions", `
data { int N; matrix[N, 2] X; vector[N] y; array[N] int k; array[N] int n; }
transformed data {
  vector[N] x1 = col(X, 1);
  real s = sum(y) + mean(y) + sd(y) + variance(y);
  int K = num_elements(k) + size(k) + rows(X) + cols(X);
}
parameters { vector[2] beta; real<lower=0> sigma; real<lower=0, upper=1> p; }
transformed parameters {
  vector[N] eta = X * beta;
  real lse = log_sum_exp(eta);
}
model {
  vector[N] mu;
  for (i in 1:N) {
    mu[i] = eta[i] + 0.1 * square(beta[1]) - log1p_exp(beta[2]) + inv_logit(beta[1]) + exp(beta[2] / 10);
  }
  target += normal_lpdf(y | mu, sigma);
  target += normal_lupdf(y | mu, sigma);
  k ~ bernoulli_logit(eta);
  k ~ bernoulli(p);
  k ~ binomial(n, p);
  k ~ binomial_logit(n, eta);
  k ~ poisson_log(eta);
  k ~ poisson(exp(eta));
  n ~ neg_binomial_2_log(eta, sigma);
  n ~ neg_binomial_2(exp(eta), sigma);
  sigma ~ inv_gamma(2, 1);
  p ~ beta(2, 3);
  target += dot_product(beta, beta) * -0.5 + dot_self(beta) * 0.01 + sum(rows_dot_product(X, X)) * 0;
  target += sum(columns_dot_product(X, X)) * 0 + log_mix(p, normal_lpdf(beta[1] | 0, 1), normal_lpdf(beta[1] | 1, 2));
  target += -0.1 * pow(sigma, 2) + fmin(beta[1], beta[2]) * 0.01 + fmax(beta[1], 0) * 0.01 + lgamma(sigma + 1);
  target += -0.5 * sum(cumulative_sum(beta) .* beta) + sum(softmax(beta)) + log_softmax(beta)[1];
  target += lognormal_lpdf(sigma | 0, 1) + cauchy_lpdf(beta | 0, 2) + double_exponential_lpdf(beta[1] | 0, 1);
  target += exponential_lpdf(sigma | 2) + uniform_lpdf(p | 0, 1) + std_normal_lpdf(beta);
  target += beta[1] > 0 ? 0.1 * beta[1] : -0.1 * beta[1];
  target += sum(append_row(beta, beta)) * 0.01 + sum(head(eta, 2)) * 0.01 + sum(tail(eta, 2)) * 0.01;
  target += -sum(multiply_lower_tri_self_transpose(to_matrix(append_row(beta, beta), 2, 2))) * 0.01;
  target += -0.01 * sum(diag_matrix(beta) * beta) - 0.01 * sum(beta' * to_matrix(append_row(beta, beta), 2, 2));
  target += -0.01 * fabs(beta[1]) + 0.01 * Phi(beta[1]) + 0.01 * log1m(p) + 0.01 * logit(p) + 0.01 * sqrt(sigma);
  target += -0.01 * max(beta) + 0.01 * min(eta) + 0.01 * mean(eta) + 0.01 * sd(eta) - 0.01 * squared_distance(beta, eta[1:2]);
  k ~ bernoulli_logit_glm(X, beta[1], beta);
  k ~ poisson_log_glm(X, 0.5, beta);
  y ~ normal_id_glm(X, beta[2], beta, sigma);
  n ~ neg_binomial_2_log_glm(X, 0, beta, sigma);
  target += -0.01 * sum(append_col(X, eta)) - 0.01 * sum(append_col(beta, beta)) - 0.01 * sum(sub_col(append_col(X, eta), 2, 3, 2));
  target += -0.01 * sum(block(append_col(X, eta), 2, 2, 2, 2)) - 0.01 * sum(sub_row(append_col(X, eta), 2, 2, 2));
}`, `{"N": 4, "X": [[1, 0.5], [1, -0.3], [1, 2], [1, 0]], "y": [0.3, -1, 2, 0.1], "k": [1, 0, 1, 1], "n": [2, 1, 3, 1]}`},
	{"control", `
data { int N; array[N] real y; }
parameters { real mu; real<lower=0> tau; }
model {
  array[N] real z;
  int j = 0;
  while (j < N) {
    j += 1;
    if (j == 2) continue;
    z[j] = (y[j] - mu) / tau;
  }
  z[2] = 0;
  for (v in z) target += -0.5 * v^2;
  target += -N * log(tau);
  {
    real s = 0;
    for (i in 1:N) { s = s + y[i]; if (i > 10) break; }
    mu ~ normal(s / N, 10);
  }
  tau ~ gamma(2, 2);
}`, `{"N": 3, "y": [1, 2, 4]}`},
	{"multi_normal", `
data { int N; array[N] vector[2] y; cov_matrix[2] S; }
parameters { vector[2] mu; cholesky_factor_corr[2] L; vector<lower=0>[2] tau; }
model {
  y ~ multi_normal(mu, S);
  y ~ multi_normal_cholesky(mu, diag_pre_multiply(tau, L));
  tau ~ cauchy(0, 2.5);
}`, `{"N": 3, "y": [[1, 2], [0, 1], [2, 2]], "S": [[1, 0.5], [0.5, 2]]}`},
}

func init() {
	programs = append(programs, struct{ name, src, data string }{"gp", `
data { array[3] real x; vector[3] y; }
parameters { real<lower=0> a; real<lower=0> r; vector[3] mu; }
model {
  matrix[3, 3] K = gp_exp_quad_cov(x, a, r) + diag_matrix(rep_vector(0.1, 3));
  matrix[3, 3] L = cholesky_decompose(K);
  y ~ multi_normal_cholesky(mu, L);
  y ~ multi_normal(mu, K);
  target += 0.01 * sum(L);
}`, `{"x": [0, 0.5, 2], "y": [0.1, -0.3, 0.8]}`})
}

// TestCholesky checks cholesky_decompose and gp_exp_quad_cov: the factor's
// multi_normal_cholesky density equals multi_normal's with the matrix.
func TestCholesky(t *testing.T) {
	data := `{"x": [0, 0.5, 2], "y": [0.1, -0.3, 0.8]}`
	head := "data { array[3] real x; vector[3] y; }\nparameters { real<lower=0> a; real<lower=0> r; }\nmodel {\n matrix[3, 3] K = gp_exp_quad_cov(x, a, r) + diag_matrix(rep_vector(0.1, 3));\n"
	a, err := loadSrc(t, head+"target += multi_normal_cholesky_lpdf(y | rep_vector(0, 3), cholesky_decompose(K));\n}", data)
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadSrc(t, head+"target += multi_normal_lpdf(y | rep_vector(0, 3), K);\n}", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range [][]float64{{0, 0}, {0.3, -0.5}, {-1, 0.7}} {
		// the value against a direct computation: α² exp(−d²/2ρ²) + 0.1 I
		al, rh := math.Exp(th[0]), math.Exp(th[1])
		xs, ys := []float64{0, 0.5, 2}, []float64{0.1, -0.3, 0.8}
		k := mat.NewSymDense(3, nil)
		for i := range 3 {
			for j := range 3 {
				d := xs[i] - xs[j]
				v := al * al * math.Exp(-d*d/(2*rh*rh))
				if i == j {
					v += 0.1
				}
				k.SetSym(i, j, v)
			}
		}
		var ch mat.Cholesky
		ch.Factorize(k)
		var sol mat.VecDense
		ch.SolveVecTo(&sol, mat.NewVecDense(3, ys))
		want := -1.5*math.Log(2*math.Pi) - 0.5*ch.LogDet() - 0.5*mat.Dot(&sol, mat.NewVecDense(3, ys)) + th[0] + th[1]
		if got := a.LogPrior(th, nil); math.Abs(got-want) > 1e-10 {
			t.Errorf("θ = %v: multi_normal_cholesky with cholesky_decompose %v, want %v", th, got, want)
		}
		if got := b.LogPrior(th, nil); math.Abs(got-want) > 1e-10 {
			t.Errorf("θ = %v: multi_normal %v, want %v", th, got, want)
		}
	}
}

func TestGradConstructs(t *testing.T) {
	for _, p := range programs {
		t.Run(p.name, func(t *testing.T) {
			m, err := loadSrc(t, p.src, p.data)
			if err != nil {
				t.Fatal(err)
			}
			checkGrad(t, m, 0.5)
		})
	}
}

// TestTildeDropsConstants checks that y ~ normal(mu, sigma) differs from
// target += normal_lpdf(y | mu, sigma) by a constant: the terms of data
// only.
func TestTildeDropsConstants(t *testing.T) {
	prog := func(stmt string) string {
		return "data { int N; vector[N] y; vector<lower=0>[N] s; }\nparameters { real mu; real<lower=0> tau; }\nmodel {\n" + stmt + "\n}"
	}
	data := `{"N": 3, "y": [1, 2, 4], "s": [1, 2, 3]}`
	for _, c := range []struct{ tilde, full string }{
		{"y ~ normal(mu, s); tau ~ gamma(2, 3);", "target += normal_lpdf(y | mu, s); target += gamma_lpdf(tau | 2, 3);"},
		{"y ~ student_t(4, mu, tau); tau ~ inv_gamma(2, 3);", "target += student_t_lpdf(y | 4, mu, tau); target += inv_gamma_lpdf(tau | 2, 3);"},
		{"y ~ cauchy(mu, tau); tau ~ lognormal(0, 2);", "target += cauchy_lpdf(y | mu, tau) + lognormal_lpdf(tau | 0, 2);"},
		{"y ~ normal(mu, tau); mu ~ normal(0, 10); s ~ exponential(1);", "target += normal_lpdf(y | mu, tau) + normal_lpdf(mu | 0, 10);"},
	} {
		a, err := loadSrc(t, prog(c.tilde), data)
		if err != nil {
			t.Fatal(err)
		}
		b, err := loadSrc(t, prog(c.full), data)
		if err != nil {
			t.Fatal(err)
		}
		d0 := b.LogPrior([]float64{0, 0}, nil) - a.LogPrior([]float64{0, 0}, nil)
		d1 := b.LogPrior([]float64{0.7, -0.4}, nil) - a.LogPrior([]float64{0.7, -0.4}, nil)
		if math.Abs(d0-d1) > 1e-9 {
			t.Errorf("%s: ~ and target += differ by %v and %v: not a constant", c.tilde, d0, d1)
		}
	}
	// the constants dropped are Stan's: for a normal with data sd, −½ log 2π − log s per element
	a, _ := loadSrc(t, prog("y ~ normal(mu, s);"), data)
	b, _ := loadSrc(t, prog("target += normal_lpdf(y | mu, s);"), data)
	want := -3*halfLog2Pi - math.Log(2) - math.Log(3)
	if got := b.LogPrior([]float64{0.3, 0}, nil) - a.LogPrior([]float64{0.3, 0}, nil); math.Abs(got-want) > 1e-9 {
		t.Errorf("dropped constant %v, want %v", got, want)
	}
}

// TestJacobian checks the log Jacobians against Stan's transforms: the
// density of θ for real<lower=0> x ~ exponential(1) is e^{θ − e^θ}.
func TestJacobian(t *testing.T) {
	m, err := loadSrc(t, "parameters { real<lower=0> x; real<lower=-1, upper=3> u; }\nmodel { target += exponential_lpdf(x | 1); }", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range []float64{-1, 0, 0.5} {
		got := m.LogPrior([]float64{th, th}, nil)
		s := 1 / (1 + math.Exp(-th))
		want := th - math.Exp(th) + math.Log(4*s*(1-s))
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("θ = %v: log density %v, want %v", th, got, want)
		}
	}
}

// TestNames checks CmdStan's names and column-major order.
func TestNames(t *testing.T) {
	m, err := loadSrc(t, `
parameters { matrix[2, 3] A; array[2] vector[2] v; real s; }
transformed parameters { real t = s * 2; }
model { to_vector(A) ~ normal(0, 1); for (k in 1:2) v[k] ~ normal(0, 1); s ~ normal(0, 1); }
generated quantities { vector[2] w = v[1] + v[2]; }`, "")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(m.DerivedNames(), " ")
	want := "A.1.1 A.2.1 A.1.2 A.2.2 A.1.3 A.2.3 v.1.1 v.2.1 v.1.2 v.2.2 s t w.1 w.2"
	if got != want {
		t.Errorf("names\n%s, want\n%s", got, want)
	}
	theta := make([]float64, m.Dim())
	for i := range theta {
		theta[i] = float64(i + 1)
	}
	dst := make([]float64, len(m.DerivedNames()))
	m.Derive(theta, dst)
	// A row-major in θ: A[1,1..3] = 1 2 3, A[2,1..3] = 4 5 6; v[1] = 7 8, v[2] = 9 10; s = 11
	wantV := []float64{1, 4, 2, 5, 3, 6, 7, 9, 8, 10, 11, 22, 16, 18}
	for k, v := range wantV {
		if dst[k] != v {
			t.Errorf("%s = %v, want %v", m.DerivedNames()[k], dst[k], v)
		}
	}
}
