package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// noiseUnitsData writes a 64-row regression CSV, y a step function of x
// with the levels ±0.5 (20 rows each) and ±1.5 (12 rows each): mean 0 and
// sd (divisor n) 1 exactly, so that the response a·y + b of an integer a and
// b standardises to the same bits as y (its mean b, its deviations a·(y − 0)
// and its sd a are exact, and z = a·dv/(a·sd) is dv/sd correctly rounded).
func noiseUnitsData(t *testing.T, dir, name string, a, b float64) string {
	t.Helper()
	var sb strings.Builder
	sb.WriteString("x,y\n")
	for i := range 64 {
		x := -2 + 4*(float64(i)+0.5)/64
		var y float64
		switch {
		case i < 12:
			y = -1.5
		case i < 32:
			y = -0.5
		case i < 52:
			y = 0.5
		default:
			y = 1.5
		}
		fmt.Fprintf(&sb, "%v,%v\n", x, a*y+b)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// drawLines returns the chain files' draws (their lines without the #
// comments, which name the data files).
func drawLines(t *testing.T, dir string) string {
	t.Helper()
	var sb strings.Builder
	for c := 1; c <= 2; c++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("chain-%d.csv", c)))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "#") {
				sb.WriteString(l + "\n")
			}
		}
	}
	return sb.String()
}

var bmaLL = regexp.MustCompile(`(?m)^\s*(?:BMA \(\d+ draws\)|stacked \(\d+ chains\))\s+(\S+)`)

// summarySigma2 returns the mean of the sigma2 row of DIR/summary.csv.
func summarySigma2(t *testing.T, dir string) float64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Split(l, ","); f[0] == "sigma2" {
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("%s/summary.csv: no sigma2 row", dir)
	return 0
}

// TestNoiseVarUnits: --noise-var is y's σ² (its help and
// model.MLPOptions.NoiseVar say so), so --noise-var V on the response
// 10y + 5 is the same standardised σ² as --noise-var V/100 on y: the same
// draws bit for bit (the model sees the same z and the same σ²_z), a test
// log-likelihood lower by exactly log 10 (y's units), and a printed sigma2
// 100 times larger (y's units). Before the fix --noise-var was taken on z:
// V and V/100 gave different draws.
func TestNoiseVarUnits(t *testing.T) {
	dir := t.TempDir()
	y := noiseUnitsData(t, dir, "y.csv", 1, 0)
	y10 := noiseUnitsData(t, dir, "y10.csv", 10, 5)
	for _, tc := range []struct {
		name  string
		extra []string
		v     string // --noise-var on 10y + 5
		v100  string // on y
		z     string // the standardised σ² the auto: noise line prints
	}{
		{"fixed", []string{"--learn-noise=false"}, "0.25", "0.0025", "0.0025 on the standardised response"},
		// The learned noise's start (a Glorot start's log σ² outside
		// --sampler auto) comes from --noise-var too.
		{"learned-start", []string{"--sampler", "sgld", "--init", "map", "--iters", "400", "--burnin", "100", "--step", "1e-4", "--map-iters", "300"}, "4", "0.04", "0.04 on the standardised response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := func(data, v string) (string, string) {
				out := filepath.Join(dir, tc.name+filepath.Base(data))
				args := append([]string{"run", "--data", data, "--test", data, "--model", "mlp", "--likelihood", "gaussian",
					"--hidden", "3", "--activation", "tanh", "--chains", "2", "--noise-var", v, "--quiet", "--out", out}, tc.extra...)
				code, stdout, stderr := runMain(args...)
				if code != 0 {
					t.Fatalf("langevin %s: exit %d: %s", strings.Join(args, " "), code, stderr)
				}
				return stdout, out
			}
			outY, dirY := run(y, tc.v100)
			out10, dir10 := run(y10, tc.v)
			for _, o := range []struct{ out, v string }{{outY, tc.v100}, {out10, tc.v}} {
				want := "σ² = " + o.v + " in y's units (--noise-var), "
				if !strings.Contains(o.out, want) || !strings.Contains(o.out, tc.z) {
					t.Errorf("the auto: noise line does not give σ² in y's units (%q) and standardised (%q):\n%s", want, tc.z, o.out)
				}
			}
			if a, b := drawLines(t, dirY), drawLines(t, dir10); a != b {
				t.Errorf("--noise-var %s on 10y+5 and %s on y: the draws differ (the flag is not in y's units)", tc.v, tc.v100)
			}
			mY, m10 := bmaLL.FindStringSubmatch(outY), bmaLL.FindStringSubmatch(out10)
			if mY == nil || m10 == nil {
				t.Fatalf("no BMA log-lik line:\n%s\n%s", outY, out10)
			}
			llY, _ := strconv.ParseFloat(mY[1], 64)
			ll10, _ := strconv.ParseFloat(m10[1], 64)
			// Printed to 4 significant digits: the difference is log 10
			// within the rounding of the two numbers.
			ulp := func(v float64) float64 { return 5e-4 * math.Pow(10, math.Floor(math.Log10(math.Abs(v)))) }
			tol := ulp(llY) + ulp(ll10)
			if d := llY - ll10; math.Abs(d-math.Log(10)) > tol {
				t.Errorf("test log-lik on y %v, on 10y+5 %v: difference %v, want log 10 = %.6f (±%.2g)", llY, ll10, d, math.Log(10), tol)
			}
			if tc.name == "learned-start" {
				sY, s10 := summarySigma2(t, dirY), summarySigma2(t, dir10)
				if r := s10 / sY; math.Abs(r-100) > 1e-9 {
					t.Errorf("summary sigma2: %v on y, %v on 10y+5: ratio %v, want 100 (y's units)", sY, s10, r)
				}
				if !strings.Contains(out10, "sigma2:   the noise variance in y's units") {
					t.Errorf("no line saying the sigma2 row is in y's units:\n%s", out10)
				}
				// langevin summary prints y's units; the HTML report, which
				// shows the draws as sampled, says they are standardised.
				code, sum, errOut := runMain("summary", dir10)
				if code != 0 || !strings.Contains(sum, "sigma2:   the noise variance in y's units") {
					t.Errorf("langevin summary: exit %d, no y's-units line:\n%s%s", code, sum, errOut)
				}
				page := filepath.Join(dir, "report.html")
				if code, _, errOut := runMain("report", "-o", page, dir10); code != 0 {
					t.Fatalf("langevin report: exit %d: %s", code, errOut)
				}
				if b, _ := os.ReadFile(page); !strings.Contains(string(b), "the noise variance of the standardised response") {
					t.Errorf("the report does not say its sigma2 is of the standardised response")
				}
			}
		})
	}
}

// TestNoiseVarHelpUnits: the flag's help says the units.
func TestNoiseVarHelpUnits(t *testing.T) {
	_, stdout, stderr := runMain("run", "--help")
	if !strings.Contains(stdout+stderr, "σ² in y's units") {
		t.Errorf("langevin run --help: --noise-var's help does not say y's units")
	}
}
