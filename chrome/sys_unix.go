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
// system can, ties its life to lyrad's (dieWithParent).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
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
