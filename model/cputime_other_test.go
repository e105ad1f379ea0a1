//go:build !unix

package model_test

// processCPU is 0 where getrusage is not available: the benchmarks then
// report no CPU time.
func processCPU() int64 { return 0 }
