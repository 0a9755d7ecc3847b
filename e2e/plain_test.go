package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// Plain Chromium: the baselines lyrad is compared with. Its command line is
// written here, not taken from the chrome package, so that a switch added
// to lyrad's launch (a software WebGL, an automation tell) shows as a
// difference instead of turning up on both sides of the comparison.

// plainArgs is the command line a person's own Chromium would run with, as
// far as a test can: a fresh profile, no first-run pages.
func plainArgs(profile string, headless bool) []string {
	args := []string{"--user-data-dir=" + profile, "--no-first-run", "--no-default-browser-check"}
	if headless {
		args = append(args, "--headless")
	}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox") // as lyrad does: Chrome refuses root otherwise
	}
	return args
}

// startPlain starts the browser needBrowser finds with args in its own
// process group; stop kills the group, and cleanup does too.
func startPlain(t *testing.T, args ...string) (stop func()) {
	t.Helper()
	cmd := exec.Command(needBrowser(t), args...)
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			killGroup(cmd)
			_ = cmd.Wait()
		})
	}
	t.Cleanup(stop)
	return stop
}

// plainChromium starts plain Chromium (plainArgs) with a debugging port and
// dials it with a bare CDP client, which enables nothing: the baseline the
// invisibility tests compare lyrad with. close ends both.
func plainChromium(t *testing.T, headless bool) (conn *cdpconn.Conn, close func()) {
	t.Helper()
	profile := t.TempDir()
	stop := startPlain(t, append(plainArgs(profile, headless), "--remote-debugging-port=0", "about:blank")...)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var ws string
	waitFor(t, "plain Chromium's DevToolsActivePort", 60*time.Second, func() bool {
		b, _ := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) == 2 {
			ws = "ws://127.0.0.1:" + strings.TrimSpace(lines[0]) + strings.TrimSpace(lines[1])
		}
		return ws != ""
	})
	conn, err := cdpconn.Dial(ctx, ws, cdpconn.Options{})
	if err != nil {
		stop()
		t.Fatal(err)
	}
	return conn, func() {
		conn.Close()
		stop()
	}
}

// rawChromium starts plain Chromium (plainArgs, headless) on url, with no
// DevTools client and none of the preferences or switches lyrad launches
// with. It is the control run for a test that shows lyrad stops an attack:
// in it the attack must land, or the test's pass means nothing. stop kills
// the browser (its process group); cleanup does too.
func rawChromium(t *testing.T, url string) (stop func()) {
	t.Helper()
	return startPlain(t, append(plainArgs(t.TempDir(), true), url)...)
}

// plainTab opens a tab in a plain Chromium (plainChromium, closed when the
// test ends) and attaches to it: the context bounds the test's calls.
func plainTab(t *testing.T, timeout time.Duration) (context.Context, *cdpconn.Session) {
	t.Helper()
	conn, closeBrowser := plainChromium(t, true)
	t.Cleanup(closeBrowser)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	tg, err := cdp.Call(ctx, conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	flatten := true
	att, err := cdp.Call(ctx, conn.Browser(), target.AttachToTarget, target.AttachToTargetParams{TargetID: tg.TargetID, Flatten: &flatten})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, conn.Session(att.SessionID)
}
