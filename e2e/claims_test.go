package e2e

// Claims the README makes that no other test checks, each a small run.

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNavigateTimeoutAndFailure: navigate answers timeout when the load
// state does not come within LYRA_BROWSER_NAVIGATION_TIMEOUT, and
// navigation_failed when the site cannot be reached.
func TestNavigateTimeoutAndFailure(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	// The document arrives; an image it needs never does, so load never fires.
	s.page("/slow", `<!doctype html><title>slow</title><img src="/hang">`)
	s.handle("/hang", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	s.page("/", `<!doctype html><title>home</title>`)
	// A port nobody listens on any more.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/"
	ln.Close()

	cs := connectStdio(t, t.TempDir(), proto2026, "LYRA_BROWSER_NAVIGATION_TIMEOUT=3")
	wantStatus(t, call(t, cs, "open_browser", nil), "ok") // the launch is not part of the wait
	start := time.Now()
	env := call(t, cs, "navigate", map[string]any{"url": s.URL + "/slow", "wait_until": "load"})
	took := time.Since(start)
	if env["status"] != "timeout" || !hasHint(env) {
		t.Errorf("a load that never comes: %v, want timeout with a hint", env)
	}
	if took < 3*time.Second {
		t.Errorf("timeout answered after %v, before LYRA_BROWSER_NAVIGATION_TIMEOUT=3", took)
	}
	// The same page, waited for only to its DOM: ok. The timeout is the
	// load's, not the site's.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/slow", "wait_until": "domcontentloaded"}), "ok")

	env = call(t, cs, "navigate", map[string]any{"url": closed})
	if env["status"] != "navigation_failed" || !hasHint(env) {
		t.Errorf("a refused connection: %v, want navigation_failed with a hint", env)
	}
}

// TestReadPageLinksCap: links=true gives at most 100 links and says there
// were more.
func TestReadPageLinksCap(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	var b strings.Builder
	b.WriteString("<!doctype html><title>links</title>")
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&b, `<p><a href="/item/%d">Item %d</a></p>`, i, i)
	}
	s.page("/many", b.String())
	s.page("/few", `<!doctype html><title>few</title><a href="/a">A</a> <a href="/b">B</a>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/many"}), "ok")
	env := call(t, cs, "read_page", map[string]any{"links": true})
	wantStatus(t, env, "ok")
	links, _ := env["links"].([]any)
	if len(links) != 100 || env["links_truncated"] != true {
		t.Errorf("150 links: %d given, links_truncated %v; want 100 and true", len(links), env["links_truncated"])
	}
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/few"}), "ok")
	env = call(t, cs, "read_page", map[string]any{"links": true})
	if links, _ := env["links"].([]any); len(links) != 2 || env["links_truncated"] == true {
		t.Errorf("2 links: %v", env)
	}
}

// TestPressKeySubmits: Enter in a form's field sends the form only when
// the call declares it (submits=true); undeclared, the post is refused and
// the server sees nothing.
func TestPressKeySubmits(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.handle("/post", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>posted</title>")
	})
	s.page("/", `<!doctype html><title>form</title>
<form method=post action="/post"><input id=q name=q></form>`)
	a := newActor(t)
	a.open(s.URL + "/")
	wantStatus(t, a.call("type_text", map[string]any{"selector": "#q", "text": "x"}), "ok")
	env := a.call("press_key", map[string]any{"key": "Enter"})
	waitFor(t, "the undeclared post's refusal", 15*time.Second, func() bool { return len(refusals(t, a.dir, "/post")) == 1 })
	if s.count("/post") != 0 || (env["status"] != "blocked_by_policy" && env["status"] != "ok") {
		t.Fatalf("undeclared Enter: %v, server saw %d posts", env, s.count("/post"))
	}
	env = a.call("press_key", map[string]any{"key": "Enter", "submits": true})
	wantStatus(t, env, "ok")
	if env["navigated"] != true || env["url"] != s.URL+"/post" || s.count("/post") != 1 {
		t.Errorf("declared Enter: %v, server saw %d posts", env, s.count("/post"))
	}
}

// TestScreenshotInline: inline=true adds the screenshot as an MCP image
// block; without it the answer is text only.
func TestScreenshotInline(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, inline := range []bool{false, true} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "screenshot", Arguments: map[string]any{"inline": inline}})
		if err != nil {
			t.Fatal(err)
		}
		if env, _ := res.StructuredContent.(map[string]any); env["status"] != "ok" {
			t.Fatalf("screenshot inline=%v: %v", inline, env)
		}
		if !inline {
			if len(res.Content) != 1 {
				t.Errorf("screenshot: %d content blocks, want the text only", len(res.Content))
			}
			continue
		}
		if len(res.Content) != 2 {
			t.Fatalf("screenshot inline=true: %d content blocks, want text and image", len(res.Content))
		}
		img, ok := res.Content[1].(*mcp.ImageContent)
		if !ok || img.MIMEType != "image/png" {
			t.Fatalf("second block %T", res.Content[1])
		}
		if _, err := png.Decode(bytes.NewReader(img.Data)); err != nil {
			t.Errorf("inline screenshot is not a PNG: %v", err)
		}
	}
}

// TestLogFile: with --log-file, lyrad's logs go to the file and not to
// stderr (stdout is the protocol's).
func TestLogFile(t *testing.T) {
	needBrowser(t)
	dir := t.TempDir()
	logPath := filepath.Join(t.TempDir(), "lyrad.log")
	cmd := exec.Command(lyradBin, "stdio", "--log-file", logPath)
	cmd.Env = baseEnv(dir)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-stdio", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, sessionOpts(proto2026))
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, call(t, cs, "open_browser", nil), "ok")
	wantStatus(t, call(t, cs, "close_browser", nil), "ok")
	cs.Close()
	b, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"browser started"`) || !strings.Contains(string(b), `"browser closed"`) {
		t.Errorf("the log file lacks the browser's start and close:\n%s", b)
	}
	if strings.Contains(stderr.String(), "browser started") {
		t.Errorf("logs went to stderr too:\n%s", stderr.String())
	}
}

