//go:build unix

package runctl

import (
	"math"
	"syscall"
)

// CPUSeconds returns the CPU time (user + system) the process has used, in
// seconds (NaN where unknown): on a shared machine wall times measure the
// load as much as the work.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
