//go:build !unix

package runctl

import "math"

// CPUSeconds returns NaN: the CPU time is not measured on this platform.
func CPUSeconds() float64 { return math.NaN() }
