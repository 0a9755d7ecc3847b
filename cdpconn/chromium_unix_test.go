//go:build unix

package cdpconn

import (
	"os/exec"
	"syscall"
)

// ownGroup has cmd start as the leader of a process group of its own;
// killGroup SIGKILLs that group (/usr/bin/chromium is a shell wrapper:
// the browser is its child).
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
