package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestConsentedHandoff: while one client drives, another client's user is
// asked whether to take the browser over. No leaves the driver as it was;
// yes hands the browser on: the new client drives a fresh window and the
// old one learns it with session_conflict. A client that cannot be asked
// gets session_conflict naming the holder.
func TestConsentedHandoff(t *testing.T) {
	needBrowser(t)
	s := friendly(t)
	dir := t.TempDir()
	l := startServe(t, dir, "LYRA_BROWSER_CONSENT_CHANNEL=auto")
	// The driver cannot be asked (confirm=true) and listens for log
	// notifications, by which it learns it lost the browser.
	var logMu sync.Mutex
	var logs []string
	dc := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "1"}, &mcp.ClientOptions{
		//lint:ignore SA1019 lyrad tells a session it lost the browser by a log notification
		LoggingMessageHandler: func(_ context.Context, r *mcp.LoggingMessageRequest) {
			logMu.Lock()
			logs = append(logs, fmt.Sprint(r.Params.Level, ": ", r.Params.Data))
			logMu.Unlock()
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	driver, err := dc.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: l.httpURL,
		HTTPClient: &http.Client{Transport: bearer{l.token, http.DefaultTransport}}}, sessionOpts(proto2025))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { driver.Close() })
	//lint:ignore SA1019 lyrad tells a session it lost the browser by a log notification
	if err := driver.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "info"}); err != nil {
		t.Fatal(err)
	}
	takenOver := func() int {
		logMu.Lock()
		defer logMu.Unlock()
		n := 0
		for _, m := range logs {
			if strings.Contains(m, "took the browser over") {
				n++
			}
		}
		return n
	}
	wantStatus(t, call(t, driver, "navigate", map[string]any{"url": s.URL + "/", "confirm": true}), "ok")

	// A client that cannot be asked.
	plain := l.connectHTTP(t, proto2025)
	env := call(t, plain, "navigate", map[string]any{"url": s.URL + "/", "confirm": true})
	wantStatus(t, env, "session_conflict")
	if env["holder_client"] != "e2e-http" || !strings.Contains(env["hint"].(string), "close_browser") ||
		!strings.Contains(env["hint"].(string), "LYRA_BROWSER_HTTP_SESSION_TIMEOUT") {
		t.Errorf("conflict for a client that cannot be asked: %v", env)
	}

	// A client whose user says no, then yes.
	ask := &asker{decline: "Take over?"}
	other := connectAsking(t, dir, proto2026, ask.handle) // relays to the daemon
	env = call(t, other, "navigate", map[string]any{"url": s.URL + "/next", "confirm": true})
	wantStatus(t, env, "session_conflict")
	if ask.count(`"e2e-http" has driven the browser`) != 1 {
		t.Errorf("the question asked: %v", ask.asked)
	}
	if e := call(t, driver, "get_url", nil); e["status"] != "ok" || e["url"] != s.URL+"/" {
		t.Errorf("the driver after a no: %v", e)
	}
	if n := takenOver(); n != 0 {
		t.Errorf("the driver was told of a takeover its user's peer declined: %v", logs)
	}
	ask.set("")
	wantStatus(t, call(t, other, "navigate", map[string]any{"url": s.URL + "/next", "confirm": true}), "ok")
	if e := call(t, other, "get_url", nil); e["url"] != s.URL+"/next" || e["tab_count"] != float64(1) {
		t.Errorf("the new driver's window: %v", e)
	}
	// The log notification arrives on the driver's own stream, unasked.
	for deadline := time.Now().Add(20 * time.Second); takenOver() == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if n := takenOver(); n != 1 {
		logMu.Lock()
		t.Errorf("the old driver's log notifications: %d about the takeover, all: %v", n, logs)
		logMu.Unlock()
	}
	wantStatus(t, call(t, driver, "get_url", nil), "session_conflict")
	if rows := rowsWhere(auditRows(t, dir), has{"kind": "session", "status": "handoff", "reason": "taken_over"}); len(rows) != 1 {
		t.Errorf("handoff rows: %v", rows)
	}
}

