package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/session"
)

// The handlers on a fake session: argument checks, the wire form of typed
// answers, the audit row. No browser.

type fakeSession struct {
	Session // calls not overridden panic: a handler must not reach them
	log     *audit.Log
	calls   []string
	click   func(session.ActOptions) (*session.ActResult, error)
	typed   string
}

func (f *fakeSession) Audit() *audit.Log                { return f.log }
func (f *fakeSession) CurrentURL() string               { return "https://a.test/" }
func (f *fakeSession) SessionEnded(string)              {}
func (f *fakeSession) OnHandedOff(func(string, string)) {}

func (f *fakeSession) Click(_ context.Context, _ session.Caller, o session.ActOptions) (*session.ActResult, error) {
	f.calls = append(f.calls, "click")
	return f.click(o)
}

func (f *fakeSession) TypeText(_ context.Context, _ session.Caller, _ session.ActOptions, text string, _ bool) (*session.ActResult, error) {
	f.calls = append(f.calls, "type_text")
	f.typed = text
	return &session.ActResult{URL: "https://a.test/", Selector: "#q", Matches: 1, TypedChars: len(text), Element: &session.ElementInfo{Tag: "input"}}, nil
}

func (f *fakeSession) Navigate(context.Context, session.Caller, string, string, session.Intent) (*session.ActResult, error) {
	f.calls = append(f.calls, "navigate")
	return &session.ActResult{URL: "data:,x", TabCount: 1, Load: &session.LoadInfo{}}, nil
}

func (f *fakeSession) SetEditor(_ context.Context, _ session.Caller, o session.EditorOptions) (*session.ActResult, error) {
	f.calls = append(f.calls, "set_editor")
	return &session.ActResult{URL: "https://a.test/", Editor: &session.EditorResult{Surface: "iframe body", Written: len(o.Content), SyncedField: "body", FieldChars: 40}}, nil
}

func newFake(t *testing.T) *fakeSession {
	log, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	return &fakeSession{log: log}
}

// invoke runs tool name's handler as the MCP server would, and answers
// the envelope.
func invoke(t *testing.T, f *fakeSession, name string, args map[string]any) map[string]any {
	t.Helper()
	return invokeOn(t, f, name, args)
}

// callTool runs tl's handler on r as the MCP server would.
func callTool(t *testing.T, r *registry, tl *tool, args map[string]any) map[string]any {
	t.Helper()
	if r.d.Logger == nil {
		r.d.Logger = zap.NewNop()
	}
	raw, _ := json.Marshal(args)
	res, err := r.handler(tl)(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tl.name, Arguments: raw}})
	if err != nil {
		t.Fatal(err)
	}
	env, _ := res.StructuredContent.(map[string]any)
	return env
}

func TestClickReply(t *testing.T) {
	f := newFake(t)
	f.click = func(o session.ActOptions) (*session.ActResult, error) {
		if o.Selector != "#go" || !o.Intent.Submit {
			t.Errorf("options %+v", o)
		}
		return &session.ActResult{URL: "https://a.test/next", Title: "next", TabCount: 2, Selector: "#go", Matches: 2, NewTab: true,
			Element: &session.ElementInfo{Tag: "a", Role: "link", Name: "Go"}, Hints: []string{"one.", "two."},
			Dialogs: []session.DialogRecord{{Type: "alert", Message: "hi", Accepted: true, By: "default"}}}, nil
	}
	env := invoke(t, f, "click", map[string]any{"selector": "#go", "submits": true})
	if env["status"] != "ok" || env["matches"] != 2.0 || env["new_tab"] != true || env["hint"] != "one. two." || env["tab_count"] != 2.0 {
		t.Errorf("envelope %v", env)
	}
	if el, _ := env["clicked"].(map[string]any); el["name"] != "Go" {
		t.Errorf("clicked %v", env["clicked"])
	}
	if _, ok := env["navigated"]; ok {
		t.Error("navigated is answered only when true")
	}
	if ds, _ := env["dialogs"].([]any); len(ds) != 1 || ds[0].(map[string]any)["answer"] != "accepted" {
		t.Errorf("dialogs %v", env["dialogs"])
	}
}

