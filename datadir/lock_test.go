//go:build unix

package datadir

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestLockHeld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "serve.lock")
	release, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v %v", fi.Mode(), err)
	}
	// A second open file description conflicts even inside this process.
	_, err = Lock(path)
	var held *HeldError
	if !errors.As(err, &held) || held.PID != os.Getpid() || held.Path != path {
		t.Fatalf("second Lock = %v", err)
	}
	if want := path + " is held by pid " + strconv.Itoa(os.Getpid()); err.Error() != want {
		t.Fatalf("Error() = %q, want %q", err, want)
	}
	release()
	release() // idempotent
	r2, err := Lock(path)
	if err != nil {
		t.Fatalf("Lock after release: %v", err)
	}
	r2()
}

// TestLockOtherProcess holds the lock in a child (this test binary re-run as
// a helper) and checks that we see the child's pid.
func TestLockOtherProcess(t *testing.T) {
	if p := os.Getenv("DATADIR_TEST_HOLD_LOCK"); p != "" {
		if _, err := Lock(p); err != nil {
			os.Stdout.WriteString("error: " + err.Error() + "\n")
			os.Exit(1)
		}
		os.Stdout.WriteString("locked\n")
		bufio.NewReader(os.Stdin).ReadString('\n') // hold until the parent closes stdin
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "serve.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockOtherProcess$")
	cmd.Env = append(os.Environ(), "DATADIR_TEST_HOLD_LOCK="+path)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("helper said %q", line)
	}
	_, err := Lock(path)
	var held *HeldError
	if !errors.As(err, &held) || held.PID != cmd.Process.Pid {
		t.Fatalf("Lock = %v, want held by %d", err, cmd.Process.Pid)
	}
	p, release, err := New(filepath.Join(t.TempDir(), "data")).AcquireProfile(nil) // unrelated dir: free
	if err != nil || p.Kind != KindPersistent {
		t.Fatalf("AcquireProfile = %+v, %v", p, err)
	}
	release()
}

// TestLockDaemon: the daemon's lock held twice. The second holder is told
// the first one's pid; DaemonHolder reads it without taking the lock, and
// reads 0 once it is released.
func TestLockDaemon(t *testing.T) {
	d := New(filepath.Join(t.TempDir(), "data"))
	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	if pid := d.DaemonHolder(); pid != 0 {
		t.Fatalf("no lock file: holder %d", pid)
	}
	release, err := d.LockDaemon()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(d.DaemonLock()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("lock file: %v %v", fi.Mode(), err)
	}
	if pid := d.DaemonHolder(); pid != os.Getpid() {
		t.Fatalf("DaemonHolder = %d, want %d", pid, os.Getpid())
	}
	_, err = d.LockDaemon()
	var held *HeldError
	if !errors.As(err, &held) || held.PID != os.Getpid() || held.Path != d.DaemonLock() {
		t.Fatalf("second LockDaemon = %v", err)
	}
	// Reading the holder took nothing: the holder still has the lock.
	if pid := d.DaemonHolder(); pid != os.Getpid() {
		t.Fatalf("DaemonHolder after a refusal = %d", pid)
	}
	release()
	if pid := d.DaemonHolder(); pid != 0 {
		t.Fatalf("DaemonHolder after release = %d", pid)
	}
	if _, err := os.Stat(d.DaemonLock()); err != nil {
		t.Fatalf("the lock file must stay (the lock is the flock): %v", err)
	}
	r2, err := d.LockDaemon()
	if err != nil {
		t.Fatalf("LockDaemon after release: %v", err)
	}
	r2()
}
