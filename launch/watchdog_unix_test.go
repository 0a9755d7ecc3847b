//go:build unix

package launch

import (
	"io"
	"net"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/internal/testenv"
)

// TestMain lets this test binary be the watchdog, as lyrad's is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == WatchdogVerb {
		os.Exit(RunWatchdog())
	}
	os.Exit(m.Run())
}

// browserGroup starts a stand-in browser: a process group whose leader has
// a helper.
func browserGroup(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 300 & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	pid := cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pid, syscall.SIGKILL) })
	return pid
}

// devtools is a stand-in for the browser's end of the CDP connection: a
// loopback connection, whose far end reports when it sees the near end
// close.
func devtools(t *testing.T) (near net.Conn, closed <-chan time.Time) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	near, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	far, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { near.Close(); far.Close() })
	ch := make(chan time.Time, 1)
	go func() {
		_, _ = io.Copy(io.Discard, far)
		ch <- time.Now()
	}()
	return near, ch
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// watching starts a watchdog (this test binary) on a stand-in browser's
// group and hands it lyrad's end of a CDP connection, then closes this
// process's copy, as lyrad's death would: only the watchdog holds it open
// from then on. closed reports when the browser's end sees it close.
func watching(t *testing.T) (w *watchdog, pid int, closed <-chan time.Time) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	w = startWatchdog(exe, zaptest.NewLogger(t))
	if w == nil {
		t.Fatal("no watchdog started")
	}
	pid = browserGroup(t)
	w.watch(pid)
	conn, closed := devtools(t)
	w.hold(conn)
	conn.Close() // lyrad's descriptor, as its death closes it
	return w, pid, closed
}

// TestWatchdogKillsTheGroupWhenLyradGoes: lyrad's end of the channel
// closes without "gone" (lyrad died): the watchdog kills the browser's
// whole group. The CDP connection it was handed stays open after lyrad
// closed its own descriptor, and closes only once the group is dead.
func TestWatchdogKillsTheGroupWhenLyradGoes(t *testing.T) {
	w, pid, closed := watching(t)
	select {
	case <-closed:
		t.Fatal("the browser saw the connection close while the watchdog held it")
	case <-time.After(300 * time.Millisecond):
	}
	if !testenv.GroupRunning(pid) {
		t.Fatal("the group died before lyrad did")
	}
	w.mu.Lock()
	w.ctrl.Close() // lyrad dies: its end closes, nothing said
	w.ctrl = nil
	w.mu.Unlock()
	select {
	case <-closed:
	case <-time.After(20 * time.Second):
		t.Fatal("the connection never closed after lyrad went")
	}
	// The leader (the browser, which holds the paused requests) runs no
	// more by the time the connection closes; its helpers follow.
	if !chrome.Ending(pid) {
		t.Errorf("the connection closed while the browser (pid %d) still ran", pid)
	}
	waitUntil(t, "the browser's helpers to die", func() bool { return !testenv.GroupRunning(pid) })
}

// TestWatchdogLeavesWhenTheBrowserIsGone: told "gone", the watchdog exits
// and kills nothing: the pid it was given is no longer the browser's.
func TestWatchdogLeavesWhenTheBrowserIsGone(t *testing.T) {
	w, pid, closed := watching(t)
	w.release()
	select {
	case <-closed: // the watchdog left, and its copy of the socket with it
	case <-time.After(20 * time.Second):
		t.Fatal("the watchdog did not leave when told the browser is gone")
	}
	// A watchdog that kills lets the sockets go only once the browser runs
	// no more (TestWatchdogKillsTheGroupWhenLyradGoes): had it killed, the
	// leader would be ending now. Nothing to wait for.
	if chrome.Ending(pid) || !testenv.GroupRunning(pid) {
		t.Error("the watchdog killed a group after it was told the browser is gone")
	}
}

// TestNoWatchdog: no binary, no watchdog, and its methods do nothing.
func TestNoWatchdog(t *testing.T) {
	w := startWatchdog("", zaptest.NewLogger(t))
	if w != nil {
		t.Fatal("a watchdog without a binary")
	}
	w.watch(1)
	w.hold(nil)
	w.release()
	if w := startWatchdog("/nonexistent/lyrad", zaptest.NewLogger(t)); w != nil {
		t.Error("a watchdog from a missing binary")
	}
}

func TestWatchdogState(t *testing.T) {
	var st watchdogState
	rest := st.feed([]byte("pid 12\nhold\npid x\npi"))
	if st.pid != 12 || st.gone || string(rest) != "pi" {
		t.Fatalf("state %+v, rest %q", st, rest)
	}
	st.feed(append(rest, "d 0\ngone\n"...))
	if st.pid != 12 || !st.gone {
		t.Fatalf("state %+v", st)
	}
}
