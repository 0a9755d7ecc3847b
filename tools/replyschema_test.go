package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/lyrad/lyrad/download"
	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/session"
	"github.com/lyrad/lyrad/snapshot"
)

// Replies held to their schemas. Each tool's output schema is generated
// from its reply type; these tests check what the replies really carry
// against it, with additional properties refused at every level: a key a
// reply writes that its schema lacks fails them. A key a reply leaves out
// does not: most are told only when there is something to tell.
//
// Two sets of replies: every tool called on a session that answers every
// field it can (below), and real replies recorded from the e2e suite
// (testdata/replies.jsonl). To record them again, from the repository:
//
//	rm tools/testdata/replies.jsonl
//	E2E_RECORD_REPLIES=$PWD/tools/testdata go test -count=1 -timeout 45m -run \
//	  'TestConsent|TestTrustedOrigins|TestHTTPSessionWithoutDeleteEnds|TestReconnect|TestClick|TestTypeText|TestPressKey|TestHover|TestScroll|TestInteract|TestAction|TestActUsable|TestActInFrames|TestForm|TestSaveDraft|TestReadForm|TestReadDraft|TestGuide|TestInspector|TestReadPage|TestTabs|TestHistory|TestDownloadsDeclared|TestScreenshotAndReadImage|TestTakeoverHeadless|TestSelectOption|TestDialogs$|TestChangesSinceRead|TestObserve' ./e2e/
//
// (e2e/harness_test.go's call keeps one reply of each tool, status and set
// of keys, long strings cut; any -run batch adds to the file. The set here
// is that batch, run once before the replies were typed and once after:
// the two agreed on every key, nested keys and types included.)

// replySchema is what a reply of t may carry: an ok reply its output
// schema and the envelope; an error the error envelope and, for a refusal
// that carries what the call did, the output schema too.
func replySchema(t *testing.T, tl *tool, ok bool) *jsonschema.Resolved {
	t.Helper()
	props := map[string]any{
		"status": map[string]any{"type": "string"},
		"hint":   map[string]any{"type": "string"},
		"error":  map[string]any{"type": "string"},
	}
	for k, v := range tl.output {
		props[k] = v
	}
	if !ok {
		for k, v := range outOf[errorReply]() {
			props[k] = v
		}
	}
	b, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "additionalProperties": false})
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v", tl.name, err)
	}
	return rs
}

// okStatuses are the statuses of a reply that is no error.
var okStatuses = map[string]bool{session.StatusOK: true, session.StatusTakeover: true, session.StatusAwaitingUser: true}

func checkReply(t *testing.T, tools map[string]*tool, name string, reply map[string]any, from string) {
	t.Helper()
	tl := tools[name]
	if tl == nil {
		t.Errorf("%s: a reply of %s, which is no tool", from, name)
		return
	}
	status, _ := reply["status"].(string)
	if err := replySchema(t, tl, okStatuses[status]).Validate(reply); err != nil {
		t.Errorf("%s: %s answered %s, which its schema does not allow: %v", from, name, jsonText(reply), err)
	}
}

func byName() map[string]*tool {
	out := map[string]*tool{}
	for _, tl := range all(Deps{}) {
		out[tl.name] = tl
	}
	return out
}

