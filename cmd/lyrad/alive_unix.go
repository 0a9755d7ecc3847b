//go:build unix

package main

import (
	"errors"
	"syscall"
)

// processAlive: signal 0 checks that pid exists; EPERM means it exists but
// is someone else's.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
