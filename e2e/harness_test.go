// Package e2e drives lyrad's own binary with a real MCP client against a
// real Chromium and sites served on loopback. Different loopback addresses
// (127.0.0.1, 127.0.0.2) are different sites, which gives real cross-site
// popups and out-of-process iframes without a network.
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/internal/testenv"
)

var lyradBin string

// binEnv names the lyrad the harness built, for a test that runs this test
// binary again as a helper (doctor_test.go): the helper's TestMain uses it
// instead of building lyrad once more.
const binEnv = "LYRAD_E2E_BIN"

func TestMain(m *testing.M) {
	if bin := os.Getenv(binEnv); bin != "" {
		lyradBin = bin
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "lyrad-e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lyradBin = filepath.Join(dir, "lyrad")
	build := exec.Command("go", "build", "-o", lyradBin, "../cmd/lyrad")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building lyrad:", err)
		os.Exit(1)
	}
	os.Setenv(binEnv, lyradBin)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needBrowser comes first in every test that opens a browser: the one lyrad
// would find, under the harness's rule (testenv.Browser: skips under
// -short, fails in CI when there is none).
func needBrowser(t *testing.T) string {
	t.Helper()
	return testenv.Browser(t, func() (string, error) {
		f, err := chrome.Find("", "")
		return f.Path, err
	})
}

// parallel lets a test run beside other tests that call it (go test
// -parallel bounds how many: .ci/run and the Taskfile run two). Only a
// test that needs nothing shared may call it: it starts its own lyrad on
// its own data directory (t.TempDir) against its own loopback sites, and
// its browser is headless. Not for a test that uses the display (Xvfb,
// xdotool, a headful browser), the environment (t.Setenv, which panics
// here), the machine's ~/Downloads or $TMPDIR, process or socket lists
// beyond its own browser's, CPU measurements, or a deadline it
// must beat by a thin margin (kill latency, a use that renews a lifetime, a
// timer raced against an answer, a "nothing within X" window): a
// neighbour's load would make those race the clock. Waiting a lifetime out
// (a grant TTL, a reconnect grace) is no race: a slower run only waits
// longer; such a test may run side by side when what it must do within
// the lifetime has room for a 4x slowdown. A measure of its own lyrad's
// memory (RSS, its peak) may too: a neighbour changes how long the test
// takes, not how much lyrad holds.
func parallel(t *testing.T) {
	t.Helper()
	t.Parallel()
}

// site is a loopback web server that counts what reaches it.
type site struct {
	URL    string // http://127.0.0.N:port
	mu     sync.Mutex
	hits   map[string]int
	srv    *http.Server
	routes map[string]http.HandlerFunc
	seen   func(r *http.Request) // if set, hears of every request first
	conns  map[net.Conn]bool     // accepted and not yet closed
}

func newSite(t *testing.T, host string) *site {
	t.Helper()
	ln, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatalf("listen on %s: %v", host, err)
	}
	s := &site{URL: "http://" + ln.Addr().String(), hits: map[string]int{}, routes: map[string]http.HandlerFunc{}, conns: map[net.Conn]bool{}}
	// Large enough for the 2 MB URLs hostile pages make.
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), MaxHeaderBytes: 4 << 20, ConnState: s.connState}
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

// drainPath is drained's own request: answered, never counted.
const drainPath = "/.e2e-drained"

func (s *site) connState(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st == http.StateClosed || st == http.StateHijacked {
		delete(s.conns, c)
	} else {
		s.conns[c] = true
	}
}

