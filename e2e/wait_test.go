package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// latePage draws its content after load, the way single-page apps do.
const latePage = `<!doctype html><title>Late</title>
<p id="spinner">Loading...</p><div id="slot"></div><div id="shown" style="display:none">Shown later</div>
<script>
setTimeout(function(){ document.getElementById('slot').innerHTML = '<p id="late">Ready   now</p>'; }, 300);
setTimeout(function(){ document.getElementById('spinner').remove(); document.getElementById('shown').style.display = 'block'; }, 500);
setTimeout(function(){ history.pushState({}, '', '/checkout/done'); }, 400);
</script>`

func TestWaitFor(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/late", latePage)
	s.page("/go", `<!doctype html><title>Go</title><p>first</p><script>setTimeout(function(){ location.href = '/landed'; }, 200)</script>`)
	s.page("/busy", `<!doctype html><title>Busy</title><script>fetch('/slow')</script>`)
	s.handle("/slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(800 * time.Millisecond)
		w.Write([]byte("done"))
	})
	s.page("/landed", `<!doctype html><title>Landed</title><p>Arrived here</p>`)
	cs := connectStdio(t, t.TempDir(), proto2026)

	// Before the browser is open.
	wantStatus(t, call(t, cs, "wait_for", map[string]any{"text": "x"}), "browser_not_open")

	waits := []struct {
		name string
		args map[string]any
	}{
		{"text appears", map[string]any{"text": "Ready now"}}, // whitespace does not matter
		{"selector visible", map[string]any{"selector": "#late"}},
		{"selector attached", map[string]any{"selector": "#late", "state": "attached"}},
		{"text= selector", map[string]any{"selector": "text=Ready now"}},
		{"spinner gone", map[string]any{"text": "Loading...", "state": "hidden"}},
		{"selector hidden", map[string]any{"selector": "#spinner", "state": "hidden"}},
		{"selector detached", map[string]any{"selector": "#spinner", "state": "detached"}},
		{"display none to block", map[string]any{"selector": "#shown", "state": "visible"}},
		{"url glob", map[string]any{"url": "**/checkout/**"}},
		{"load", map[string]any{"load_state": "load"}},
		{"domcontentloaded", map[string]any{"load_state": "domcontentloaded"}},
		{"networkidle", map[string]any{"load_state": "networkidle"}},
	}
	for _, w := range waits {
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/late", "wait_until": "commit"}), "ok")
		env := call(t, cs, "wait_for", w.args)
		if env["status"] != "ok" {
			t.Errorf("%s: %v", w.name, env)
			continue
		}
		ms := env["waited_ms"].(float64)
		t.Logf("%s: waited %vms", w.name, ms)
		if ms > 5000 {
			t.Errorf("%s: waited %vms", w.name, ms)
		}
	}
	// The condition holds already: answered at once, even with timeout_ms 0.
	wantStatus(t, call(t, cs, "wait_for", map[string]any{"text": "Ready now"}), "ok")
	env := call(t, cs, "wait_for", map[string]any{"text": "Ready now", "timeout_ms": 0})
	wantStatus(t, env, "ok")

	// networkidle waits for the page's own slow request.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/busy", "wait_until": "commit"}), "ok")
	env = call(t, cs, "wait_for", map[string]any{"load_state": "networkidle"})
	wantStatus(t, env, "ok")
	if ms := env["waited_ms"].(float64); ms < 700 {
		t.Errorf("networkidle after %vms, before the page's 800 ms request ended", ms)
	}

	// Text that a navigation brings: the wait survives the document change.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/go"}), "ok")
	env = call(t, cs, "wait_for", map[string]any{"text": "Arrived here", "timeout_ms": 5000})
	wantStatus(t, env, "ok")

	// Running out of time is an answer with what was seen.
	env = call(t, cs, "wait_for", map[string]any{"text": "Never there", "timeout_ms": 300})
	wantStatus(t, env, "timeout")
	if ms := env["waited_ms"].(float64); ms < 290 || ms > 3000 { // whole ms, measured on two clocks
		t.Errorf("waited_ms = %v for a 300 ms timeout", ms)
	}
	if seen, _ := env["last_seen"].(string); !strings.Contains(seen, "Arrived here") {
		t.Errorf("last_seen = %q", seen)
	}
	env = call(t, cs, "wait_for", map[string]any{"url": "**/elsewhere", "timeout_ms": 200})
	wantStatus(t, env, "timeout")
	if env["last_seen"] != s.URL+"/landed" {
		t.Errorf("url wait last_seen = %v", env["last_seen"])
	}
	env = call(t, cs, "wait_for", map[string]any{"selector": "#nope", "timeout_ms": 0})
	wantStatus(t, env, "timeout")
	env = call(t, cs, "wait_for", map[string]any{"selector": "p", "timeout_ms": 99999})
	wantStatus(t, env, "ok") // above 30000 is capped, not refused

	// Bad arguments: an error naming the argument, before anything is done.
	bad := []struct {
		args map[string]any
		arg  string
	}{
		{map[string]any{}, "text"},
		{map[string]any{"text": "a", "selector": "#b"}, "selector"},
		{map[string]any{"url": "**/x", "load_state": "load"}, "load_state"},
		{map[string]any{"url": "**/x", "state": "visible"}, "state"},
		{map[string]any{"load_state": "load", "state": "hidden"}, "state"},
		{map[string]any{"text": "a", "state": "attached"}, "state"},
		{map[string]any{"load_state": "idle"}, "load_state"},
		{map[string]any{"text": "a", "timeout_ms": -1}, "timeout_ms"},
		{map[string]any{"text": ""}, "text"},
		{map[string]any{"selector": "div[", "timeout_ms": 200}, "selector"},
		{map[string]any{"selector": "aria-ref=e1"}, "selector"},
		{map[string]any{"text": "a", "state": "gone"}, "state"},
	}
	for _, b := range bad {
		env := call(t, cs, "wait_for", b.args)
		if env["status"] != "error" || env["argument"] != b.arg || !hasHint(env) {
			t.Errorf("wait_for(%v) = %v, want an error naming %s", b.args, env, b.arg)
		}
	}
}

// TestWaitForIsARead: wait_for never claims the browser; a second MCP
// session of the same daemon is answered session_conflict while the first
// drives.
func TestWaitForIsARead(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/late", latePage)
	l := startServe(t, "")
	first := l.connectHTTP(t, proto2026)
	second := l.connectHTTP(t, proto2026)
	env := call(t, second, "wait_for", map[string]any{"text": "x", "timeout_ms": 1})
	wantStatus(t, env, "browser_not_open")
	wantStatus(t, call(t, first, "navigate", map[string]any{"url": s.URL + "/late"}), "ok")
	wantStatus(t, call(t, first, "wait_for", map[string]any{"text": "Ready now"}), "ok")
	for _, tool := range []string{"wait_for", "read_page", "screenshot", "read_image"} {
		args := map[string]any{"text": "Ready now"}
		switch tool {
		case "read_page":
			args = map[string]any{"mode": "tree"}
		case "screenshot":
			args = nil
		case "read_image":
			args = map[string]any{"selector": "#late"}
		}
		wantStatus(t, call(t, second, tool, args), "session_conflict")
	}
}
