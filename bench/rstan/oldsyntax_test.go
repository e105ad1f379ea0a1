package main

import "testing"

func TestOldSyntax(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"array[J] real<lower=0> sigma; // sd", "real<lower=0> sigma[J]; // sd"},
		{"array[N, K] vector<lower=-1, upper=x[2]>[M] z = f(a);", "vector<lower=-1, upper=x[2]>[M] z[N, K] = f(a);"},
		{"real f(array[] real x, array[,] int y) {", "real f(real[] x, int[,] y) {"},
		{"array[] real g(data array[] vector v);", "real[] g(data vector[] v);"},
		{"real my_array[3]; int arrays;", "real my_array[3]; int arrays;"},
		{"array[N] int<lower=0, upper=1> y;", "int<lower=0, upper=1> y[N];"},
	} {
		if got := oldSyntax(c.in); got != c.want {
			t.Errorf("oldSyntax(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
