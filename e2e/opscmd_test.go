package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runOps runs `lyrad args...` on dataDir: stdout, stderr, exit code.
func runOps(t *testing.T, bin, dataDir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = baseEnv(dataDir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	code := 0
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("lyrad %v: %v", args, err)
	}
	return string(out), stderr.String(), code
}

func auditJSON(t *testing.T, out string) []map[string]any {
	t.Helper()
	var rows []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("audit --json printed a line that is not JSON: %q", l)
		}
		rows = append(rows, m)
	}
	return rows
}

// TestOpsCommandsOnARunningDaemon: after a few tool calls through a real
// daemon, audit --kind tool --since 1m shows exactly them, status names the
// daemon, and mcp-config prints blocks that reach it.
func TestOpsCommandsOnARunningDaemon(t *testing.T) {
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", "<title>Home</title><p>hi</p>")
	l := startServe(t, "")

	// An old tool row, as another writer would append it: --since must drop it.
	old, _ := json.Marshal(map[string]any{"ts": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339Nano), "kind": "tool", "tool": "navigate", "session": "old-row", "status": "ok"})
	f, err := os.OpenFile(filepath.Join(l.dataDir, "audit.jsonl"), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(append(old, '\n'))
	f.Close()

	cs := l.connectHTTP(t, proto2025)
	wantStatus(t, call(t, cs, "open_browser", nil), "ok")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/", "reason": "e2e"}), "ok")
	wantStatus(t, call(t, cs, "get_url", nil), "ok")

	// audit -f, started now, sees a row the daemon writes later, and ends
	// on SIGINT with exit 0.
	follow := exec.Command(lyradBin, "audit", "-f", "--kind", "tool", "--json")
	follow.Env = baseEnv(l.dataDir)
	followOut := &lockedBuffer{}
	follow.Stdout = followOut
	if err := follow.Start(); err != nil {
		t.Fatal(err)
	}
	defer follow.Process.Kill()
	waitFor(t, "audit -f printing the rows so far", 20*time.Second, func() bool {
		return strings.Count(followOut.String(), `"tool":"get_url"`) == 1
	})
	wantStatus(t, call(t, cs, "get_url", nil), "ok")
	waitFor(t, "audit -f printing the row written after it started", 20*time.Second, func() bool {
		return strings.Count(followOut.String(), `"tool":"get_url"`) == 2
	})
	follow.Process.Signal(os.Interrupt)
	if err := follow.Wait(); err != nil {
		t.Errorf("audit -f on SIGINT: %v, want exit 0", err)
	}

	var rows []map[string]any
	waitFor(t, "the four tool rows in lyrad audit", 20*time.Second, func() bool {
		out, errOut, code := runOps(t, lyradBin, l.dataDir, "audit", "--kind", "tool", "--since", "1m", "--json")
		if code != 0 || errOut != "" {
			t.Fatalf("audit: exit %d, stderr %q", code, errOut)
		}
		rows = auditJSON(t, out)
		return len(rows) >= 4
	})
	var tools []string
	for _, r := range rows {
		if r["kind"] != "tool" || r["session"] == "old-row" {
			t.Errorf("audit --kind tool --since 1m printed %v", r)
		}
		tools = append(tools, r["tool"].(string))
	}
	if !slices.Equal(tools, []string{"open_browser", "navigate", "get_url", "get_url"}) {
		t.Errorf("tool rows %v, want open_browser, navigate, get_url, get_url", tools)
	}
	// The guard's judgement of that navigation is there too, and nothing else.
	out, _, _ := runOps(t, lyradBin, l.dataDir, "audit", "--kind", "guard", "--since", "1m", "--json")
	guard := auditJSON(t, out)
	if len(guard) == 0 {
		t.Error("audit --kind guard --since 1m: no rows after a navigation")
	}
	for _, r := range guard {
		if r["kind"] != "guard" {
			t.Errorf("audit --kind guard printed %v", r)
		}
	}
	// Without --since the old row is there: the filter, not its absence, dropped it.
	out, _, _ = runOps(t, lyradBin, l.dataDir, "audit", "--kind", "tool", "--session", "old-row")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "TIME") || !strings.Contains(lines[1], "navigate") {
		t.Errorf("audit table for old-row:\n%s", out)
	}

	// status names this daemon and its browser.
	out, errOut, code := runOps(t, lyradBin, l.dataDir, "status", "--json")
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil || code != 0 {
		t.Fatalf("status: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if st["running"] != true || st["pid"] != float64(l.cmd.Process.Pid) || st["http"] != l.httpURL || st["browser_running"] != true {
		t.Errorf("status --json: %v", st)
	}
	// And, asked over the admin socket, who drives, the tabs and the grants.
	drv, _ := st["driver"].(map[string]any)
	tabs, _ := st["tabs"].([]any)
	grants, _ := st["grants"].([]any)
	if drv["front_door"] != "http" || len(tabs) != 1 || len(grants) == 0 || st["takeover"] != nil {
		t.Errorf("status --json live state: driver %v, tabs %v, grants %v, takeover %v", drv, tabs, grants, st["takeover"])
	}
	// The daemon's own goroutines and open fds, which task soak watches.
	if g, _ := st["goroutines"].(float64); g < 2 {
		t.Errorf("status --json goroutines %v", st["goroutines"])
	}
	if f, _ := st["fds"].(float64); f < 3 {
		t.Errorf("status --json fds %v", st["fds"])
	}

	// mcp-config through a symlink names the real binary, and its block
	// reaches this daemon.
	link := filepath.Join(t.TempDir(), "lyrad-link")
	if err := os.Symlink(lyradBin, link); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runOps(t, link, l.dataDir, "mcp-config")
	var cfg struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			URL     string            `json:"url"`
			Headers map[string]string `json:"headers"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(out), &cfg); err != nil || code != 0 || errOut != "" {
		t.Fatalf("mcp-config: exit %d, %v, stderr %q\n%s", code, err, errOut, out)
	}
	resolved, _ := filepath.EvalSymlinks(lyradBin)
	srv := cfg.MCPServers["lyrad"]
	if srv.Command != resolved || !slices.Equal(srv.Args, []string{"stdio", "--data-dir", l.dataDir}) {
		t.Fatalf("mcp-config: command %q args %q, want %q stdio --data-dir %s", srv.Command, srv.Args, resolved, l.dataDir)
	}
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Env = baseEnv(l.dataDir)
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-mcp-config", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pasted, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, sessionOpts(proto2025))
	if err != nil {
		t.Fatalf("connect with the mcp-config block: %v", err)
	}
	defer pasted.Close()
	if res, err := pasted.ListTools(ctx, nil); err != nil || len(res.Tools) == 0 {
		t.Fatalf("tools/list through the mcp-config block: %v", err)
	}

	out, _, code = runOps(t, lyradBin, l.dataDir, "mcp-config", "--http")
	cfg.MCPServers = nil
	if err := json.Unmarshal([]byte(out), &cfg); err != nil || code != 0 {
		t.Fatalf("mcp-config --http: exit %d, %v\n%s", code, err, out)
	}
	if h := cfg.MCPServers["lyrad"]; h.URL != l.httpURL || h.Headers["Authorization"] != "Bearer "+l.token {
		t.Errorf("mcp-config --http: %+v, want %s with the daemon's token", h, l.httpURL)
	}
}

// TestSessionIDsUniqueAcrossRuns: two in-process `lyrad stdio` runs on one
// data directory, one after the other, leave two session ids in its trail
// (each run numbers its sessions from 1), and `lyrad audit --session`
// picks one run's rows only.
func TestSessionIDsUniqueAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 2; i++ {
		cs := connectStdio(t, dir, proto2026)
		wantStatus(t, call(t, cs, "list_downloads", nil), "ok")
		cs.Close()
		// The run ends (the lock goes) before the next starts: otherwise
		// the second would relay to the first.
		waitFor(t, "the run to release the data directory", 30*time.Second, func() bool {
			_, _, code := runOps(t, lyradBin, dir, "status")
			return code == 3
		})
	}
	out, errOut, code := runOps(t, lyradBin, dir, "audit", "--json", "--kind", "tool")
	if code != 0 {
		t.Fatalf("audit: %d %s", code, errOut)
	}
	rows := auditJSON(t, out)
	if len(rows) != 2 || rows[0]["session"] == rows[1]["session"] {
		t.Fatalf("the two runs' tool rows: %v", rows)
	}
	first, _ := rows[0]["session"].(string)
	out, _, _ = runOps(t, lyradBin, dir, "audit", "--json", "--session", first)
	if got := auditJSON(t, out); len(got) == 0 || slices.ContainsFunc(got, func(r map[string]any) bool { return r["session"] != first }) {
		t.Errorf("--session %s: %v", first, got)
	}
}

// TestOperatorMessages: the command line speaks to the person at the
// terminal, not to the agent, and says what is really wrong.
func TestOperatorMessages(t *testing.T) {
	needBrowser(t)
	// status on a data directory nothing has used: no empty list.
	unused := t.TempDir()
	out, _, code := runOps(t, lyradBin, unused, "status")
	if code != 3 || strings.Contains(out, "latest events:") || !strings.Contains(out, "no daemon runs; the audit trail records no event yet") {
		t.Errorf("status on an unused data dir: exit %d\n%s", code, out)
	}
	// --port without --http.
	if _, errOut, code := runOps(t, lyradBin, t.TempDir(), "serve", "--port", "8999"); code != 2 || !strings.Contains(errOut, "--http --port") {
		t.Errorf("serve --port without --http: exit %d, %q", code, errOut)
	}
	// A taken port: named, and nothing said to be serving first.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	_, errOut, code := runOps(t, lyradBin, t.TempDir(), "serve", "--http", "--port", port)
	if code != 1 || strings.Contains(errOut, "serving") || !strings.Contains(errOut, "--port "+port) || !strings.Contains(errOut, "another --port") {
		t.Errorf("serve on a taken port: exit %d\n%s", code, errOut)
	}
	// doctor names the --chrome that is missing, and does not say to
	// install a browser that is installed.
	out, _, code = runOps(t, lyradBin, t.TempDir(), "doctor", "--chrome", "/nonexistent/chrome")
	if code != 1 || !strings.Contains(out, "/nonexistent/chrome is not one") || strings.Contains(out, "install Chromium") {
		t.Errorf("doctor --chrome /nonexistent/chrome: exit %d\n%s", code, out)
	}

	// takeover with no browser open, then headless: operator's words.
	l := startServe(t, "")
	agentWords := []string{"open_browser", "Call ", "Do not wait", "carry on", "tell the user"}
	takeover := func(want string) {
		t.Helper()
		_, errOut, code := runOps(t, lyradBin, l.dataDir, "takeover")
		if code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("takeover: exit %d, %q, want %q", code, errOut, want)
		}
		for _, w := range agentWords {
			if strings.Contains(errOut, w) {
				t.Errorf("takeover tells the operator %q: %s", w, errOut)
			}
		}
	}
	takeover("no browser is open")
	cs := l.connectHTTP(t, proto2026)
	wantStatus(t, call(t, cs, "open_browser", nil), "ok")
	takeover("runs headless")
}

// TestStatusShowsHeldWindow: during the reconnect grace no session drives,
// but the window is kept for the client that left: status says so, with
// the grace, where it said `driver: none`.
func TestStatusShowsHeldWindow(t *testing.T) {
	parallel(t)
	needBrowser(t)
	l := startServe(t, "", "LYRA_BROWSER_RECONNECT_GRACE=300")
	var asked atomic.Int32
	first := connectRelayAs(t, l.dataDir, "e2e-held", &asked)
	wantStatus(t, call(t, first, "open_browser", nil), "ok")
	first.Close()
	waitFor(t, "the driver's turn to be held", 20*time.Second, func() bool {
		return len(rowsWhere(auditRows(t, l.dataDir), has{"kind": "session", "status": "held", "client": "e2e-held"})) == 1
	})
	out, _, code := runOps(t, lyradBin, l.dataDir, "status")
	if code != 0 || !strings.Contains(out, "the window is held for e2e-held via stdio") || !strings.Contains(out, "reconnect grace (300s)") || !strings.Contains(out, "session_conflict") {
		t.Errorf("status during the grace: exit %d\n%s", code, out)
	}
	out, _, _ = runOps(t, lyradBin, l.dataDir, "status", "--json")
	var st struct {
		Driver any            `json:"driver"`
		Held   map[string]any `json:"held"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.Driver != nil || st.Held["client"] != "e2e-held" || st.Held["grace_s"] != float64(300) {
		t.Errorf("status --json during the grace (%v):\n%s", err, out)
	}
}
