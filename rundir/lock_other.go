//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package rundir

import (
	"errors"
	"os"
)

var errWouldBlock = errors.New("lock is held")

// lockFile does nothing on systems without flock(2): two processes are not
// kept from sharing a directory there.
func lockFile(f *os.File) error { return nil }

func unlockFile(f *os.File) error { return nil }
