package e2e

import (
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lyrad/lyrad/internal/testenv"
)

// TestTakeoverHeadful: under Xvfb, the user takes over. While they hold
// the browser every acting call answers takeover_active and the agent's
// navigation reaches nothing; the user's own navigation (a mouse click on
// the X display through the banner, not through CDP) and its redirect hop go through, audited
// user_driven, with nothing spent; reads answer; a declined resume keeps
// the takeover, an accepted one ends it; and the same click is judged as
// before.
func TestTakeoverHeadful(t *testing.T) {
	needBrowser(t)
	testenv.Tool(t, "xdotool", "to act as the user on the X display (apt-get install xdotool)")
	display := startXvfb(t)
	a1 := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	a1.page("/", `<!doctype html><title>Home</title><p><a id=go href="/hop">Continue</a><input id=q>
<script>document.getElementById('go').focus();
new MutationObserver(() => { document.title = 'Mutated'; }).observe(document.documentElement, {attributes: true, childList: true, subtree: true, characterData: true});</script>`)
	a1.handle("/hop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b.URL+"/landing", http.StatusFound)
	})
	b.page("/landing", `<!doctype html><title>Landing</title>landed`)

	ask := &asker{}
	dir := t.TempDir()
	cs := connectAsking(t, dir, proto2026, ask.handle, "LYRA_BROWSER_HEADLESS=auto", "DISPLAY="+display, "LYRA_BROWSER_CONSENT_TIMEOUT=120")
	do := func(name string, args map[string]any) map[string]any { t.Helper(); return call(t, cs, name, args) }
	wantStatus(t, do("navigate", map[string]any{"url": a1.URL + "/"}), "ok")

	env := do("highlight_element", map[string]any{"selector": "#go"})
	wantStatus(t, env, "ok")
	if env["matches"] != float64(1) {
		t.Errorf("highlight: %v", env)
	}
	wantStatus(t, do("highlight_element", map[string]any{"selector": "#nothing-here"}), "not_found")
	// The outline is the browser's: the page's own observer saw nothing.
	if title := do("get_url", nil)["title"]; title != "Home" {
		t.Errorf("the page saw the highlight in its DOM (title %v)", title)
	}
	wantStatus(t, do("ask_user_to_do", map[string]any{"instruction": "Sign in with your password", "selector": "#q"}), "awaiting_user")

	env = do("request_takeover", map[string]any{"reason": "Type your password"})
	wantStatus(t, env, "takeover_active")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"navigate", map[string]any{"url": b.URL + "/landing"}},
		{"click", map[string]any{"selector": "#go"}},
		{"type_text", map[string]any{"selector": "#q", "text": "x"}},
		{"press_key", map[string]any{"key": "Enter"}},
		{"handle_dialog", map[string]any{"accept": true}},
		{"highlight_element", map[string]any{"selector": "#go"}},
		{"tabs", map[string]any{"action": "switch", "index": 0}},
	} {
		if e := do(c.tool, c.args); e["status"] != "takeover_active" || e["reason"] != "Type your password" {
			t.Errorf("%s during the takeover: %v", c.tool, e)
		}
	}
	if n := b.count("/landing") + a1.count("/hop"); n != 0 {
		t.Fatalf("the agent's calls during the takeover reached the sites %d times", n)
	}

	// The user clicks the link with the mouse, on the X display, through
	// the banner the browser draws: where the link is on the screen is the
	// window's place plus the browser's own bars (the window's height less
	// the viewport's, from a screenshot, a read).
	xdo := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("xdotool", args...)
		cmd.Env = append(cmd.Environ(), "DISPLAY="+display)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("xdotool %v: %v %s", args, err, out)
		}
		return string(out)
	}
	geo := map[string]int{}
	for _, line := range strings.Fields(xdo("search", "--onlyvisible", "--class", "chromium", "getwindowgeometry", "--shell")) {
		if k, v, ok := strings.Cut(line, "="); ok {
			n, _ := strconv.Atoi(v)
			geo[k] = n
		}
	}
	shot := do("screenshot", nil)
	vh, _ := shot["height"].(float64)
	if geo["HEIGHT"] == 0 || vh == 0 {
		t.Fatalf("window %v, viewport height %v", geo, vh)
	}
	x, y := geo["X"]+30, geo["Y"]+geo["HEIGHT"]-int(vh)+25 // the link's middle
	xdo("mousemove", strconv.Itoa(x), strconv.Itoa(y))
	xdo("click", "1")
	waitFor(t, "the user's navigation to land", 20*time.Second, func() bool { return b.count("/landing") > 0 })
	waitFor(t, "the user's steps audited", 10*time.Second, func() bool {
		return len(rowsWhere(auditRows(t, dir), has{"reason": "user_driven"})) >= 2
	})
	rows := rowsWhere(auditRows(t, dir), has{"reason": "user_driven"})
	text := jsonString(rows)
	if !strings.Contains(text, a1.URL+"/hop") || !strings.Contains(text, b.URL+"/landing") {
		t.Errorf("user_driven rows do not show the navigation and its hop: %s", text)
	}
	if strings.Contains(text, `"spent"`) {
		t.Errorf("the user's steps spent a grant: %s", text)
	}
	// Reads answer meanwhile. The landing reached the site before the tab
	// committed it: a read in between sees the tab mid-navigation, so the
	// test waits for the commit rather than racing it.
	waitFor(t, "get_url to show the user's landing", 20*time.Second, func() bool {
		e := do("get_url", nil)
		if e["status"] != "ok" {
			t.Fatalf("get_url during the takeover: %v", e)
		}
		return e["url"] == b.URL+"/landing"
	})
	wantStatus(t, do("read_page", nil), "ok")

	// Resume: declined keeps it; accepted ends it.
	ask.set("handing control back")
	if e := do("resume_after_takeover", nil); e["status"] == "ok" {
		t.Fatalf("a declined resume: %v", e)
	}
	wantStatus(t, do("click", map[string]any{"selector": "body"}), "takeover_active")
	ask.set("")
	env = do("resume_after_takeover", map[string]any{"reason": "finish the order"})
	wantStatus(t, env, "ok")
	if env["resumed"] != true || env["url"] != b.URL+"/landing" {
		t.Errorf("resume: %v", env)
	}

	// The same click, now the agent's: judged as before.
	wantStatus(t, do("navigate", map[string]any{"url": a1.URL + "/"}), "ok")
	wantStatus(t, do("click", map[string]any{"selector": "#go"}), "blocked_by_policy")
	if n := b.count("/landing"); n != 1 {
		t.Errorf("the refused destination was reached %d times (1 was the user's)", n)
	}
}

