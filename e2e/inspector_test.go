package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lyrad/lyrad/internal/testenv"
)

// The MCP Inspector CLI is a second client, written apart from go-sdk: what
// it sends (its own initialize, key=value tool arguments, no DELETE when it
// exits over HTTP) is what a user's tools send, not what our own client
// happens to do.
const inspectorPkg = "@modelcontextprotocol/inspector@2.12.0"

// inspectorCLI returns the inspector's launcher. CI installs it once and
// names the directory in LYRAD_INSPECTOR_DIR (.ci/run); elsewhere it is
// installed with npm into a temporary directory. In CI a missing npm or a
// failed install fails the test; elsewhere it skips.
func inspectorCLI(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("LYRAD_INSPECTOR_DIR"); dir != "" {
		bin := filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
		_, err := os.Stat(bin)
		testenv.Need(t, "the MCP Inspector CLI in LYRAD_INSPECTOR_DIR (npm install --prefix \"$LYRAD_INSPECTOR_DIR\" "+inspectorPkg+")", err)
		return bin
	}
	npm := testenv.Tool(t, "npm", "to install the MCP Inspector CLI (Debian: apt-get install npm)")
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", inspectorPkg).CombinedOutput()
	if err != nil {
		err = fmt.Errorf("%v\n%s", err, out)
	}
	testenv.Need(t, "npm install "+inspectorPkg+" (needs the npm registry)", err)
	return filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
}

// inspector runs one inspector process per call against target (a command
// line for stdio, the URL for HTTP) with the given connection flags.
type inspector struct {
	bin    string
	env    []string // the inspector's own environment
	flags  []string // -e KEY=VALUE for stdio, --header for HTTP
	target []string
}

