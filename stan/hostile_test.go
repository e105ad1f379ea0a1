package stan

import (
	"math"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestHostile checks programs and data written to break the front end:
// each gives an error naming the file, line and column (or the variable)
// and what is wrong, never a panic or an out-of-memory crash.
func TestHostile(t *testing.T) {
	deep := "parameters { real x; } model { x ~ normal(" + strings.Repeat("(", 10000) + "0" + strings.Repeat(")", 10000) + ", 1); }"
	for _, c := range []struct{ name, src, data, want string }{
		{"deep expression", deep, "", "test.stan:1:242: nesting deeper than 200 levels"},
		{"deep blocks", "model { " + strings.Repeat("{", 10000) + strings.Repeat("}", 10000) + " }", "", "nesting deeper than 200 levels"},
		{"huge size in data", "data { int N; } transformed data { vector[N] z = rep_vector(0, N); } parameters { real x; } model { x ~ normal(0, 1); }",
			`{"N": 100000000000}`, "test.stan:1:46: z (vector[100000000000]) would hold more than 268435456 values"},
		{"overflowing size", "data { int N; } parameters { real x; } model { matrix[N, N] z; x ~ normal(0, 1); }",
			`{"N": 4000000000000000000}`, "test.stan:1:61: z (matrix[4000000000000000000, 4000000000000000000]) would hold more than"},
		{"huge rep_array", "data { int N; } parameters { real x; } model { target += sum(rep_array(x, N, N)); }",
			`{"N": 3000000000}`, "test.stan:1:62: a container of 1 × 3000000000 values: sizes beyond 268435456 are not supported"},
		{"huge data size, few values", "data { int N; vector[N] y; } parameters { real x; } model { y ~ normal(x, 1); }",
			`{"N": 100000000000, "y": [1, 2]}`, "test.stan:1:25: y (vector[100000000000]) would hold more than"},
		{"reject on every draw", `parameters { real x; } model { reject("always"); }`, "", "test.stan:1:32: the log density is −∞ at θ = 0 and at 100 random points in (−2, 2): reject: always"},
		{"unicode identifier", "parameters { real θ; } model { θ ~ normal(0, 1); }", "", "test.stan:1:19: unexpected character 'θ': identifiers are ASCII letters"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadSrc(t, c.src, c.data)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
		})
	}
}

// TestHostileRejectSometimes: a program that rejects only part of the
// space builds (it is the sampler's to avoid that part).
func TestHostileRejectSometimes(t *testing.T) {
	m, err := loadSrc(t, `parameters { real x; } model { x ~ normal(0, 1); if (x > 0) reject("x = ", x); }`, "")
	if err != nil {
		t.Fatal(err)
	}
	if lp := m.LogPrior([]float64{1}, nil); !math.IsInf(lp, -1) {
		t.Errorf("log density at a rejected point %v, want −∞", lp)
	}
	if lp := m.LogPrior([]float64{-1}, nil); math.IsInf(lp, 0) {
		t.Errorf("log density at an accepted point %v", lp)
	}
}

// TestInterrupt: an evaluation caught in a loop that does not end returns
// −∞ once the model is interrupted, and so does every later one that
// loops; the model built without looping (θ = 0 is fine).
func TestInterrupt(t *testing.T) {
	m, err := loadSrc(t, `parameters { real x; } model { x ~ normal(0, 1); while (x > 1.5) { } }`, "")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var lp float64
	wg.Add(1)
	go func() {
		defer wg.Done()
		lp = m.LogPrior([]float64{2}, make([]float64, 1))
	}()
	time.Sleep(50 * time.Millisecond)
	m.Interrupt()
	wg.Wait()
	if !math.IsInf(lp, -1) {
		t.Errorf("interrupted evaluation: %v, want −∞", lp)
	}
	if lp := m.LogPrior([]float64{0}, nil); math.IsInf(lp, 0) {
		t.Errorf("after the interrupt, a point without a loop: %v", lp)
	}
}

// TestFaultGuard: a panic of the evaluator itself (not of the program)
// while sampling is kept by Fault, not raised: the run goes on and can
// report it.
func TestFaultGuard(t *testing.T) {
	m, err := loadSrc(t, `parameters { real x; } model { x ~ normal(0, 1); }`, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Fault() != nil {
		t.Fatalf("fault before any: %v", m.Fault())
	}
	calls := 0
	m.OnFault(func(error) { calls++ })
	m.recovered("an index out of range in the evaluator")
	m.recovered("a second one")
	if f := m.Fault(); f == nil || !strings.Contains(f.Error(), "internal error evaluating the program (please report it): an index out of range") {
		t.Errorf("fault %v", f)
	}
	if calls != 1 {
		t.Errorf("OnFault called %d times, want once", calls)
	}
}
