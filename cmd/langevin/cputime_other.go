//go:build !unix

package main

// cpuSeconds returns NaN: the CPU time is not measured on this platform.
func cpuSeconds() float64 { return nan }
