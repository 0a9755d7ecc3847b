//go:build linux

package chrome

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/lyrad/lyrad/internal/testenv"
)

// process wraps a started command as a Process whose exit is known only
// once done is closed, as Launch's waiter would.
func process(cmd *exec.Cmd) (*Process, chan struct{}) {
	done := make(chan struct{})
	return &Process{cmd: cmd, done: done}, done
}

func TestGoneRunningThenReaped(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	p, done := process(cmd)
	if p.Gone() {
		t.Fatal("a running process reads as gone")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	close(done)
	if !p.Gone() {
		t.Fatal("a reaped process reads as alive")
	}
}

// A process that died but is not reaped yet is a zombie: gone, before the
// waiter has seen it.
func TestGoneZombie(t *testing.T) {
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	p, _ := process(cmd)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	testenv.WaitFor(t, "a zombie", 5*time.Second, func() bool {
		st, err := readProcStat(cmd.Process.Pid)
		return err == nil && st.state == "Z"
	})
	if !p.Gone() {
		t.Fatal("a zombie reads as alive")
	}
}

// A pid with no /proc entry is gone.
func TestGoneNoSuchProcess(t *testing.T) {
	p, _ := process(&exec.Cmd{Process: &os.Process{Pid: 1<<31 - 1}})
	if !p.Gone() {
		t.Fatal("a pid with no /proc entry reads as alive")
	}
}

// PF_EXITING (flags 0x4) marks a process on its way out while its state is
// still R or D; the name may hold spaces and parentheses. 4194304 is
// PF_RANDOMIZE, which every process has.
func TestProcStatDying(t *testing.T) {
	for _, c := range []struct {
		stat  string
		dying bool
	}{
		{"7 (chrome) S 1 1 1 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 391124 3133440 360", false},
		{"7 (chrome) R 1 1 1 0 -1 4194308 99 0 0 0 0 0 0 0 20 0 1 0 391124 3133440 360", true},
		{"7 (a) b (c) D 1 1 1 0 -1 4194308 99 0 0 0 0 0 0 0 20 0 1 0 391124 3133440 360", true},
		{"7 (chrome) Z 1 1 1 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 391124 3133440 360", true},
		{"7 (chrome) X 1 1 1 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 391124 3133440 360", true},
	} {
		st, err := parseProcStat(c.stat)
		if err != nil {
			t.Fatalf("%q: %v", c.stat, err)
		}
		if st.dying() != c.dying {
			t.Errorf("%q: dying = %v, want %v", c.stat, st.dying(), c.dying)
		}
	}
}
