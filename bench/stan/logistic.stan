// Bayesian logistic regression with intercept and a N(0, 1) prior on every
// coefficient: the model of langevin's Australian credit comparison.
data {
  int<lower=0> N;
  int<lower=1> P;
  matrix[N, P] X;
  int<lower=0, upper=1> y[N];  // rstan 2.21 syntax (Debian r-cran-rstan)
}
parameters {
  real alpha;
  vector[P] beta;
}
model {
  alpha ~ std_normal();
  beta ~ std_normal();
  y ~ bernoulli_logit_glm(X, alpha, beta);
}
