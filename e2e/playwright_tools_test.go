package e2e

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pwLineRE reads a snapshot line's role and quoted name.
var pwLineRE = regexp.MustCompile(`^\s*- (\S+) ("(?:[^"\\]|\\.)*")`)

// pwShop is a small shop's order page: a form with a text field, a
// select, a checkbox and a file input, a status line its scripts write to
// (role=status, so the snapshot lists it), buttons that confirm, alert,
// show and hide things late, a hover menu and a link that opens a tab.
const pwShop = `<!doctype html><title>Order</title>
<h1>Order</h1>
<form id=f onsubmit="event.preventDefault(); say('Sent ' + this.elements.name.value + ' ' + this.elements.size.value + ' ' + this.elements.agree.checked)">
<label>Name <input name=name></label>
<label>Size <select name=size><option value=s>Small</option><option value=l>Large</option></select></label>
<label><input type=checkbox name=agree> Agree</label>
<label>Attachment <input type=file name=file></label>
<button>Submit</button>
</form>
<p role=status id=st>Idle</p>
<button onclick="say('confirm ' + confirm('Sure?'))">Confirm</button>
<button onclick="setTimeout(() => say('Ready'), 400)">Later</button>
<button onclick="setTimeout(() => document.getElementById('gone').remove(), 400)">Hide</button>
<h2 id=gone>Vanishing</h2>
<a href="#menu" onmouseover="say('Hovered')">Menu</a>
<a href="/other" target=_blank>Other</a>
<script>
function say(s) { document.getElementById('st').textContent = s; }
document.addEventListener('keydown', (e) => { if (e.key.length === 1 || e.key === 'End') say('Key ' + e.key); });
</script>`