// TestHandoffApprovedAtTerminal: a client that cannot ask its user gets
// session_conflict with an approval id, the same while it repeats the call;
// lyrad approve --deny leaves the driver as it was; a yes to the next id
// hands the browser to the asking session on its repeat, once, and the old
// driver learns it. Every answer is in the audit trail.
func TestHandoffApprovedAtTerminal(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	dir := t.TempDir()
	l := startServe(t, dir, "LYRA_BROWSER_CONSENT_CHANNEL=auto")
	driver := l.connectHTTP(t, proto2025)
	wantStatus(t, call(t, driver, "navigate", map[string]any{"url": s.URL + "/", "confirm": true}), "ok")
	other := l.connectHTTP(t, proto2025)
	args := map[string]any{"url": s.URL + "/next", "confirm": true}
	conflictID := func(env map[string]any) (string, []string) {
		t.Helper()
		id, _ := env["approval_id"].(string)
		m := approvalCommand.FindStringSubmatch(fmt.Sprint(env["hint"]))
		if env["status"] != "session_conflict" || id == "" || m == nil || m[2] != id {
			t.Fatalf("want session_conflict with an approval id its hint names: %v", env)
		}
		return id, strings.Fields(m[1])
	}
	id, _ := conflictID(call(t, other, "navigate", args))
	if again, _ := conflictID(call(t, other, "navigate", args)); again != id {
		t.Errorf("the repeat before an answer got id %s, want %s", again, id)
	}
	code, out, _ := approveRun(t, dir, "--list")
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "HANDOFF") || !strings.Contains(out, `"e2e-http" has driven the browser`) {
		t.Errorf("lyrad approve --list (%d):\n%s", code, out)
	}

	// No: the driver keeps the browser.
	if code, out, errOut := approveRun(t, dir, "--deny", id); code != 0 {
		t.Fatalf("lyrad approve --deny %s: %d %s %s", id, code, out, errOut)
	}
	if env := call(t, other, "navigate", args); env["status"] != "session_conflict" || env["consent"] != "declined" {
		t.Errorf("the repeat after a deny: %v", env)
	}
	if e := call(t, driver, "get_url", nil); e["status"] != "ok" || e["url"] != s.URL+"/" {
		t.Errorf("the driver after a deny: %v", e)
	}

	// Yes: the next id, answered by the command its hint names.
	id2, command := conflictID(call(t, other, "navigate", args))
	if id2 == id {
		t.Errorf("the question asked after a deny kept the denied id %s", id)
	}
	if code, out, errOut := approveRun(t, dir, command[1:]...); code != 0 {
		t.Fatalf("lyrad %v: %d %s %s", command, code, out, errOut)
	}
	wantStatus(t, call(t, other, "navigate", args), "ok")
	if e := call(t, other, "get_url", nil); e["url"] != s.URL+"/next" || e["tab_count"] != float64(1) {
		t.Errorf("the new driver's window: %v", e)
	}
	wantStatus(t, call(t, driver, "get_url", nil), "session_conflict")
	if code, _, _ := approveRun(t, dir, id2); code == 0 {
		t.Errorf("the used id %s answered again", id2)
	}
	rows := auditRows(t, dir)
	if n := len(rowsWhere(rows, has{"kind": "consent", "capability": "HANDOFF", "status": "approval_pending"})); n != 2 {
		t.Errorf("%d HANDOFF approval_pending rows, want 2", n)
	}
	if n := len(rowsWhere(rows, has{"kind": "consent", "capability": "HANDOFF", "status": "accepted", "approval_id": id2})); n != 1 {
		t.Errorf("%d HANDOFF accepted rows for %s, want 1", n, id2)
	}
	if n := len(rowsWhere(rows, has{"kind": "session", "status": "handoff", "reason": "taken_over"})); n != 1 {
		t.Errorf("%d taken_over handoff rows, want 1", n)
	}
}
