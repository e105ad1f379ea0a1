//go:build !unix

package runctl

import "math"

// CPUSeconds returns NaN: the CPU time is not measured on this platform.
func CPUSeconds() float64 { return math.NaN() }

// AddressLimit returns 0: no address-space limit is read on this platform.
func AddressLimit() int64 { return 0 }
