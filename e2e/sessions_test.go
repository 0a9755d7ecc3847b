package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dropDelete sends every request with the bearer token but DELETE, which it
// answers itself: the client ends as the MCP Inspector CLI does, without
// ending its session.
type dropDelete struct{ token string }

func (d dropDelete) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodDelete {
		return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: r}, nil
	}
	return bearer{d.token, http.DefaultTransport}.RoundTrip(r)
}

// connectHTTPAs connects over streamable HTTP as the client named name,
// through rt.
func (l *lyrad) connectHTTPAs(t *testing.T, name, protocol string, rt http.RoundTripper) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: l.httpURL, HTTPClient: &http.Client{Transport: rt}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, sessionOpts(protocol))
	if err != nil {
		t.Fatalf("connect over HTTP as %s: %v", name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectRelayAs spawns `lyrad stdio`, which relays to the daemon on
// dataDir, as the client named name; asked counts the questions its user
// is put, and every one is approved.
func connectRelayAs(t *testing.T, dataDir, name string, asked *atomic.Int32) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(lyradBin, "stdio")
	cmd.Env = baseEnv(dataDir)
	cmd.Stderr = os.Stderr
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, sessionOpts(proto2025))
	if err != nil {
		t.Fatalf("connect over the stdio relay as %s: %v", name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestHTTPSessionWithoutDeleteEnds: an HTTP client that drives and goes
// away without DELETE holds the browser only until its session has been
// idle for LYRA_BROWSER_HTTP_SESSION_TIMEOUT; then the next session may
// drive. (No reconnect grace here: that is TestReconnectResumes.)
func TestHTTPSessionWithoutDeleteEnds(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	const timeout = 4 * time.Second
	l := startServe(t, "", fmt.Sprintf("LYRA_BROWSER_HTTP_SESSION_TIMEOUT=%g", timeout.Seconds()), "LYRA_BROWSER_RECONNECT_GRACE=0")
	// Both keep a GET stream open while connected (a stateful HTTP server
	// speaks 2025-11-25): the other session's keeps it alive through a
	// quiet spell longer than the timeout.
	other := l.connectHTTPAs(t, "e2e-other", proto2025, bearer{l.token, http.DefaultTransport})
	silent := l.connectHTTPAs(t, "e2e-silent", proto2025, dropDelete{l.token})
	wantStatus(t, call(t, silent, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	// The silent client exits: its stream ends, no DELETE is sent. The
	// timeout runs from here, the browser open.
	silent.Close()
	start := time.Now()
	wantStatus(t, call(t, other, "get_url", nil), "session_conflict")
	if took := time.Since(start); took >= timeout {
		t.Fatalf("the conflict check took %v, longer than the timeout: it proves nothing", took)
	}
	if n := len(rowsWhere(auditRows(t, l.dataDir), has{"kind": "session", "status": "handoff"})); n != 0 {
		t.Fatalf("handed on before the timeout: %d handoff rows", n)
	}
	// Nothing more from the silent client: its session ends by itself.
	waitFor(t, "the silent client's session to end", timeout+30*time.Second, func() bool {
		return len(rowsWhere(auditRows(t, l.dataDir), has{"kind": "session", "status": "handoff", "reason": "session_ended"})) > 0
	})
	if idle := time.Since(start); idle < timeout-time.Second {
		t.Errorf("the session ended after %v, before the %v timeout", idle, timeout)
	}
	wantStatus(t, call(t, other, "navigate", map[string]any{"url": s.URL + "/next"}), "ok")
	if s.count("/next") != 1 {
		t.Errorf("the next session's navigation reached /next %d times, want 1", s.count("/next"))
	}
}

// TestReconnectResumes: a driver that disconnects keeps its window for
// LYRA_BROWSER_RECONNECT_GRACE. The same client through the same front
// door finds its tab where it left it and is asked for its grants again;
// another client, or the same name through another door, gets
// session_conflict naming the grace; after the grace the window is closed.
func TestReconnectResumes(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	const grace = 15 * time.Second
	l := startServe(t, "", "LYRA_BROWSER_CONSENT_CHANNEL=auto", fmt.Sprintf("LYRA_BROWSER_RECONNECT_GRACE=%g", grace.Seconds()))
	rows := func(want has) int { return len(rowsWhere(auditRows(t, l.dataDir), want)) }
	var asked atomic.Int32
	first := connectRelayAs(t, l.dataDir, "e2e-reconnect", &asked)
	wantStatus(t, call(t, first, "navigate", map[string]any{"url": s.URL + "/next"}), "ok")
	if asked.Load() != 1 {
		t.Fatalf("the first navigation asked the user %d times, want 1", asked.Load())
	}
	pids := browserPIDs(t, l.dataDir)
	first.Close()
	waitFor(t, "the driver's turn to be held", 20*time.Second, func() bool {
		return rows(has{"kind": "session", "status": "held", "client": "e2e-reconnect", "front_door": "stdio"}) == 1
	})

	// Others meanwhile: another client, and the same name over HTTP.
	stranger := l.connectHTTPAs(t, "e2e-stranger", proto2025, bearer{l.token, http.DefaultTransport})
	sameNameHTTP := l.connectHTTPAs(t, "e2e-reconnect", proto2025, bearer{l.token, http.DefaultTransport})
	for name, cs := range map[string]*mcp.ClientSession{"another client": stranger, "the same name over HTTP": sameNameHTTP} {
		for _, tool := range []string{"get_url", "navigate", "close_browser"} {
			args := map[string]any{}
			if tool == "navigate" {
				args = map[string]any{"url": s.URL + "/", "confirm": true}
			}
			env := call(t, cs, tool, args)
			if env["status"] != "session_conflict" || env["reconnect_grace_s"] != grace.Seconds() || !strings.Contains(fmt.Sprint(env["hint"]), "LYRA_BROWSER_RECONNECT_GRACE") {
				t.Errorf("%s, %s during the grace: %v, want session_conflict naming the grace", name, tool, env)
			}
		}
	}
	if s.count("/") != 0 {
		t.Errorf("a refused session's navigation reached the site")
	}

	// The same client comes back through the same door: same browser,
	// same tab, same URL; its grants died with the old session.
	again := connectRelayAs(t, l.dataDir, "e2e-reconnect", &asked)
	env := call(t, again, "get_url", nil)
	wantStatus(t, env, "ok")
	if env["url"] != s.URL+"/next" {
		t.Errorf("after reconnecting: url %v, want %s/next", env["url"], s.URL)
	}
	tabs := call(t, again, "tabs", nil)
	if tabs["tab_count"] != float64(1) {
		t.Errorf("after reconnecting: %v, want the one tab", tabs)
	}
	if now := browserPIDs(t, l.dataDir); fmt.Sprint(now) != fmt.Sprint(pids) {
		t.Errorf("browser processes %v before the disconnect, %v after: not the same browser", pids, now)
	}
	if rows(has{"kind": "session", "status": "resumed", "client": "e2e-reconnect"}) != 1 {
		t.Error("no audit row for the resumed turn")
	}
	wantStatus(t, call(t, again, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	if asked.Load() != 2 {
		t.Errorf("the resumed session was asked %d times in all, want 2: its grants must be asked again", asked.Load())
	}

	// Gone for good: after the grace the window is closed.
	again.Close()
	waitFor(t, "the second hold", 20*time.Second, func() bool {
		return rows(has{"kind": "session", "status": "held"}) == 2
	})
	held := time.Now()
	if len(browserPIDs(t, l.dataDir)) == 0 {
		t.Fatal("the window closed at the disconnect, not after the grace")
	}
	waitFor(t, "the window to close after the grace", grace+30*time.Second, func() bool { return len(browserPIDs(t, l.dataDir)) == 0 })
	if time.Since(held) < grace/2 {
		t.Errorf("the window closed %v after the disconnect, before the %v grace", time.Since(held), grace)
	}
	if rows(has{"kind": "session", "status": "handoff", "reason": "reconnect_grace_expired"}) != 1 {
		t.Error("no handoff row with reason reconnect_grace_expired")
	}
	late := connectRelayAs(t, l.dataDir, "e2e-reconnect", &asked)
	wantStatus(t, call(t, late, "get_url", nil), "browser_not_open")
	wantStatus(t, call(t, stranger, "open_browser", nil), "ok")
}