// TestRepliesHeldToSchemas calls every tool on a session that answers
// every field it can, and once more with a refusal that carries every fact
// and what the call did.
func TestRepliesHeldToSchemas(t *testing.T) {
	tools := byName()
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"open_browser", nil},
		{"close_browser", nil},
		{"get_url", nil},
		{"navigate", map[string]any{"url": "https://a.test/", "download": true}},
		{"go_back", nil},
		{"reload_page", nil},
		{"click", map[string]any{"selector": "#go", "download": true}},
		{"hover", map[string]any{"selector": "#go"}},
		{"type_text", map[string]any{"selector": "#q", "text": "hi", "submit": true}},
		{"press_key", map[string]any{"keys": []any{"Tab", "Enter"}}},
		{"press_key", map[string]any{"key": "Enter"}},
		{"scroll", map[string]any{"selector": "#list"}},
		{"select_option", map[string]any{"selector": "#s", "label": "Two"}},
		{"handle_dialog", map[string]any{"accept": true}},
		{"tabs", nil},
		{"tabs", map[string]any{"action": "switch", "index": 1}},
		{"tabs", map[string]any{"action": "close", "index": 1}},
		{"read_page", map[string]any{"links": true, "max_chars": 5}},
		{"read_page", map[string]any{"mode": "tree"}},
		{"read_page", map[string]any{"changes_since": "r1"}},
		{"read_form", nil},
		{"read_draft", nil},
		{"set_editor", map[string]any{"content": "x", "selector": "#ed"}},
		{"upload_file", map[string]any{"selector": "#f", "paths": []any{"/tmp/a"}}},
		{"save_draft", map[string]any{"submit": "Save"}},
		{"publish", map[string]any{"selector": "#live", "submit": "Publish"}},
		{"wait_for", map[string]any{"text": "done"}},
		{"screenshot", nil},
		{"read_image", map[string]any{"selector": "img"}},
		{"list_downloads", nil},
		{"request_takeover", map[string]any{"reason": "2FA"}},
		{"resume_after_takeover", nil},
		{"ask_user_to_do", map[string]any{"instruction": "log in", "selector": "#login"}},
		{"highlight_element", map[string]any{"selector": "#x"}},
	}
	called := map[string]bool{}
	for _, refuse := range []bool{false, true} {
		s := &fullSession{fakeSession: newFake(t), refuse: refuse}
		for _, c := range calls {
			env := invokeOn(t, s, c.tool, c.args)
			want := session.StatusOK
			switch {
			case refuse:
				want = session.StatusBlocked
			case c.tool == "request_takeover":
				want = session.StatusTakeover
			case c.tool == "ask_user_to_do":
				want = session.StatusAwaitingUser
			}
			if env["status"] != want {
				t.Errorf("%s %v: status %v, want %s: %v", c.tool, c.args, env["status"], want, env)
				continue
			}
			called[c.tool] = true
			checkReply(t, tools, c.tool, env, "fake session")
		}
	}
	for name := range tools {
		if !called[name] {
			t.Errorf("%s is not called here: add it to the calls", name)
		}
	}
}

