package e2e

import (
	"fmt"
	"os"
	"testing"
	"time"
)

// TestObserveMode: LYRA_BROWSER_ENFORCEMENT=observe refuses nothing and
// spends nothing; each would-be refusal is audited would_deny.
func TestObserveMode(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	b.page("/landing", `<title>B</title>`)
	a.page("/", `<title>A</title>`)
	redirector(a, b.URL+"/landing")
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026, "LYRA_BROWSER_ENFORCEMENT=observe")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/"}), "ok")
	env := call(t, cs, "navigate", map[string]any{"url": a.URL + "/redirect?code=302"})
	wantStatus(t, env, "ok")
	if env["url"] != b.URL+"/landing" || b.count("/landing") != 1 {
		t.Errorf("observe mode refused: %v, destination reached %d", env, b.count("/landing"))
	}
	would := len(rowsWhere(auditRows(t, dir), has{"kind": "guard", "would_deny": true, "verdict": "allow"}))
	if would != 1 {
		t.Errorf("%d would_deny rows, want 1 (the redirect hop)", would)
	}
}

// TestGrantsDieWithTheTurn: close_browser drops the session's grants; the
// next navigation to the same site is asked again.
func TestGrantsDieWithTheTurn(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	cs := connectAsking(t, t.TempDir(), proto2026, nil)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/", "confirm": true}), "ok")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/next"}), "ok") // granted: not asked
	wantStatus(t, call(t, cs, "close_browser", nil), "ok")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/next"}), "approval_required")
}

// TestFileURLGrantCoversOnce: every file: URL would otherwise be one site,
// and one yes a yes to the whole disk; a grant names the URL and covers it
// once.
func TestFileURLGrantCoversOnce(t *testing.T) {
	parallel(t)
	needBrowser(t)
	dir := t.TempDir()
	page := dir + "/page.html"
	if err := os.WriteFile(page, []byte("<title>local</title>local file"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	cs := connectAsking(t, data, proto2026, nil)
	u := "file://" + page
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": u}), "approval_required")
	env := call(t, cs, "navigate", map[string]any{"url": u, "confirm": true})
	wantStatus(t, env, "ok")
	if env["title"] != "local" {
		t.Errorf("file page: %v", env)
	}
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": u}), "approval_required")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": "file://" + dir + "/other.html"}), "approval_required")
	// The guard judged the load itself and spent the grant on it.
	rows := guardRows(auditRows(t, data), "/page.html")
	if len(rows) != 1 || rows[0]["spent"] != "NAVIGATE" {
		t.Errorf("file: load judged as %v, want one row spending the single-use grant", rows)
	}
}

// TestTabsAskForTheTabsOwnSite: switching to or closing a tab asks for
// INTERACT on that tab's site, not the active page's: being approved for
// one site is no licence to act on another's.
func TestTabsAskForTheTabsOwnSite(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	a.page("/", fmt.Sprintf(`<!doctype html><title>A</title><script>window.open(%q)</script>`, b.URL+"/b"))
	b.page("/b", `<title>B</title>`)
	data := t.TempDir()
	allowPopups(t, data, a.URL)
	cs := connectAsking(t, data, proto2026, nil, "LYRA_BROWSER_TRUSTED_ORIGINS="+b.URL, "LYRA_BROWSER_GRANT_TTL=2")
	// A launch takes longer than the grant lasts: open first.
	wantStatus(t, call(t, cs, "open_browser", nil), "ok")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/", "confirm": true, "wait_until": "load"}), "ok")
	waitFor(t, "the session to follow onto B's popup", 5*time.Second, func() bool {
		env := call(t, cs, "get_url", nil)
		return env["tab_count"] == float64(2) && env["url"] == b.URL+"/b"
	})
	time.Sleep(2500 * time.Millisecond) // A's approval lapses; B stays trusted
	env := call(t, cs, "tabs", map[string]any{"action": "switch", "index": 0})
	if env["status"] != "approval_required" || env["origin"] != a.URL {
		t.Fatalf("switching to A's tab from B: %v, want approval_required for %s", env, a.URL)
	}
	wantStatus(t, call(t, cs, "tabs", map[string]any{"action": "switch", "index": 0, "confirm": true}), "ok")
	if env := call(t, cs, "get_url", nil); env["url"] != a.URL+"/" {
		t.Errorf("after switching: %v", env)
	}
}
