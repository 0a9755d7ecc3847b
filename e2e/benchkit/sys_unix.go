//go:build unix

package benchkit

import (
	"os/exec"
	"syscall"
)

// ownGroup has cmd start in a process group of its own, so that killGroup
// reaches everything it starts.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup SIGKILLs the process group pgid.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// kill SIGKILLs process pid.
func kill(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
