package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestPlaywrightGuard: the guard's hostile-page cases through Playwright
// MCP's tools. A page on an approved site tries, on the agent's click,
// an undeclared cross-site post, a popup to another site, a link through
// a redirect hop to another site, and a download; and the agent's own
// navigate goes through a redirect hop. Nothing reaches the other site,
// no file reaches the disk, each call answers ### Error with the status,
// and the audit names the surface's tools.
func TestPlaywrightGuard(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	a.page("/", fmt.Sprintf(`<!doctype html><title>Shop</title>
<form method=post action="%[1]s/collect"><input type=hidden name=card value=4111111111111111><button>Send</button></form>
<button onclick="window.open('%[1]s/popup')">Popup</button>
<a href="/redirect?code=302">Leave</a>
<a href="/file" download="report.bin">Get</a>`, b.URL))
	redirector(a, b.URL+"/landing")
	a.handle("/file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write([]byte(strings.Repeat("LYRAD-PW-DOWNLOAD", 4096)))
	})
	for _, p := range []string{"/collect", "/popup", "/landing"} {
		b.page(p, `<!doctype html><title>B</title>you should not be here`)
	}
	dir := t.TempDir()
	cs := connectPW(t, dir, nil, nil)
	nav := pwOK(t, cs, "browser_navigate", map[string]any{"url": a.URL + "/"})

	refused := func(what string, ans pwAnswer, status string) {
		t.Helper()
		if !ans.isError || !strings.HasPrefix(ans.text, "### Error\n") || !strings.Contains(ans.text, "("+status+")") {
			t.Errorf("%s: want ### Error with %s:\n%s", what, status, ans)
		}
	}
	refused("undeclared cross-site post", pwCall(t, cs, "browser_click", map[string]any{"target": pwRef(t, nav, "button", "Send")}), "blocked_by_policy")
	// The popup's request is refused before it leaves; the click itself
	// is the page's, so it may answer ok or blocked: what counts is b.
	pwCall(t, cs, "browser_click", map[string]any{"target": pwRef(t, nav, "button", "Popup")})
	refused("a link through a redirect hop", pwCall(t, cs, "browser_click", map[string]any{"target": pwRef(t, nav, "link", "Leave")}), "blocked_by_policy")
	refused("navigate through a redirect hop", pwCall(t, cs, "browser_navigate", map[string]any{"url": a.URL + "/redirect?code=302"}), "blocked_by_policy")
	refused("an undeclared download", pwCall(t, cs, "browser_click", map[string]any{"target": pwRef(t, nav, "link", "Get")}), "download_blocked")

	// Each request to the other site was judged: its refusal is in the
	// audit, so whatever would have reached the site has had its chance.
	for _, p := range []string{"/collect", "/popup", "/landing"} {
		waitFor(t, "the guard's refusal of "+p, 30*time.Second, func() bool { return len(refusals(t, dir, p)) > 0 })
	}
	for _, p := range []string{"/collect", "/popup", "/landing"} {
		if n := b.count(p); n != 0 {
			t.Errorf("the other site's %s was reached %d times", p, n)
		}
	}
	if a.count("/file") == 0 {
		t.Errorf("the download never started: this proves nothing")
	}
	if got := keptFiles(t, filepath.Join(dir, "downloads")); len(got) != 0 {
		t.Errorf("a blocked download was kept: %v", got)
	}
	tabs := pwOK(t, cs, "browser_tabs", map[string]any{"action": "list"})
	if strings.Contains(tabs.text, b.URL) || strings.Count(tabs.section("Result"), "\n- ") != 0 {
		t.Errorf("a tab on the other site, or a second tab:\n%s", tabs.text)
	}
	rows := auditRows(t, dir)
	if n := len(rowsWhere(rows, has{"kind": "tool", "tool": "browser_click", "status": "blocked_by_policy"})); n < 2 {
		t.Errorf("%d browser_click rows blocked_by_policy, want 2 or more", n)
	}
	if n := len(rowsWhere(rows, has{"kind": "guard", "verdict": "deny"})); n < 3 {
		t.Errorf("%d guard deny rows, want 3 or more", n)
	}
	t.Logf("other site reached: collect %d, popup %d, landing %d; downloads kept %d", b.count("/collect"), b.count("/popup"), b.count("/landing"), len(keptFiles(t, filepath.Join(dir, "downloads"))))
}

