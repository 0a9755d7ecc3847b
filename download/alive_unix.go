//go:build unix

package download

import (
	"errors"
	"syscall"
)

// alive: a process with this pid exists (EPERM: it does, and is not ours).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