// TestBrowserProxy: with LYRA_BROWSER_PROXY the browser's requests go
// through the proxy. The proxy here answers itself, for a host that exists
// nowhere else, and counts what it is asked. (Chrome never proxies
// loopback addresses, so the page is not on one.)
func TestBrowserProxy(t *testing.T) {
	parallel(t)
	needBrowser(t)
	var mu sync.Mutex
	var asked []string
	proxy := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Method+" "+r.URL.String())
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>through the proxy</title>")
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go proxy.Serve(ln)
	t.Cleanup(func() { proxy.Close() })

	cs := connectStdio(t, t.TempDir(), proto2026, "LYRA_BROWSER_PROXY=http://"+ln.Addr().String())
	env := call(t, cs, "navigate", map[string]any{"url": "http://lyrad-proxy.test/page"})
	wantStatus(t, env, "ok")
	mu.Lock()
	defer mu.Unlock()
	if env["title"] != "through the proxy" || !strings.Contains(strings.Join(asked, "\n"), "GET http://lyrad-proxy.test/page") {
		t.Errorf("navigate %v; the proxy was asked %q", env, asked)
	}
}

// TestConsentChannelElicit: with LYRA_BROWSER_CONSENT_CHANNEL=elicit, a
// client that cannot be asked gets approval_required, and the model's
// confirm=true does not stand in for the user.
func TestConsentChannelElicit(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	dir := t.TempDir()
	cs := connectAsking(t, dir, proto2026, nil, "LYRA_BROWSER_CONSENT_CHANNEL=elicit")
	for _, confirm := range []bool{false, true} {
		env := call(t, cs, "navigate", map[string]any{"url": s.URL + "/", "confirm": confirm})
		if env["status"] != "approval_required" || !strings.Contains(fmt.Sprint(env["error"]), "LYRA_BROWSER_CONSENT_CHANNEL=elicit") {
			t.Errorf("confirm=%v: %v, want approval_required naming the elicit channel", confirm, env)
		}
	}
	if s.count("/") != 0 {
		t.Errorf("the site was reached without the user's answer")
	}
	for _, r := range rowsWhere(auditRows(t, dir), has{"kind": "consent", "consent_channel": "legacy"}) {
		t.Errorf("confirm=true was taken as the user's word: %v", r)
	}
}

// TestDriverDisconnectHandsOn: with no reconnect grace, a driver that
// disconnects hands the browser on at once (not at the idle timeout): its
// window closes, the audit says why, and another session may drive.
func TestDriverDisconnectHandsOn(t *testing.T) {
	needBrowser(t)
	s := friendly(t)
	l := startServe(t, "", "LYRA_BROWSER_RECONNECT_GRACE=0")
	a := l.connectHTTP(t, proto2026)
	b := l.connectHTTP(t, proto2026)
	wantStatus(t, call(t, a, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	wantStatus(t, call(t, b, "get_url", nil), "session_conflict")
	if len(browserPIDs(t, l.dataDir)) != 1 {
		t.Fatal("no browser for the driver")
	}
	a.Close()
	waitFor(t, "the disconnected driver's browser to close", 30*time.Second, func() bool { return len(browserPIDs(t, l.dataDir)) == 0 })
	if len(rowsWhere(auditRows(t, l.dataDir), has{"kind": "session", "status": "handoff", "reason": "session_ended"})) == 0 {
		t.Error("no handoff row with reason session_ended")
	}
	wantStatus(t, call(t, b, "navigate", map[string]any{"url": s.URL + "/next"}), "ok")
}

// TestProgressWhileWaiting: a call that waits (wait_for here) sends MCP
// progress notifications to a client that gave a progressToken, and none
// to one that did not.
func TestProgressWhileWaiting(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	s.page("/late", `<!doctype html><title>late</title><script>setTimeout(() => document.body.append('ready now'), 5000)</script>`)
	var got, others atomic.Int32
	cmd := exec.Command(lyradBin, "stdio")
	cmd.Env = baseEnv(t.TempDir())
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-progress", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if req.Params.ProgressToken == "tok" && req.Params.Progress > 0 {
				got.Add(1)
			} else {
				others.Add(1)
			}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, sessionOpts(proto2026))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/late"}), "ok")
	p := &mcp.CallToolParams{Name: "wait_for", Arguments: map[string]any{"text": "ready now", "timeout_ms": 20000}}
	p.SetProgressToken("tok")
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if env, _ := res.StructuredContent.(map[string]any); env["status"] != "ok" {
		t.Fatalf("wait_for: %v", env)
	}
	if got.Load() == 0 {
		t.Error("no progress while wait_for waited for seconds")
	}
	// A call with no token gets none: every notification carries the
	// first call's token (one of its own may be handled by the client
	// after that call answered, so counting them would race).
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/late"}), "ok")
	wantStatus(t, call(t, cs, "wait_for", map[string]any{"text": "ready now", "timeout_ms": 20000}), "ok")
	if n := others.Load(); n != 0 {
		t.Errorf("%d progress notifications without the token given", n)
	}
}
