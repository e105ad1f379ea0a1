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

// AddressLimit returns the process's address-space limit (ulimit -v,
// RLIMIT_AS) in bytes, or 0 for none.
func AddressLimit() int64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur > 1<<62 { // RLIM_INFINITY is ^0
		return 0
	}
	return int64(rl.Cur)
}
