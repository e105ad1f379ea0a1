//go:build unix

package main

import "syscall"

// cpuSeconds returns the CPU time (user + system) the process has used, in
// seconds (NaN where unknown): on a shared machine wall times measure the
// load as much as the work.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return nan
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
