//go:build unix

package chrome

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	if p := os.Getenv("CHROME_TEST_HOLD_LOCK"); p != "" {
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
	cmd.Env = append(os.Environ(), "CHROME_TEST_HOLD_LOCK="+path)
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
	p, release, err := AcquireProfile(filepath.Join(t.TempDir(), "data")) // unrelated dir: free
	if err != nil || p.Kind != KindPersistent {
		t.Fatalf("AcquireProfile = %+v, %v", p, err)
	}
	release()
}

func TestAcquireProfile(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	p1, rel1, err := AcquireProfile(data)
	if err != nil {
		t.Fatal(err)
	}
	if p1.Kind != KindPersistent || p1.Dir != filepath.Join(data, "profile") {
		t.Fatalf("first = %+v", p1)
	}
	for _, d := range []string{data, p1.Dir} {
		if fi, err := os.Stat(d); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v", d, fi.Mode(), err)
		}
	}

	// Same process, second holder: flock is per open file description, so it must lose.
	p2, rel2, err := AcquireProfile(data)
	if err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(os.Getpid())
	// <pid>, or <pid>-N when earlier instances were made in this process (go test -count).
	name := filepath.Base(filepath.Dir(p2.Dir))
	if p2.Kind != KindInstance || p2.Holder != os.Getpid() || name != pid && !strings.HasPrefix(name, pid+"-") ||
		filepath.Dir(filepath.Dir(p2.Dir)) != data+"-instances" {
		t.Fatalf("second = %+v", p2)
	}
	if fi, err := os.Stat(p2.Dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("instance dir: %v %v", fi.Mode(), err)
	}
	p3, rel3, err := AcquireProfile(data)
	if err != nil || p3.Kind != KindInstance || p3.Dir == p2.Dir {
		t.Fatalf("third = %+v, %v", p3, err)
	}

	rel2()
	if _, err := os.Stat(filepath.Dir(p2.Dir)); !os.IsNotExist(err) {
		t.Fatalf("instance dir not removed: %v", err)
	}
	if _, err := os.Stat(p3.Dir); err != nil {
		t.Fatalf("other instance removed: %v", err)
	}
	rel3()
	if _, err := os.Stat(data + "-instances"); !os.IsNotExist(err) {
		t.Fatalf("empty instances dir left: %v", err)
	}

	rel1()
	p4, rel4, err := AcquireProfile(data)
	if err != nil || p4.Kind != KindPersistent {
		t.Fatalf("after release = %+v, %v", p4, err)
	}
	rel4()
}
