//go:build unix

package launch

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"go.uber.org/zap/zaptest"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/internal/cdptest"
)

// droppingChrome is a DevTools endpoint that answers the first answer
// commands with an empty result and then drops the connection, as a
// crashing socket would.
func droppingChrome(t *testing.T, answer int) (port string) {
	t.Helper()
	var seen atomic.Int32
	p := cdptest.New(t, func(c *cdptest.Conn, m cdproto.Message) {
		if int(seen.Add(1)) > answer {
			c.WS().CloseNow()
			return
		}
		c.Reply(m, map[string]any{})
		if int(seen.Load()) == answer {
			c.WS().CloseNow()
		}
	})
	u, err := url.Parse(p.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

// stubBrowser writes a DevToolsActivePort naming port, records its pid and
// sleeps, as a browser would run.
func stubBrowser(t *testing.T, dir, port string) (exe, pidFile string) {
	t.Helper()
	exe = filepath.Join(dir, "stub-browser")
	pidFile = filepath.Join(dir, "stub.pid")
	script := `#!/bin/sh
[ "$1" = --version ] && { echo "Stub 1"; exit 0; }
for a in "$@"; do case "$a" in --user-data-dir=*) d="${a#--user-data-dir=}";; esac; done
echo $$ > ` + pidFile + `
printf '` + port + `\n/devtools/browser/stub\n' > "$d/DevToolsActivePort"
exec sleep 300
`
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe, pidFile
}

// TestConnectionLostWhileLaunching: the CDP connection drops while the
// browser is asked for its client hints (no guard yet), or right after the
// guard attached: the launch fails (an *Error, which session answers
// browser_unavailable), the browser is killed, the profile is free again;
// nothing panics, and the caller's attachment is aborted, never readied.
func TestConnectionLostWhileLaunching(t *testing.T) {
	for _, tc := range []struct {
		name    string
		answer  int  // commands answered before the drop
		learned bool // client hints known: no learning page
	}{
		{"during the client-hints page", 0, false},
		{"after the guard attached", 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			exe, pidFile := stubBrowser(t, t.TempDir(), droppingChrome(t, tc.answer))
			if tc.learned {
				ua := `{"executable":"` + exe + `","executable_stamp":"` + executableStamp(exe) + `","product":"Stub/1","user_agent":"Mozilla/5.0 Stub","client_hints":{"platform":"Linux"}}`
				if err := os.WriteFile(datadir.New(dir).BrowserUA(), []byte(ua), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			headless := true
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var attached, aborted, readied atomic.Int32
			_, err := Start(ctx, Options{Data: datadir.New(dir), Executable: exe, Headless: &headless, Logger: zaptest.NewLogger(t),
				Attach: func(context.Context, *Browser) Attachment {
					attached.Add(1)
					return Attachment{Abort: func() { aborted.Add(1) }, Ready: func(*cdpguard.Guard) error { readied.Add(1); return nil }}
				}})
			var le *Error
			if !errors.As(err, &le) || le.Step < StepConnect {
				t.Fatalf("Start = %v, want a connection or guard failure", err)
			}
			t.Log(err)
			if attached.Load() != 1 || aborted.Load() != 1 || readied.Load() != 0 {
				t.Errorf("attached %d, aborted %d, readied %d times; want 1, 1, 0", attached.Load(), aborted.Load(), readied.Load())
			}
			b, _ := os.ReadFile(pidFile)
			pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
			if pid <= 0 {
				t.Fatal("the stub browser never ran")
			}
			for deadline := time.Now().Add(5 * time.Second); syscall.Kill(pid, 0) == nil && !zombie(pid); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the browser (pid %d) still runs after the failed launch", pid)
				}
			}
			prof, release, err := datadir.New(dir).AcquireProfile(nil)
			if err != nil {
				t.Fatal(err)
			}
			release()
			if prof.Kind != datadir.KindPersistent {
				t.Errorf("the failed launch kept the profile: the next one got %s", prof.Kind)
			}
		})
	}
}

// zombie: dead, waiting to be reaped (or gone).
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] == 'Z'
}
