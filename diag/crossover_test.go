package diag

import (
	"math"
	"testing"
)

func TestCrossover(t *testing.T) {
	n := 1000
	iters, inj, grad := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range iters {
		iters[i] = float64(10 * (i + 1))
		inj[i] = 1
		grad[i] = 4 * math.Exp(-float64(i)/100) // = 1 at i = 100 ln 4 ≈ 138.6
	}
	grad[0] = math.NaN()
	at, ok := Crossover(iters, inj, grad)
	// windows of 20: the window [120, 140) still has mean > 1, [140, 160) not.
	if !ok || at != iters[140] {
		t.Errorf("crossover at %v (ok %v), want %v", at, ok, iters[140])
	}
	for i := range grad {
		grad[i] = 2
	}
	if _, ok := Crossover(iters, inj, grad); ok {
		t.Error("gradient noise dominating throughout: ok")
	}
	for i := range grad {
		grad[i] = 0.5
	}
	if at, ok := Crossover(iters, inj, grad); !ok || at != iters[0] {
		t.Errorf("injected noise dominating throughout: %v, %v", at, ok)
	}
}
