package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/transport"
)

func mkdir(t *testing.T, mode os.FileMode) string {
	t.Helper()
	d := filepath.Join(t.TempDir(), "profile")
	if err := os.Mkdir(d, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, mode); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestProfileMode(t *testing.T) {
	good := mkdir(t, 0o700)
	if c := CheckProfileMode(good); c.Status != Pass {
		t.Errorf("0700: %s %s", c.Status, c.Detail)
	}
	if c := CheckProfileMode(mkdir(t, 0o500)); c.Status != Pass {
		t.Errorf("0500 is tighter than 0700: %s %s", c.Status, c.Detail)
	}
	loose := mkdir(t, 0o755)
	c := CheckProfileMode(good, loose, filepath.Join(t.TempDir(), "missing"))
	if c.Status != Fail || !strings.Contains(c.Detail, loose+" is 0755") || c.Fix != "chmod 700 "+loose {
		t.Errorf("0755: %+v", c)
	}
	if c := CheckProfileMode(filepath.Join(t.TempDir(), "missing")); c.Status != Skip {
		t.Errorf("no profile: %+v", c)
	}
}

func TestFileMode(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	if c := CheckFileMode(NameAuditMode, p); c.Status != Skip {
		t.Errorf("missing: %+v", c)
	}
	os.WriteFile(p, nil, 0o600)
	if c := CheckFileMode(NameAuditMode, p); c.Status != Pass {
		t.Errorf("0600: %+v", c)
	}
	os.Chmod(p, 0o644)
	if c := CheckFileMode(NameAuditMode, p); c.Status != Fail || c.Fix != "chmod 600 "+p {
		t.Errorf("0644: %+v", c)
	}
}

func TestSocketMode(t *testing.T) {
	// Unix socket paths are short; t.TempDir can be long.
	dir, err := os.MkdirTemp("", "dr")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "lyrad.sock")
	if c := CheckSocketMode(p, false); c.Status != Skip || c.Detail != "no daemon running" {
		t.Errorf("no socket: %+v", c)
	}
	ln, err := transport.ListenSocket(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if c := CheckSocketMode(p, true); c.Status != Pass {
		t.Errorf("transport.ListenSocket's socket: %+v", c)
	}
	os.Chmod(p, 0o666)
	if c := CheckSocketMode(p, true); c.Status != Fail || !strings.Contains(c.Detail, "0666") || !strings.HasPrefix(c.Fix, "chmod 600 ") {
		t.Errorf("0666: %+v", c)
	}
	f := filepath.Join(dir, "plain")
	os.WriteFile(f, nil, 0o600)
	if c := CheckSocketMode(f, true); c.Status != Fail {
		t.Errorf("a plain file: %+v", c)
	}
}

// The Playwright surface's socket drives the same browser: doctor holds it
// to the same mode, under its own name.
func TestPlaywrightSocketMode(t *testing.T) {
	dir, err := os.MkdirTemp("", "dr")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "lyrad-playwright.sock")
	ln, err := transport.ListenSocket(p)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if c := checkSocketMode(NamePWSocketMode, p, true); c.Status != Pass || c.Name != NamePWSocketMode {
		t.Errorf("transport.ListenSocket's socket: %+v", c)
	}
	os.Chmod(p, 0o666)
	if c := checkSocketMode(NamePWSocketMode, p, true); c.Status != Fail || c.Name != NamePWSocketMode || !strings.Contains(c.Detail, "0666") {
		t.Errorf("0666: %+v", c)
	}
}

func TestActivePortAbsent(t *testing.T) {
	d := mkdir(t, 0o700)
	if c := CheckActivePortAbsent(d); c.Status != Pass {
		t.Errorf("absent: %+v", c)
	}
	secret := "41234\n/devtools/browser/0b5f"
	os.WriteFile(filepath.Join(d, ActivePortFile), []byte(secret), 0o664)
	c := CheckActivePortAbsent(filepath.Join(t.TempDir(), "missing"), d)
	if c.Status != Fail || !strings.HasPrefix(c.Fix, "rm "+filepath.Join(d, ActivePortFile)) {
		t.Errorf("planted: %+v", c)
	}
	if strings.Contains(c.Detail+c.Fix, "41234") || strings.Contains(c.Detail+c.Fix, "0b5f") {
		t.Errorf("the file's content leaked: %+v", c)
	}
}

// frontDoor serves h on 127.0.0.1 and returns its /mcp URL and port.
func frontDoor(t *testing.T, mk func(port int) http.Handler) string {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	port := ts.Listener.Addr().(*net.TCPAddr).Port
	ts.Config.Handler = mk(port)
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp"
}