// drained waits until every request sent to the site before the call has
// been served (its handler run), for a test that counts what reached a
// site once the browser that sent it is gone: no sleep for stragglers. A
// request of its own goes through the listener's accept queue behind any
// connection the browser opened, so once it is answered every one of those
// was accepted; each is then waited on until it closes, which the server
// does after serving what came on it, once it reads its dead peer's end.
// Only for a site no live browser holds a connection to.
func (s *site) drained(t *testing.T) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	resp, err := c.Get(s.URL + drainPath)
	if err != nil {
		t.Fatalf("drained: %v", err)
	}
	resp.Body.Close()
	s.mu.Lock()
	var open []net.Conn
	for c := range s.conns {
		open = append(open, c)
	}
	s.mu.Unlock()
	waitFor(t, "the connections to "+s.URL+" to be served and closed", 10*time.Second, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range open {
			if s.conns[c] {
				return false
			}
		}
		return true
	})
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == drainPath {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	s.mu.Lock()
	s.hits[r.URL.Path]++
	h := s.routes[r.URL.Path]
	seen := s.seen
	s.mu.Unlock()
	if seen != nil {
		seen(r)
	}
	if h == nil {
		http.NotFound(w, r)
		return
	}
	h(w, r)
}

// page serves HTML at path.
func (s *site) page(path, html string) {
	s.handle(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	})
}

func (s *site) handle(path string, h http.HandlerFunc) {
	s.mu.Lock()
	s.routes[path] = h
	s.mu.Unlock()
}

func (s *site) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

// lyrad is one lyrad process under test.
type lyrad struct {
	dataDir string
	cmd     *exec.Cmd
	httpURL string
	token   string
	stderr  *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func baseEnv(dataDir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "LYRA_BROWSER_") || strings.HasPrefix(kv, "VEGA_BROWSER_") {
			continue
		}
		env = append(env, kv)
	}
	// Approval off: tests that are not about consent navigate without
	// prompts; the guard still refuses what no grant covers.
	return append(env, "LYRA_BROWSER_DATA_DIR="+dataDir, "LYRA_BROWSER_HEADLESS=true", "LYRA_BROWSER_CONSENT_CHANNEL=off")
}

