//go:build unix

package experiment

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user + system) the process has used: the
// clock Stan 2.21 times its warm-up and sampling with (std::clock), which a
// busy machine does not inflate the way it inflates wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

const cpuClock = true