// run makes one invocation and returns the JSON result it printed.
func (in inspector) run(t *testing.T, args ...string) map[string]any {
	t.Helper()
	argv := append([]string{"--cli", "--format", "json", "-q"}, in.flags...)
	argv = append(append(argv, args...), "--")
	argv = append(argv, in.target...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, in.bin, argv...)
	cmd.Env = in.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var out struct {
		Result map[string]any `json:"result"`
	}
	if jerr := json.Unmarshal(stdout.Bytes(), &out); err != nil || jerr != nil || out.Result == nil {
		t.Fatalf("inspector %s: %v %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, jerr, stdout.String(), stderr.String())
	}
	return out.Result
}

// tool calls a tool in its own process and returns the envelope.
func (in inspector) tool(t *testing.T, name string, args ...string) map[string]any {
	t.Helper()
	argv := []string{"--method", "tools/call", "--tool-name", name}
	for _, a := range args {
		argv = append(argv, "--tool-arg", a)
	}
	res := in.run(t, argv...)
	env, ok := res["structuredContent"].(map[string]any)
	if !ok {
		t.Fatalf("%s through the inspector: no structured envelope: %v", name, res)
	}
	return env
}

// TestInspectorStdio: the inspector spawns `lyrad stdio`, which relays to
// the daemon on the same data directory; every call is a new process, so
// each one after open_browser resumes the turn the previous one left
// (LYRA_BROWSER_RECONNECT_GRACE).
func TestInspectorStdio(t *testing.T) {
	parallel(t)
	needBrowser(t)
	bin := inspectorCLI(t)
	l := startServe(t, "")
	env := baseEnv(l.dataDir)
	in := inspector{bin: bin, env: env, target: []string{lyradBin, "stdio"}}
	// The inspector may hand the server only a few variables of its own
	// environment: name lyrad's explicitly.
	for _, kv := range env {
		if strings.HasPrefix(kv, "LYRA_BROWSER_") {
			in.flags = append(in.flags, "-e", kv)
		}
	}
	inspectorRound(t, in, l, "stdio")
}

// TestInspectorHTTP: the inspector over streamable HTTP with the bearer
// token and the default session timeout. It exits without DELETE, its GET
// stream open until then; the next process, under the same name with the
// same Lyra-Resume-Token (the proof a name is not), takes the turn on with
// the window and tabs as they are: ten tool calls, one process each, no
// session_conflict, close_browser included.
func TestInspectorHTTP(t *testing.T) {
	parallel(t)
	needBrowser(t)
	bin := inspectorCLI(t)
	l := startServe(t, "")
	in := inspector{bin: bin, env: baseEnv(l.dataDir), flags: []string{"--header", "Authorization: Bearer " + l.token,
		// The proof that the next process is the same client (a name is
		// none): a header set once in the client's configuration.
		"--header", "Lyra-Resume-Token: inspector-" + l.token}, target: []string{l.httpURL}}
	s := friendly(t)
	s.page("/", `<html><head><title>Inspector</title></head><body><h1>Second client</h1><p>inspector-marker-7f3</p><a href="/next">next</a></body></html>`)
	tour := []struct {
		tool string
		args []string
	}{
		{"open_browser", nil},
		{"navigate", []string{"url=" + s.URL + "/", "confirm=true"}},
		{"read_page", nil},
		{"get_url", nil},
		{"navigate", []string{"url=" + s.URL + "/next", "confirm=true"}},
		{"go_back", nil},
		{"reload_page", nil},
		{"tabs", nil},
		{"read_page", nil},
		{"close_browser", nil},
	}
	ok := 0
	for i, step := range tour {
		env := in.tool(t, step.tool, step.args...)
		if env["status"] == "ok" {
			ok++
		} else {
			t.Errorf("call %d, %s: %v", i+1, step.tool, env)
		}
		// Each call acts on the window and tab the calls before left.
		if step.tool == "read_page" && !strings.Contains(jsonString(env), "inspector-marker-7f3") {
			t.Errorf("call %d, read_page: not the page the earlier processes opened: %.300s", i+1, jsonString(env))
		}
		if step.tool == "get_url" && env["url"] != s.URL+"/" {
			t.Errorf("call %d, get_url: %v, want %s/", i+1, env["url"], s.URL)
		}
		if step.tool == "tabs" && env["tab_count"] != float64(1) {
			t.Errorf("call %d, tabs: %v, want the one tab", i+1, env)
		}
	}
	t.Logf("the inspector's tour over HTTP: %d of %d calls ok, one process each", ok, len(tour))
	waitFor(t, "the browser to close", 30*time.Second, func() bool { return len(browserPIDs(t, l.dataDir)) == 0 })
}

// inspectorRound is the newcomer's round: list the tools, open, navigate to
// a loopback site, read it, close; each its own inspector process, each ok.
// Between calls it waits until the daemon has held the ended turn (an audit
// row), so the next process resumes it rather than racing its end.
func inspectorRound(t *testing.T, in inspector, l *lyrad, door string) {
	s := newSite(t, "127.0.0.1")
	s.page("/", `<html><head><title>Inspector</title></head><body><h1>Second client</h1><p>inspector-marker-7f3</p></body></html>`)

	list := in.run(t, "--method", "tools/list")
	names := map[string]bool{}
	tools, _ := list["tools"].([]any)
	for _, tl := range tools {
		if m, ok := tl.(map[string]any); ok {
			names[fmt.Sprint(m["name"])] = true
		}
	}
	for _, want := range []string{"open_browser", "navigate", "read_page", "close_browser"} {
		if !names[want] {
			t.Fatalf("tools/list through the inspector: no %s among %d tools", want, len(tools))
		}
	}

	held := func() int {
		return len(rowsWhere(auditRows(t, l.dataDir), has{"kind": "session", "status": "held", "front_door": door}))
	}
	turn := 0
	step := func(name string, args ...string) map[string]any {
		t.Helper()
		env := in.tool(t, name, args...)
		wantStatus(t, env, "ok")
		if name == "close_browser" {
			return env
		}
		turn++
		waitFor(t, fmt.Sprintf("the turn %s ended to be held", name), 30*time.Second, func() bool { return held() >= turn })
		return env
	}
	step("open_browser")
	step("navigate", "url="+s.URL+"/", "confirm=true")
	if s.count("/") != 1 {
		t.Fatalf("navigate answered ok but the site saw %d requests for /, want 1", s.count("/"))
	}
	page := step("read_page")
	if !strings.Contains(jsonString(page), "inspector-marker-7f3") {
		t.Errorf("read_page through the inspector does not hold the page's text: %v", page)
	}
	step("close_browser")
	if n := len(rowsWhere(auditRows(t, l.dataDir), has{"kind": "session", "status": "resumed", "front_door": door})); n != 2 {
		// close_browser in the grace ends the hold without resuming it.
		t.Errorf("%d resumed turns, want 2 (navigate and read_page each resumed the one before)", n)
	}
	waitFor(t, "the browser to close", 30*time.Second, func() bool { return len(browserPIDs(t, l.dataDir)) == 0 })
}

// TestInspectorKilledOverHTTP: the inspector is SIGKILLed in the middle of
// a call (its streams open, no DELETE); the next inspector process under
// the same name and Lyra-Resume-Token gets the same tab at once, and
// closes the browser.
func TestInspectorKilledOverHTTP(t *testing.T) {
	parallel(t)
	needBrowser(t)
	bin := inspectorCLI(t)
	l := startServe(t, "")
	s := friendly(t)
	// The inspector goes through a proxy that says when the call it is
	// killed in has reached lyrad.
	arrived := make(chan struct{}, 1)
	ps := newSite(t, "127.0.0.1")
	ps.handle("/mcp", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if bytes.Contains(body, []byte(`"wait_for"`)) {
			select {
			case arrived <- struct{}{}:
			default:
			}
		}
		(&cutOnce{target: l.httpURL, noCut: true}).ServeHTTP(w, r)
	})
	in := inspector{bin: bin, env: baseEnv(l.dataDir), flags: []string{"--header", "Authorization: Bearer " + l.token,
		"--header", "Lyra-Resume-Token: inspector-killed-" + l.token}, target: []string{ps.URL + "/mcp"}}
	wantStatus(t, in.tool(t, "navigate", "url="+s.URL+"/next", "confirm=true"), "ok")

	argv := append([]string{"--cli", "--format", "json", "-q"}, in.flags...)
	argv = append(argv, "--method", "tools/call", "--tool-name", "wait_for", "--tool-arg", "text=never-there", "--tool-arg", "timeout_ms=30000", "--")
	argv = append(argv, in.target...)
	victim := exec.Command(in.bin, argv...)
	victim.Env = in.env
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-arrived:
	case <-time.After(60 * time.Second):
		victim.Process.Kill()
		t.Fatal("the inspector's wait_for never reached lyrad")
	}
	victim.Process.Kill() // SIGKILL, mid-call
	victim.Wait()

	env := in.tool(t, "get_url")
	if env["status"] != "ok" || env["url"] != s.URL+"/next" {
		t.Fatalf("the next inspector process after the kill: %v, want ok at %s/next", env, s.URL)
	}
	wantStatus(t, in.tool(t, "close_browser"), "ok")
	waitFor(t, "the browser to close", 30*time.Second, func() bool { return len(browserPIDs(t, l.dataDir)) == 0 })
}
