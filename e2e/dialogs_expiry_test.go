package e2e

import (
	"testing"
	"time"
)

// TestDialogArmExpires: an answer handle_dialog armed waits a limited time
// for its call (60 s in a release build; a test build of lyrad shortens it
// with LYRAD_TEST_DIALOG_TTL). Used in time it answers the dialog; once
// expired, the dialog gets the default answer, as if nothing were armed
// (README: confirm false).
//
// The lifetime starts when handle_dialog is answered, after the browser is
// open. The control's call comes right after its arm (a round trip, some
// 100 ms; under a 4x load well within 4 s); the expired arm is left 4 s plus
// a 1 s margin.
func TestDialogArmExpires(t *testing.T) {
	parallel(t)
	needBrowser(t)
	const ttl = 8 * time.Second // the control must click within it, with room for a slow machine
	s := newSite(t, "127.0.0.1")
	s.page("/", dialogPage)
	dir := t.TempDir()
	a := &actor{t: t, cs: connectStdioBin(t, lyradTestBuild(t), dir, proto2026, "LYRAD_TEST_DIALOG_TTL="+ttl.String()), dir: dir}
	a.open(s.URL + "/")

	// Control: used within its lifetime, the arm answers the confirm.
	env := a.call("handle_dialog", map[string]any{"accept": true})
	wantStatus(t, env, "ok")
	if n, _ := env["expires_in"].(float64); n < 1 || n > ttl.Seconds() {
		t.Fatalf("expires_in = %v, want at most %v: the test build's lifetime is not in force", env["expires_in"], ttl.Seconds())
	}
	env = a.call("click", map[string]any{"selector": "#confirm"})
	wantStatus(t, env, "ok")
	a.wantTitle("confirm=true")
	if ds := dialogList(t, env); len(ds) != 1 || ds[0]["by"] != "handle_dialog" || ds[0]["answer"] != "accepted" {
		t.Fatalf("the arm used in time: dialogs %v, want accepted by handle_dialog", env["dialogs"])
	}

	// Expired: the same arm left past its lifetime answers nothing.
	wantStatus(t, a.call("handle_dialog", map[string]any{"accept": true}), "ok")
	armed := time.Now()
	time.Sleep(ttl + time.Second)
	env = a.call("click", map[string]any{"selector": "#confirm"})
	wantStatus(t, env, "ok")
	a.wantTitle("confirm=false")
	if ds := dialogList(t, env); len(ds) != 1 || ds[0]["by"] != "default" || ds[0]["answer"] != "dismissed" {
		t.Errorf("the arm %v after it was set: dialogs %v, want dismissed by default", time.Since(armed).Round(time.Millisecond), env["dialogs"])
	}
}
