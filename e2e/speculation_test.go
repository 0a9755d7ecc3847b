package e2e

import (
	"fmt"
	"testing"
	"time"
)

// TestSpeculationRulesDoNotEscape: a page's speculation rules may not
// prefetch or prerender another origin, nor activate a navigation nobody
// judged.
func TestSpeculationRulesDoNotEscape(t *testing.T) {
	needBrowser(t)
	// Control: in Chromium with none of lyrad's settings, the rules reach
	// the other origin (prefetch and prerender both). So a pass below is
	// lyrad's doing, not rules that never fire. The time they took from the
	// page's load bounds how long lyrad's runs are watched.
	ca, cb := speculationSites(t)
	start := time.Now()
	stop := rawChromium(t, ca.URL+"/rules")
	loaded := start
	var took time.Duration
	waitFor(t, "plain Chromium's cross-origin prefetch and prerender", 60*time.Second, func() bool {
		if loaded == start && ca.count("/rules") > 0 {
			loaded = time.Now()
		}
		took = time.Since(loaded)
		return cb.count("/pf") > 0 && cb.count("/pr") > 0
	})
	stop()
	window := max(1500*time.Millisecond, 2*took)
	t.Logf("control: plain Chromium prefetched and prerendered the other origin %v after fetching the page; lyrad is watched %v", took.Round(time.Millisecond), window.Round(time.Millisecond))

	a, b := speculationSites(t)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)
	// Twice: on a fresh profile, and on the same profile once the browser
	// has written its own preferences.
	for i := 0; i < 2; i++ {
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/rules", "wait_until": "load"}), "ok")
		time.Sleep(window) // nothing to wait on when nothing happens: twice what the control took
		if b.count("/pf") != 0 || b.count("/pr") != 0 {
			t.Errorf("launch %d: speculation reached the unapproved origin: prefetch %d, prerender %d", i+1, b.count("/pf"), b.count("/pr"))
		}
		wantStatus(t, call(t, cs, "close_browser", nil), "ok")
	}
	t.Logf("cross-origin prefetch reached %d, prerender %d; same-origin prerender fetched %d times (judged rows %d)",
		b.count("/pf"), b.count("/pr"), a.count("/same-pr"), len(guardRows(auditRows(t, dir), "/same-pr")))
	// Nothing was loaded behind the guard's back: any same-origin
	// prerender that was fetched went through the guard.
	if a.count("/same-pr") > len(guardRows(auditRows(t, dir), "/same-pr")) {
		t.Errorf("a prerender fetched %d times but judged %d", a.count("/same-pr"), len(guardRows(auditRows(t, dir), "/same-pr")))
	}
}

// TestHistoryNavigationIsJudged: going back to a page is a navigation like
// any other; a page restored from the back/forward cache would arrive with
// no request to judge. Grants expire here (TTL 2 s), so going back must be
// refused.
func TestHistoryNavigationIsJudged(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	a.page("/first", `<!doctype html><title>first</title>first`)
	b.page("/second", `<!doctype html><title>second</title><script>
setTimeout(() => history.back(), 3500);
</script>`)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026, "LYRA_BROWSER_GRANT_TTL=2")
	// A launch takes longer than the grants last: open first.
	wantStatus(t, call(t, cs, "open_browser", nil), "ok")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/first"}), "ok")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": b.URL + "/second"}), "ok")
	waitFor(t, "the history step to be judged", 15*time.Second, func() bool { return len(guardRows(auditRows(t, dir), "/first")) >= 2 })
	time.Sleep(300 * time.Millisecond)
	env := call(t, cs, "get_url", nil)
	rows := guardRows(auditRows(t, dir), "/first")
	t.Logf("after history.back with expired grants: tab at %v; /first judged %d times, fetched %d times", env["url"], len(rows), a.count("/first"))
	if env["url"] != b.URL+"/second" {
		t.Errorf("history navigation went through unjudged: tab at %v", env["url"])
	}
	if len(rows) != 2 || rows[1]["verdict"] != "deny" {
		t.Errorf("the history navigation was not judged and refused: %v", rows)
	}
}

// speculationSites: a page on a whose speculation rules prefetch and
// prerender pages of b (another origin), and prerender one of its own.
func speculationSites(t *testing.T) (a, b *site) {
	a = newSite(t, "127.0.0.1")
	b = newSite(t, "127.0.0.2")
	b.page("/pf", `<title>prefetched</title>`)
	b.page("/pr", `<title>prerendered</title>`)
	a.page("/same-pr", `<title>same-origin prerender</title>`)
	a.page("/rules", fmt.Sprintf(`<!doctype html><title>rules</title>
<script type="speculationrules">{
 "prefetch": [{"source": "list", "urls": [%q], "eagerness": "immediate"}],
 "prerender": [{"source": "list", "urls": [%q, %q], "eagerness": "immediate"}]
}</script>
<a id=pf href=%q>prefetched link</a>`, b.URL+"/pf", b.URL+"/pr", a.URL+"/same-pr", b.URL+"/pf"))
	return a, b
}