const testToken = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestHTTPChecksAgainstLyradsHandler(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	url := frontDoor(t, func(port int) http.Handler { return transport.HTTPHandler(srv, testToken, port, 0) })
	for _, c := range []Check{CheckHTTPToken(url, testToken), CheckHTTPOrigin(url, testToken), CheckHTTPHost(url, testToken)} {
		if c.Status != Pass {
			t.Errorf("%s: %s %s", c.Name, c.Status, c.Detail)
		}
	}
	// The daemon was handed another token than the file holds.
	c := CheckHTTPToken(url, strings.Repeat("f", 64))
	if c.Status != Fail || !strings.Contains(c.Detail, "refused too (401") {
		t.Errorf("wrong token: %+v", c)
	}
}

func TestHTTPChecksAgainstAnOpenDoor(t *testing.T) {
	url := frontDoor(t, func(int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "{}") })
	})
	c := CheckHTTPToken(url, testToken)
	if c.Status != Fail || !strings.Contains(c.Detail, "without a token got 200, not 401") || c.Fix != notLyrad {
		t.Errorf("token: %+v", c)
	}
	c = CheckHTTPOrigin(url, testToken)
	if c.Status != Fail || !strings.Contains(c.Detail, "Origin: http://evil.example got 200, not 403") {
		t.Errorf("origin: %+v", c)
	}
	c = CheckHTTPHost(url, testToken)
	if c.Status != Fail || !strings.Contains(c.Detail, "Host: evil.example got 200, not 403") {
		t.Errorf("host: %+v", c)
	}
}

// TestCheckHTTPStaleEndpoint: an http.json no daemon stands behind is
// passed over, and doctor creates no token.
func TestCheckHTTPStaleEndpoint(t *testing.T) {
	data := datadir.New(t.TempDir())
	rm, err := data.WriteEndpoint("http://127.0.0.1:8765/mcp")
	if err != nil {
		t.Fatal(err)
	}
	// Written, but no daemon holds the directory: left over.
	var info HTTPInfo
	cs := checkHTTP(context.Background(), data, false, &info)
	if cs[0].Status != Skip || !strings.Contains(cs[0].Detail, "no daemon running (http.json is left over") || info.Serving {
		t.Errorf("stale http.json: %+v", cs)
	}
	rm()
	cs = checkHTTP(context.Background(), data, false, &info)
	if cs[0].Status != Skip || cs[0].Detail != "no daemon serves HTTP" {
		t.Errorf("no http.json: %+v", cs)
	}
	// No token file: doctor must not create one.
	if _, err := os.Stat(data.Token()); !os.IsNotExist(err) {
		t.Errorf("doctor created a token: %v", err)
	}
}

// TestCheckHTTPLeavesTheTokenAlone: doctor only reads the token. A file
// too short to be a token is not replaced (that would change the token
// under a running daemon's clients), and a loose one is not chmodded.
func TestCheckHTTPLeavesTheTokenAlone(t *testing.T) {
	data := datadir.New(t.TempDir())
	for _, content := range []string{"short\n", strings.Repeat("cd", 32) + "\n"} {
		if err := os.WriteFile(data.Token(), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chmod(data.Token(), 0o644) // in spite of umask
		var info HTTPInfo
		checkHTTP(context.Background(), data, false, &info)
		b, err := os.ReadFile(data.Token())
		if err != nil || string(b) != content {
			t.Errorf("token file now %q, %v; was %q", b, err, content)
		}
		if st, err := os.Stat(data.Token()); err != nil || st.Mode().Perm() != 0o644 {
			t.Errorf("token file mode now %v, %v; doctor must not change it", st.Mode().Perm(), err)
		}
		if want := strings.TrimSpace(content); len(want) >= 32 && info.Token != want || len(want) < 32 && info.Token != "" {
			t.Errorf("%q: info.Token = %q", content, info.Token)
		}
	}
}

// fakeDevTools serves /json/version and a WebSocket endpoint the way Chrome
// does; open turns off its Origin and Host checks.
func fakeDevTools(t *testing.T, open bool) int {
	t.Helper()
	ts := httptest.NewUnstartedServer(nil)
	port := ts.Listener.Addr().(*net.TCPAddr).Port
	self := "127.0.0.1:" + strconv.Itoa(port)
	mux := http.NewServeMux()
	mux.HandleFunc("/json/version", func(w http.ResponseWriter, r *http.Request) {
		if !open && r.Host != self {
			http.Error(w, "Host header is specified and is not an IP address or localhost.", 500)
			return
		}
		fmt.Fprintf(w, `{"Browser":"Fake/1","webSocketDebuggerUrl":"ws://%s/devtools/browser/secret-id"}`, self)
	})
	mux.HandleFunc("/devtools/browser/secret-id", func(w http.ResponseWriter, r *http.Request) {
		// websocket.Accept refuses a cross-origin handshake with 403, as Chrome.
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: open})
		if err == nil {
			c.Close(websocket.StatusNormalClosure, "")
		}
	})
	ts.Config.Handler = mux
	ts.Start()
	t.Cleanup(ts.Close)
	return port
}

