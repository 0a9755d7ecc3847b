package e2e

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	proto2026 = "2026-07-28"
	proto2025 = "2025-11-25"
)

// friendly serves a small page, a 404 and a PDF.
func friendly(t *testing.T) *site {
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Home</title><h1>Hello</h1><a href="/next">next</a>`)
	s.page("/next", `<!doctype html><title>Next</title><p>second page</p>`)
	s.handle("/missing", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(404)
		fmt.Fprint(w, "<title>Gone</title>nothing here")
	})
	s.handle("/doc.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "Application/JSON; charset=utf-8")
		fmt.Fprint(w, `{"a":1}`)
	})
	return s
}

// exercise is the spine every transport must carry: open, navigate, read
// where we are, close.
func exercise(t *testing.T, cs interface{}, callf func(string, map[string]any) map[string]any, s *site) {
	t.Helper()
	env := callf("open_browser", nil)
	wantStatus(t, env, "ok")
	if env["attended"] != false {
		t.Errorf("attended = %v, want false (headless)", env["attended"])
	}
	if env["profile"] != "persistent" {
		t.Errorf("profile = %v, want persistent", env["profile"])
	}

	env = callf("navigate", map[string]any{"url": s.URL + "/", "reason": "e2e"})
	wantStatus(t, env, "ok")
	if env["http_status"] != float64(200) || env["content_type"] != "text/html" {
		t.Errorf("navigate: http_status=%v content_type=%v, want 200 text/html", env["http_status"], env["content_type"])
	}
	if env["url"] != s.URL+"/" {
		t.Errorf("navigate url = %v", env["url"])
	}

	env = callf("get_url", nil)
	wantStatus(t, env, "ok")
	if env["url"] != s.URL+"/" || env["title"] != "Home" || env["tab_count"] != float64(1) {
		t.Errorf("get_url = %v", env)
	}

	for _, wu := range []string{"load", "commit", "networkidle", "domcontentloaded"} {
		env = callf("navigate", map[string]any{"url": s.URL + "/next", "wait_until": wu})
		wantStatus(t, env, "ok")
		if env["http_status"] != float64(200) {
			t.Errorf("wait_until=%s: http_status=%v", wu, env["http_status"])
		}
	}
	env = callf("navigate", map[string]any{"url": s.URL + "/missing"})
	wantStatus(t, env, "ok")
	if env["http_status"] != float64(404) {
		t.Errorf("404 page: http_status=%v", env["http_status"])
	}
	env = callf("navigate", map[string]any{"url": s.URL + "/doc.json"})
	if env["content_type"] != "application/json" {
		t.Errorf("json: content_type=%v, want application/json", env["content_type"])
	}
	env = callf("navigate", map[string]any{"url": "about:blank"})
	wantStatus(t, env, "ok")
	if env["http_status"] != nil || env["content_type"] != nil {
		t.Errorf("about:blank: http_status=%v content_type=%v, want null", env["http_status"], env["content_type"])
	}

	env = callf("close_browser", map[string]any{"reason": "done"})
	wantStatus(t, env, "ok")
	if env["was_open"] != true {
		t.Errorf("close_browser was_open = %v", env["was_open"])
	}
	env = callf("get_url", nil)
	wantStatus(t, env, "browser_not_open")
}

func TestSpineOverStdio(t *testing.T) {
	parallel(t)
	needBrowser(t)
	for _, proto := range []string{proto2026, proto2025} {
		t.Run(proto, func(t *testing.T) {
			s := friendly(t)
			dir := t.TempDir()
			cs := connectStdio(t, dir, proto)
			exercise(t, cs, func(n string, a map[string]any) map[string]any { return call(t, cs, n, a) }, s)
			rows := auditRows(t, dir)
			tools, guard := len(rowsWhere(rows, has{"kind": "tool"})), len(rowsWhere(rows, has{"kind": "guard"}))
			if tools < 10 || guard < 7 {
				t.Errorf("audit has %d tool rows and %d guard rows; want every call and every judged request", tools, guard)
			}
		})
	}
}

func TestSpineOverHTTP(t *testing.T) {
	parallel(t)
	needBrowser(t)
	for _, proto := range []string{proto2026, proto2025} {
		t.Run(proto, func(t *testing.T) {
			s := friendly(t)
			l := startServe(t, "")
			cs := l.connectHTTP(t, proto)
			exercise(t, cs, func(n string, a map[string]any) map[string]any { return call(t, cs, n, a) }, s)
		})
	}
}

func TestBadArguments(t *testing.T) {
	parallel(t)
	needBrowser(t)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)
	cases := []struct {
		tool string
		args map[string]any
		arg  string
	}{
		{"navigate", map[string]any{"url": "https://example.com", "bogus": 1}, "bogus"},
		{"navigate", map[string]any{"url": 42}, "url"},
		{"navigate", map[string]any{}, "url"},
		{"navigate", map[string]any{"url": "example.com"}, "url"},
		{"navigate", map[string]any{"url": "http://"}, "url"},
		{"navigate", map[string]any{"url": "javascript:alert(1)"}, "url"},
		{"navigate", map[string]any{"url": "https://example.com", "wait_until": "forever"}, "wait_until"},
		{"navigate", map[string]any{"url": "https://example.com", "confirm": "yes"}, "confirm"},
		{"get_url", map[string]any{"x": true}, "x"},
		{"close_browser", map[string]any{"reason": 3}, "reason"},
	}
	for _, c := range cases {
		env := call(t, cs, c.tool, c.args)
		if env["status"] != "error" || env["argument"] != c.arg || !hasHint(env) {
			t.Errorf("%s %v: envelope %v, want status error naming %q with a hint", c.tool, c.args, env, c.arg)
		}
	}
	// Nothing happened: no browser was started by a refused call.
	if pids := browserPIDs(t, dir); len(pids) != 0 {
		t.Errorf("a refused call left a browser running: %v", pids)
	}
}

func TestSessionConflict(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	l := startServe(t, "")
	a := connectStdio(t, l.dataDir, proto2026) // relays to the daemon
	b := l.connectHTTP(t, proto2025)

	wantStatus(t, call(t, a, "open_browser", nil), "ok")
	wantStatus(t, call(t, a, "navigate", map[string]any{"url": s.URL + "/"}), "ok")

	for _, tool := range []string{"navigate", "get_url", "open_browser", "close_browser"} {
		args := map[string]any{}
		if tool == "navigate" {
			args["url"] = s.URL + "/next"
		}
		env := call(t, b, tool, args)
		if env["status"] != "session_conflict" || !strings.Contains(env["hint"].(string), "close_browser") {
			t.Errorf("%s from the second session: %v, want session_conflict naming close_browser", tool, env)
		}
	}
	if s.count("/next") != 0 {
		t.Errorf("the refused session's navigation reached the site")
	}
	// The driver closes: the turn ends and the other session may claim it.
	wantStatus(t, call(t, a, "close_browser", nil), "ok")
	wantStatus(t, call(t, b, "navigate", map[string]any{"url": s.URL + "/next"}), "ok")
	if env := call(t, a, "get_url", nil); env["status"] != "session_conflict" {
		t.Errorf("first session after handing on: %v", env)
	}
}

func TestOwnerIdleHandsOn(t *testing.T) {
	needBrowser(t)
	s := friendly(t)
	l := startServe(t, "", "LYRA_BROWSER_OWNER_IDLE_TIMEOUT=1")
	a := l.connectHTTP(t, proto2026)
	b := l.connectHTTP(t, proto2026)
	wantStatus(t, call(t, a, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	wantStatus(t, call(t, b, "get_url", nil), "session_conflict")
	time.Sleep(1500 * time.Millisecond)
	// The idle holder lost the browser and its window closed.
	waitFor(t, "the idle owner's browser to close", 10*time.Second, func() bool { return len(browserPIDs(t, l.dataDir)) == 0 })
	wantStatus(t, call(t, b, "open_browser", nil), "ok")
}

func TestBrowserKilledIsAnsweredCleanly(t *testing.T) {
	needBrowser(t)
	s := friendly(t)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	pids := browserPIDs(t, dir)
	if len(pids) != 1 {
		t.Fatalf("browser pids = %v", pids)
	}
	if p, err := os.FindProcess(pids[0]); err == nil {
		_ = p.Kill()
	}
	waitFor(t, "the killed browser to be noticed", 10*time.Second, func() bool {
		return call(t, cs, "get_url", nil)["status"] == "browser_not_open"
	})
	// A crash is not a lost guard: the next call opens a fresh browser.
	env := call(t, cs, "open_browser", nil)
	wantStatus(t, env, "ok")
	if env["already_open"] != false {
		t.Errorf("open after a crash reused a dead browser: %v", env)
	}
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/next"}), "ok")
	rows := auditRows(t, dir)
	if len(rowsWhere(rows, has{"kind": "browser", "status": "quit"})) == 0 {
		t.Errorf("audit has no row for the browser quitting")
	}
	for _, r := range rowsWhere(rows, has{"kind": "guard_lost"}) {
		t.Errorf("a browser that died by itself was recorded as guard_lost: %v", r)
	}
}

func TestSecondServeRefused(t *testing.T) {
	l := startServe(t, "")
	out, err := runLyrad(t, l.dataDir, "serve")
	if err == nil {
		t.Fatalf("second serve on the same data dir exited 0: %s", out)
	}
	if !strings.Contains(out, fmt.Sprintf("held by pid %d", l.cmd.Process.Pid)) {
		t.Errorf("second serve does not say who holds it: %s", out)
	}
}

func runLyrad(t *testing.T, dataDir string, args ...string) (string, error) {
	t.Helper()
	cmd := execLyrad(dataDir, args...)
	b, err := cmd.CombinedOutput()
	return string(b), err
}

func TestServeExitsCleanlyOnSignal(t *testing.T) {
	needBrowser(t)
	s := friendly(t)
	l := startServe(t, "")
	cs := l.connectHTTP(t, proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	if len(browserPIDs(t, l.dataDir)) != 1 {
		t.Fatal("no browser running")
	}
	l.cmd.Process.Signal(syscall.SIGTERM)
	err := l.cmd.Wait()
	if err != nil {
		t.Fatalf("lyrad exited with %v on SIGTERM, want 0", err)
	}
	waitFor(t, "the browser to be gone", 5*time.Second, func() bool { return len(browserPIDs(t, l.dataDir)) == 0 })
	if _, err := os.Stat(l.dataDir + "/lyrad.sock"); !os.IsNotExist(err) {
		t.Errorf("socket left behind: %v", err)
	}
	// The lock is released: a new daemon takes the directory.
	startServe(t, l.dataDir)
}
