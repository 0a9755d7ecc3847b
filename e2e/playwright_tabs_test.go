package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestPlaywrightTabsNew: browser_tabs action=new opens a tab and the
// session is on it; with a url it loads it as browser_navigate does. A
// hostile url opens nothing that reaches its host: one the user was not
// asked about answers approval_required, one that hops through a redirect
// to another site answers blocked_by_policy, and either way the session
// stays on its tab and no tab is left behind.
func TestPlaywrightTabsNew(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	a.page("/", `<!doctype html><title>Home</title><h1>Home</h1>`)
	a.page("/second", `<!doctype html><title>Second</title><button>Second button</button>`)
	redirector(a, b.URL+"/landing")
	b.page("/landing", `<!doctype html><title>B</title>you should not be here`)
	dir := t.TempDir()
	cs := connectPW(t, dir, []string{"--allowed-origins", a.URL}, nil, "LYRA_BROWSER_CONSENT_CHANNEL=auto")
	pwOK(t, cs, "browser_navigate", map[string]any{"url": a.URL + "/"})

	ans := pwOK(t, cs, "browser_tabs", map[string]any{"action": "new", "url": a.URL + "/second"})
	if want := "- 0: [Home](" + a.URL + "/)\n- 1: (current) [Second](" + a.URL + "/second)"; ans.section("Result") != want {
		t.Errorf("tabs new with a url: ### Result\n%s\nwant\n%s\n%s", ans.section("Result"), want, ans.text)
	}
	if !strings.Contains(ans.section("Page"), "- Page Title: Second") || !strings.Contains(ans.section("Snapshot"), `- button "Second button" [ref=`) {
		t.Errorf("tabs new answers the new tab's page and snapshot:\n%s", ans.text)
	}
	if n := a.count("/second"); n != 1 {
		t.Errorf("the new tab loaded /second %d times, want 1", n)
	}
	ans = pwOK(t, cs, "browser_tabs", map[string]any{"action": "new"})
	if got := ans.section("Result"); !strings.Contains(got, "- 2: (current) [") || !strings.HasSuffix(got, "](about:blank)") {
		t.Errorf("tabs new without a url:\n%s", ans.text)
	}
	pwOK(t, cs, "browser_tabs", map[string]any{"action": "select", "index": 0})

	refused := func(what, url, status string) {
		t.Helper()
		ans := pwCall(t, cs, "browser_tabs", map[string]any{"action": "new", "url": url})
		if !ans.isError || !strings.Contains(ans.text, "("+status+")") {
			t.Errorf("%s: want ### Error with %s:\n%s", what, status, ans)
		}
		list := pwOK(t, cs, "browser_tabs", map[string]any{"action": "list"})
		if got := list.section("Result"); strings.Count(got, "\n- ")+1 != 3 || !strings.Contains(got, "- 0: (current) [Home]") {
			t.Errorf("%s: a tab left behind, or the session moved:\n%s", what, got)
		}
	}
	refused("a site the user was not asked about", b.URL+"/landing", "approval_required")
	refused("a redirect hop to another site", a.URL+"/redirect?code=302", "blocked_by_policy")
	// The hop was judged: its refusal is in the audit, so whatever would
	// have reached the other site has had its chance.
	waitFor(t, "the guard's refusal of the hop", 30*time.Second, func() bool { return len(refusals(t, dir, "/landing")) > 0 })
	if n := b.count("/landing"); n != 0 {
		t.Errorf("the other site was reached %d times", n)
	}
	if a.count("/redirect") == 0 {
		t.Errorf("the redirect was never requested: this proves nothing")
	}
}
