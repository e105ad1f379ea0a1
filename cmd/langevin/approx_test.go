package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin/data"
)

// softmaxData draws n rows of p standard-normal features and labels from a
// softmax regression with K classes and weights θ* ~ N(0, 1/λ*).
func softmaxData(n, p, k int, lambda float64, seed uint64) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, 5))
	w := make([]float64, k*(p+1))
	for j := range w {
		w[j] = rng.NormFloat64() / math.Sqrt(lambda)
	}
	// The same θ* for every seed's rows: redraw it from a fixed stream.
	wr := rand.New(rand.NewPCG(99, 5))
	for j := range w {
		w[j] = wr.NormFloat64() / math.Sqrt(lambda)
	}
	X := mat.NewDense(n, p, nil)
	y := make([]float64, n)
	z := make([]float64, k)
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			X.Set(i, j, rng.NormFloat64())
		}
		var s float64
		for c := 0; c < k; c++ {
			v := w[c*(p+1)]
			for j := 0; j < p; j++ {
				v += w[c*(p+1)+1+j] * X.At(i, j)
			}
			z[c] = math.Exp(v)
			s += z[c]
		}
		u := rng.Float64() * s
		for c := 0; c < k; c++ {
			if u -= z[c]; u <= 0 || c == k-1 {
				y[i] = float64(c)
				break
			}
		}
	}
	names := make([]string, p)
	for j := range names {
		names[j] = fmt.Sprintf("x%d", j+1)
	}
	return &data.Dataset{X: X, Y: y, Names: names, Target: "y", Source: "synthetic"}
}

func csvOf(d *data.Dataset) string {
	var sb strings.Builder
	sb.WriteString(strings.Join(d.Names, ",") + ",y\n")
	n, p := d.X.Dims()
	for i := 0; i < n; i++ {
		for j := 0; j < p; j++ {
			fmt.Fprintf(&sb, "%.6f,", d.X.At(i, j))
		}
		fmt.Fprintf(&sb, "%g\n", d.Y[i])
	}
	return sb.String()
}

// TestRunSoftmaxApprox runs --model softmax with --sampler swag and vi end to
// end: the table names the classes' parameters, and both approximations'
// posterior means predict as well as the MAP on the held-out rows.
func TestRunSoftmaxApprox(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "three.csv", csvOf(softmaxData(400, 3, 3, 0.5, 1)))
	for _, s := range []string{"swag", "vi"} {
		code, out, errOut := runMain("run", "--data", path, "--model", "softmax", "--sampler", s, "--iters", "6000", "--burnin", "5000", "--thin", "1", "--chains", "2", "--quiet")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", s, code, errOut)
		}
		for _, want := range []string{"b.1", "w.3.3", "accuracy", "SWAG", "VI"} {
			if (want == "SWAG" && s != "swag") || (want == "VI" && s != "vi") {
				continue
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", s, want, out)
			}
		}
		var post, mapAcc float64
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) == 3 && f[0] == "accuracy" {
				fmt.Sscan(f[1], &post)
				fmt.Sscan(f[2], &mapAcc)
			}
		}
		if !(post >= mapAcc-0.03 && mapAcc > 0.5) {
			t.Errorf("%s: test accuracy %v, MAP %v:\n%s", s, post, mapAcc, out)
		}
	}
	// Bad input: labels and flags.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", writeFile(t, dir, "half.csv", "a,y\n1,0\n2,1.5\n3,2\n"), "--model", "softmax"}, `half.csv:3: label 1.5 in column "y": softmax regression expects integer class labels`},
		{[]string{"--data", path, "--model", "softmax", "--sampler", "swag", "--schedule", "poly"}, "--schedule poly: SWAG runs SGD at a constant step"},
		{[]string{"--data", path, "--sampler", "vi", "--burnin", "0"}, "--burnin 0: --sampler vi fits its approximation during burn-in"},
		{[]string{"--data", path, "--model", "softmax", "--sampler", "hmc"}, `--sampler "hmc": expected one of gd, sgd, sgld,`},
	} {
		code, _, errOut := runMain(append([]string{"run", "--quiet", "--iters", "100", "--burnin", "50"}, tc.args...)...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}
