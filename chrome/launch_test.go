//go:build unix

package chrome

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap/zaptest"

	"github.com/lyrad/lyrad/internal/testenv"
)

func TestLaunchHeadless(t *testing.T) {
	exe := browserOrSkip(t)
	profile := filepath.Join(t.TempDir(), "profile")
	if err := os.Mkdir(profile, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(profile, 0o755); err != nil { // in spite of umask
		t.Fatal(err)
	}
	portFile := filepath.Join(profile, activePortFile)
	if err := os.WriteFile(portFile, []byte("1\n/devtools/browser/stale\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	p, err := Launch(context.Background(), LaunchOptions{Path: exe, ProfileDir: profile, Headless: true, Logger: zaptest.NewLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill()

	if _, err := os.Stat(portFile); !os.IsNotExist(err) {
		t.Errorf("%s still there after Launch: %v", activePortFile, err)
	}
	if fi, err := os.Stat(profile); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("profile mode %v, %v", fi.Mode(), err)
	}
	if p.Port() <= 1 || p.PID() <= 0 || p.profileDir != profile || p.Exited() {
		t.Fatalf("port %d pid %d dir %s exited %v", p.Port(), p.PID(), p.profileDir, p.Exited())
	}
	wantPrefix := "ws://127.0.0.1:" + strconv.Itoa(p.Port()) + "/devtools/browser/"
	if !strings.HasPrefix(p.WebSocketURL(), wantPrefix) {
		t.Fatalf("WebSocketURL does not start with %s", wantPrefix)
	}

	if c, err := net.DialTimeout("tcp", net.JoinHostPort("::1", strconv.Itoa(p.Port())), time.Second); err == nil {
		c.Close()
		t.Error("DevTools port is reachable on [::1]")
	}
	resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(p.Port()) + "/json/version")
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Browser, WebSocketDebuggerURL string }
	err = json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if err != nil || v.WebSocketDebuggerURL != p.WebSocketURL() || !strings.Contains(v.Browser, "Chrome") {
		t.Fatalf("/json/version: %+v, %v", v, err)
	}
	t.Log(v.Browser)

	start := time.Now()
	p.Kill()
	p.Kill()
	select {
	case <-p.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("Done not closed 5 s after Kill")
	}
	if !p.Exited() {
		t.Fatal("Exited false after Done")
	}
	t.Logf("exited %v after Kill", time.Since(start))
	waitGroupGone(t, p.PID())
}

func TestLaunchClose(t *testing.T) {
	exe := browserOrSkip(t)
	p, err := Launch(context.Background(), LaunchOptions{Path: exe, ProfileDir: t.TempDir(), Headless: true, StartURL: "data:text/html,hi"})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := p.Close(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	t.Logf("closed in %v", time.Since(start))
	if !p.Exited() {
		t.Fatal("not exited after Close")
	}
	waitGroupGone(t, p.PID())
	if err := p.Close(time.Second); err != nil { // again: no-op
		t.Fatal(err)
	}
}

// waitGroupGone checks that no helper of the browser outlived it.
func waitGroupGone(t *testing.T, pgid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !testenv.GroupRunning(pgid) {
			return
		}
	}
	t.Errorf("process group %d still has live members", pgid)
}

func TestLaunchExitsEarly(t *testing.T) {
	skipWindows(t)
	exe := stub(t, t.TempDir(), "bogus", `echo "DevTools listening on ws://127.0.0.1:45678/devtools/browser/abc-def" >&2; echo boom >&2; exit 1`)
	_, err := Launch(context.Background(), LaunchOptions{Path: exe, ProfileDir: t.TempDir(), Headless: true})
	if err == nil {
		t.Fatal("no error")
	}
	t.Log(err)
	for _, want := range []string{"exit", "status 1", "boom"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %q", want)
		}
	}
	for _, secret := range []string{"45678", "abc-def", "/devtools/browser"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error leaks %q", secret)
		}
	}
}

func TestLaunchTimeoutKillsGroup(t *testing.T) {
	skipWindows(t)
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	// The child sleep holds stderr open: Launch must kill the whole group.
	exe := stub(t, dir, "hang", `sleep 30 & echo $! > `+pidFile+`; echo waiting >&2; wait`)
	start := time.Now()
	_, err := Launch(context.Background(), LaunchOptions{Path: exe, ProfileDir: filepath.Join(dir, "p"), Headless: true, Timeout: 300 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "within 300ms") || !strings.Contains(err.Error(), "waiting") {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("Launch took %v", d)
	}
	b, _ := os.ReadFile(pidFile)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pid <= 0 {
		t.Fatal("no child pid")
	}
	for deadline := time.Now().Add(2 * time.Second); testenv.Running(pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("child sleep survived")
		}
	}

	// Cancelling ctx stops the wait too.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = Launch(ctx, LaunchOptions{Path: exe, ProfileDir: filepath.Join(dir, "p"), Headless: true})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func TestLaunchHeadfulWithoutDisplay(t *testing.T) {
	if HasDisplay() {
		t.Skip("a display is available")
	}
	_, err := Launch(context.Background(), LaunchOptions{Path: "/bin/true", ProfileDir: t.TempDir()})
	if err == nil || err.Error() == "" {
		t.Fatalf("err = %v", err)
	}
	t.Log(err)
}

func TestReadActivePort(t *testing.T) {
	f := filepath.Join(t.TempDir(), activePortFile)
	for content, ok := range map[string]bool{
		"9222\n/devtools/browser/abc\n": true,
		"9222\n/devtools/browser/abc":   true,
		"9222\n":                        false, // half-written
		"9222\n/devtools/browser/":      false,
		"x\n/devtools/browser/abc":      false,
		"70000\n/devtools/browser/abc":  false,
	} {
		os.WriteFile(f, []byte(content), 0o600)
		port, path, err := readActivePort(f)
		if (err == nil) != ok || ok && (port != 9222 || path != "/devtools/browser/abc") {
			t.Errorf("%q: %d %q %v", content, port, path, err)
		}
	}
}

func TestTailBuffer(t *testing.T) {
	tb := &tailBuffer{max: 16}
	tb.Write([]byte("first line\nsecond line\n"))
	tb.Write([]byte("third\n"))
	if got := tb.lastLines(8); got != "third" {
		t.Fatalf("lastLines = %q", got)
	}
}
