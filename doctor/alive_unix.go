//go:build unix

package doctor

import (
	"errors"
	"syscall"
)

// alive reports whether a process with this pid exists (signal 0 checks
// without delivering anything; EPERM means it exists but is someone else's).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
