//go:build !unix

package main

// cpuSeconds returns NaN: the CPU time is not measured on this platform.
func cpuSeconds() float64 { return nan }

// addressLimit returns 0: no address-space limit is read on this platform.
func addressLimit() int64 { return 0 }
