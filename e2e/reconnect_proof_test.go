package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// buildImpostor builds e2e/cmd/impostor: another program than the client
// that drove (the e2e test binary, through `lyrad stdio`).
func buildImpostor(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "impostor")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/impostor").CombinedOutput()
	if err != nil {
		t.Fatalf("building the impostor: %v\n%s", err, out)
	}
	return bin
}

// runImpostor runs it with args and returns its calls' lines and how many
// questions its (always yes) user was asked.
func runImpostor(t *testing.T, bin, dataDir string, args ...string) (calls []map[string]any, asked int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = baseEnv(dataDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("impostor %v: %v\n%s", args, err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 16<<20), 16<<20)
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("impostor output %q: %v", sc.Text(), err)
		}
		if n, ok := line["asked"].(float64); ok {
			asked = int(n)
			continue
		}
		calls = append(calls, line)
	}
	return calls, asked
}

// TestReconnectNeedsMoreThanAName: the third red team's attack 10. While
// the driver's window is held for its reconnect, another program that
// names itself like the driver connects, straight to the socket or through
// a `lyrad stdio` relay of its own, and tries to read the tab. It gets
// session_conflict and nothing of the page, its yes-saying user is never
// asked; the real client coming back still finds its tab.
func TestReconnectNeedsMoreThanAName(t *testing.T) {
	parallel(t)
	needBrowser(t)
	impostor := buildImpostor(t)
	s := newSite(t, "127.0.0.1")
	const secret = "Your code is 731-904"
	s.page("/account", `<!doctype html><title>Account</title><p>`+secret+`</p>`)
	const grace = 90 * time.Second // long: the test resumes well within it
	l := startServe(t, "", "LYRA_BROWSER_CONSENT_CHANNEL=auto", fmt.Sprintf("LYRA_BROWSER_RECONNECT_GRACE=%g", grace.Seconds()))
	rows := func(want has) int { return len(rowsWhere(auditRows(t, l.dataDir), want)) }
	const name = "e2e-victim-ide"
	var asked atomic.Int32
	victim := connectRelayAs(t, l.dataDir, name, &asked)
	wantStatus(t, call(t, victim, "navigate", map[string]any{"url": s.URL + "/account"}), "ok")
	victim.Close()
	waitFor(t, "the driver's turn to be held", 20*time.Second, func() bool {
		return rows(has{"kind": "session", "status": "held", "client": name}) == 1
	})

	attempts := map[string][]string{
		"straight to the socket":     {"-socket", filepath.Join(l.dataDir, "lyrad.sock"), "-name", name},
		"through a relay of its own": {"-relay", lyradBin, "-name", name},
	}
	leaked, answered, conflicts, calls, impostorAsked := 0, 0, 0, 0, 0
	for how, args := range attempts {
		lines, n := runImpostor(t, impostor, l.dataDir, args...)
		impostorAsked += n
		for _, line := range lines {
			calls++
			text, _ := line["text"].(string)
			if strings.Contains(text, "731-904") || strings.Contains(text, s.URL) {
				leaked++
				t.Errorf("the impostor (%s) read the victim's tab with %s: %.300s", how, line["tool"], text)
			}
			switch line["status"] {
			case "session_conflict":
				conflicts++
			case "ok":
				answered++
			}
		}
	}
	t.Logf("impostor: %d calls, %d session_conflict, %d ok, %d replies with the victim's page, %d questions to its user", calls, conflicts, answered, leaked, impostorAsked)
	if leaked != 0 || answered != 0 || conflicts != calls || calls == 0 {
		t.Errorf("%d of %d impostor calls answered ok, %d leaked the page; want every one session_conflict", answered, calls, leaked)
	}
	if impostorAsked != 0 {
		t.Errorf("the impostor's user was asked %d times: a yes from the program asking is no proof", impostorAsked)
	}
	if rows(has{"kind": "session", "status": "resumed"}) != 0 {
		t.Error("an impostor resumed the held turn")
	}

	// The real client comes back: same tab, same page.
	again := connectRelayAs(t, l.dataDir, name, &asked)
	env := call(t, again, "get_url", nil)
	wantStatus(t, env, "ok")
	if env["url"] != s.URL+"/account" {
		t.Errorf("the real client after reconnecting: url %v, want %s/account", env["url"], s.URL)
	}
	if rows(has{"kind": "session", "status": "resumed", "client": name}) != 1 {
		t.Error("no audit row for the real client's resumed turn")
	}
}

