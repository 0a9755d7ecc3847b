//go:build unix

// Package proc answers questions about other processes.
package proc

import (
	"errors"
	"syscall"
)

// Alive: a process with this pid exists (one of another user's counts).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
