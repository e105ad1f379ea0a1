//go:build !unix

package experiment

import (
	"os"
	"time"
)

var processStart = time.Now()

// processCPU falls back to wall time where getrusage is not available.
func processCPU() time.Duration { return time.Since(processStart) }

const cpuClock = false

// maxRSS is 0 where getrusage is not available.
func maxRSS(*os.ProcessState) int64 { return 0 }
