//go:build !unix

package experiment

import "time"

var processStart = time.Now()

// processCPU falls back to wall time where getrusage is not available.
func processCPU() time.Duration { return time.Since(processStart) }

const cpuClock = false
