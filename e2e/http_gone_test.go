package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// goneWithoutDelete sends the bearer token and a resume token, and never
// DELETE: the client ends as a killed one does (its connections, the GET
// stream among them, cut) or as the MCP Inspector CLI exits.
type goneWithoutDelete struct{ resumeToken }

func (g goneWithoutDelete) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodDelete {
		return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: r}, nil
	}
	return g.resumeToken.RoundTrip(r)
}

// connectHTTPAsking connects over HTTP as name with an elicitation handler
// that approves everything and counts the questions.
func (l *lyrad) connectHTTPAsking(t *testing.T, name string, rt http.RoundTripper, asked *atomic.Int32) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked.Add(1)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
		},
	})
	tr := &mcp.StreamableClientTransport{Endpoint: l.httpURL, HTTPClient: &http.Client{Transport: rt}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, sessionOpts(proto2025))
	if err != nil {
		t.Fatalf("connect over HTTP as %s: %v", name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestHTTPDriverGoneWithoutDelete: an HTTP driver whose client is killed or
// quits without DELETE (its GET stream cut) does not lock the browser, with
// the default LYRA_BROWSER_HTTP_SESSION_TIMEOUT. Its own program back at
// once, or after its session ended, gets the same tab, and may close the
// browser; another client is told the true wait (the reconnect grace, not
// an HTTP timeout nor the idle timeout), can be asked to take over, and
// drives once the grace is over; a driver with no resume token hands the
// browser on as soon as its session ends.
func TestHTTPDriverGoneWithoutDelete(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	const grace = 15 * time.Second
	l := startServe(t, "", "LYRA_BROWSER_CONSENT_CHANNEL=auto", fmt.Sprintf("LYRA_BROWSER_RECONNECT_GRACE=%g", grace.Seconds()))
	rows := func(want has) int { return len(rowsWhere(auditRows(t, l.dataDir), want)) }
	const name = "e2e-crashing-ide"
	mine := strings.Repeat("c0ffee42", 5)
	token := resumeToken{bearer{l.token, http.DefaultTransport}, mine}
	gone := goneWithoutDelete{token}
	drive := func(cs *mcp.ClientSession, path string) {
		t.Helper()
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + path, "confirm": true}), "ok")
	}
	wantURL := func(cs *mcp.ClientSession, path, when string) {
		t.Helper()
		env := call(t, cs, "get_url", nil)
		if env["status"] != "ok" || env["url"] != s.URL+path {
			t.Fatalf("%s: %v, want ok at %s%s", when, env, s.URL, path)
		}
	}

	// Killed, and back at once: its old session is not over yet.
	victim := l.connectHTTPAs(t, name, proto2025, gone)
	drive(victim, "/next")
	victim.Close()
	again := l.connectHTTPAs(t, name, proto2025, gone)
	wantURL(again, "/next", "the same program back at once")

	// Killed, and back after its session ended: the window was held.
	again.Close()
	cut := time.Now()
	waitFor(t, "the killed driver's session to end and its window to be held", 60*time.Second, func() bool {
		return rows(has{"kind": "session", "status": "held", "client": name}) == 1
	})
	t.Logf("a driver killed with its stream open: its window held %v after", time.Since(cut).Round(100*time.Millisecond))
	third := l.connectHTTPAs(t, name, proto2025, gone)
	wantURL(third, "/next", "the same program back after its session ended")

	// Another client meanwhile is told the true wait.
	other := l.connectHTTPAs(t, "e2e-other-ide", proto2025, bearer{l.token, http.DefaultTransport})
	env := call(t, other, "get_url", nil)
	wantStatus(t, env, "session_conflict")
	if hint := fmt.Sprint(env["hint"]); !strings.Contains(hint, "LYRA_BROWSER_HTTP_SESSION_TIMEOUT") || !strings.Contains(hint, "reconnect grace, 15s") {
		t.Errorf("conflict while the driver is connected: the hint does not say what happens when it quits: %v", env)
	}
	third.Close()
	waitFor(t, "the second hold", 60*time.Second, func() bool {
		return rows(has{"kind": "session", "status": "held", "client": name}) == 2
	})
	env = call(t, other, "get_url", nil)
	if env["status"] != "session_conflict" || env["reconnect_grace_s"] != grace.Seconds() {
		t.Fatalf("another client during the hold: %v, want session_conflict naming the grace", env)
	}
	if left, _ := env["grace_left_s"].(float64); left <= 0 || left > grace.Seconds() {
		t.Errorf("grace_left_s %v: not the time left of the %v grace", env["grace_left_s"], grace)
	}

	// A client whose user can be asked is asked, and takes it over.
	var asked atomic.Int32
	asking := l.connectHTTPAsking(t, "e2e-asking-ide", bearer{l.token, http.DefaultTransport}, &asked)
	wantStatus(t, call(t, asking, "open_browser", nil), "ok")
	if asked.Load() != 1 {
		t.Errorf("the asking client's user was asked %d times, want 1 (take over the held window)", asked.Load())
	}
	if rows(has{"kind": "session", "status": "handoff", "reason": "taken_over"}) != 1 {
		t.Error("no handoff row taken_over for the held window")
	}
	env = call(t, asking, "get_url", nil)
	if env["status"] != "ok" || env["url"] == s.URL+"/next" {
		t.Errorf("after taking the held window over: %v, want a fresh window", env)
	}
	wantStatus(t, call(t, asking, "close_browser", nil), "ok")

	// Its own program closes the browser from a new session while its old
	// session is still open.
	fourth := l.connectHTTPAs(t, name, proto2025, gone)
	drive(fourth, "/")
	fourth.Close()
	fifth := l.connectHTTPAs(t, name, proto2025, gone)
	wantStatus(t, call(t, fifth, "close_browser", nil), "ok")
	waitFor(t, "the browser to close", 30*time.Second, func() bool { return len(browserPIDs(t, l.dataDir)) == 0 })

	// No resume token: nothing to hold it by; the browser is handed on as
	// soon as its session ends.
	plain := l.connectHTTPAs(t, "e2e-tokenless-ide", proto2025, goneWithoutDelete{resumeToken{bearer{l.token, http.DefaultTransport}, ""}})
	drive(plain, "/")
	plain.Close()
	cut = time.Now()
	handoffs := rows(has{"kind": "session", "status": "handoff", "reason": "session_ended"})
	waitFor(t, "the tokenless driver's session to end", 60*time.Second, func() bool {
		return rows(has{"kind": "session", "status": "handoff", "reason": "session_ended"}) > handoffs
	})
	t.Logf("a driver with no resume token gone without DELETE: the browser handed on %v after", time.Since(cut).Round(100*time.Millisecond))
	wantStatus(t, call(t, other, "navigate", map[string]any{"url": s.URL + "/next", "confirm": true}), "ok")
}