// TestRecordedReplies checks real replies, recorded from the e2e suite.
func TestRecordedReplies(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "replies.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tools := byName()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	n := 0
	for sc.Scan() {
		n++
		var rec struct {
			Tool  string         `json:"tool"`
			Reply map[string]any `json:"reply"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		seen[rec.Tool] = true
		checkReply(t, tools, rec.Tool, rec.Reply, "line "+itoa(n))
	}
	var missing []string
	for name := range tools {
		if !seen[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	t.Logf("%d recorded replies; tools with none recorded: %v", n, missing)
}

// The check can fail: a key no schema has is refused, at the top and
// nested.
func TestSchemaRefusesUnknownKeys(t *testing.T) {
	tools := byName()
	for _, r := range []map[string]any{
		{"status": "ok", "url": "u", "title": "", "tab_count": 1, "bogus": 1},
		{"status": "ok", "url": "u", "title": "", "tab_count": 1, "dialogs": []any{map[string]any{"type": "alert", "message": "", "answer": "accepted", "by": "default", "bogus": 1}}},
	} {
		if err := replySchema(t, tools["click"], true).Validate(r); err == nil {
			t.Errorf("%v passed", r)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// fullSession answers every call, with every field it can.
type fullSession struct {
	*fakeSession
	refuse bool // answer each acting call with a refusal that carries every fact
}

// invokeOn runs tool name on s as the MCP server would.
func invokeOn(t *testing.T, s Session, name string, args map[string]any) map[string]any {
	t.Helper()
	r := &registry{d: Deps{Session: s}}
	for _, tl := range all(r.d) {
		if tl.name == name {
			return callTool(t, r, tl, args)
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func full() *session.ActResult {
	status, ctype := int64(200), "text/html"
	return &session.ActResult{URL: "https://a.test/next", Title: "Next", TabCount: 2, Selector: "#go", Matches: 3,
		NewTab: true, Navigated: true, Navigating: true,
		Dialogs:     []session.DialogRecord{{Type: "prompt", Message: "name?", Accepted: true, By: "handle_dialog"}},
		DialogsMore: 2, Hints: []string{"one.", "two."}, Changes: "+ button \"Go\"", ReadID: "r2",
		Element:    &session.ElementInfo{Tag: "input", Role: "textbox", Name: "Q"},
		TypedChars: 2, Submitted: true, Field: &session.FieldValue{Value: "hi"},
		Key: "Enter", Keys: []string{"Tab", "Enter"},
		Selected: &session.SelectedOption{Value: "2", Label: "Two", Index: 1},
		Scroll:   &session.ScrollPosition{Y: 10, Height: 900, ViewportHeight: 600, Moved: true, Panel: &session.PanelScroll{Element: "div#list", Y: 5, Height: 300, ViewportHeight: 100}},
		Load:     &session.LoadInfo{HTTPStatus: &status, ContentType: &ctype, FromCache: true, Stayed: true},
		Tabs:     &session.TabList{Tabs: []session.TabInfo{{Index: 0, URL: "https://a.test/", Title: "A", Active: true}}, Active: 0},
		Closed:   &session.TabInfo{Index: 1, URL: "https://b.test/", Title: "B"},
		Editor:   &session.EditorResult{Kind: "tinymce", Surface: "iframe body", Written: 1, SyncedField: "body", FieldChars: 1},
		Files:    []session.UploadedFile{{Name: "a", Path: "/tmp/a", Bytes: 3}},
		Sent:     &session.SendResult{Published: true, State: []page.PublishState{{Name: "status", Value: "draft", Label: "Draft", ID: "s"}}, Errors: []string{"Title missing"}, Alert: "Title missing", Refused: true, FormStill: true},
		Download: &session.DownloadInfo{Filename: "a.pdf", Path: "/d/a.pdf", Bytes: 10, URLOrigin: "https://a.test", Observed: true},
	}
}

// refusal is a refusal with every fact a session error can carry, and
// what the call did.
func refusalOf(r *session.ActResult) error {
	s, n := "x", 1
	return &session.Error{Status: session.StatusBlocked, Message: "refused", Hint: "h", Argument: "selector", Expected: "YYYY-MM-DD",
		Choices: []string{"a"}, Missing: []string{"/m"}, Refused: "https://b.test", Paths: []string{"/p"}, Linked: []string{"/p"},
		Submits: []session.SubmitControl{{Text: "Save", Selector: "#s", Usable: true, Form: "form#f"}},
		URL:     &s, TabCount: &n, Selector: &s, Matches: 2, RequestedURL: "https://c.test/", WaitUntil: &s, RedirectedTo: "https://d.test",
		MessageBytes: 5, MessageLimit: 6, State: []page.PublishState{{Name: "n", Value: "v", Label: "l"}}, Reason: "r", TakenFor: &n,
		Blocked: &session.FileRef{Filename: "f", URLOrigin: "o"}, ApprovedOrigin: "https://a.test",
		Failed: &session.FailedDownload{Reason: "r", Filename: "f", URLOrigin: "o"}, Covered: &session.Covering{By: "div", Origin: "o", Matches: true},
		Waited: &session.WaitTimeout{Waited: 1, LastSeen: "x"}, Consent: "declined", Capability: "SUBMIT", Origin: "https://a.test",
		Approval: &session.ApprovalRef{ID: "7QK2MP", Command: "lyrad approve 7QK2MP", Within: time.Minute},
		Holder:   &session.Holder{Client: "c", IdleTimeout: 1, Idle: 2, IdleLeft: 3}, Result: r}
}

func (s *fullSession) act() (*session.ActResult, error) {
	if s.refuse {
		return nil, refusalOf(full())
	}
	return full(), nil
}

func (s *fullSession) answer() error {
	if s.refuse {
		return refusalOf(nil)
	}
	return nil
}

func (s *fullSession) Open(context.Context, session.Caller) (*session.OpenInfo, error) {
	return &session.OpenInfo{Attended: true, Profile: "instance", Channel: "chromium", URL: "about:blank", TabCount: 1}, s.answer()
}
func (s *fullSession) CloseBrowser(context.Context, session.Caller) (bool, error) {
	return true, s.answer()
}
func (s *fullSession) URL(context.Context, session.Caller) (*session.PageInfo, error) {
	return &session.PageInfo{URL: "https://a.test/", Title: "A", TabCount: 1}, s.answer()
}
func (s *fullSession) Navigate(context.Context, session.Caller, string, string, session.Intent) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) GoBack(context.Context, session.Caller, string, session.Intent) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) Reload(context.Context, session.Caller, string, session.Intent) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) Click(context.Context, session.Caller, session.ActOptions) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) Hover(context.Context, session.Caller, session.ActOptions) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) TypeText(context.Context, session.Caller, session.ActOptions, string, bool) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) PressKey(context.Context, session.Caller, []string, bool, session.ActOptions) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) Scroll(context.Context, session.Caller, session.ScrollOptions) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) SelectOption(context.Context, session.Caller, session.ActOptions, session.SelectBy) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) Tabs(context.Context, session.Caller) (*session.TabList, error) {
	return full().Tabs, s.answer()
}
func (s *fullSession) SwitchTab(context.Context, session.Caller, int, session.Intent) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) CloseTab(context.Context, session.Caller, int, session.Intent) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) ArmDialog(context.Context, session.Caller, session.DialogAnswer, session.Intent) (time.Time, error) {
	return time.Now().Add(time.Minute), s.answer()
}
func (s *fullSession) ReadPage(_ context.Context, _ session.Caller, o session.ReadOptions) (*session.ReadResult, error) {
	return &session.ReadResult{URL: "https://a.test/", Title: "A", Page: snapshot.Page{Text: "hello", Total: 10, Next: 5, Truncated: true},
		Elements: 3, InViewport: 2, Unlisted: 1, ReadID: "r1", Changes: "- x", Links: []session.Link{{Text: "a", Href: "https://a.test/a"}}, LinksTruncated: true}, s.answer()
}
func (s *fullSession) ReadForm(context.Context, session.Caller, session.FormOptions) (*session.FormResult, error) {
	v, yes := "v", true
	return &session.FormResult{URL: "https://a.test/", Title: "A", Scope: "form#f",
		Fields:  []page.FormField{{Tag: "input", Type: "text", Name: "n", Options: []page.FormOption{{Value: "1", Text: "One", Selected: true}}, Accept: &v, Multiple: &yes, Checked: &yes, Value: &v}},
		Buttons: []page.FormButton{{Tag: "button", Text: "Save", Frame: "https://f.test"}}, Editors: []page.FormEditor{{Kind: "tinymce", Field: "body", FieldChars: new(int), Frame: "f"}},
		Drafts: []page.PublishControl{{Name: "status", Frame: "f"}}, State: []string{"Draft"}, SubmitText: []string{"Save"},
		HiddenCount: 1, FieldCount: 1, TotalFields: 2, Truncated: true}, s.answer()
}
func (s *fullSession) ReadDraft(context.Context, session.Caller, int) (*session.DraftResult, error) {
	v := "v"
	return &session.DraftResult{URL: "https://a.test/", Title: "A", Scope: "form#f",
		Fields: []page.DraftField{{Name: "n", Value: &v, ValueChars: 1, Frame: "f"}}, Editors: []page.FormEditor{{Kind: "quill"}},
		Attachments: []page.Attachment{{Name: "file", Files: []string{"a"}}}, State: []page.PublishState{{Name: "status", ID: "s"}},
		Submits: []page.SubmitButton{{Text: "Save"}}, HiddenCount: 1, FieldCount: 1, IsDraft: true}, s.answer()
}
func (s *fullSession) ListDownloads(session.Caller) (*session.DownloadList, error) {
	return &session.DownloadList{Dir: "/d", Files: []download.Entry{{Filename: "a", Path: "/d/a", Bytes: 1, URLOrigin: "https://a.test"}}}, s.answer()
}
func (s *fullSession) takeover() (*session.TakeoverInfo, error) {
	return &session.TakeoverInfo{Reason: "2FA", URL: "https://a.test/", Title: "A", Resumed: true, Selector: "#x", Matches: 1}, s.answer()
}
func (s *fullSession) RequestTakeover(context.Context, session.Caller, string) (*session.TakeoverInfo, error) {
	i, err := s.takeover()
	i.Selector = "" // a takeover names no element
	return i, err
}
func (s *fullSession) ResumeAfterTakeover(context.Context, session.Caller, string) (*session.TakeoverInfo, error) {
	i, err := s.takeover()
	i.Selector = ""
	return i, err
}
func (s *fullSession) AskUser(context.Context, session.Caller, string, string) (*session.TakeoverInfo, error) {
	return s.takeover()
}
func (s *fullSession) Highlight(context.Context, session.Caller, string) (*session.TakeoverInfo, error) {
	return s.takeover()
}
func (s *fullSession) SetEditor(context.Context, session.Caller, session.EditorOptions) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) UploadFile(context.Context, session.Caller, session.ActOptions, []string) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) SaveDraft(context.Context, session.Caller, string, session.ActOptions) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) Publish(context.Context, session.Caller, string, string, session.ActOptions) (*session.ActResult, error) {
	return s.act()
}
func (s *fullSession) WaitFor(context.Context, session.Caller, session.WaitOptions) (time.Duration, error) {
	return time.Second, s.answer()
}
func (s *fullSession) Screenshot(context.Context, session.Caller, bool) (*session.Capture, bool, error) {
	return &session.Capture{Path: "/c/a.png", Width: 1, Height: 1, Bytes: 1}, true, s.answer()
}
func (s *fullSession) ReadImage(context.Context, session.Caller, string) (*session.Capture, error) {
	return &session.Capture{Path: "/c/a.png", Width: 1, Height: 1, Bytes: 1, Tag: "img"}, s.answer()
}
