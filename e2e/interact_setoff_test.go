package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// What an action set off: a navigation the guard refused (the tab has not
// moved, the destination saw nothing), a navigation it allowed (followed to
// the new page), a tab it opened (the session follows), the tab closing
// under it. Approval is off in these tests (the harness), so the guard
// refuses exactly what no grant covers: another site the agent never
// navigated to, and a form sent without submits=true.

func TestActionBlockedByPolicy(t *testing.T) {
	parallel(t)
	a1 := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	a1.page("/", fmt.Sprintf(`<!doctype html><title>home</title>
<a id=away href="%s/landing">Elsewhere</a>
<a id=bounce href="/bounce">Bounce</a>
<form method=post action="/post"><input id=msg name=msg><button id=send>Send</button></form>
<form method=post action="/post" id=f2><button type=button id=sneaky onclick="setTimeout(() => f2.submit(), 0)">Looks harmless</button></form>
<button id=hop onclick="document.title = confirm('Leave?') ? 'yes' : 'no'; location.href = '%s/landing'">Confirm then leave</button>`, b.URL, b.URL))
	a1.handle("/bounce", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b.URL+"/landing?secret=1", http.StatusFound)
	})
	a1.handle("/post", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>posted</title>thanks")
	})
	b.page("/landing", `<!doctype html><title>landing</title>`)
	a := newActor(t)
	a.open(a1.URL + "/")

	// A link to a site no approval covers.
	env := a.call("click", map[string]any{"selector": "#away"})
	wantStatus(t, env, "blocked_by_policy")
	if env["url"] != a1.URL+"/" || env["matches"] != float64(1) || element(env, "clicked")["name"] != "Elsewhere" || env["hint"] == nil {
		t.Errorf("refused link: %v", env)
	}
	// A same-site hop that redirects there: the origin it was sent to, never its path.
	env = a.call("click", map[string]any{"selector": "#bounce"})
	wantStatus(t, env, "blocked_by_policy")
	if env["redirected_to"] != b.URL || strings.Contains(jsonString(env), "secret") {
		t.Errorf("refused redirect: redirected_to=%v in %v", env["redirected_to"], env)
	}
	if b.count("/landing") != 0 {
		t.Fatalf("the refused destination was reached %d times", b.count("/landing"))
	}
	a.wantTitle("home")

	// A form sent without submits=true, by the button and by a script.
	wantStatus(t, a.call("type_text", map[string]any{"selector": "#msg", "text": "hi"}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#send"}), "blocked_by_policy")
	env = a.call("click", map[string]any{"selector": "#sneaky"})
	wantStatus(t, env, "blocked_by_policy")
	env = a.call("type_text", map[string]any{"selector": "#msg", "text": "hi", "submit": false})
	wantStatus(t, env, "ok")
	wantStatus(t, a.call("press_key", map[string]any{"key": "Enter"}), "blocked_by_policy")
	if a1.count("/post") != 0 {
		t.Fatalf("an undeclared form reached the server %d times", a1.count("/post"))
	}
	// Declared, it goes, and the click follows it to the page it loads.
	env = a.call("click", map[string]any{"selector": "#send", "submits": true})
	wantStatus(t, env, "ok")
	if env["navigated"] != true || env["title"] != "posted" || a1.count("/post") != 1 {
		t.Errorf("declared form: %v (server saw %d)", env, a1.count("/post"))
	}
	a.open(a1.URL + "/")
	env = a.call("type_text", map[string]any{"selector": "#msg", "text": "again", "submit": true})
	wantStatus(t, env, "ok")
	if a1.count("/post") != 2 || env["navigated"] != true {
		t.Errorf("type_text submit=true: %v (server saw %d)", env, a1.count("/post"))
	}

	// The dialog the refused action raised is kept in the reply.
	a.open(a1.URL + "/")
	env = a.call("click", map[string]any{"selector": "#hop"})
	wantStatus(t, env, "blocked_by_policy")
	ds, _ := env["dialogs"].([]any)
	if len(ds) != 1 || element(env, "clicked") == nil {
		t.Errorf("blocked reply lost its fields: %v", env)
	}

	// The audit row of a refused action carries the same status.
	if len(rowsWhere(auditRows(t, a.dir), has{"kind": "tool", "tool": "click", "status": "blocked_by_policy"})) == 0 {
		t.Error("no click row with status blocked_by_policy in the audit trail")
	}
}

func TestActionOpensTab(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	other := newSite(t, "127.0.0.2")
	s.page("/", fmt.Sprintf(`<!doctype html><title>opener</title>
<a id=blank target=_blank rel=opener href="/child">New tab</a>
<button id=pop onclick="window.open('/child', 'w', 'width=400,height=300')">Popup</button>
<button id=empty onclick="window.open('', '_blank')">Empty popup</button>
<button id=away onclick="window.open('%s/landing')">Popup elsewhere</button>
<input id=q onkeydown="if (event.key === 'Enter') window.open('/child')">`, other.URL))
	s.page("/child", `<!doctype html><title>child</title><button id=done onclick="window.close()">Done</button>`)
	other.page("/landing", `<!doctype html><title>landing</title>`)
	a := newActor(t)
	a.open(s.URL + "/")

	env := a.call("click", map[string]any{"selector": "#blank"})
	wantStatus(t, env, "ok")
	if env["new_tab"] != true || env["tab_count"] != float64(2) || env["url"] != s.URL+"/" || !strings.Contains(fmt.Sprint(env["hint"]), "tabs") {
		t.Errorf("target=_blank: %v", env)
	}
	if u := a.call("get_url", nil); u["url"] != s.URL+"/child" {
		t.Errorf("the session did not follow onto the new tab: %v", u)
	}
	wantStatus(t, a.call("tabs", map[string]any{"action": "close", "index": 1}), "ok")

	env = a.call("click", map[string]any{"selector": "#pop"})
	if env["new_tab"] != true || env["tab_count"] != float64(2) {
		t.Errorf("window.open: %v", env)
	}
	// A popup that closes itself: page_closed, and the session is back on
	// its opener.
	env = a.call("click", map[string]any{"selector": "#done"})
	wantStatus(t, env, "page_closed")
	if env["url"] != s.URL+"/" || env["tab_count"] != float64(1) || env["hint"] == nil {
		t.Errorf("self-closing popup: %v", env)
	}
	if u := a.call("get_url", nil); u["url"] != s.URL+"/" {
		t.Errorf("after the popup closed itself the session is on %v", u["url"])
	}

	env = a.call("click", map[string]any{"selector": "#empty"})
	if env["new_tab"] != true || env["tab_count"] != float64(2) {
		t.Errorf("an empty popup: %v", env)
	}
	wantStatus(t, a.call("tabs", map[string]any{"action": "close", "index": 1}), "ok")

	// A key press that opens one.
	wantStatus(t, a.call("type_text", map[string]any{"selector": "#q", "text": "x"}), "ok")
	env = a.call("press_key", map[string]any{"key": "Enter"})
	if env["new_tab"] != true {
		t.Errorf("press_key that opens a tab: %v", env)
	}
	wantStatus(t, a.call("tabs", map[string]any{"action": "close", "index": 1}), "ok")

	// A popup whose first navigation is refused opens no tab.
	start := time.Now()
	env = a.call("click", map[string]any{"selector": "#away"})
	wantStatus(t, env, "blocked_by_policy")
	t.Logf("refused popup answered in %v", time.Since(start))
	if env["new_tab"] == true {
		t.Errorf("refused popup reported as a new tab: %v", env)
	}
	waitFor(t, "the refused popup to close", 5*time.Second, func() bool {
		return a.call("tabs", nil)["tab_count"] == float64(1)
	})
	if other.count("/landing") != 0 {
		t.Errorf("the refused popup's destination was reached")
	}
}

// TestActionOpensNoopenerTab: a plain target=_blank link opens its tab in a
// new process (noopener). Such a target answers no renderer command while it
// is held at start; the guard sends its setup and lets it run before it
// reads the answers, so the tab is guarded and the browser stays up (it
// used to be killed as unguarded 10 s later).
func TestActionOpensNoopenerTab(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>opener</title><a id=blank target=_blank href="/child">New tab</a>`)
	s.page("/child", `<!doctype html><title>child</title>`)
	a := newActor(t)
	a.open(s.URL + "/")
	env := a.call("click", map[string]any{"selector": "#blank"})
	wantStatus(t, env, "ok")
	if env["new_tab"] != true || env["tab_count"] != float64(2) {
		t.Errorf("target=_blank: %v", env)
	}
	// The new tab's first request was held and judged like any other.
	if rows := guardRows(auditRows(t, a.dir), "/child"); len(rows) != 1 || rows[0]["verdict"] != "allow" {
		t.Errorf("the noopener tab's first request: %v", rows)
	}
	// The guard lists a tab only once every setup reply was read (it is
	// ready), and a ready tab has nothing left to wait for that could time
	// out: so the tab is guarded for good, whatever the guard's setup bound.
	// A guard that read the replies before letting it run would answer
	// nothing here until the bound, then fail closed (guard_lost).
	if u := a.call("tabs", nil); u["tab_count"] != float64(2) {
		t.Errorf("the noopener tab is not listed as guarded: %v", u)
	}
	if u := a.call("get_url", nil); u["status"] != "ok" || u["url"] != s.URL+"/child" {
		t.Errorf("after a noopener tab opened: %v", u)
	}
}

// TestActUsableBeforeApproval: the usability check runs before permission
// is asked, so an unusable control neither prompts nor buys a grant. With
// consent through confirm=true only, a usable control asks
// (approval_required), an unusable one answers what is wrong with it.
func TestActUsableBeforeApproval(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>form</title>
<form method=post action="/post"><button id=off disabled>Off</button><button id=on>On</button></form>`)
	dir := t.TempDir()
	a := &actor{t: t, cs: connectStdio(t, dir, proto2026, "LYRA_BROWSER_CONSENT_CHANNEL=legacy"), dir: dir}
	wantStatus(t, a.call("navigate", map[string]any{"url": s.URL + "/", "confirm": true}), "ok")
	consents := func() int { return len(rowsWhere(auditRows(t, dir), has{"kind": "consent"})) }
	before := consents()
	// The budget only bounds the wait for the control; 1.5 s leaves a
	// loaded machine room to find it and tell.
	wantFailure(t, a.call("click", map[string]any{"selector": "#off", "submits": true, "timeout_ms": 1500}), "disabled", "#off")
	wantFailure(t, a.call("click", map[string]any{"selector": "#none", "submits": true, "timeout_ms": 1500}), "not_found", "#none")
	if consents() != before {
		t.Errorf("an unusable control asked for approval")
	}
	env := a.call("click", map[string]any{"selector": "#on", "submits": true})
	wantStatus(t, env, "approval_required")
	env = a.call("click", map[string]any{"selector": "#on", "submits": true, "confirm": true})
	wantStatus(t, env, "ok")
	if s.count("/post") != 1 || env["navigated"] != true {
		t.Errorf("confirmed submit: %v (server saw %d)", env, s.count("/post"))
	}
}
