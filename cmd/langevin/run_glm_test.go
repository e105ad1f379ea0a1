package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/diag"
	"github.com/langevin-go/langevin/model"
	"github.com/langevin-go/langevin/sampler"
)

// glmCSV writes n rows "x1,x2,u,y" of a GLM of the kind (u an exposure in
// (0.5, 2), used by the count models) and returns the file and its columns.
func glmCSV(t *testing.T, dir, name, kind string, n int, seed uint64) (path string, X *mat.Dense, u, y []float64) {
	rng := rand.New(rand.NewPCG(seed, 9))
	X = mat.NewDense(n, 2, nil)
	u, y = make([]float64, n), make([]float64, n)
	var sb strings.Builder
	sb.WriteString("x1,x2,u,y\n")
	for i := 0; i < n; i++ {
		x1, x2 := rng.NormFloat64(), rng.NormFloat64()
		X.Set(i, 0, x1)
		X.Set(i, 1, x2)
		u[i] = 0.5 + 1.5*rng.Float64()
		eta := 0.4 + 0.5*x1 - 0.3*x2
		switch kind {
		case "poisson", "negbin":
			mu := u[i] * math.Exp(eta)
			if kind == "negbin" {
				mu *= -math.Log(rng.Float64()*rng.Float64()) / 2 // Gamma(2, 1/2) mixing: φ = 2
			}
			l, k, q := math.Exp(-mu), 0, 1.0
			for q *= rng.Float64(); q > l; q *= rng.Float64() {
				k++
			}
			y[i] = float64(k)
		case "probit":
			if eta+rng.NormFloat64() > 0 {
				y[i] = 1
			}
		case "robust":
			y[i] = eta + 0.5*rng.NormFloat64()/math.Sqrt(-math.Log(rng.Float64()*rng.Float64())/2)
		}
		fmt.Fprintf(&sb, "%.17g,%.17g,%.17g,%.17g\n", x1, x2, u[i], y[i])
	}
	return writeFile(t, dir, name, sb.String()), X, u, y
}

// summaryRow returns the mean and mcse of the summary table row name.
func summaryRow(t *testing.T, out, name string) (mean, mcse float64) {
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[0] == name {
			mean, _ = strconv.ParseFloat(f[1], 64)
			mcse, _ = strconv.ParseFloat(f[3], 64)
			return mean, mcse
		}
	}
	t.Fatalf("no row %q in\n%s", name, out)
	return 0, 0
}

// TestRunGLMs runs langevin run --model poisson|negbin|probit|robust (NUTS,
// unstandardised features, the exposure column for the count models) end to
// end and compares every posterior mean with a library NUTS run on the same
// model and data with another seed, within 4 combined MCSEs.
func TestRunGLMs(t *testing.T) {
	if testing.Short() {
		t.Skip("eight NUTS runs")
	}
	dir := t.TempDir()
	for _, kind := range []string{"poisson", "negbin", "probit", "robust"} {
		train, X, u, y := glmCSV(t, dir, kind+".csv", kind, 200, 1)
		test, _, _, _ := glmCSV(t, dir, kind+"-test.csv", kind, 50, 2)
		args := []string{"run", "--quiet", "--data", train, "--test", test, "--model", kind, "--sampler", "nuts",
			"--standardize=false", "--chains", "4", "--iters", "1500", "--burnin", "500", "--seed", "3"}
		opt := model.GLMOptions{}
		if kind == "poisson" || kind == "negbin" {
			args = append(args, "--exposure", "u")
			opt.Offset = make([]float64, len(u))
			for i, v := range u {
				opt.Offset[i] = math.Log(v)
			}
		} else {
			X = mat.DenseCopyOf(X) // the CLI regresses on x1, x2 and u
			n, _ := X.Dims()
			X3 := mat.NewDense(n, 3, nil)
			for i := 0; i < n; i++ {
				X3.Set(i, 0, X.At(i, 0))
				X3.Set(i, 1, X.At(i, 1))
				X3.Set(i, 2, u[i])
			}
			X = X3
		}
		code, out, errOut := runMain(args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", kind, code, errOut)
		}
		k, _ := model.ParseGLMKind(kind)
		m, err := model.NewGLM(k, X, y, opt)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := langevin.Run(context.Background(), m, sampler.NUTS{},
			langevin.Options{Chains: 4, Iters: 1500, BurnIn: 500, Seed: 11, Init: langevin.InitUniform{}})
		if err != nil {
			t.Fatal(err)
		}
		for j, name := range tr.Names[:m.Dim()] {
			cm, cse := summaryRow(t, out, name)
			ch := tr.Param(j)
			var s float64
			var cnt int
			for _, c := range ch {
				for _, v := range c {
					s += v
					cnt++
				}
			}
			lmean := s / float64(cnt)
			se := math.Hypot(cse, diag.MCSEMean(ch))
			if math.Abs(cm-lmean) > 4*se+0.002*math.Abs(lmean) {
				t.Errorf("%s %s: CLI mean %.4f, library NUTS %.4f (combined MCSE %.4f)", kind, name, cm, lmean, se)
			}
		}
		if !strings.Contains(out, "mean log pred. density") {
			t.Errorf("%s: no test-set scores:\n%s", kind, out)
		}
	}
}

func TestRunGLMInputErrors(t *testing.T) {
	dir := t.TempDir()
	train, _, _, _ := glmCSV(t, dir, "c.csv", "poisson", 30, 1)
	bad := writeFile(t, dir, "bad.csv", "x1,u,y\n0.5,1,2\n0.1,1,1.5\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", train, "--model", "poisson", "--exposure", "nope"}, "--exposure nope"},
		{[]string{"--data", train, "--model", "probit", "--offset", "u"}, "only for --model poisson|negbin"},
		{[]string{"--data", train, "--model", "poisson", "--offset", "u", "--exposure", "u"}, "give one"},
		{[]string{"--data", train, "--model", "poisson", "--nu", "3"}, "--nu"},
		{[]string{"--data", bad, "--model", "negbin"}, filepath.Base(bad) + ":3: response 1.5"},
		{[]string{"--data", train, "--model", "probit"}, ":2: label"},
	} {
		code, _, errOut := runMain(append([]string{"run", "--quiet", "--iters", "20", "--burnin", "10"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// TestPredictGLMWithExposure: a run with --exposure records the column, and
// predict takes it out of new data and scores the predictive mean.
func TestPredictGLMWithExposure(t *testing.T) {
	dir := t.TempDir()
	train, _, _, _ := glmCSV(t, dir, "c.csv", "poisson", 100, 1)
	out := filepath.Join(dir, "run")
	code, _, errOut := runMain("run", "--quiet", "--data", train, "--model", "poisson", "--exposure", "u", "--sampler", "nuts",
		"--chains", "2", "--iters", "300", "--burnin", "150", "--out", out)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	code, stdout, errOut := runMain("predict", "--samples", out, "--data", train, "--split", "all")
	if code != 0 || !strings.Contains(stdout, "RMSE of the predictive mean") || !strings.Contains(stdout, "mean log predictive density") {
		t.Errorf("predict: exit %d, stdout %q, stderr %q", code, stdout, errOut)
	}
}
