package schedule_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/langevin-go/langevin/schedule"
)

func TestAt(t *testing.T) {
	cyc := schedule.Cyclical{Eta0: 0.1, Iters: 100, Cycles: 4}
	for _, tc := range []struct {
		s    schedule.Schedule
		t    int
		want float64
	}{
		{schedule.Constant(0.3), 7, 0.3},
		{schedule.Polynomial{A: 0.05, B: 1, Gamma: 0.55}, 1, 0.05 * math.Pow(2, -0.55)},
		{schedule.Polynomial{A: 2, B: 0, Gamma: 1}, 4, 0.5},
		// L = ⌈100/4⌉ = 25: iteration 1 starts a cycle at η₀, iteration 26
		// starts the next, iteration 13 is at r = 12/25.
		{cyc, 1, 0.1},
		{cyc, 26, 0.1},
		{cyc, 13, 0.05 * (math.Cos(math.Pi*12/25) + 1)},
		{cyc, 25, 0.05 * (math.Cos(math.Pi*24/25) + 1)},
	} {
		if got := tc.s.At(tc.t); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("%#v.At(%d) = %v, want %v", tc.s, tc.t, got, tc.want)
		}
	}
}

func TestCyclicalPhase(t *testing.T) {
	c := schedule.Cyclical{Eta0: 1, Iters: 10, Cycles: 3, Explore: 0.5} // L = 4
	var got []string
	for k := 1; k <= 10; k++ {
		got = append(got, fmt.Sprintf("%d:%.2f:%v", c.Cycle(k), c.Phase(k), c.Exploring(k)))
	}
	want := "[1:0.00:true 1:0.25:true 1:0.50:false 1:0.75:false 2:0.00:true 2:0.25:true 2:0.50:false 2:0.75:false 3:0.00:true 3:0.25:true]"
	if fmt.Sprint(got) != want {
		t.Errorf("phases %v\nwant %v", got, want)
	}
}

func TestRobbinsMonro(t *testing.T) {
	for _, tc := range []struct {
		g    float64
		want bool
	}{{0.5, false}, {0.55, true}, {1, true}, {1.1, false}} {
		if got := (schedule.Polynomial{A: 1, Gamma: tc.g}).RobbinsMonro(); got != tc.want {
			t.Errorf("γ = %v: RobbinsMonro %v", tc.g, got)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		s  schedule.Schedule
		ok bool
	}{
		{schedule.Constant(0.1), true},
		{schedule.Constant(0), false},
		{schedule.Constant(-1), false},
		{schedule.Constant(math.Inf(1)), false},
		{schedule.Polynomial{A: 1, B: 1, Gamma: 0.55}, true},
		{schedule.Polynomial{A: 0, B: 1, Gamma: 0.55}, false},
		{schedule.Polynomial{A: 1, B: -1, Gamma: 0.55}, false},
		{schedule.Polynomial{A: 1, B: 1, Gamma: -1}, false},
		{schedule.Cyclical{Eta0: 1, Iters: 10, Cycles: 2}, true},
		{schedule.Cyclical{Eta0: 1, Iters: 10, Cycles: 11}, false},
		{schedule.Cyclical{Eta0: 1, Iters: 10, Cycles: 2, Explore: 1}, false},
		{schedule.Cyclical{Eta0: 0, Iters: 10, Cycles: 2}, false},
	} {
		if err := tc.s.Validate(); (err == nil) != tc.ok {
			t.Errorf("%#v.Validate() = %v", tc.s, err)
		}
	}
}

func ExamplePolynomial() {
	s := schedule.Polynomial{A: 0.05, B: 1, Gamma: 0.55}
	for _, t := range []int{1, 10, 100, 1000} {
		fmt.Printf("η_%d = %.5f\n", t, s.At(t))
	}
	// Output:
	// η_1 = 0.03415
	// η_10 = 0.01337
	// η_100 = 0.00395
	// η_1000 = 0.00112
}

func TestPolynomialWarning(t *testing.T) {
	for _, tc := range []struct {
		g    float64
		want string // "" or a word the warning must hold
	}{{0.55, ""}, {1, ""}, {0.5, "Σηₜ² = ∞"}, {0, "Σηₜ² = ∞"}, {0.3, "γ = 0.3"}, {1.2, "Σηₜ < ∞"}} {
		w := schedule.Polynomial{A: 1, Gamma: tc.g}.Warning()
		if (w == "") != (tc.want == "") || !strings.Contains(w, tc.want) {
			t.Errorf("γ = %v: warning %q, want one holding %q", tc.g, w, tc.want)
		}
	}
}

func TestFloored(t *testing.T) {
	p := schedule.Polynomial{A: 1, B: 0, Gamma: 1} // ηₜ = 1/t
	f := schedule.Floored{S: p, Floor: 0.01}
	for _, tc := range []struct {
		t    int
		want float64
	}{{1, 1}, {50, 0.02}, {100, 0.01}, {101, 0.01}, {10000, 0.01}} {
		if got := f.At(tc.t); math.Abs(got-tc.want) > 1e-15 {
			t.Errorf("At(%d) = %v, want %v", tc.t, got, tc.want)
		}
	}
	if from, ok := schedule.FloorFrom(p, 0.01, 1e6); !ok || from != 100 {
		t.Errorf("FloorFrom = %d, %v; want 100, true", from, ok)
	}
	if _, ok := schedule.FloorFrom(p, 0.01, 50); ok {
		t.Error("FloorFrom found the floor beyond maxT")
	}
	for _, bad := range []schedule.Floored{{S: p}, {S: p, Floor: math.Inf(1)}, {Floor: 0.1}, {S: schedule.Polynomial{A: -1}, Floor: 0.1}} {
		if bad.Validate() == nil {
			t.Errorf("%#v validated", bad)
		}
	}
	if f.Validate() != nil {
		t.Error(f.Validate())
	}
}
