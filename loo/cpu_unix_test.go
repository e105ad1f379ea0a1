//go:build unix

package loo_test

import (
	"syscall"
	"time"
)

// cpuTime is the user and system CPU time of the process so far.
func cpuTime() time.Duration {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return 0
	}
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}
