package e2e

import (
	"context"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectAsking connects over stdio with consent on (auto) and, when handler
// is not nil, an elicitation handler: the client answers for the user.
func connectAsking(t *testing.T, dataDir, protocol string, handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error), extraEnv ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(lyradBin, "stdio")
	cmd.Env = append(append(baseEnv(dataDir), "LYRA_BROWSER_CONSENT_CHANNEL=auto"), extraEnv...)
	opts := &mcp.ClientOptions{}
	if handler != nil {
		opts.ElicitationHandler = handler
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-consent", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, sessionOpts(protocol))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func answer(action string, content map[string]any) func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	return func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: action, Content: content}, nil
	}
}

// TestConsentThroughTheClient: navigate asks the user through MCP
// elicitation, on both protocol versions; accept, a value-less accept,
// decline, cancel, an answer that does not fit the question, and no answer
// in time; confirm=true never turns a no into a yes.
func TestConsentThroughTheClient(t *testing.T) {
	needBrowser(t)
	for _, proto := range []string{proto2026, proto2025} {
		t.Run(proto, func(t *testing.T) {
			cases := []struct {
				name    string
				handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)
				want    string // status
				consent string // for a denial
				timeout string // LYRA_BROWSER_CONSENT_TIMEOUT: long unless the case is the timeout
			}{
				{"accept", answer("accept", map[string]any{"approve": true}), "ok", "", "120"},
				{"value-less accept", answer("accept", nil), "ok", "", "120"},
				{"accept but no", answer("accept", map[string]any{"approve": false}), "denied", "declined", "120"},
				{"decline", answer("decline", nil), "denied", "declined", "120"},
				{"cancel", answer("cancel", nil), "denied", "cancelled", "120"},
				{"never answers in time", func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					select {
					case <-time.After(1500 * time.Millisecond):
					case <-ctx.Done():
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
				}, "denied", "timeout", "1"},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					s := friendly(t)
					var asked atomic.Int32
					var message atomic.Value
					h := func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
						asked.Add(1)
						message.Store(req.Params.Message)
						return c.handler(ctx, req)
					}
					dir := t.TempDir()
					cs := connectAsking(t, dir, proto, h, "LYRA_BROWSER_CONSENT_TIMEOUT="+c.timeout)
					env := call(t, cs, "navigate", map[string]any{"url": s.URL + "/", "reason": "checking the home page", "confirm": true})
					if env["status"] != c.want {
						t.Fatalf("navigate: %v, want %s", env, c.want)
					}
					if asked.Load() != 1 {
						t.Errorf("the user was asked %d times, want once", asked.Load())
					}
					if m, _ := message.Load().(string); !strings.Contains(m, s.URL) || !strings.Contains(m, "checking the home page") {
						t.Errorf("the question did not name the site and the reason: %q", m)
					}
					if c.want == "denied" {
						if env["consent"] != c.consent || !strings.Contains(env["hint"].(string), "confirm=true") {
							t.Errorf("denial: %v, want consent=%q and a hint not to retry with confirm", env, c.consent)
						}
						if s.count("/") != 0 {
							t.Errorf("a denied navigation reached the site")
						}
						return
					}
					if s.count("/") != 1 {
						t.Errorf("site reached %d times", s.count("/"))
					}
					// The grant holds for the site: no second question.
					wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/next"}), "ok")
					if asked.Load() != 1 {
						t.Errorf("asked again for an approved site")
					}
					var channel any
					if rows := rowsWhere(auditRows(t, dir), has{"kind": "consent"}); len(rows) > 0 {
						channel = rows[len(rows)-1]["consent_channel"]
					}
					if channel != "elicit" {
						t.Errorf("consent recorded as %v, want elicit", channel)
					}
				})
			}
		})
	}
}

// TestConsentLegacyFallback: a client with no elicitation handler cannot be
// asked; only then does confirm=true count, recorded as legacy.
func TestConsentLegacyFallback(t *testing.T) {
	parallel(t)
	needBrowser(t)
	for _, proto := range []string{proto2026, proto2025} {
		t.Run(proto, func(t *testing.T) {
			s := friendly(t)
			dir := t.TempDir()
			cs := connectAsking(t, dir, proto, nil)
			env := call(t, cs, "navigate", map[string]any{"url": s.URL + "/"})
			if env["status"] != "approval_required" || !strings.Contains(env["hint"].(string), "confirm=true") {
				t.Fatalf("without confirm: %v", env)
			}
			if s.count("/") != 0 {
				t.Fatal("an unapproved navigation reached the site")
			}
			wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/", "confirm": true}), "ok")
			if len(rowsWhere(auditRows(t, dir), has{"kind": "consent", "consent_channel": "legacy", "consent_reason": "the client has no elicitation handler"})) == 0 {
				t.Error("no consent_channel=legacy row with its reason")
			}
		})
	}
}

