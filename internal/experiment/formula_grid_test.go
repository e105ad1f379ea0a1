package experiment

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGridData: the generated cells have the asked rows, levels and
// units, and the family's response.
func TestGridData(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []gridCell{
		{N: 500, Groups: 10, Family: "bernoulli", Slopes: true, Natural: true},
		{N: 400, Groups: 20, Family: "poisson", Discrete: true},
		{N: 300, Groups: 5, Family: "gaussian", Discrete: true, Natural: true},
	} {
		path := filepath.Join(dir, c.name()+".csv")
		if err := writeGridData(path, c, 1); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if lines[0] != "y,x,g" || len(lines) != c.N+1 {
			t.Fatalf("%s: header %q, %d lines", c.name(), lines[0], len(lines))
		}
		levels := map[string]bool{}
		var sx, sxx float64
		for _, l := range lines[1:] {
			f := strings.Split(l, ",")
			levels[f[2]] = true
			var x float64
			if _, err := fmt.Sscan(f[1], &x); err != nil {
				t.Fatal(err)
			}
			sx += x
			sxx += x * x
			if c.Family != "gaussian" && (strings.Contains(f[0], ".") || strings.HasPrefix(f[0], "-")) {
				t.Fatalf("%s: response %q is not a count", c.name(), f[0])
			}
		}
		mean := sx / float64(c.N)
		sd := math.Sqrt(sxx/float64(c.N) - mean*mean)
		if len(levels) != c.Groups {
			t.Errorf("%s: %d levels", c.name(), len(levels))
		}
		switch {
		case c.Natural && !c.Discrete && (math.Abs(mean-40) > 3 || math.Abs(sd-12) > 2):
			t.Errorf("%s: x mean %.3g sd %.3g, want about 40 and 12", c.name(), mean, sd)
		case !c.Natural && (math.Abs(mean) > 0.3 || math.Abs(sd-1) > 0.15):
			t.Errorf("%s: x mean %.3g sd %.3g, want about 0 and 1", c.name(), mean, sd)
		case c.Natural && c.Discrete && sd < 1000:
			t.Errorf("%s: x sd %.3g, want thousands", c.name(), sd)
		}
	}
}

// TestGridCompare: a shift of 0.2 sd beyond Monte Carlo error, or an sd
// 20% wider, fails; a shift within 3 MCSEs passes.
func TestGridCompare(t *testing.T) {
	ref := map[string][3]float64{"b_x": {1, 0.5, 0.01}, "sd_g__Intercept": {0.8, 0.2, 0.005}}
	ok := map[string][3]float64{"b_x": {1.03, 0.51, 0.01}, "sd_g__Intercept": {0.81, 0.19, 0.005}}
	if d, lo, hi, pass := gridCompare(ok, ref); !pass || d > 0.07 || lo < 0.94 || hi > 1.03 {
		t.Errorf("close: %v %v %v %v", d, lo, hi, pass)
	}
	shifted := map[string][3]float64{"b_x": {1.1, 0.5, 0.01}, "sd_g__Intercept": {0.8, 0.2, 0.005}}
	if _, _, _, pass := gridCompare(shifted, ref); pass {
		t.Error("a 0.2 sd shift passed")
	}
	wide := map[string][3]float64{"b_x": {1, 0.6, 0.01}, "sd_g__Intercept": {0.8, 0.2, 0.005}}
	if _, _, _, pass := gridCompare(wide, ref); pass {
		t.Error("an sd 20% wide passed")
	}
	if _, _, _, pass := gridCompare(map[string][3]float64{"b_x": {1, 0.5, 0.01}}, ref); pass {
		t.Error("a missing quantity passed")
	}
}