// TestTakeoverHeadless: with no one at the window the collaboration tools
// answer unattended, lock nothing, and the agent carries on.
func TestTakeoverHeadless(t *testing.T) {
	needBrowser(t)
	s := friendly(t)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"request_takeover", map[string]any{"reason": "password"}},
		{"ask_user_to_do", map[string]any{"instruction": "solve the CAPTCHA"}},
		{"highlight_element", map[string]any{"selector": "body"}},
	} {
		e := call(t, cs, c.tool, c.args)
		wantStatus(t, e, "unattended")
		if !hasHint(e) {
			t.Errorf("%s: no hint", c.tool)
		}
	}
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	wantStatus(t, call(t, cs, "resume_after_takeover", nil), "ok")

	// Only the driver may hand the browser over.
	l := startServe(t, "")
	driver := l.connectHTTP(t, proto2026)
	other := l.connectHTTP(t, proto2026)
	wantStatus(t, call(t, driver, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	wantStatus(t, call(t, other, "request_takeover", map[string]any{"reason": "mine"}), "session_conflict")
}

// TestTakeoverGuardLost: the guard is lost while the user holds the
// browser: calls answer guard_lost, not takeover_active, and once
// acknowledged no takeover is left on the next browser.
func TestTakeoverGuardLost(t *testing.T) {
	needBrowser(t)
	needSS(t)
	display := startXvfb(t)
	s := friendly(t)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026, "LYRA_BROWSER_HEADLESS=auto", "DISPLAY="+display)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	wantStatus(t, call(t, cs, "request_takeover", map[string]any{"reason": "2FA"}), "takeover_active")
	pids := browserPIDs(t, dir)
	if len(pids) != 1 {
		t.Fatalf("browser pids %v", pids)
	}
	cutSocket(t, debugPort(t, pids[0]))
	waitFor(t, "the guard loss", 10*time.Second, func() bool {
		return call(t, cs, "get_url", nil)["status"] == "guard_lost"
	})
	if e := call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}); e["status"] != "guard_lost" {
		t.Errorf("navigate after the loss: %v", e)
	}
	if e := call(t, cs, "resume_after_takeover", nil); e["status"] != "guard_lost" {
		t.Errorf("resume_after_takeover after the loss: %v", e)
	}
	wantStatus(t, call(t, cs, "close_browser", nil), "ok")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/next"}), "ok")
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "body"}), "ok")
}

// TestTakeoverFromTheCommandLine: the person at the terminal takes the
// browser with `lyrad takeover` and hands it back with `lyrad resume`,
// over the daemon's admin socket; the driver's calls wait meanwhile, and
// both steps are audited as the operator's.
func TestTakeoverFromTheCommandLine(t *testing.T) {
	needBrowser(t)
	display := startXvfb(t)
	s := friendly(t)
	dir := t.TempDir()
	l := startServe(t, dir, "LYRA_BROWSER_HEADLESS=auto", "DISPLAY="+display)
	cs := l.connectHTTP(t, proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	run := func(args ...string) string {
		t.Helper()
		out, err := execLyrad(dir, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("lyrad %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("takeover", "--data-dir", dir, "--reason", "typing my password"); !strings.Contains(out, "You have control") {
		t.Errorf("lyrad takeover said %q", out)
	}
	if e := call(t, cs, "click", map[string]any{"selector": "body"}); e["status"] != "takeover_active" || e["reason"] != "typing my password" {
		t.Errorf("click during the operator's takeover: %v", e)
	}
	if out := run("resume", "--data-dir", dir); !strings.Contains(out, "back with the agent") {
		t.Errorf("lyrad resume said %q", out)
	}
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "body"}), "ok")
	if rows := rowsWhere(auditRows(t, dir), has{"kind": "takeover", "session": "operator"}); len(rows) != 2 {
		t.Errorf("operator takeover rows: %v", rows)
	}
}
