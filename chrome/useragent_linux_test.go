package chrome

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "browser")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLinuxUserAgent(t *testing.T) {
	for _, tc := range []struct{ out, want, brand string }{
		{"Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm)", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36", "Chromium"},
		{"Google Chrome 131.0.6778.85 ", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Google Chrome"},
		{"Microsoft Edge 131.0.2903.70", "", ""}, // Edge adds a token of its own
		{"Chromium 156", "", ""},
		{"", "", ""},
	} {
		got, brand := LinuxUserAgent(context.Background(), script(t, "echo '"+tc.out+"'\n"))
		if got != tc.want || brand != tc.brand {
			t.Errorf("%q: got %q %q, want %q %q", tc.out, got, brand, tc.want, tc.brand)
		}
	}
}

// TestLinuxUserAgentKillsWhatItStarted: a binary that does not know
// --version and starts something long-lived instead (a wrapper that
// launches a browser) is killed with everything it forked, and nothing is
// learned.
func TestLinuxUserAgentKillsWhatItStarted(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	exe := script(t, "sleep 300 &\necho $! > "+pidFile+"\nwait\n")
	start := time.Now()
	if got, _ := LinuxUserAgent(context.Background(), exe); got != "" {
		t.Fatalf("got %q, want nothing", got)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("took %v", took)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); err != nil {
			break
		}
		if s, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(s), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the child (pid %d) the binary forked still runs", pid)
		}
	}
}
