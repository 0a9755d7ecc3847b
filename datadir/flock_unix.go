//go:build unix

package datadir

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive, non-blocking flock. flock locks belong to the
// open file description, so two opens of the same file conflict even inside
// one process.
func tryLock(f *os.File) (held bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

// unlock releases the flock explicitly rather than relying on close: a child
// forked at an unlucky moment could still hold a duplicate of the descriptor.
func unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
