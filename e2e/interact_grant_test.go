package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// INTERACT is checked on the origin of the document an action reaches, for
// every acting tool, and renewed by use. These run with approval through
// confirm=true only (LYRA_BROWSER_CONSENT_CHANNEL=legacy), so an action
// INTERACT does not cover answers approval_required until it is repeated
// with confirm=true. Whether an action happened is counted at the page: its
// handlers fetch a path from their own site.

// legacyActor is an actor whose approvals come from confirm=true.
func legacyActor(t *testing.T, extraEnv ...string) *actor {
	t.Helper()
	needBrowser(t)
	dir := t.TempDir()
	env := append([]string{"LYRA_BROWSER_CONSENT_CHANNEL=legacy"}, extraEnv...)
	return &actor{t: t, cs: connectStdio(t, dir, proto2026, env...), dir: dir}
}

// wantAsked checks that env asks for INTERACT on origin, before anything
// was done.
func wantAsked(t *testing.T, what string, env map[string]any, origin string) {
	t.Helper()
	if env["status"] != "approval_required" || env["capability"] != "INTERACT" || env["origin"] != origin {
		t.Errorf("%s: %v, want approval_required for INTERACT on %s", what, env, origin)
	}
}

// counterPage is a page whose button counts its clicks at its own site.
const counterPage = `<!doctype html><title>counter</title><button id=b onclick="fetch('/clicked')">Count</button>`

// TestInteractGrantExpires: once LYRA_BROWSER_GRANT_TTL has run out with
// no use, a click is asked for again and does not happen; with confirm=true
// it does, once.
func TestInteractGrantExpires(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", counterPage)
	a := legacyActor(t, "LYRA_BROWSER_GRANT_TTL=3")
	wantStatus(t, a.call("open_browser", nil), "ok") // a launch can outlast the TTL
	wantStatus(t, a.call("navigate", map[string]any{"url": s.URL + "/", "confirm": true}), "ok")
	// The grant was given before the navigation began: 3 s after it
	// ended it is gone. A second's margin.
	time.Sleep(4 * time.Second)
	env := a.call("click", map[string]any{"selector": "#b"})
	wantAsked(t, "click after the TTL", env, s.URL)
	if n := s.count("/clicked"); n != 0 {
		t.Fatalf("the unapproved click reached the page (%d clicks)", n)
	}
	wantStatus(t, a.call("click", map[string]any{"selector": "#b", "confirm": true}), "ok")
	waitFor(t, "the approved click", 5*time.Second, func() bool { return s.count("/clicked") >= 1 })
	// The approved click's fetch is in; a refused one would have come first.
	time.Sleep(200 * time.Millisecond)
	if n := s.count("/clicked"); n != 1 {
		t.Errorf("%d clicks reached the page, want exactly the approved one", n)
	}
	granted := len(rowsWhere(auditRows(t, a.dir), has{"kind": "consent", "capability": "INTERACT", "origin": s.URL, "consent_channel": "legacy"}))
	if granted != 1 {
		t.Errorf("%d INTERACT consent rows for %s, want 1", granted, s.URL)
	}
}

// TestInteractGrantRenewedByUse: an agent working steadily is not asked
// again: each click within the 4 s lifetime renews it, for 10 s and more.
// Left idle past the lifetime, the next click is asked for.
func TestInteractGrantRenewedByUse(t *testing.T) {
	s := newSite(t, "127.0.0.1")
	s.page("/", counterPage)
	a := legacyActor(t, "LYRA_BROWSER_GRANT_TTL=4")
	wantStatus(t, a.call("open_browser", nil), "ok")
	wantStatus(t, a.call("navigate", map[string]any{"url": s.URL + "/", "confirm": true}), "ok")
	start := time.Now()
	clicks := 0
	for time.Since(start) < 10*time.Second {
		time.Sleep(1500 * time.Millisecond)
		env := a.call("click", map[string]any{"selector": "#b"})
		if env["status"] != "ok" {
			t.Fatalf("click %d, %v after the navigation: %v", clicks+1, time.Since(start).Round(100*time.Millisecond), env)
		}
		clicks++
	}
	waitFor(t, "every click at the page", 5*time.Second, func() bool { return s.count("/clicked") == clicks })
	t.Logf("%d clicks over %v without being asked", clicks, time.Since(start).Round(100*time.Millisecond))
	time.Sleep(5 * time.Second) // idle past the lifetime, with a second's margin
	wantAsked(t, "click after 5 s idle", a.call("click", map[string]any{"selector": "#b"}), s.URL)
	time.Sleep(200 * time.Millisecond)
	if n := s.count("/clicked"); n != clicks {
		t.Errorf("the unapproved click reached the page (%d clicks, want %d)", n, clicks)
	}
}

