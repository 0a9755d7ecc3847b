//go:build unix

package e2e

import (
	"os/exec"
	"syscall"
)

// ownGroup has cmd start as the leader of a process group of its own, so
// that killGroup reaches every process it starts (a browser's helpers).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup SIGKILLs the process group cmd leads.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// mkfifo makes a named pipe at path.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
