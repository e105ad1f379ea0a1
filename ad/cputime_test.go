package ad_test

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
	"testing"

	"github.com/langevin-go/langevin"
	"github.com/langevin-go/langevin/model"
)

// threadCPU returns the CPU time of the calling OS thread in nanoseconds.
func threadCPU() int64 {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD (Linux)
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// cpuPerOp returns the best of 5 thread-CPU times per gradient, in ns, over
// reps calls each: on a shared machine the wall clock of a benchmark counts
// the time other processes hold the core, the thread's CPU time does not.
func cpuPerOp(m langevin.Model, batch []int, reps int) float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	theta := make([]float64, m.Dim())
	for j := range theta {
		theta[j] = 0.01 * float64(j)
	}
	grad := make([]float64, m.Dim())
	m.LogLik(theta, batch, grad)
	best := 1e300
	for r := 0; r < 5; r++ {
		t0 := threadCPU()
		for i := 0; i < reps; i++ {
			m.LogLik(theta, batch, grad)
		}
		best = min(best, float64(threadCPU()-t0)/float64(reps))
	}
	return best
}

// TestCPUTimes prints thread-CPU ns per log-likelihood gradient for the
// benchmark models (LANGEVIN_CPUTIME=1 to run; the figures are in
// docs/writing-a-model.md).
func TestCPUTimes(t *testing.T) {
	if os.Getenv("LANGEVIN_CPUTIME") == "" {
		t.Skip("set LANGEVIN_CPUTIME=1 to measure")
	}
	X, _, labels, _ := regData(99, 552, 14, 2)
	hand, _ := model.NewLogistic(X, labels, model.LogisticOptions{})
	for _, c := range []struct {
		name string
		m    langevin.Model
		b    []int
		reps int
	}{
		{"logistic full hand", hand, nil, 2000},
		{"logistic full ad", adLogistic(X, labels, false), nil, 2000},
		{"logistic full adGLM", adLogistic(X, labels, true), nil, 2000},
		{"logistic batch10 hand", hand, benchBatch(552, 10), 50000},
		{"logistic batch10 ad", adLogistic(X, labels, false), benchBatch(552, 10), 50000},
		{"logistic batch10 adGLM", adLogistic(X, labels, true), benchBatch(552, 10), 50000},
	} {
		fmt.Printf("%-26s %10.0f ns\n", c.name, cpuPerOp(c.m, c.b, c.reps))
	}
	X2, y2, _, _ := regData(5, 5000, 25, 2)
	lin, _ := model.NewLinear(X2, y2, model.LinearOptions{})
	for _, c := range []struct {
		name string
		m    langevin.Model
		reps int
	}{{"regression 26x5000 hand", lin, 300}, {"regression 26x5000 ad", adLinear(X2, y2, false), 300},
		{"regression 26x5000 adGLM", adLinear(X2, y2, true), 300}, {"regression 26x5000 adSuff", adLinearKind(X2, y2, "suff"), 30000}} {
		fmt.Printf("%-26s %10.0f ns\n", c.name, cpuPerOp(c.m, nil, c.reps))
	}
	ysv := svData(500, 1)
	vec, _ := svVector(ysv)
	for _, c := range []struct {
		name string
		m    langevin.Model
	}{{"stochvol T=500 LinearScan", vec}, {"stochvol T=500 scalar", svScalar(ysv)}} {
		fmt.Printf("%-26s %10.0f ns\n", c.name, cpuPerOp(c.m, nil, 1000))
	}
}
