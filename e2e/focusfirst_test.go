package e2e

import (
	"testing"
	"time"
)

// focusCountPage counts, in its title, the focus and input events of its
// field: f<focuses> t<inputs>.
const focusCountPage = `<!doctype html><title>f0 t0</title>
<script>let nf = 0, nt = 0; const show = () => document.title = 'f' + nf + ' t' + nt;</script>
<label>Name <input id=q onfocus="nf++; show()" oninput="nt++; show()"></label>`

// TestTypeFocusesNothingBeforeInteract: type_text focuses its field in the
// look that finds it only while its caller holds INTERACT on the page's
// origin. Once the grant has lapsed, the call asks, and the page sees no
// focus and no input until it is approved (confirm=true); then both, once.
func TestTypeFocusesNothingBeforeInteract(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", focusCountPage)
	// A lifetime that a loaded machine does not outrun between the
	// navigation and the first type_text.
	a := legacyActor(t, "LYRA_BROWSER_GRANT_TTL=5")
	wantStatus(t, a.call("open_browser", nil), "ok")
	title := func() string { return a.call("get_url", nil)["title"].(string) }
	wantStatus(t, a.call("navigate", map[string]any{"url": s.URL + "/", "confirm": true}), "ok")
	wantStatus(t, a.call("read_page", map[string]any{"mode": "tree"}), "ok")
	env := a.call("type_text", map[string]any{"selector": "#q", "text": "ada"})
	wantStatus(t, env, "ok")
	if got := title(); got != "f1 t1" || env["value"] != "ada" {
		t.Fatalf("typed while INTERACT is held: title %q value %v, want f1 t1 and ada", got, env["value"])
	}
	// Off the field, then past the grant's lifetime (a second's margin:
	// the press was its last use), with a map read just before, as an
	// agent reads before it types.
	wantStatus(t, a.call("press_key", map[string]any{"key": "Tab"}), "ok")
	time.Sleep(6 * time.Second)
	wantStatus(t, a.call("read_page", map[string]any{"mode": "tree"}), "ok")
	env = a.call("type_text", map[string]any{"selector": "#q", "text": "bob"})
	wantAsked(t, "type_text after the grant lapsed", env, s.URL)
	if got := title(); got != "f1 t1" {
		t.Fatalf("the page saw %q before the call was approved, want f1 t1 (no focus, no input)", got)
	}
	env = a.call("type_text", map[string]any{"selector": "#q", "text": "bob", "confirm": true})
	wantStatus(t, env, "ok")
	if got := title(); got != "f2 t2" || env["value"] != "bob" {
		t.Errorf("the approved call: title %q value %v, want f2 t2 and bob", got, env["value"])
	}
}

// TestTypeFocusRaisesDialog: a field whose focus handler opens an alert
// (the page stops in it while the look that focuses the field waits) is
// typed into, and the answer lists the dialog, answered by default. As in
// a person's Chrome, the field takes the focus again once the alert is
// closed, and alerts again: the answer lists them, up to its cap.
func TestTypeFocusRaisesDialog(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>dialog on focus</title><label>Name <input id=q onfocus="alert('Welcome!'); document.title = 'after alert'"></label>`)
	a := newActor(t)
	a.open(s.URL + "/")
	wantStatus(t, a.call("read_page", map[string]any{"mode": "tree"}), "ok")
	env := a.call("type_text", map[string]any{"selector": "#q", "text": "ada"})
	wantStatus(t, env, "ok")
	a.wantTitle("after alert")
	ds := dialogList(t, env)
	if len(ds) == 0 {
		t.Errorf("no dialogs listed, want the focus handler's alert")
	}
	for _, d := range ds {
		if d["message"] != "Welcome!" || d["answer"] != "accepted" {
			t.Errorf("dialog %v, want the focus handler's alert, accepted by default", d)
		}
	}
	if env["value"] != "ada" {
		t.Errorf("value %v, want ada", env["value"])
	}
}
