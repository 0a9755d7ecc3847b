package e2e

import (
	"fmt"
	"testing"
	"time"
)

func tabURLs(t *testing.T, env map[string]any) []string {
	t.Helper()
	var out []string
	list, _ := env["tabs"].([]any)
	for _, x := range list {
		out = append(out, fmt.Sprint(x.(map[string]any)["url"]))
	}
	return out
}

// TestTabs: the list, switching, closing (the active tab, another one, the
// last one), bad indexes, and the tabs a page opens being followed.
func TestTabs(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	for _, p := range []string{"one", "two", "three"} {
		s.page("/"+p, fmt.Sprintf(`<!doctype html><title>%[1]s</title>
<button id=open onclick="window.open('/%[1]s-child')">Open</button>`, p))
		s.page("/"+p+"-child", fmt.Sprintf(`<!doctype html><title>%s child</title>
<button id=close onclick="window.close()">Close me</button>`, p))
	}
	a := newActor(t)
	a.open(s.URL + "/one")

	env := a.call("tabs", nil)
	wantStatus(t, env, "ok")
	if env["tab_count"] != float64(1) || env["active_index"] != float64(0) {
		t.Errorf("one tab: %v", env)
	}
	// Tabs the page opens are followed; each opener is remembered.
	wantStatus(t, a.call("click", map[string]any{"selector": "#open"}), "ok")
	a.wantTitle("one child")
	wantStatus(t, a.call("navigate", map[string]any{"url": s.URL + "/two"}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#open"}), "ok")
	a.wantTitle("two child")
	env = a.call("tabs", map[string]any{"action": "list"})
	if got := tabURLs(t, env); len(got) != 3 || got[0] != s.URL+"/one" || got[1] != s.URL+"/two" || got[2] != s.URL+"/two-child" {
		t.Fatalf("tabs %v", got)
	}
	if env["active_index"] != float64(2) {
		t.Errorf("active_index = %v, want the newest", env["active_index"])
	}

	// Switch: the session reads and acts on that tab.
	env = a.call("tabs", map[string]any{"action": "switch", "index": 0})
	wantStatus(t, env, "ok")
	if env["url"] != s.URL+"/one" || env["active_index"] != float64(0) {
		t.Errorf("switch: %v", env)
	}
	a.wantTitle("one")

	// Close a tab that is not the active one: the session stays.
	env = a.call("tabs", map[string]any{"action": "close", "index": 2})
	wantStatus(t, env, "ok")
	if env["tab_count"] != float64(2) || env["url"] != s.URL+"/one" || element(env, "closed")["url"] != s.URL+"/two-child" {
		t.Errorf("close another tab: %v", env)
	}

	// Close the active tab: the session moves to the tab that opened it.
	wantStatus(t, a.call("tabs", map[string]any{"action": "switch", "index": 1}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#open"}), "ok") // two-child, opened by two
	wantStatus(t, a.call("tabs", map[string]any{"action": "switch", "index": 0}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#open"}), "ok") // one-child, opened by one
	env = a.call("tabs", nil)
	if got := tabURLs(t, env); len(got) != 4 || got[3] != s.URL+"/one-child" {
		t.Fatalf("tabs %v", got)
	}
	wantStatus(t, a.call("tabs", map[string]any{"action": "switch", "index": 2}), "ok") // two-child
	env = a.call("tabs", map[string]any{"action": "close", "index": 2})
	if env["url"] != s.URL+"/two" {
		t.Errorf("closing the active tab went to %v, want its opener %s/two", env["url"], s.URL)
	}

	// A popup that closes itself sends the session back to its opener.
	wantStatus(t, a.call("tabs", map[string]any{"action": "switch", "index": 2}), "ok") // one-child
	wantStatus(t, a.call("click", map[string]any{"selector": "#close"}), "page_closed")
	if u := a.call("get_url", nil); u["url"] != s.URL+"/one" || u["tab_count"] != float64(2) {
		t.Errorf("after the popup closed itself: %v", u)
	}

	// Bad indexes: not_found with tab_count; a missing one: an error.
	for _, idx := range []int{2, -1, 99} {
		env := a.call("tabs", map[string]any{"action": "switch", "index": idx})
		if env["status"] != "not_found" || env["tab_count"] != float64(2) || env["hint"] == nil {
			t.Errorf("switch to %d: %v", idx, env)
		}
	}
	if env := a.call("tabs", map[string]any{"action": "close"}); env["status"] != "error" || env["argument"] != "index" {
		t.Errorf("close without index: %v", env)
	}
	if env := a.call("tabs", map[string]any{"index": 0}); env["status"] != "error" || env["argument"] != "index" {
		t.Errorf("list with an index: %v", env)
	}

	// Closing down to the last tab leaves a blank one.
	wantStatus(t, a.call("tabs", map[string]any{"action": "close", "index": 0}), "ok")
	env = a.call("tabs", map[string]any{"action": "close", "index": 0})
	wantStatus(t, env, "ok")
	if env["tab_count"] != float64(1) || env["url"] != "about:blank" {
		t.Errorf("closing the last tab: %v", env)
	}
	if u := a.call("get_url", nil); u["url"] != "about:blank" {
		t.Errorf("after closing the last tab: %v", u)
	}
	a.open(s.URL + "/three")
	a.wantTitle("three")
}

// TestTabsStuckPage: a tab stuck in a script loop is listed (from the
// browser, not the page), and the session can switch away from it.
func TestTabsStuckPage(t *testing.T) {
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>fine</title><button id=open onclick="window.open('/stuck')">Open</button>`)
	s.page("/stuck", `<!doctype html><title>stuck</title><script>setTimeout(() => { for (;;) {} }, 100)</script>`)
	a := newActor(t)
	a.open(s.URL + "/")
	wantStatus(t, a.call("click", map[string]any{"selector": "#open"}), "ok")
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	env := a.call("tabs", nil)
	wantStatus(t, env, "ok")
	if env["tab_count"] != float64(2) || time.Since(start) > 3*time.Second {
		t.Errorf("list with a stuck tab: %v after %v", env, time.Since(start))
	}
	wantStatus(t, a.call("tabs", map[string]any{"action": "switch", "index": 0}), "ok")
	a.wantTitle("fine")
	env = a.call("tabs", map[string]any{"action": "close", "index": 1})
	wantStatus(t, env, "ok")
	if env["tab_count"] != float64(1) {
		t.Errorf("closing the stuck tab: %v", env)
	}
}

// TestTabsCloseActiveNoOpener: closing the active tab whose opener is gone
// moves the session to the newest tab.
func TestTabsCloseActiveNoOpener(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>root</title><button id=open onclick="window.open('/kid?' + Date.now())">Open</button>`)
	s.page("/kid", `<!doctype html><title>kid</title>`)
	a := newActor(t)
	a.open(s.URL + "/")
	wantStatus(t, a.call("click", map[string]any{"selector": "#open"}), "ok")
	wantStatus(t, a.call("tabs", map[string]any{"action": "switch", "index": 0}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#open"}), "ok")
	env := a.call("tabs", nil)
	urls := tabURLs(t, env)
	if len(urls) != 3 {
		t.Fatalf("tabs %v", urls)
	}
	newest := urls[2]
	wantStatus(t, a.call("tabs", map[string]any{"action": "switch", "index": 1}), "ok")
	wantStatus(t, a.call("tabs", map[string]any{"action": "close", "index": 0}), "ok") // the opener
	env = a.call("tabs", map[string]any{"action": "close", "index": 0})                // the active tab
	wantStatus(t, env, "ok")
	if env["url"] != newest || env["tab_count"] != float64(1) {
		t.Errorf("closing the active tab with no opener left: %v, want %s", env, newest)
	}
}
