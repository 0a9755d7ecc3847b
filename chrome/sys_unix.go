//go:build unix

package chrome

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts the browser as the leader of a new process group, so one
// signal to the group reaches it and every helper it forks (zygote,
// renderers, GPU, crashpad) without touching lyrad itself; and, where the
// system can and tied is set, ties its life to lyrad's (dieWithParent).
func ownGroup(cmd *exec.Cmd, tied bool) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if tied {
		dieWithParent(cmd.SysProcAttr)
	}
}

func killGroup(p *os.Process) error { return signalGroup(p, syscall.SIGKILL) }
func termGroup(p *os.Process) error { return signalGroup(p, syscall.SIGTERM) }

func signalGroup(p *os.Process, sig syscall.Signal) error {
	err := syscall.Kill(-p.Pid, sig)
	if errors.Is(err, syscall.ESRCH) { // the whole group is already gone
		return nil
	}
	return err
}
