package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestHistory: go_back and reload_page report what navigate reports, a
// page restored from the back/forward cache reports no HTTP response, a step
// within one document loads nothing, and there is no going back from the
// first page.
func TestHistory(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/a", `<!doctype html><title>A</title><a id=next href="/b">B</a><a id=frag href="#part">part</a>`)
	// /b may not be kept in the back/forward cache: no-store.
	s.handle("/b", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, `<!doctype html><title>B</title><a id=next href="/c">C</a>`)
	})
	s.handle("/c", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(404)
		fmt.Fprint(w, `<!doctype html><title>C</title>gone`)
	})
	a := newActor(t)
	wantStatus(t, a.call("open_browser", nil), "ok")
	env := a.call("go_back", nil)
	if env["status"] != "not_found" || env["hint"] == nil {
		t.Errorf("go_back from the first page: %v", env)
	}
	a.open(s.URL + "/a")

	wantStatus(t, a.call("click", map[string]any{"selector": "#next"}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#next"}), "ok")
	a.wantTitle("C")

	env = a.call("reload_page", map[string]any{"wait_until": "load"})
	wantStatus(t, env, "ok")
	if env["http_status"] != float64(404) || env["content_type"] != "text/html" || env["url"] != s.URL+"/c" || s.count("/c") != 2 {
		t.Errorf("reload of a 404: %v (server saw %d)", env, s.count("/c"))
	}

	// Back to /b, which may not be cached: the server answers again.
	env = a.call("go_back", nil)
	wantStatus(t, env, "ok")
	if env["url"] != s.URL+"/b" || env["title"] != "B" || env["http_status"] != float64(200) || env["from_cache"] != nil || s.count("/b") != 2 {
		t.Errorf("go_back to a no-store page: %v (server saw %d)", env, s.count("/b"))
	}

	// Back to /a, which the browser may restore from its back/forward cache
	// (no HTTP response: nulls) or load from its HTTP cache (the cached
	// response's status).
	hits := s.count("/a")
	env = a.call("go_back", map[string]any{"wait_until": "load"})
	wantStatus(t, env, "ok")
	if env["url"] != s.URL+"/a" || env["title"] != "A" {
		t.Errorf("go_back to /a: %v", env)
	}
	if env["from_cache"] == true {
		if env["http_status"] != nil || env["content_type"] != nil {
			t.Errorf("restored from the back/forward cache but reported %v", env)
		}
	} else if env["http_status"] != float64(200) || env["content_type"] != "text/html" {
		t.Errorf("go_back to /a: %v", env)
	}
	t.Logf("go_back to /a: from_cache=%v http_status=%v (server requests for /a: %d -> %d)", env["from_cache"], env["http_status"], hits, s.count("/a"))

	// A step within the document.
	wantStatus(t, a.call("click", map[string]any{"selector": "#frag"}), "ok")
	env = a.call("go_back", nil)
	wantStatus(t, env, "ok")
	if env["url"] != s.URL+"/a" || env["http_status"] != nil {
		t.Errorf("go_back within the document: %v", env)
	}

	if env := a.call("reload_page", map[string]any{"wait_until": "soon"}); env["status"] != "error" || env["argument"] != "wait_until" {
		t.Errorf("bad wait_until: %v", env)
	}
}

// TestHistoryBlocked: going back to a site whose approval has lapsed is
// refused like a navigation there: the tab stays, and the site sees nothing.
func TestHistoryBlocked(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	other := newSite(t, "127.0.0.2")
	other.handle("/start", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, `<!doctype html><title>start</title>`)
	})
	s.page("/here", `<!doctype html><title>here</title>`)
	dir := t.TempDir()
	// Grants that lapse after a second.
	a := &actor{t: t, cs: connectStdio(t, dir, proto2026, "LYRA_BROWSER_GRANT_TTL=1"), dir: dir}
	wantStatus(t, a.call("open_browser", nil), "ok") // a launch takes longer than the grants last
	a.open(other.URL + "/start")
	a.open(s.URL + "/here")
	time.Sleep(1500 * time.Millisecond)
	env := a.call("go_back", nil)
	wantStatus(t, env, "blocked_by_policy")
	if env["url"] != s.URL+"/here" || env["hint"] == nil {
		t.Errorf("refused go_back: %v", env)
	}
	if other.count("/start") != 1 {
		t.Errorf("the refused destination was reached again (%d requests)", other.count("/start"))
	}
	a.wantTitle("here")
}
