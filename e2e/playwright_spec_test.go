package e2e

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"
)

// playwrightTools are @playwright/mcp 0.0.83's tools, as its tools/list
// names them.
var playwrightTools = []string{
	"browser_click", "browser_close", "browser_console_messages", "browser_drag", "browser_drop",
	"browser_emulate_media", "browser_evaluate", "browser_file_upload", "browser_fill_form", "browser_find",
	"browser_handle_dialog", "browser_hover", "browser_navigate", "browser_navigate_back", "browser_network_request",
	"browser_network_requests", "browser_press_key", "browser_resize", "browser_run_code_unsafe", "browser_select_option",
	"browser_snapshot", "browser_tabs", "browser_take_screenshot", "browser_type", "browser_wait_for",
}

// playwrightListBytes is the size of @playwright/mcp 0.0.83's tools/list
// result (JSON, as the go-sdk client marshals it), measured with
// e2e/cmd/pw-tour.
const playwrightListBytes = 20912

// TestPlaywrightToolsList: the surface lists Playwright MCP's 25 tools by
// their names, with their required parameters, in fewer bytes than
// Playwright MCP; --caps lyra adds lyrad's own seven. No browser is
// launched to list tools.
func TestPlaywrightToolsList(t *testing.T) {
	parallel(t)
	list := func(args ...string) (names []string, required map[string][]string, bytes int) {
		cs := connectPW(t, t.TempDir(), args, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		required = map[string][]string{}
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
			in, _ := json.Marshal(tl.InputSchema)
			var s struct{ Required []string }
			json.Unmarshal(in, &s)
			sort.Strings(s.Required)
			required[tl.Name] = s.Required
		}
		sort.Strings(names)
		return names, required, len(b)
	}
	names, req, size := list()
	if strings.Join(names, ",") != strings.Join(playwrightTools, ",") {
		t.Errorf("tools:\n got %v\nwant %v", names, playwrightTools)
	}
	for tool, want := range map[string]string{
		"browser_click": "target", "browser_type": "target,text", "browser_select_option": "target,values",
		"browser_navigate": "url", "browser_tabs": "action", "browser_handle_dialog": "accept",
		"browser_take_screenshot": "scale", "browser_drag": "endTarget,startTarget", "browser_fill_form": "fields",
		"browser_press_key": "key", "browser_resize": "height,width", "browser_evaluate": "function",
	} {
		if got := strings.Join(req[tool], ","); got != want {
			t.Errorf("%s requires %q, want %q (as Playwright MCP)", tool, got, want)
		}
	}
	if size > playwrightListBytes {
		t.Errorf("tools/list is %d bytes, more than Playwright MCP's %d", size, playwrightListBytes)
	}
	t.Logf("tools/list: %d tools, %d bytes (Playwright MCP 0.0.83: 25 tools, %d bytes)", len(names), size, playwrightListBytes)

	names, _, size = list("--caps", "lyra")
	extras := []string{"browser_highlight", "browser_list_downloads", "browser_publish", "browser_read_form",
		"browser_request_takeover", "browser_resume_after_takeover", "browser_save_draft"}
	for _, e := range extras {
		if !contains(names, e) {
			t.Errorf("--caps lyra does not list %s", e)
		}
	}
	if len(names) != len(playwrightTools)+len(extras) {
		t.Errorf("--caps lyra lists %d tools, want %d", len(names), len(playwrightTools)+len(extras))
	}
	t.Logf("with --caps lyra: %d tools, %d bytes", len(names), size)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// TestPlaywrightClickSpec ports playwright-mcp's tests/click.spec.ts
// (browser_click): navigate answers a snapshot with the button and its
// ref, and a click by that ref clicks it (its handler ran: the next
// snapshot shows what it wrote, and the button it focused is [active], as
// the spec's is) and answers the page and the snapshot.
func TestPlaywrightClickSpec(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<title>Title</title>
<button>Submit</button>
<script>
const button = document.querySelector('button');
button.addEventListener('click', () => { button.focus(); button.textContent = 'Clicked'; });
</script>`)
	cs := connectPW(t, t.TempDir(), nil, nil)
	nav := pwOK(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/"})
	if !strings.Contains(nav.section("Snapshot"), `- button "Submit" [ref=`) {
		t.Fatalf("navigate's snapshot has no button \"Submit\" with a ref:\n%s", nav.text)
	}
	ref := pwRef(t, nav, "button", "Submit")
	click := pwOK(t, cs, "browser_click", map[string]any{"element": "Submit button", "target": ref})
	if got := click.section("Page"); !strings.Contains(got, "- Page URL: "+s.URL+"/") || !strings.Contains(got, "- Page Title: Title") {
		t.Errorf("click's ### Page:\n%s", click.text)
	}
	if !strings.Contains(click.section("Snapshot"), `- button "Clicked" [active] [ref=`+ref+`]`) {
		t.Errorf("after the click the snapshot does not show the button's handler ran:\n%s", click.text)
	}
}

// TestPlaywrightCoreNavigate ports playwright-mcp's tests/core.spec.ts
// (browser_navigate) on its HELLO_WORLD page: the answer says the page's
// URL and title and carries the snapshot section. Where Playwright's
// snapshot has the text node (generic [ref=e1]: Hello, world!), lyrad's
// lists what can be acted on, and browser_snapshot gives the page's text
// beside it.
func TestPlaywrightCoreNavigate(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/hello-world", `<title>Title</title><body>Hello, world!</body>`)
	cs := connectPW(t, t.TempDir(), nil, nil)
	a := pwOK(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/hello-world"})
	if want := "- Page URL: " + s.URL + "/hello-world\n- Page Title: Title"; a.section("Page") != want {
		t.Errorf("### Page:\n%s\nwant\n%s", a.section("Page"), want)
	}
	if a.section("Snapshot") == "" {
		t.Errorf("no ### Snapshot:\n%s", a.text)
	}
	if s.count("/hello-world") != 1 {
		t.Errorf("the page was loaded %d times", s.count("/hello-world"))
	}
	snap := pwOK(t, cs, "browser_snapshot", nil)
	if strings.TrimSpace(snap.section("Page text")) != "Hello, world!" {
		t.Errorf("browser_snapshot's ### Page text:\n%s", snap.text)
	}
}