// TestPlaywrightConsent: consent on this surface is asked as on lyrad's.
// A client that cannot be asked gets ### Error naming what to approve and
// who can (never a silent allow: the site sees nothing); a client with an
// elicitation handler is asked, and the user's yes lets the call through;
// their no refuses it.
func TestPlaywrightConsent(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Bank</title><h1>Bank</h1>`)
	auto := "LYRA_BROWSER_CONSENT_CHANNEL=auto"

	cs := connectPW(t, t.TempDir(), nil, nil, auto)
	ans := pwCall(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/"})
	if !ans.isError || !strings.Contains(ans.text, "(approval_required)") || !strings.Contains(ans.text, "capability=NAVIGATE") ||
		!strings.Contains(ans.text, "--allowed-origins "+s.URL) {
		t.Errorf("a client that cannot be asked:\n%s", ans)
	}
	if n := s.count("/"); n != 0 {
		t.Fatalf("the site was reached %d times without approval", n)
	}

	// Asked as the client's protocol asks: an elicitation request during
	// the call (2025-11-25), or input requests the client answers on a
	// repeated call (2026-07-28).
	for _, proto := range []string{proto2025, proto2026} {
		s := newSite(t, "127.0.0.1")
		s.page("/", `<!doctype html><title>Bank</title><h1>Bank</h1>`)
		var asked []string
		answer := "decline"
		opts := &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, req.Params.Message)
			if answer == "accept" {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
			}
			return &mcp.ElicitResult{Action: answer}, nil
		}}
		cs = connectPWProto(t, proto, t.TempDir(), nil, opts, auto)
		ans = pwCall(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/"})
		if !ans.isError || len(asked) != 1 || s.count("/") != 0 {
			t.Errorf("%s: declined: asked %d, site reached %d:\n%s", proto, len(asked), s.count("/"), ans)
		}
		answer = "accept"
		ans = pwCall(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/"})
		if ans.isError || len(asked) != 2 || s.count("/") != 1 || !strings.Contains(ans.section("Page"), "- Page Title: Bank") {
			t.Errorf("%s: approved: asked %v, site reached %d:\n%s", proto, asked, s.count("/"), ans)
		}
	}
}

// TestPlaywrightRelayOneDaemon: one daemon serves clients of both
// surfaces: `lyrad stdio --surface playwright` relays to it, and a client
// of lyrad's own surface shares the same browser (one drives at a time).
func TestPlaywrightRelayOneDaemon(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Shared</title><button>Go</button>`)
	dir := t.TempDir()
	startServe(t, dir)
	pw := connectPW(t, dir, nil, nil)
	a := pwOK(t, pw, "browser_navigate", map[string]any{"url": s.URL + "/"})
	pwRef(t, a, "button", "Go")
	lyra := connectStdio(t, dir, proto2026)
	env := call(t, lyra, "get_url", nil)
	if env["status"] != "session_conflict" {
		t.Errorf("lyrad's surface while the playwright client drives: %v", env)
	}
	pwOK(t, pw, "browser_close", nil)
	env = call(t, lyra, "navigate", map[string]any{"url": s.URL + "/"})
	wantStatus(t, env, "ok")
	if env["title"] != "Shared" {
		t.Errorf("lyrad's surface: %v", env)
	}
	// Both ran in the daemon: its audit has both surfaces' rows.
	rows := auditRows(t, dir)
	if len(rowsWhere(rows, has{"kind": "tool", "tool": "browser_navigate"})) == 0 || len(rowsWhere(rows, has{"kind": "tool", "tool": "navigate"})) == 0 {
		t.Errorf("the daemon's audit lacks one surface's rows")
	}
}

// TestPlaywrightFlags: Playwright MCP's flags that have no meaning in
// lyrad are refused with why, not ignored; an unknown surface or cap too.
func TestPlaywrightFlags(t *testing.T) {
	parallel(t)
	for _, args := range [][]string{
		{"--surface", "playwright", "--device", "iPhone 15"},
		{"--surface", "playwright", "--cdp-endpoint", "http://127.0.0.1:9222"},
		{"--surface", "playwright", "--ignore-https-errors"},
		{"--surface", "playwright", "--caps", "vision"},
		{"--surface", "selenium"},
	} {
		cmd := exec.Command(lyradBin, append([]string{"stdio"}, args...)...)
		cmd.Env = baseEnv(t.TempDir())
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "lyrad stdio: ") {
			t.Errorf("%v: exit %v, %s", args, err, out)
		}
		if strings.Contains(args[len(args)-2], "--device") && !strings.Contains(string(out), "emulates no device") {
			t.Errorf("%v: the refusal does not say why: %s", args, out)
		}
	}
}

// TestPlaywrightLyraCapsDownload: with --caps lyra a click declares the
// download it sets off (download=true), and the file is kept and named in
// the answer; the same click undeclared keeps nothing.
func TestPlaywrightLyraCapsDownload(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Reports</title><a href="/file" download="report.csv">Report</a>`)
	s.handle("/file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/csv")
		w.Write([]byte("a,b\n1,2\n"))
	})
	dir := t.TempDir()
	cs := connectPW(t, dir, []string{"--caps", "lyra"}, nil)
	nav := pwOK(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/"})
	ref := pwRef(t, nav, "link", "Report")
	if a := pwCall(t, cs, "browser_click", map[string]any{"target": ref}); !strings.Contains(a.text, "(download_blocked)") {
		t.Errorf("undeclared: %s", a)
	}
	if got := keptFiles(t, filepath.Join(dir, "downloads")); len(got) != 0 {
		t.Fatalf("an undeclared download was kept: %v", got)
	}
	a := pwOK(t, cs, "browser_click", map[string]any{"target": ref, "download": true})
	if !strings.Contains(a.section("Events"), "- Downloaded file report.csv to ") {
		t.Errorf("declared: %s", a)
	}
	if got := keptFiles(t, filepath.Join(dir, "downloads")); got["report.csv"] != 8 {
		t.Errorf("kept: %v, want report.csv of 8 bytes", got)
	}
	l := pwOK(t, cs, "browser_list_downloads", nil)
	if !strings.Contains(l.text, "report.csv") {
		t.Errorf("browser_list_downloads: %s", l.text)
	}
}

// TestPlaywrightOverHTTP: `lyrad serve --http --surface playwright`
// serves this surface on its HTTP endpoint.
func TestPlaywrightOverHTTP(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Over HTTP</title><button>Go</button>`)
	dir := t.TempDir()
	cmd := exec.Command(lyradBin, "serve", "--http", "--port", "0", "--surface", "playwright")
	cmd.Env = baseEnv(dir)
	l := startServeCmd(t, cmd, dir, 15*time.Second)
	cs := l.connectHTTP(t, proto2025)
	a := pwOK(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/"})
	if !strings.Contains(a.section("Page"), "- Page Title: Over HTTP") {
		t.Errorf("navigate over HTTP: %s", a)
	}
	pwOK(t, cs, "browser_click", map[string]any{"target": pwRef(t, a, "button", "Go")})
}
