//go:build unix

package budget

import "syscall"

// AddressLimit returns the process's address-space limit (ulimit -v,
// RLIMIT_AS) in bytes, or 0 for none.
func AddressLimit() int64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err != nil || rl.Cur > 1<<62 { // RLIM_INFINITY is ^0
		return 0
	}
	return int64(rl.Cur)
}
