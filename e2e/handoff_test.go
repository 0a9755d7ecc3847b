package e2e

import (
	"strings"
	"testing"
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
	driver := l.connectHTTP(t, proto2025) // cannot be asked: confirm=true
	wantStatus(t, call(t, driver, "navigate", map[string]any{"url": s.URL + "/", "confirm": true}), "ok")

	// A client that cannot be asked.
	plain := l.connectHTTP(t, proto2025)
	env := call(t, plain, "navigate", map[string]any{"url": s.URL + "/", "confirm": true})
	wantStatus(t, env, "session_conflict")
	if env["holder_client"] != "e2e-http" || !strings.Contains(env["hint"].(string), "close_browser") {
		t.Errorf("conflict for a client that cannot be asked: %v", env)
	}

	// A client whose user says no, then yes.
	ask := &asker{decline: "Take over?"}
	other := connectAsking(t, dir, proto2026, ask.handle) // relays to the daemon
	env = call(t, other, "navigate", map[string]any{"url": s.URL + "/next", "confirm": true})
	wantStatus(t, env, "session_conflict")
	if ask.count("e2e-http has driven the browser") != 1 {
		t.Errorf("the question asked: %v", ask.asked)
	}
	if e := call(t, driver, "get_url", nil); e["status"] != "ok" || e["url"] != s.URL+"/" {
		t.Errorf("the driver after a no: %v", e)
	}
	ask.set("")
	wantStatus(t, call(t, other, "navigate", map[string]any{"url": s.URL + "/next", "confirm": true}), "ok")
	if e := call(t, other, "get_url", nil); e["url"] != s.URL+"/next" || e["tab_count"] != float64(1) {
		t.Errorf("the new driver's window: %v", e)
	}
	wantStatus(t, call(t, driver, "get_url", nil), "session_conflict")
	if rows := rowsWhere(auditRows(t, dir), has{"kind": "session", "status": "handoff", "reason": "taken_over"}); len(rows) != 1 {
		t.Errorf("handoff rows: %v", rows)
	}
}
