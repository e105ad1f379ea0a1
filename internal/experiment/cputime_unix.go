//go:build unix

package experiment

import (
	"os"
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

// maxRSS returns a finished child's peak resident set in KiB (0 when the
// system does not say).
func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
