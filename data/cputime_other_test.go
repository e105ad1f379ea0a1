//go:build !unix

package data

import "time"

var start0 = time.Now()

// cpuTime falls back to wall time where getrusage is not available.
func cpuTime() time.Duration { return time.Since(start0) }