// TestTrustedOrigins: a listed site is approved in advance (recorded
// trusted with the entry); a malformed entry is dropped and widens nothing.
func TestTrustedOrigins(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t) // 127.0.0.1
	other := newSite(t, "127.0.0.2")
	other.page("/", "<title>other</title>")
	dir := t.TempDir()
	// Each malformed entry is a spelling of the other site itself, so that
	// were it read leniently instead of dropped, the other site would be
	// trusted and the test would see it.
	hp := strings.TrimPrefix(other.URL, "http://") // 127.0.0.2:port
	_, port, _ := strings.Cut(hp, ":")
	malformed := []string{
		hp,                               // a port on a bare host
		other.URL + "/x",                 // a path
		"http://u@" + hp,                 // userinfo
		"http://127.0.0.2:0" + port,      // a port with a leading zero
		"http://127.000.000.002:" + port, // another spelling of the address
		"ftp://" + hp,                    // not http or https
		"file:///etc",
	}
	cs := connectAsking(t, dir, proto2026, nil, "LYRA_BROWSER_TRUSTED_ORIGINS="+s.URL+" "+strings.Join(malformed, " "))
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	if env := call(t, cs, "navigate", map[string]any{"url": other.URL + "/"}); env["status"] != "approval_required" {
		t.Errorf("a site outside the list: %v", env)
	}
	if len(rowsWhere(auditRows(t, dir), has{"kind": "consent", "consent_channel": "trusted"})) == 0 {
		t.Error("no consent_channel=trusted row")
	}
}

// TestConsentAnswerOffTheSchema: an answer that does not fit the question
// is a decline. The go-sdk client checks answers against the schema itself,
// so the 2026-07-28 case repeats the call by hand with the bad answer, as a
// client that does not check would.
func TestConsentAnswerOffTheSchema(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs := connectRaw(t, ctx, t.TempDir())
	args := map[string]any{"url": s.URL + "/", "confirm": true}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "navigate", Arguments: args})
	if err != nil || !res.NeedsInput() || len(res.InputRequests) != 1 {
		t.Fatalf("first round: %+v %v, want one input request", res, err)
	}
	var id string
	for k := range res.InputRequests {
		id = k
	}
	for _, bad := range []map[string]any{{"approve": "yes please"}, {"approve": true, "also": 1}} {
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "navigate", Arguments: args,
			InputResponses: mcp.InputResponseMap{id: &mcp.ElicitResult{Action: "accept", Content: bad}}, RequestState: res.RequestState})
		if err != nil {
			t.Fatal(err)
		}
		env, _ := res.StructuredContent.(map[string]any)
		if env["status"] != "denied" {
			t.Errorf("answer %v: %v, want denied", bad, env)
		}
		// Ask again for the next bad answer.
		res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "navigate", Arguments: args})
	}
	// An answer to a question that was never asked is no yes either. The id
	// is the real one for this very call: another lyrad, asked the same
	// question, names it (an id is the question, not who asked it). This
	// session was never asked it, so the yes counts for nothing.
	never := map[string]any{"url": s.URL + "/next", "reason": "a question only another session was asked"}
	other := connectRaw(t, ctx, t.TempDir())
	res, err = other.CallTool(ctx, &mcp.CallToolParams{Name: "navigate", Arguments: never})
	if err != nil || !res.NeedsInput() || len(res.InputRequests) != 1 {
		t.Fatalf("the other session: %+v %v, want one input request", res, err)
	}
	var neverID string
	for k := range res.InputRequests {
		neverID = k
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "navigate", Arguments: never,
		InputResponses: mcp.InputResponseMap{neverID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}}})
	if err != nil {
		t.Fatal(err)
	}
	if env, _ := res.StructuredContent.(map[string]any); env["status"] != "denied" || env["consent"] != "declined (nothing was asked)" {
		t.Errorf("a yes to a question never asked: %+v, want denied, nothing was asked", res)
	}
	if s.count("/") != 0 || s.count("/next") != 0 {
		t.Errorf("a bad answer let a navigation through")
	}
}

// connectRaw connects over stdio with consent on (auto) as a 2026-07-28
// client that answers input requests itself, by repeating the call: the
// test plays the client.
func connectRaw(t *testing.T, ctx context.Context, dataDir string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(lyradBin, "stdio")
	cmd.Env = append(baseEnv(dataDir), "LYRA_BROWSER_CONSENT_CHANNEL=auto")
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-raw", Version: "1"}, &mcp.ClientOptions{
		MultiRoundTrip:     &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: answer("accept", nil), // declares the capability; never called
	})
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, sessionOpts(proto2026))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// TestConsentAnswerIsForItsReason: an answer is keyed by the whole question,
// the reason shown to the user included. A client that repeats the call
// with the user's yes to "reason A" but now says "reason B" is asked again,
// and the site is not reached until the question asked is the one answered.
func TestConsentAnswerIsForItsReason(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := connectRaw(t, ctx, t.TempDir())
	ask := func(reason string, answers mcp.InputResponseMap) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "navigate",
			Arguments: map[string]any{"url": s.URL + "/", "reason": reason}, InputResponses: answers})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	only := func(res *mcp.CallToolResult) (string, string) {
		t.Helper()
		if !res.NeedsInput() || len(res.InputRequests) != 1 {
			t.Fatalf("want one question, got %+v", res)
		}
		for id, r := range res.InputRequests {
			return id, r.(*mcp.ElicitParams).Message
		}
		return "", ""
	}
	yes := &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}

	idA, msgA := only(ask("read the public changelog", nil))
	if !strings.Contains(msgA, "read the public changelog") {
		t.Fatalf("question A: %q", msgA)
	}
	idB, msgB := only(ask("transfer the funds", mcp.InputResponseMap{idA: yes}))
	if idB == idA || !strings.Contains(msgB, "transfer the funds") {
		t.Fatalf("the yes to A answered B: %s %q", idB, msgB)
	}
	if s.count("/") != 0 {
		t.Fatalf("the site was reached on an answer to another question")
	}
	res := ask("read the public changelog", mcp.InputResponseMap{idA: yes})
	if env, _ := res.StructuredContent.(map[string]any); res.NeedsInput() || env["status"] != "ok" || s.count("/") != 1 {
		t.Fatalf("the answer to its own question: %+v (site reached %d times)", res, s.count("/"))
	}
}
