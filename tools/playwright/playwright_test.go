package playwright

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/session"
)

func TestSurfaceLists25ToolsAndLyraCaps(t *testing.T) {
	if n := len(surface(Options{})); n != 25 {
		t.Errorf("%d tools, want Playwright MCP's 25", n)
	}
	all := surface(Options{Caps: []string{"lyra"}})
	if len(all) != 32 {
		t.Errorf("--caps lyra: %d tools, want 32", len(all))
	}
	seen := map[string]bool{}
	for _, tl := range all {
		if seen[tl.name] || !strings.HasPrefix(tl.name, "browser_") {
			t.Errorf("tool %q: duplicate or misnamed", tl.name)
		}
		seen[tl.name] = true
		if tl.run == nil || tl.title == "" || tl.desc == "" {
			t.Errorf("%s: no run, title or description", tl.name)
		}
	}
}

func TestCheckArgs(t *testing.T) {
	var shot *tool
	for _, tl := range surface(Options{}) {
		if tl.name == "browser_take_screenshot" {
			shot = tl
		}
	}
	args, err := checkArgs(shot, json.RawMessage(`{"fullPage": true}`))
	if err != nil || args["scale"] != "css" || args["fullPage"] != true {
		t.Errorf("defaults: %v %v", args, err)
	}
	for raw, want := range map[string]string{
		`{"nope": 1}`:         `unknown argument "nope"`,
		`{"type": "gif"}`:     "type must be one of png, jpeg, webp",
		`{"fullPage": "yes"}`: "fullPage must be true or false",
		`[1]`:                 "arguments must be a JSON object",
	} {
		if _, err := checkArgs(shot, json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
}

func TestTarget(t *testing.T) {
	for in, want := range map[string]string{"e12": "aria-ref=e12", " e3 ": "aria-ref=e3", "#submit": "#submit", "aria-ref=e4": "aria-ref=e4", "e": "e", "e1x": "e1x"} {
		if got := target(in); got != want {
			t.Errorf("target(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnswerSections(t *testing.T) {
	a := &answer{}
	a.say("Waited for Ready")
	a.page("http://shop.test/", "Shop")
	a.tabs = &session.TabList{Tabs: []session.TabInfo{{Index: 0, URL: "http://shop.test/", Title: "Shop", Active: true}, {Index: 1, URL: "http://shop.test/b", Title: "B"}}}
	a.modal = []string{"- [File chooser]: can be handled by browser_file_upload"}
	a.snapshot = `- button "Submit" [ref=e2]`
	want := "### Result\nWaited for Ready\n### Open tabs\n- 0: (current) [Shop](http://shop.test/)\n- 1: [B](http://shop.test/b)\n" +
		"### Page\n- Page URL: http://shop.test/\n- Page Title: Shop\n### Modal state\n- [File chooser]: can be handled by browser_file_upload\n" +
		"### Snapshot\n```yaml\n- button \"Submit\" [ref=e2]\n```"
	if got := a.text(); got != want {
		t.Errorf("text:\n%s\nwant\n%s", got, want)
	}
}

// refusalOf is a session refusal as session builds them.
func refusalOf(status, msg, hint string, fields map[string]any, done *session.ActResult) error {
	e := &session.Error{Status: status, Message: msg, Hint: hint, Result: done}
	e.Origin, _ = fields["origin"].(string)
	e.Capability, _ = fields["capability"].(string)
	return e
}

func TestRefusal(t *testing.T) {
	err := refusalOf(session.StatusBlocked, "the guard refused a request to http://evil.test", "Call read_page(mode=\"tree\") and open_browser.",
		map[string]any{"origin": "http://evil.test"}, &session.ActResult{URL: "http://shop.test/", Title: "Shop"})
	res := (&answer{}).reply(err)
	text := res.Content[0].(*mcp.TextContent).Text
	for _, want := range []string{"### Error\nError: the guard refused", "[origin=http://evil.test] (blocked_by_policy)",
		"Call browser_snapshot and browser_navigate.", "### Page\n- Page URL: http://shop.test/"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in:\n%s", want, text)
		}
	}
	if !res.IsError {
		t.Errorf("a refusal is an error answer")
	}
	// A client that cannot be asked is told who can approve, never to
	// confirm on its own.
	err = refusalOf(session.StatusApprovalRequired, "Allow the agent to open http://bank.test?", "repeat the call with confirm=true.",
		map[string]any{"capability": "NAVIGATE", "origin": "http://bank.test"}, nil)
	_, _, hint, _ := refusal(err)
	if strings.Contains(hint, "confirm") || !strings.Contains(hint, "--allowed-origins http://bank.test") || !strings.Contains(hint, "elicitation") {
		t.Errorf("approval hint: %s", hint)
	}
	_, _, hint, _ = refusal(refusalOf(session.StatusApprovalRequired, "Allow?", "", map[string]any{"capability": "UPLOAD", "origin": "http://bank.test"}, nil))
	if !strings.Contains(hint, "LYRA_BROWSER_TRUSTED_SEND_ORIGINS") {
		t.Errorf("upload approval hint: %s", hint)
	}
	if status, msg, _, _ := refusal(errors.New("boom")); status != session.StatusError || msg != "boom" {
		t.Errorf("plain error: %s %s", status, msg)
	}
	if status, _, _, _ := refusal(refused("browser_drag", "why")); status != session.StatusError {
		t.Errorf("refused tool: %s", status)
	}
}

func TestFileInput(t *testing.T) {
	y := "- textbox \"Name\" [ref=e1]\n- button \"Attachment\" [ref=e2]: a.txt\n- button \"Submit\" [ref=e3]"
	if !fileInput(y, "e2") || fileInput(y, "e1") || fileInput(y, "e9") {
		t.Errorf("fileInput")
	}
}

// TestEmptyTargetRefused: a required target given as "" is refused here,
// before the session is asked (an empty selector names no element).
func TestEmptyTargetRefused(t *testing.T) {
	for _, tl := range surface(Options{}) {
		if tl.name != "browser_select_option" {
			continue
		}
		if _, err := checkArgs(tl, json.RawMessage(`{"target": " ", "values": ["a"]}`)); err == nil || !strings.Contains(err.Error(), "target is empty") {
			t.Errorf("empty target: %v", err)
		}
	}
}