// resumeToken sends a Lyra-Resume-Token header with the bearer token.
type resumeToken struct {
	bearer
	token string
}

func (r resumeToken) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	if r.token != "" {
		req.Header.Set("Lyra-Resume-Token", r.token)
	}
	return r.bearer.RoundTrip(req)
}

// TestReconnectOverHTTPNeedsTheResumeToken: over HTTP the proof is the
// Lyra-Resume-Token header the driving session sent. The same name with
// another token, or none, gets session_conflict and nothing of the page;
// the same token resumes the tab.
func TestReconnectOverHTTPNeedsTheResumeToken(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	const secret = "Your code is 731-904"
	s.page("/account", `<!doctype html><title>Account</title><p>`+secret+`</p>`)
	const grace = 90 * time.Second
	l := startServe(t, "", fmt.Sprintf("LYRA_BROWSER_RECONNECT_GRACE=%g", grace.Seconds()))
	rows := func(want has) int { return len(rowsWhere(auditRows(t, l.dataDir), want)) }
	const name = "e2e-http-ide"
	mine := strings.Repeat("a1b2c3d4", 5)
	rt := func(tok string) http.RoundTripper {
		return resumeToken{bearer{l.token, http.DefaultTransport}, tok}
	}
	victim := l.connectHTTPAs(t, name, proto2025, rt(mine))
	wantStatus(t, call(t, victim, "navigate", map[string]any{"url": s.URL + "/account"}), "ok")
	victim.Close() // DELETE
	waitFor(t, "the driver's turn to be held", 20*time.Second, func() bool {
		return rows(has{"kind": "session", "status": "held", "client": name, "front_door": "http"}) == 1
	})
	leaked, ok := 0, 0
	for _, tok := range []string{"", strings.Repeat("e5f6a7b8", 5), mine[:20]} {
		other := l.connectHTTPAs(t, name, proto2025, rt(tok))
		for _, tool := range []string{"get_url", "read_page", "tabs"} {
			env := call(t, other, tool, nil)
			if strings.Contains(jsonString(env), "731-904") || strings.Contains(jsonString(env), s.URL) {
				leaked++
			}
			if env["status"] != "session_conflict" {
				ok++
				t.Errorf("same name, token %q, %s: %v, want session_conflict", tok, tool, env)
			}
		}
		other.Close()
	}
	t.Logf("same name without the token: 9 calls, %d not refused, %d with the victim's page", ok, leaked)
	if leaked != 0 {
		t.Errorf("%d of 9 replies held the victim's page", leaked)
	}
	again := l.connectHTTPAs(t, name, proto2025, rt(mine))
	env := call(t, again, "get_url", nil)
	wantStatus(t, env, "ok")
	if env["url"] != s.URL+"/account" {
		t.Errorf("the real client after reconnecting: url %v, want %s/account", env["url"], s.URL)
	}

	// It quits without DELETE and comes back: its own open session does
	// not stand in its way (the token says it is the same program), while
	// the same name without the token is still refused.
	wantStatus(t, call(t, l.connectHTTPAs(t, name, proto2025, rt("")), "get_url", nil), "session_conflict")
	next := l.connectHTTPAs(t, name, proto2025, rt(mine))
	env = call(t, next, "get_url", nil)
	wantStatus(t, env, "ok")
	if env["url"] != s.URL+"/account" {
		t.Errorf("the same client over a new session while the old is open: url %v, want %s/account", env["url"], s.URL)
	}
	wantStatus(t, call(t, again, "get_url", nil), "session_conflict")
}