func TestDebuggingPortProbes(t *testing.T) {
	port := fakeDevTools(t, false)
	for _, c := range []Check{CheckOriginRefused(port), CheckForeignHostRefused(port)} {
		if c.Status != Pass {
			t.Errorf("%s: %s %s", c.Name, c.Status, c.Detail)
		}
		leak(t, c, port)
	}
	if c := CheckOriginRefused(port); !strings.Contains(c.Detail, "/json/version answers") {
		t.Errorf("the residual exposure is not named: %s", c.Detail)
	}

	port = fakeDevTools(t, true)
	c := CheckOriginRefused(port)
	if c.Status != Fail || !strings.Contains(c.Detail, "was accepted") || !strings.Contains(c.Fix, "--remote-allow-origins") {
		t.Errorf("open origin: %+v", c)
	}
	leak(t, c, port)
	c = CheckForeignHostRefused(port)
	if c.Status != Fail || !strings.Contains(c.Detail, "answered 200") {
		t.Errorf("open host: %+v", c)
	}
	leak(t, c, port)

	// Nothing listens.
	ln, _ := net.Listen("tcp4", "127.0.0.1:0")
	dead := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	c = CheckOriginRefused(dead)
	if c.Status != Fail {
		t.Errorf("dead port: %+v", c)
	}
	leak(t, c, dead)
}

func leak(t *testing.T, c Check, port int) {
	t.Helper()
	all := c.Detail + " " + c.Fix
	for _, s := range []string{strconv.Itoa(port), "secret-id", "ws://"} {
		if strings.Contains(all, s) {
			t.Errorf("%s names %q: %s", c.Name, s, all)
		}
	}
}

func TestRedact(t *testing.T) {
	in := `Get "http://127.0.0.1:41234/json/version": dial tcp [::1]:41234: refused; ws://127.0.0.1:41234/devtools/browser/abc`
	out := redact(in, 41234, "/devtools/browser/abc")
	if strings.Contains(out, "41234") || strings.Contains(out, "abc") {
		t.Errorf("redact: %s", out)
	}
}

func TestReport(t *testing.T) {
	r := Report{DataDir: "/d", Checks: []Check{
		pass(NameBrowserFound, "/usr/bin/chromium"),
		fail(NameProfileMode, "/d/profile is 0755", "chmod 700 /d/profile"),
	}, HTTP: HTTPInfo{Serving: true, URL: "http://127.0.0.1:1/mcp", Token: "tok"}}
	var b bytes.Buffer
	r.WriteText(&b)
	out := b.String()
	for _, want := range []string{
		"PASS  browser found: /usr/bin/chromium\n",
		"FAIL  profile is 0700: /d/profile is 0755 -- fix: chmod 700 /d/profile\n",
		"token: tok\n",
		"endpoint: http://127.0.0.1:1/mcp",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"checks", "ok", "browser", "http"} {
		if _, ok := back[k]; !ok {
			t.Errorf("JSON lacks %q: %s", k, b.String())
		}
	}
}

// TestBrowserNotFoundFix: a --chrome path that is not there is named in the
// fix, which does not say to install Chromium when a browser is installed.
func TestBrowserNotFoundFix(t *testing.T) {
	var info BrowserInfo
	out := checkBrowser(context.Background(), Options{Executable: "/nonexistent/chrome"}, true, &info, nil)
	c := out[0]
	if c.Name != NameBrowserFound || c.Status != Fail || !strings.Contains(c.Fix, "/nonexistent/chrome") {
		t.Fatalf("%+v", c)
	}
	if f, err := chrome.Find("", ""); err == nil && (strings.Contains(c.Fix, "install Chromium") || !strings.Contains(c.Fix, f.Path)) {
		t.Errorf("fix with %s installed: %q", f.Path, c.Fix)
	}
	out = checkBrowser(context.Background(), Options{Channel: "chrome-canary"}, true, &info, nil)
	if _, err := chrome.Find("chrome-canary", ""); err != nil && !strings.Contains(out[0].Fix, "chrome-canary") {
		t.Errorf("channel fix: %q", out[0].Fix)
	}
}