var httpLine = regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/mcp)`)
var tokenLine = regexp.MustCompile(`Authorization: Bearer ([0-9a-f]+)`)

// startServe runs `lyrad serve --http --port 0` on a fresh data dir and
// waits until it says where it listens.
func startServe(t *testing.T, dataDir string, extraEnv ...string) *lyrad {
	t.Helper()
	if dataDir == "" {
		dataDir = t.TempDir()
	}
	cmd := exec.Command(lyradBin, "serve", "--http", "--port", "0")
	cmd.Env = append(baseEnv(dataDir), extraEnv...)
	return startServeCmd(t, cmd, dataDir, 15*time.Second)
}

// startServeCmd starts cmd, a `lyrad serve --http` on dataDir, and waits
// (up to wait) until it prints its HTTP address and token; stopped at the
// test's end.
func startServeCmd(t *testing.T, cmd *exec.Cmd, dataDir string, wait time.Duration) *lyrad {
	t.Helper()
	l := &lyrad{dataDir: dataDir, cmd: cmd, stderr: &lockedBuffer{}}
	pr, pw, _ := os.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			l.stderr.Write([]byte(line + "\n"))
			if m := httpLine.FindStringSubmatch(line); m != nil {
				l.httpURL = m[1]
			}
			if m := tokenLine.FindStringSubmatch(line); m != nil {
				l.token = m[1]
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(wait):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("%s did not come up:\n%s", strings.Join(cmd.Args, " "), l.stderr.String())
	}
	t.Cleanup(func() { l.stop(t) })
	return l
}

func (l *lyrad) stop(t *testing.T) {
	if l.cmd.ProcessState != nil {
		return
	}
	_ = l.cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- l.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		l.cmd.Process.Kill()
		<-done
		t.Errorf("lyrad did not exit on SIGINT within 15s")
	}
}

type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func sessionOpts(protocol string) *mcp.ClientSessionOptions {
	return &mcp.ClientSessionOptions{ProtocolVersion: protocol}
}

// connectHTTP connects the go-sdk client over streamable HTTP.
func (l *lyrad) connectHTTP(t *testing.T, protocol string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: l.httpURL, HTTPClient: &http.Client{Transport: bearer{l.token, http.DefaultTransport}}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, sessionOpts(protocol))
	if err != nil {
		t.Fatalf("connect over HTTP: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectStdio spawns `lyrad stdio` on dataDir: in-process when no daemon
// holds the directory, a relay to it otherwise.
func connectStdio(t *testing.T, dataDir, protocol string, extraEnv ...string) *mcp.ClientSession {
	t.Helper()
	return connectStdioBin(t, lyradBin, dataDir, protocol, extraEnv...)
}

// connectStdioBin is connectStdio with another build of lyrad (lyradTestBuild).
func connectStdioBin(t *testing.T, bin, dataDir, protocol string, extraEnv ...string) *mcp.ClientSession {
	t.Helper()
	return connectCmd(t, exec.Command(bin, "stdio"), "e2e-stdio", dataDir, protocol, nil, extraEnv...)
}

// connectCmd connects an MCP client named name to the lyrad command cmd,
// run on dataDir.
func connectCmd(t *testing.T, cmd *exec.Cmd, name, dataDir, protocol string, opts *mcp.ClientOptions, extraEnv ...string) *mcp.ClientSession {
	t.Helper()
	cmd.Env = append(baseEnv(dataDir), extraEnv...)
	cmd.Stderr = os.Stderr
	if os.Getenv("E2E_QUIET") != "" {
		cmd.Stderr = nil
	}
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, sessionOpts(protocol))
	if err != nil {
		t.Fatalf("connect over stdio: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call runs a tool and returns its envelope.
func call(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if args == nil {
		args = map[string]any{}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var env map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &env); err != nil || env == nil {
		t.Fatalf("%s: no structured envelope: %s", name, b)
	}
	// The text block carries the same object.
	if len(res.Content) == 0 {
		t.Fatalf("%s: no text content", name)
	}
	recordReply(name, env)
	return env
}

// recordReply keeps real replies for tools' schema test
// (tools/testdata/replies.jsonl; see TestRecordedReplies there): with
// E2E_RECORD_REPLIES set to a directory, one reply of each tool, status
// and set of keys is appended to replies.jsonl in it, long strings cut.
func recordReply(tool string, env map[string]any) {
	dir := os.Getenv("E2E_RECORD_REPLIES")
	if dir == "" {
		return
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	shape := fmt.Sprint(tool, env["status"], keys)
	recorded.Lock()
	defer recorded.Unlock()
	if recorded.seen == nil {
		recorded.seen = map[string]bool{}
	}
	if recorded.seen[shape] {
		return
	}
	recorded.seen[shape] = true
	var cut func(v any) any
	cut = func(v any) any {
		switch x := v.(type) {
		case string:
			if len(x) > 200 {
				return x[:200]
			}
		case map[string]any:
			for k, e := range x {
				x[k] = cut(e)
			}
		case []any:
			for i, e := range x {
				x[i] = cut(e)
			}
		}
		return v
	}
	// A copy: the test goes on with env as it came.
	var reply any
	b, _ := json.Marshal(env)
	_ = json.Unmarshal(b, &reply)
	b, _ = json.Marshal(map[string]any{"tool": tool, "reply": cut(reply)})
	f, err := os.OpenFile(filepath.Join(dir, "replies.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n'))
}

var recorded struct {
	sync.Mutex
	seen map[string]bool
}

func wantStatus(t *testing.T, env map[string]any, status string) {
	t.Helper()
	if env["status"] != status {
		t.Fatalf("status = %v, want %s; envelope: %v", env["status"], status, env)
	}
}

// hasHint: the envelope carries a hint, a non-empty string. A missing key
// is no hint (env["hint"] == "" would not notice it).
func hasHint(env map[string]any) bool {
	h, ok := env["hint"].(string)
	return ok && strings.TrimSpace(h) != ""
}

// browserPIDs finds the browser processes using this data dir's profile.
func browserPIDs(t *testing.T, dataDir string) []int {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	var pids []int
	needle := "--user-data-dir=" + filepath.Join(dataDir, "profile")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 0 && strings.Contains(string(b), needle) && !strings.Contains(string(b), "--type=") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitFor is testenv.WaitFor, the one polling wait every package's tests use.
func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	testenv.WaitFor(t, what, d, cond)
}

func execLyrad(dataDir string, args ...string) *exec.Cmd {
	cmd := exec.Command(lyradBin, args...)
	cmd.Env = baseEnv(dataDir)
	return cmd
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
