//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package checker

import (
	"errors"
	"os"
	"syscall"
)

// flockExclusive takes an exclusive flock on f without waiting; ok is false
// when another open file holds one. The lock is released when f is closed.
func flockExclusive(f *os.File) (ok bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