// A refusal answers its own fields, and under them what the call did; the
// call's hint is not the refusal's.
func TestRefusalCarriesResult(t *testing.T) {
	f := newFake(t)
	f.click = func(session.ActOptions) (*session.ActResult, error) {
		return nil, &session.Error{Status: session.StatusBlocked, Message: "refused", Hint: "navigate there",
			URL: ptr("https://a.test/"), Refused: "https://b.test",
			Result: &session.ActResult{URL: "https://a.test/elsewhere", TabCount: 1, Selector: "#away", Matches: 1,
				Element: &session.ElementInfo{Tag: "a", Name: "Away"}, Hints: []string{"not this one"}}}
	}
	env := invoke(t, f, "click", map[string]any{"selector": "#away"})
	if env["status"] != "blocked_by_policy" || env["url"] != "https://a.test/" || env["refused"] != "https://b.test" || env["hint"] != "navigate there" {
		t.Errorf("envelope %v", env)
	}
	if el, _ := env["clicked"].(map[string]any); el["name"] != "Away" || env["matches"] != 1.0 {
		t.Errorf("what the call did is missing: %v", env)
	}
}

// navigate answers http_status and content_type as null when no HTTP
// response was involved.
func TestNavigateNulls(t *testing.T) {
	env := invoke(t, newFake(t), "navigate", map[string]any{"url": "data:,x"})
	for _, k := range []string{"http_status", "content_type"} {
		if v, ok := env[k]; !ok || v != nil {
			t.Errorf("%s: %v (present %v), want null", k, v, ok)
		}
	}
}

// type_text takes text or value (the older name), exactly one.
func TestTypeTextValue(t *testing.T) {
	f := newFake(t)
	if env := invoke(t, f, "type_text", map[string]any{"selector": "#q", "value": "hello"}); env["status"] != "ok" || f.typed != "hello" {
		t.Errorf("value: %v, typed %q", env, f.typed)
	}
	for _, args := range []map[string]any{{"selector": "#q"}, {"selector": "#q", "text": "a", "value": "b"}} {
		if env := invoke(t, f, "type_text", args); env["status"] != "error" || !strings.HasPrefix(env["argument"].(string), "text") {
			t.Errorf("%v: %v", args, env)
		}
	}
	if len(f.calls) != 1 {
		t.Errorf("a refused call reached the session: %v", f.calls)
	}
}

// save_draft and publish without submit answer needs_submit and do
// nothing; paths must be strings.
func TestFormArgs(t *testing.T) {
	f := newFake(t)
	if env := invoke(t, f, "save_draft", nil); env["status"] != "needs_submit" || env["argument"] != "submit" {
		t.Errorf("save_draft: %v", env)
	}
	if env := invoke(t, f, "publish", map[string]any{"selector": "#live"}); env["status"] != "needs_submit" {
		t.Errorf("publish: %v", env)
	}
	if env := invoke(t, f, "upload_file", map[string]any{"selector": "#f", "paths": []any{1}}); env["status"] != "error" || env["argument"] != "paths" {
		t.Errorf("upload_file: %v", env)
	}
	if len(f.calls) != 0 {
		t.Errorf("refused calls reached the session: %v", f.calls)
	}
}

// set_editor's content is in no reply and no audit row, only its length.
func TestSetEditorContentNotKept(t *testing.T) {
	f := newFake(t)
	const secret = "the body of an unpublished article"
	env := invoke(t, f, "set_editor", map[string]any{"content": secret})
	if env["status"] != "ok" || env["synced_field"] != "body" || env["written"] != float64(len(secret)) {
		t.Errorf("envelope %v", env)
	}
	rows, err := audit.ReadAll(f.log.Path())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rows)
	if strings.Contains(string(b)+jsonText(env), secret) {
		t.Errorf("the content was kept: %s", b)
	}
	if len(rows) != 1 || !strings.Contains(string(b), `"content_chars":34`) {
		t.Errorf("audit rows %s", b)
	}
}

func (f *fakeSession) RequestTakeover(_ context.Context, _ session.Caller, reason string) (*session.TakeoverInfo, error) {
	f.calls = append(f.calls, "request_takeover")
	if reason == "headless" {
		return nil, &session.Error{Status: session.StatusUnattended, Message: "no one", Hint: "do not wait"}
	}
	return &session.TakeoverInfo{Reason: reason, URL: "https://a.test/", Title: "A"}, nil
}

// request_takeover answers takeover_active with the reason and the next
// move; headless, the session's unattended passes through as it is.
func TestTakeoverReply(t *testing.T) {
	f := newFake(t)
	env := invoke(t, f, "request_takeover", map[string]any{"reason": "2FA"})
	if env["status"] != "takeover_active" || env["reason"] != "2FA" || !strings.Contains(env["hint"].(string), "resume_after_takeover") {
		t.Errorf("envelope %v", env)
	}
	if env := invoke(t, f, "request_takeover", map[string]any{"reason": "headless"}); env["status"] != "unattended" || env["hint"] != "do not wait" {
		t.Errorf("headless: %v", env)
	}
	if env := invoke(t, f, "request_takeover", nil); env["status"] != "error" || env["argument"] != "reason" {
		t.Errorf("no reason: %v", env)
	}
}
