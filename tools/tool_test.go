package tools

import (
	"encoding/json"
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/session"
)

func TestCheckURL(t *testing.T) {
	good := []string{"https://example.com", "http://127.0.0.1:8080/a?b=c#d", "about:blank", "data:text/html,hi", "file:///tmp/x.html"}
	for _, u := range good {
		if _, err := checkURL(u); err != nil {
			t.Errorf("%q refused: %v", u, err)
		}
	}
	bad := map[string]string{
		"":                    "empty",
		"example.com":         "no scheme",
		"http://":             "no host",
		"javascript:alert(1)": "unsupported scheme",
		"chrome://settings":   "unsupported scheme",
		"about:config":        "about:blank",
		"http://a b.com":      "does not parse",
	}
	for u, want := range bad {
		_, err := checkURL(u)
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Arg != "url" || !strings.Contains(ae.Msg, want) || ae.Hint == "" {
			t.Errorf("%q: %v, want an url error containing %q with a hint", u, err, want)
		}
	}
}

// A refused URL is named in the error as the audit writes it: the error
// lands in the audit row.
func TestCheckURLNamesNoSecret(t *testing.T) {
	for _, u := range []string{"example.com/?token=SEC1", "http:///?code=SEC2", "http://a b.com/?q=SEC3#SEC4", "%zz?k=SEC5"} {
		_, err := checkURL(u)
		var ae *ArgError
		if !errors.As(err, &ae) || strings.Contains(ae.Msg+ae.Hint, "SEC") {
			t.Errorf("%q: %v (hint %q)", u, err, ae.Hint)
		}
	}
	env := envelope(nil, errors.New(`navigate: Get "https://h/?token=SEC6#SEC7": refused`))
	if strings.Contains(jsonText(env), "SEC") || !strings.Contains(env["error"].(string), "https://h/?token=[redacted]") {
		t.Errorf("envelope: %v", env)
	}
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestCheckArgs(t *testing.T) {
	nav := navigationTools(Deps{})[0]
	cases := []struct {
		raw, arg string
	}{
		{`{"url":"https://x.com","nope":1}`, "nope"},
		{`{"url":1}`, "url"},
		{`{}`, "url"},
		{`{"url":"https://x.com","wait_until":"later"}`, "wait_until"},
		{`{"url":"https://x.com","confirm":"true"}`, "confirm"},
		{`[1,2]`, ""},
	}
	for _, c := range cases {
		_, err := checkArgs(nav, json.RawMessage(c.raw))
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Arg != c.arg {
			t.Errorf("%s: %v, want an error naming %q", c.raw, err, c.arg)
		}
	}
	args, err := checkArgs(nav, json.RawMessage(`{"url":"https://x.com"}`))
	if err != nil || args["wait_until"] != "domcontentloaded" {
		t.Errorf("defaults: %v %v", args, err)
	}
	if _, err := checkArgs(nav, nil); err == nil {
		t.Error("missing arguments accepted for a tool with a required one")
	}
}

func TestEnvelope(t *testing.T) {
	env := envelope(nil, &session.Error{Status: "session_conflict", Message: "m", Hint: "h", Argument: "x"})
	if env["status"] != "session_conflict" || env["hint"] != "h" || env["error"] != "m" || env["argument"] != "x" {
		t.Errorf("session error envelope %v", env)
	}
	env = envelope(map[string]any{"url": "u"}, nil)
	if env["status"] != "ok" || env["url"] != "u" {
		t.Errorf("ok envelope %v", env)
	}
	res := result(envelope(nil, badArg("url", "bad", "fix")))
	if !res.IsError || len(res.Content) != 1 {
		t.Errorf("argument error result %+v", res)
	}
}

func TestToolSchemas(t *testing.T) {
	want := []string{"ask_user_to_do", "click", "close_browser", "get_url", "go_back", "handle_dialog", "highlight_element", "hover", "list_downloads", "navigate", "open_browser", "press_key", "publish", "read_draft", "read_form", "read_image", "read_page", "reload_page", "request_takeover", "resume_after_takeover", "save_draft", "screenshot", "scroll", "select_option", "set_editor", "tabs", "type_text", "upload_file", "wait_for"}
	if got := names(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("tools %v, want %v", got, want)
	}
	for _, tl := range all(Deps{}) {
		mt := tl.mcpTool()
		if mt.Annotations == nil || mt.OutputSchema == nil || mt.Description == "" {
			t.Errorf("%s lacks annotations, output schema or description", tl.name)
		}
		if tl.readOnly && *mt.Annotations.DestructiveHint {
			t.Errorf("%s is read-only and destructive", tl.name)
		}
	}
}

// names lists the tool names, sorted.
func names() []string {
	var names []string
	for _, t := range all(Deps{}) {
		names = append(names, t.name)
	}
	sort.Strings(names)
	return names
}

// Each fact of a session error is answered under the key agents know it
// by, as the keys were before session's errors were typed.
func TestErrorEnvelopeKeys(t *testing.T) {
	s, n, f := "s", 2, 1.5
	for _, c := range []struct {
		err  *session.Error
		want string
	}{
		{&session.Error{Status: "not_found", Argument: "root", Selector: &s, Matches: 3, URL: &s, TabCount: &n},
			`{"argument":"root","matches":3,"selector":"s","status":"not_found","tab_count":2,"url":"s"}`},
		{&session.Error{Status: "error", Argument: "text", Expected: "YYYY-MM-DD", Choices: []string{"a"}},
			`{"argument":"text","choices":["a"],"expected":"YYYY-MM-DD","status":"error"}`},
		{&session.Error{Status: "error", Argument: "paths", Paths: []string{"/a", "/b"}, Linked: []string{"/b"}},
			`{"argument":"paths","hard_linked":["/b"],"refused":["/a","/b"],"status":"error"}`},
		{&session.Error{Status: "error", Argument: "paths", Missing: []string{"/m"}},
			`{"argument":"paths","missing":["/m"],"status":"error"}`},
		{&session.Error{Status: "error", Argument: "submit", Submits: []session.SubmitControl{}},
			`{"argument":"submit","candidates":[],"status":"error"}`},
		{&session.Error{Status: "blocked_by_policy", URL: &s, RedirectedTo: "https://b.test"},
			`{"redirected_to":"https://b.test","status":"blocked_by_policy","url":"s"}`},
		{&session.Error{Status: "body_too_large", Refused: "https://b.test", MessageBytes: 9, MessageLimit: 8},
			`{"message_bytes":9,"message_limit_bytes":8,"refused":"https://b.test","status":"body_too_large"}`},
		{&session.Error{Status: "not_private", State: []page.PublishState{{Name: "n", Value: "v", Label: "l", ID: "i"}}},
			`{"state":[{"label":"l","name":"n","value":"v"}],"status":"not_private"}`},
		{&session.Error{Status: "download_blocked", Blocked: &session.FileRef{Filename: "f", URLOrigin: "o"}, ApprovedOrigin: "a"},
			`{"approved_origin":"a","blocked_download":{"filename":"f","url_origin":"o"},"status":"download_blocked"}`},
		{&session.Error{Status: "download_failed", Failed: &session.FailedDownload{Reason: "r", Filename: "", URLOrigin: "o"}},
			`{"filename":"","reason":"r","status":"download_failed","url_origin":"o"}`},
		{&session.Error{Status: "element_not_actionable", Covered: &session.Covering{By: "div", Matches: false}},
			`{"covered_by":"div","covered_matches":false,"status":"element_not_actionable"}`},
		{&session.Error{Status: "timeout", Waited: &session.WaitTimeout{Waited: 5, LastSeen: ""}},
			`{"last_seen":"","status":"timeout","waited_ms":5}`},
		{&session.Error{Status: "timeout", WaitUntil: &s, RequestedURL: "https://r.test/"},
			`{"requested_url":"https://r.test/","status":"timeout","wait_until":"s"}`},
		{&session.Error{Status: "denied", Consent: "declined", Capability: "SUBMIT", Origin: "https://a.test"},
			`{"capability":"SUBMIT","consent":"declined","origin":"https://a.test","status":"denied"}`},
		{&session.Error{Status: "approval_required", Capability: "NAVIGATE", Origin: "https://a.test", Approval: &session.ApprovalRef{ID: "7QK2MP", Command: "lyrad approve 7QK2MP"}},
			`{"approval_id":"7QK2MP","capability":"NAVIGATE","origin":"https://a.test","status":"approval_required"}`},
		{&session.Error{Status: "takeover_active", Reason: "2FA", TakenFor: new(int)},
			`{"reason":"2FA","since_s":0,"status":"takeover_active"}`},
		{&session.Error{Status: "session_conflict", Holder: &session.Holder{Client: "", IdleTimeout: 1, Idle: 0, IdleLeft: 3}},
			`{"holder_client":"","holder_idle_s":0,"idle_left_s":3,"idle_timeout_s":1,"status":"session_conflict"}`},
		{&session.Error{Status: "session_conflict", Held: &session.Held{Client: "c", Grace: 60, GraceLeft: f}},
			`{"grace_left_s":1.5,"holder_client":"c","reconnect_grace_s":60,"status":"session_conflict"}`},
	} {
		if got := jsonText(envelope(nil, c.err)); got != c.want {
			t.Errorf("%+v:\n got %s\nwant %s", c.err, got, c.want)
		}
	}
}