// TestInteractInCrossSiteFrame: approval for the page is no approval for
// the sites it embeds. Each acting tool aimed into an iframe from another
// site (an out-of-process one on 127.0.0.2, a same-process one on another
// port of 127.0.0.1) asks for that frame's origin and does nothing; the
// page's own button needs no asking; once the frame's site is approved,
// the same actions land.
func TestInteractInCrossSiteFrame(t *testing.T) {
	parallel(t)
	top := newSite(t, "127.0.0.1")
	far := newSite(t, "127.0.0.2")  // another site: its own process
	near := newSite(t, "127.0.0.1") // another origin of the same site: same process
	top.page("/", fmt.Sprintf(`<!doctype html><title>top</title>
<button id=top onclick="fetch('/clicked')">Top</button><br>
<iframe id=far src="%s/inner" style="width:420px;height:200px"></iframe>
<iframe id=near src="%s/inner" style="width:420px;height:200px"></iframe>
<script>
// The focus goes into the far frame, as a page may put it: keys go there.
document.getElementById('far').addEventListener('load', () => document.getElementById('far').focus());
</script>`, far.URL, near.URL))
	inner := func(p string) string {
		return fmt.Sprintf(`<!doctype html><title>%[1]s</title>
<button id=%[1]sb onclick="fetch('/clicked')">%[1]s button</button>
<input id=%[1]st oninput="fetch('/typed')">
<select id=%[1]ss onchange="fetch('/selected')"><option>one</option><option>two</option></select>
<span id=%[1]sh onmouseenter="fetch('/hovered')">%[1]s hover</span>
<script>addEventListener('keydown', () => fetch('/key'))</script>`, p)
	}
	far.page("/inner", inner("f"))
	near.page("/inner", inner("n"))
	a := legacyActor(t)
	wantStatus(t, a.call("navigate", map[string]any{"url": top.URL + "/", "confirm": true, "wait_until": "load"}), "ok")
	waitFor(t, "both frames", 10*time.Second, func() bool { return far.count("/inner") == 1 && near.count("/inner") == 1 })

	for _, f := range []struct {
		site *site
		p    string
	}{{far, "f"}, {near, "n"}} {
		wantAsked(t, "click in "+f.site.URL, a.call("click", map[string]any{"selector": "#" + f.p + "b"}), f.site.URL)
		wantAsked(t, "type_text in "+f.site.URL, a.call("type_text", map[string]any{"selector": "#" + f.p + "t", "text": "x"}), f.site.URL)
		wantAsked(t, "select_option in "+f.site.URL, a.call("select_option", map[string]any{"selector": "#" + f.p + "s", "value": "two"}), f.site.URL)
		wantAsked(t, "hover in "+f.site.URL, a.call("hover", map[string]any{"selector": "#" + f.p + "h"}), f.site.URL)
		wantAsked(t, "scroll to an element in "+f.site.URL, a.call("scroll", map[string]any{"selector": "#" + f.p + "h"}), f.site.URL)
	}
	// The focus is in the far frame: a key goes there.
	wantAsked(t, "press_key with the focus in "+far.URL, a.call("press_key", map[string]any{"key": "a"}), far.URL)
	time.Sleep(200 * time.Millisecond)
	for _, s := range []*site{far, near} {
		for _, p := range []string{"/clicked", "/typed", "/selected", "/hovered", "/key"} {
			if n := s.count(p); n != 0 {
				t.Errorf("%s%s: %d requests, want none (the action was not approved)", s.URL, p, n)
			}
		}
	}

	// Approved, the same actions land; the approval holds for the next.
	wantStatus(t, a.call("press_key", map[string]any{"key": "a", "confirm": true}), "ok")
	waitFor(t, "the key in the far frame", 5*time.Second, func() bool { return far.count("/key") == 1 })
	wantStatus(t, a.call("click", map[string]any{"selector": "#fb"}), "ok")
	wantStatus(t, a.call("type_text", map[string]any{"selector": "#ft", "text": "x"}), "ok")
	wantStatus(t, a.call("select_option", map[string]any{"selector": "#fs", "value": "two"}), "ok")
	wantStatus(t, a.call("hover", map[string]any{"selector": "#fh"}), "ok")
	waitFor(t, "the far frame's actions", 5*time.Second, func() bool {
		return far.count("/clicked") == 1 && far.count("/typed") == 1 && far.count("/selected") == 1 && far.count("/hovered") == 1
	})
	// The page itself is approved: its button is clicked without asking.
	wantStatus(t, a.call("click", map[string]any{"selector": "#top"}), "ok")
	waitFor(t, "the page's own click", 5*time.Second, func() bool { return top.count("/clicked") == 1 })
	wantStatus(t, a.call("click", map[string]any{"selector": "#nb", "confirm": true}), "ok")
	waitFor(t, "the near frame's click", 5*time.Second, func() bool { return near.count("/clicked") == 1 })
	if n := near.count("/typed") + near.count("/selected") + near.count("/hovered"); n != 0 {
		t.Errorf("the near frame saw %d refused actions", n)
	}
}