// TestPlaywrightEachTool drives each of Playwright MCP's tools once on
// one browser, as an agent written for it would, and checks each did what
// it says on the page (the page's own status line, the fields' values in
// the snapshot), or was refused with why.
func TestPlaywrightEachTool(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", pwShop)
	s.page("/other", `<!doctype html><title>Other</title><h1>Other page</h1>`)
	files := t.TempDir()
	upload := filepath.Join(files, "invoice.txt")
	if err := os.WriteFile(upload, []byte("invoice\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cs := connectPW(t, dir, []string{"--output-dir", filepath.Join(files, "out")}, nil, "LYRA_BROWSER_UPLOAD_ROOTS="+files)

	// Refs as the answers gave them: a whole snapshot's, and those of what
	// an acting call changed (a ref names its element while it stands).
	refs := map[string]string{}
	ok := func(name string, args map[string]any) pwAnswer {
		t.Helper()
		a := pwOK(t, cs, name, args)
		for _, l := range strings.Split(a.section("Snapshot"), "\n") {
			if m, n := pwRefRE.FindStringSubmatch(l), pwLineRE.FindStringSubmatch(l); m != nil && n != nil {
				refs[n[1]+" "+n[2]] = m[1]
			}
		}
		return a
	}
	ref := func(role, name string) string {
		t.Helper()
		r, found := refs[role+" "+fmt.Sprintf("%q", name)]
		if !found {
			t.Errorf("no ref for %s %q in the answers so far", role, name)
		}
		return r
	}
	snapHas := func(a pwAnswer, want string) {
		t.Helper()
		if !strings.Contains(a.section("Snapshot"), want) {
			t.Errorf("the snapshot has no %q:\n%s", want, a.text)
		}
	}
	status := func(a pwAnswer, want string) { t.Helper(); snapHas(a, `- status "`+want+`"`) }
	// An acting call answers, as Playwright MCP's incremental snapshot,
	// what it changed; the next whole snapshot shows it too.
	changed := func(a pwAnswer, want string) {
		t.Helper()
		if !strings.Contains(a.section("Page"), "- Page Title: Order") || strings.Contains(a.section("Snapshot"), `link "Other"`) {
			t.Errorf("want ### Page and only what changed:\n%s", a.text)
		}
		snapHas(a, want)
		snapHas(pwOK(t, cs, "browser_snapshot", nil), want)
	}

	t.Run("browser_navigate", func(t *testing.T) {
		a := ok("browser_navigate", map[string]any{"url": s.URL + "/"})
		if a.section("Page") != "- Page URL: "+s.URL+"/\n- Page Title: Order" {
			t.Errorf("### Page: %q", a.section("Page"))
		}
		snapHas(a, `- heading "Order" [level=1] [ref=`)
		snapHas(a, `- link "Other" [ref=`)
		snapHas(a, "[cursor=pointer]:\n  - /url: /other")
	})
	t.Run("browser_snapshot", func(t *testing.T) {
		a := ok("browser_snapshot", nil)
		snapHas(a, `- textbox "Name" [ref=`)
		snapHas(a, `- checkbox "Agree" [ref=`)
		// A region: the one element the ref names.
		one := pwOK(t, cs, "browser_snapshot", map[string]any{"target": pwRef(t, a, "button", "Submit")})
		if got := strings.Count(one.section("Snapshot"), "\n- "); got != 1 || !strings.Contains(one.section("Snapshot"), `button "Submit"`) {
			t.Errorf("snapshot of one ref:\n%s", one.text)
		}
		ok("browser_snapshot", map[string]any{"filename": "order.yml"})
		b, err := os.ReadFile(filepath.Join(files, "out", "order.yml"))
		if err != nil || !bytes.Contains(b, []byte(`- button "Submit" [ref=`)) {
			t.Errorf("snapshot filename: %v %q", err, b)
		}
	})
	t.Run("browser_type", func(t *testing.T) {
		ok("browser_snapshot", nil)
		a := ok("browser_type", map[string]any{"element": "Name", "target": ref("textbox", "Name"), "text": "Ada"})
		// Typed into, the field has the focus.
		changed(a, `- textbox "Name" [active] [ref=`+ref("textbox", "Name")+`]: Ada`)
	})
	t.Run("browser_select_option", func(t *testing.T) {
		a := ok("browser_select_option", map[string]any{"target": ref("combobox", "Size"), "values": []string{"Large"}})
		snapHas(a, ": Large")
		a = ok("browser_select_option", map[string]any{"target": ref("combobox", "Size"), "values": []string{"s"}})
		snapHas(a, ": Small")
	})
	t.Run("browser_fill_form", func(t *testing.T) {
		a := ok("browser_fill_form", map[string]any{"fields": []map[string]any{
			{"name": "Name", "type": "textbox", "target": ref("textbox", "Name"), "value": "Grace"},
			{"name": "Size", "type": "combobox", "target": ref("combobox", "Size"), "value": "Large"},
			{"name": "Agree", "type": "checkbox", "target": ref("checkbox", "Agree"), "value": "true"},
		}})
		snapHas(a, "]: Grace")
		snapHas(a, ": Large")
		snapHas(a, `- checkbox "Agree" [checked] `)
	})
	t.Run("browser_click", func(t *testing.T) {
		status(ok("browser_click", map[string]any{"element": "Submit", "target": ref("button", "Submit")}), "Sent Grace l true")
		a := pwCall(t, cs, "browser_click", map[string]any{"target": ref("button", "Submit"), "doubleClick": true})
		if !a.isError || !strings.Contains(a.text, "doubleClick") {
			t.Errorf("doubleClick: %s", a)
		}
	})
	t.Run("browser_press_key", func(t *testing.T) {
		ok("browser_click", map[string]any{"target": ref("textbox", "Name")})
		changed(ok("browser_press_key", map[string]any{"key": "x"}), `- status "Key x"`)
	})
	t.Run("browser_hover", func(t *testing.T) {
		status(ok("browser_hover", map[string]any{"target": ref("link", "Menu")}), "Hovered")
	})
	t.Run("browser_wait_for", func(t *testing.T) {
		ok("browser_click", map[string]any{"target": ref("button", "Later")})
		a := ok("browser_wait_for", map[string]any{"text": "Ready"})
		if a.section("Result") != "Waited for Ready" {
			t.Errorf("### Result: %q", a.section("Result"))
		}
		status(a, "Ready")
		ok("browser_click", map[string]any{"target": ref("button", "Hide")})
		a = ok("browser_wait_for", map[string]any{"textGone": "Vanishing"})
		if strings.Contains(a.section("Snapshot"), "Vanishing") {
			t.Errorf("textGone answered with the text still there:\n%s", a.text)
		}
		a = ok("browser_wait_for", map[string]any{"time": 0.1})
		if a.section("Result") != "Waited for 0.1 seconds" {
			t.Errorf("### Result: %q", a.section("Result"))
		}
	})
	t.Run("browser_handle_dialog", func(t *testing.T) {
		a := ok("browser_click", map[string]any{"target": ref("button", "Confirm")})
		status(a, "confirm false")
		if !strings.Contains(a.section("Events"), `"confirm" dialog with message "Sure?" was dismissed`) {
			t.Errorf("### Events: %s", a.text)
		}
		ok("browser_handle_dialog", map[string]any{"accept": true})
		status(ok("browser_click", map[string]any{"target": ref("button", "Confirm")}), "confirm true")
	})
	t.Run("browser_file_upload", func(t *testing.T) {
		a := pwCall(t, cs, "browser_file_upload", map[string]any{"paths": []string{upload}})
		if !a.isError || !strings.Contains(a.text, "modal state") {
			t.Errorf("upload with no file chooser: %s", a)
		}
		a = ok("browser_click", map[string]any{"target": ref("button", "Attachment")})
		if a.section("Modal state") != "- [File chooser]: can be handled by browser_file_upload" {
			t.Fatalf("### Modal state after clicking the file input:\n%s", a.text)
		}
		a = ok("browser_file_upload", map[string]any{"paths": []string{upload}})
		snapHas(a, `- button "Attachment" [`)
		snapHas(a, "]: invoice.txt")
		if a.section("Modal state") != "" {
			t.Errorf("the file chooser is still pending:\n%s", a.text)
		}
	})
	t.Run("browser_take_screenshot", func(t *testing.T) {
		for _, args := range []map[string]any{{}, {"fullPage": true}, {"target": ref("button", "Submit"), "filename": "submit.png"}} {
			a := ok("browser_take_screenshot", args)
			if len(a.images) != 1 || a.images[0].MIMEType != "image/png" {
				t.Fatalf("%v: images %d", args, len(a.images))
			}
			data := a.images[0].Data
			if dec, err := base64.StdEncoding.DecodeString(string(data)); err == nil {
				data = dec
			}
			if !bytes.HasPrefix(data, []byte("\x89PNG")) {
				t.Errorf("%v: not a PNG", args)
			}
			if !strings.Contains(a.section("Result"), "[Screenshot of ") {
				t.Errorf("%v: ### Result: %s", args, a.text)
			}
		}
		if _, err := os.Stat(filepath.Join(files, "out", "submit.png")); err != nil {
			t.Errorf("screenshot filename: %v", err)
		}
	})
	t.Run("browser_find", func(t *testing.T) {
		a := ok("browser_find", map[string]any{"text": "submit"})
		if !strings.Contains(a.section("Result"), `- button "Submit" [ref=`) {
			t.Errorf("find text: %s", a.text)
		}
		a = ok("browser_find", map[string]any{"regex": "/^- link \"(menu|other)\"/i"})
		if !strings.Contains(a.section("Result"), "2 matches") {
			t.Errorf("find regex: %s", a.text)
		}
		a = ok("browser_find", map[string]any{"text": "no such thing"})
		if a.section("Result") != `No matches found for "no such thing".` {
			t.Errorf("find nothing: %s", a.text)
		}
	})
	t.Run("browser_tabs", func(t *testing.T) {
		ok("browser_snapshot", nil)
		a := ok("browser_click", map[string]any{"target": ref("link", "Other")})
		if !strings.Contains(a.section("Events"), "new tab") || !strings.Contains(a.section("Open tabs"), "- 1: (current) [Other]("+s.URL+"/other)") {
			t.Errorf("a click that opens a tab:\n%s", a.text)
		}
		a = ok("browser_tabs", map[string]any{"action": "list"})
		if want := "- 0: [Order](" + s.URL + "/)\n- 1: (current) [Other](" + s.URL + "/other)"; a.section("Result") != want {
			t.Errorf("list:\n%s\nwant\n%s", a.section("Result"), want)
		}
		a = ok("browser_tabs", map[string]any{"action": "select", "index": 0})
		if !strings.Contains(a.section("Result"), "- 0: (current) [Order]") || !strings.Contains(a.section("Page"), s.URL+"/") {
			t.Errorf("select 0:\n%s", a.text)
		}
		a = ok("browser_tabs", map[string]any{"action": "close", "index": 1})
		if a.section("Result") != "- 0: (current) [Order]("+s.URL+"/)" {
			t.Errorf("close 1:\n%s", a.text)
		}
		a = ok("browser_tabs", map[string]any{"action": "new", "url": s.URL + "/other"})
		if !strings.Contains(a.section("Result"), "- 1: (current) [Other]("+s.URL+"/other)") {
			t.Errorf("tabs new:\n%s", a.text)
		}
		a = ok("browser_tabs", map[string]any{"action": "close"})
		if a.section("Result") != "- 0: (current) [Order]("+s.URL+"/)" {
			t.Errorf("close the new tab:\n%s", a.text)
		}
	})
	t.Run("browser_navigate_back", func(t *testing.T) {
		ok("browser_navigate", map[string]any{"url": s.URL + "/other"})
		a := ok("browser_navigate_back", nil)
		if a.section("Page") != "- Page URL: "+s.URL+"/\n- Page Title: Order" {
			t.Errorf("back: %s", a.text)
		}
	})
	t.Run("refused", func(t *testing.T) {
		before := s.count("/")
		for name, args := range map[string]map[string]any{
			"browser_resize":           {"width": 800, "height": 600},
			"browser_console_messages": {},
			"browser_emulate_media":    {"colorScheme": "dark"},
			"browser_evaluate":         {"function": "() => document.title"},
			"browser_drop":             {"target": "e1", "paths": []string{upload}},
			"browser_network_requests": {},
			"browser_network_request":  {"index": 1},
			"browser_run_code_unsafe":  {"code": "async (page) => page.goto('/')"},
			"browser_drag":             {"startTarget": "e1", "endTarget": "e2"},
		} {
			a := pwCall(t, cs, name, args)
			if !a.isError || !strings.Contains(a.text, "### Error\nError: "+name+" is not available in lyrad") {
				t.Errorf("%s: %s", name, a)
			}
		}
		if s.count("/") != before {
			t.Errorf("a refused tool loaded the page")
		}
	})
	t.Run("browser_close", func(t *testing.T) {
		a := ok("browser_close", nil)
		if !strings.Contains(a.section("Result"), "Browser closed") {
			t.Errorf("close: %s", a.text)
		}
		// The next call opens it again, as Playwright MCP does.
		ok("browser_navigate", map[string]any{"url": s.URL + "/other"})
	})
	// Audit rows name this surface's tools.
	rows := rowsWhere(auditRows(t, dir), has{"kind": "tool", "tool": "browser_click"})
	if len(rows) == 0 {
		t.Errorf("no audit row names browser_click")
	}
	// What was typed and chosen is the user's: redacted as on lyrad's surface.
	for _, tool := range []string{"browser_type", "browser_fill_form", "browser_select_option"} {
		rows := rowsWhere(auditRows(t, dir), has{"kind": "tool", "tool": tool})
		if len(rows) == 0 {
			t.Errorf("no %s row", tool)
		}
		for _, r := range rows {
			if b, _ := json.Marshal(r); bytes.Contains(b, []byte("Grace")) || bytes.Contains(b, []byte("Ada")) || bytes.Contains(b, []byte("Large")) {
				t.Errorf("%s's row holds what was typed or chosen: %s", tool, b)
			}
		}
	}
}
