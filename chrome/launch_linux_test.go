//go:build linux

package chrome

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/lyrad/lyrad/internal/testenv"
)

// groupLeader starts argv as the leader of its own process group and reaps
// it in the background.
func groupLeader(t *testing.T, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	return cmd
}

func TestKillOrphanKillsTheRecordedBrowserAndItsGroup(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(dir, "profile")
	pidFile := filepath.Join(dir, "browser.pid")
	// A "browser" on the profile with a helper in its group.
	browser := groupLeader(t, "sh", "-c", "sleep 300 & wait", "sh", "--user-data-dir="+profile)
	pid := browser.Process.Pid
	testenv.WaitFor(t, "the group's helper", 5*time.Second, func() bool { return testenv.GroupRunning(pid) && len(groupMembers(pid)) == 2 })
	if _, err := recordBrowser(pidFile, pid, profile); err != nil {
		t.Fatal(err)
	}
	if killed, err := killOrphan(pidFile, profile, zaptest.NewLogger(t)); err != nil || killed != pid {
		t.Fatalf("killOrphan = %d, %v; want %d", killed, err, pid)
	}
	if testenv.GroupRunning(pid) {
		t.Errorf("the orphan's group survived: %v", groupMembers(pid))
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Errorf("pid file left: %v", err)
	}
}

func TestKillOrphanSparesAStranger(t *testing.T) {
	dir := t.TempDir()
	profile := filepath.Join(dir, "profile")
	pidFile := filepath.Join(dir, "browser.pid")
	stranger := groupLeader(t, "sleep", "300")
	pid := stranger.Process.Pid
	rec, err := recordBrowser(pidFile, pid, profile)
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]pidRecord{
		"the pid taken again by another process": {PID: pid, Start: rec.Start + "0", Profile: profile},
		"a record of another profile":            {PID: pid, Start: rec.Start, Profile: profile + "-other"},
	} {
		b, _ := json.Marshal(r)
		os.WriteFile(pidFile, b, 0o600)
		if killed, err := killOrphan(pidFile, profile, zaptest.NewLogger(t)); err != nil || killed != 0 {
			t.Fatalf("%s: killOrphan = %d, %v", name, killed, err)
		}
		if !testenv.Running(pid) {
			t.Fatalf("%s: killed", name)
		}
		if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
			t.Errorf("%s: stale pid file left: %v", name, err)
		}
	}
	os.WriteFile(pidFile, []byte("{not json"), 0o600)
	if _, err := killOrphan(pidFile, profile, zaptest.NewLogger(t)); err != nil || !testenv.Running(pid) {
		t.Errorf("unreadable pid file: %v, alive %v", err, testenv.Running(pid))
	}
}

// TestLaunchRecordsTheBrowser: Launch writes the pid file while the browser
// runs and removes it after, and the browser sees a filtered environment.
func TestLaunchRecordsTheBrowser(t *testing.T) {
	dir := t.TempDir()
	exe := stub(t, dir, "browser", `for a in "$@"; do case "$a" in --user-data-dir=*) d="${a#--user-data-dir=}";; esac; done
env > "$d/env.txt"
printf '9\n/devtools/browser/stub\n' > "$d/DevToolsActivePort"
exec sleep 300`)
	t.Setenv("LYRA_BROWSER_SECRET_TEST", "x")
	t.Setenv("GITHUB_TOKEN", "ghp_x")
	profile := filepath.Join(dir, "profile")
	pidFile := filepath.Join(dir, "browser.pid")
	p, err := Launch(context.Background(), LaunchOptions{Path: exe, ProfileDir: profile, Headless: true, PIDFile: pidFile})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()
	rec, err := readPIDFile(pidFile)
	if err != nil || rec == nil || rec.PID != p.PID() || rec.Profile != profile || rec.Start == "" {
		t.Fatalf("pid file = %+v, %v", rec, err)
	}
	env, _ := os.ReadFile(filepath.Join(profile, "env.txt"))
	if strings.Contains(string(env), "LYRA_BROWSER_") || strings.Contains(string(env), "GITHUB_TOKEN") || !strings.Contains(string(env), "PATH=") {
		t.Errorf("the browser's environment was not filtered:\n%s", env)
	}
	p.Kill()
	<-p.Done()
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Errorf("pid file left after the browser exited: %v", err)
	}
}

func groupMembers(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		if st, err := readProcStat(pid); err == nil && st.pgrp == pgid && st.state != "Z" {
			out = append(out, pid)
		}
	}
	return out
}

// TestBrowserOutlivesTheCallersThread: the parent-death signal follows the
// thread that forked the browser. A Go thread ends when a goroutine locked
// to it returns; Launch forks from its own thread, so the caller's ending
// must not take the browser with it.
func TestBrowserOutlivesTheCallersThread(t *testing.T) {
	dir := t.TempDir()
	exe := stub(t, dir, "browser", `for a in "$@"; do case "$a" in --user-data-dir=*) d="${a#--user-data-dir=}";; esac; done
printf '9\n/devtools/browser/stub\n' > "$d/DevToolsActivePort"
exec sleep 300`)
	launched := make(chan *Process, 1)
	tid := make(chan int, 1)
	var launch func()
	launch = func() {
		runtime.LockOSThread()
		if syscall.Gettid() == os.Getpid() {
			// Go never ends the main thread; launch from another one
			// (this goroutine holds the main thread meanwhile).
			done := make(chan struct{})
			go func() { launch(); close(done) }()
			<-done
			runtime.UnlockOSThread()
			return
		}
		// Never unlocked: the thread ends with this goroutine.
		tid <- syscall.Gettid()
		p, err := Launch(context.Background(), LaunchOptions{Path: exe, ProfileDir: filepath.Join(dir, "p"), Headless: true})
		if err != nil {
			t.Error(err)
		}
		launched <- p
	}
	go launch()
	p := <-launched
	if p == nil {
		return
	}
	defer p.Kill()
	thread := fmt.Sprintf("/proc/self/task/%d", <-tid)
	testenv.WaitFor(t, "the launching thread to end", 5*time.Second, func() bool { _, err := os.Stat(thread); return err != nil })
	select {
	case <-p.Done():
		t.Fatal("the browser died with the thread of the goroutine that launched it")
	case <-time.After(500 * time.Millisecond):
	}
}