// TestInteractAfterCrossOriginSend: a declared form post from A to B goes
// to B as any navigation does: the call asks for NAVIGATE on B with the
// send (confirm=true answers both on this client), and acting on B where
// the tab lands is then covered. Without that approval nothing reaches B
// (TestSendAskedWhereItGoes).
func TestInteractAfterCrossOriginSend(t *testing.T) {
	parallel(t)
	from := newSite(t, "127.0.0.1")
	to := newSite(t, "127.0.0.2")
	from.page("/", fmt.Sprintf(`<!doctype html><title>from</title>
<form method=post action="%s/landing"><input name=q value=1><button id=go>Send</button></form>`, to.URL))
	to.handle("/landing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprintf(w, `<!doctype html><title>landed %s</title>`+
			`<button id=b onclick="fetch('/clicked')">Count</button>`, r.Method)
	})
	a := legacyActor(t)
	wantStatus(t, a.call("navigate", map[string]any{"url": from.URL + "/", "confirm": true}), "ok")
	// Without confirm the call asks, naming B, and sends nothing.
	env := a.call("click", map[string]any{"selector": "#go", "submits": true})
	if env["status"] != "approval_required" || !strings.Contains(fmt.Sprint(env["error"]), "goes to "+to.URL) {
		t.Errorf("the send without confirm: %v, want approval_required naming B", env)
	}
	if to.count("/landing") != 0 {
		t.Fatalf("B saw %d posts before the send was approved", to.count("/landing"))
	}
	env = a.call("click", map[string]any{"selector": "#go", "submits": true, "confirm": true})
	wantStatus(t, env, "ok")
	waitFor(t, "the tab on B", 5*time.Second, func() bool { return a.title() == "landed POST" })
	if to.count("/landing") != 1 {
		t.Fatalf("B saw %d posts, want the declared one", to.count("/landing"))
	}
	wantStatus(t, a.call("click", map[string]any{"selector": "#b"}), "ok")
	waitFor(t, "the click on B", 5*time.Second, func() bool { return to.count("/clicked") == 1 })
}
