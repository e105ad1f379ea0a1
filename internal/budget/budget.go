// Package budget is the memory a run may take: half the machine's memory,
// bounded by the address-space limit, and the saturating counts that
// compare a run's needs with it.
package budget

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Memory is the memory the kept draws of a run may take: half the
// machine's memory (from /proc/meminfo), or 8 GiB where that is unknown, and
// at most a quarter of the process's address-space limit (ulimit -v: the
// Go runtime reserves much more address space than it uses).
//
// LANGEVIN_MEMORY_MIB, if set to a positive number, is the budget in MiB
// instead (a container whose /proc/meminfo shows the host's memory).
// Hook, when set (by tests), replaces it.
func Memory() int64 {
	if Hook != nil {
		return Hook()
	}
	if v, err := strconv.ParseInt(os.Getenv("LANGEVIN_MEMORY_MIB"), 10, 64); err == nil && v > 0 {
		return min(v, 1<<40) << 20
	}
	b := machineBudget()
	if lim := AddressLimit(); lim > 0 {
		b = min(b, lim/4)
	}
	return b
}

// RawMemory is Memory without Hook.
func RawMemory() int64 {
	h := Hook
	Hook = nil
	defer func() { Hook = h }()
	return Memory()
}

func machineBudget() int64 {
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					return kb << 10 / 2
				}
			}
		}
	}
	return 8 << 30
}

// Hook, when set (by tests), replaces Memory.
var Hook func() int64

// SatAdd and SatMul add and multiply non-negative counts, saturating at
// math.MaxInt64.
func SatAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// SatMul returns a·b for a, b ≥ 0, saturating at math.MaxInt64 (see SatAdd).
func SatMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// FmtBytes writes a size in bytes, MiB or GiB.
func FmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}
