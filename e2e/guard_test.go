package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lyrad/lyrad/internal/testenv"
)

// allowPopups writes the profile preference a person sets with "always
// allow pop-ups from this site", so a page can open a popup without a
// click (there is no click tool in this test).
func allowPopups(t *testing.T, dataDir, origin string) {
	t.Helper()
	dir := filepath.Join(dataDir, "profile", "Default")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	os.Chmod(filepath.Join(dataDir, "profile"), 0o700)
	prefs := map[string]any{"profile": map[string]any{"content_settings": map[string]any{"exceptions": map[string]any{
		"popups": map[string]any{origin + ",*": map[string]any{"setting": 1}},
	}}}}
	b, _ := json.Marshal(prefs)
	if err := os.WriteFile(filepath.Join(dir, "Preferences"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestPopupAndCrossSiteIframeAreHeld: a popup the page opens and a
// cross-site (out-of-process) iframe have their first request paused and
// judged by the guard, and so does the iframe's own later navigation. A
// popup to a site nothing approved is refused before its request leaves
// and opens no tab; once the site is approved the same popup loads.
func TestPopupAndCrossSiteIframeAreHeld(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	a.page("/opener", fmt.Sprintf(`<!doctype html><title>opener</title>
<iframe src="%s/frame"></iframe>
<script>window.open(%q, "_blank");</script>`, b.URL, b.URL+"/popup"))
	b.page("/popup", `<!doctype html><title>popup</title>popup`)
	b.page("/frame", `<!doctype html><title>frame</title><script>setTimeout(function(){ location.replace("/frame2") }, 50)</script>`)
	b.page("/frame2", `<!doctype html><title>frame2</title>second`)
	b.page("/approve", `<!doctype html><title>b</title>b`)

	dir := t.TempDir()
	allowPopups(t, dir, a.URL)
	cs := connectStdio(t, dir, proto2026)

	// 127.0.0.2 is not approved: the popup's first request is refused
	// before it leaves; the iframe is the page composing itself.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/opener", "wait_until": "load"}), "ok")
	waitFor(t, "both iframe documents to load", 10*time.Second, func() bool {
		return b.count("/frame") == 1 && b.count("/frame2") == 1
	})
	var rows []map[string]any
	waitFor(t, "the popup's refusal", 5*time.Second, func() bool {
		rows = auditRows(t, dir)
		return len(guardRows(rows, "/popup")) > 0
	})
	if n := b.count("/popup"); n != 0 {
		t.Errorf("the refused popup reached its site %d times", n)
	}
	popup := guardRows(rows, "/popup")
	opener := guardRows(rows, "/opener")
	if popup[0]["verdict"] != "deny" || popup[0]["target_type"] != "page" || popup[0]["target_id"] == opener[0]["target_id"] {
		t.Errorf("popup row %v (opener target %v)", popup[0], opener[0]["target_id"])
	}
	waitFor(t, "the refused popup's tab to close", 5*time.Second, func() bool {
		return call(t, cs, "get_url", nil)["tab_count"] == float64(1)
	})
	frame2 := guardRows(rows, "/frame2")
	if len(guardRows(rows, "/frame")) != 1 || len(frame2) != 1 {
		t.Fatalf("iframe documents judged %d and %d times, want once each", len(guardRows(rows, "/frame")), len(frame2))
	}
	// The cross-site iframe runs in its own process: its own navigation is
	// held by the iframe target's session.
	if frame2[0]["target_type"] != "iframe" {
		t.Errorf("the out-of-process iframe's navigation was judged on %v, want its iframe target", frame2[0]["target_type"])
	}

	// Approve 127.0.0.2, then the same popup goes through and the session
	// follows onto it.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": b.URL + "/approve"}), "ok")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/opener", "wait_until": "load"}), "ok")
	waitFor(t, "the approved popup to load", 10*time.Second, func() bool { return b.count("/popup") == 1 })
	waitFor(t, "the session to follow onto the popup", 5*time.Second, func() bool {
		env := call(t, cs, "get_url", nil)
		return env["url"] == b.URL+"/popup" && env["tab_count"] == float64(2)
	})
	rows = auditRows(t, dir)
	popup = guardRows(rows, "/popup")
	if len(popup) != 2 || popup[1]["verdict"] != "allow" {
		t.Errorf("approved popup rows %v", popup)
	}
}

// TestCutSocketKillsBrowser cuts lyrad's CDP connection from the outside
// (ss -K, as a crash of the socket would) while a tab is open: Chrome must
// be killed at once, every call answers guard_lost until close_browser, and
// the next open_browser is a fresh guarded browser.
func TestCutSocketKillsBrowser(t *testing.T) {
	needBrowser(t)
	needSS(t)
	s := friendly(t)
	for run := 0; run < 3; run++ {
		dir := t.TempDir()
		cs := connectStdio(t, dir, proto2026)
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
		pids := browserPIDs(t, dir)
		if len(pids) != 1 {
			t.Fatalf("browser pids %v", pids)
		}
		pid := pids[0]
		port := debugPort(t, pid)

		start := time.Now()
		cutSocket(t, port)
		cut := time.Since(start)
		for testenv.Running(pid) && time.Since(start) < 5*time.Second {
			time.Sleep(time.Millisecond / 2)
		}
		gone := time.Since(start)
		if testenv.Running(pid) {
			t.Fatalf("browser still running 5s after its guard connection was cut")
		}
		t.Logf("run %d: socket cut in %v; browser gone %v after the cut began", run+1, cut, gone)

		for _, tool := range []string{"get_url", "navigate", "open_browser"} {
			args := map[string]any{}
			if tool == "navigate" {
				args["url"] = s.URL + "/next"
			}
			env := call(t, cs, tool, args)
			if env["status"] != "guard_lost" || !strings.Contains(env["hint"].(string), "close_browser") {
				t.Errorf("%s after the cut: %v, want guard_lost naming close_browser", tool, env)
			}
		}
		var killed []map[string]any
		waitFor(t, "the kill to be audited", 5*time.Second, func() bool {
			killed = rowsWhere(auditRows(t, dir), has{"kind": "browser", "status": "killed"})
			return len(killed) > 0
		})
		t.Logf("run %d: lyrad saw the connection end and the browser exited %vms later", run+1, killed[0]["exit_ms"])
		if len(rowsWhere(auditRows(t, dir), has{"kind": "guard_lost"})) == 0 {
			t.Error("no guard_lost row in the audit trail")
		}
		wantStatus(t, call(t, cs, "close_browser", nil), "ok")
		env := call(t, cs, "open_browser", nil)
		wantStatus(t, env, "ok")
		if p := browserPIDs(t, dir); len(p) != 1 || p[0] == pid {
			t.Errorf("open_browser after guard_lost: pids %v (old %d)", p, pid)
		}
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/next"}), "ok")
		wantStatus(t, call(t, cs, "close_browser", nil), "ok")
	}
}
