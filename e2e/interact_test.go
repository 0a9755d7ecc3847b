package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tests of the acting tools (click, type_text, press_key, hover, scroll)
// through the MCP client against real Chromium. Pages report what reached
// them through document.title (get_url reads it) or through a request to
// their own server (counted by the site), never through lyrad itself.

// actor is one lyrad over stdio with a page loaded.
type actor struct {
	t   *testing.T
	cs  *mcp.ClientSession
	dir string
}

func newActor(t *testing.T) *actor {
	t.Helper()
	needBrowser(t)
	dir := t.TempDir()
	return &actor{t: t, cs: connectStdio(t, dir, proto2026), dir: dir}
}

func (a *actor) call(name string, args map[string]any) map[string]any {
	a.t.Helper()
	return call(a.t, a.cs, name, args)
}

func (a *actor) open(url string) {
	a.t.Helper()
	wantStatus(a.t, a.call("navigate", map[string]any{"url": url}), "ok")
}

// title is the active tab's title: where the test pages report.
func (a *actor) title() string {
	a.t.Helper()
	env := a.call("get_url", nil)
	s, _ := env["title"].(string)
	return s
}

func (a *actor) wantTitle(want string) {
	a.t.Helper()
	if got := a.title(); got != want {
		a.t.Fatalf("page title %q, want %q", got, want)
	}
}

// timed runs a call and says how long it took.
func (a *actor) timed(name string, args map[string]any) (map[string]any, time.Duration) {
	a.t.Helper()
	start := time.Now()
	env := a.call(name, args)
	return env, time.Since(start)
}

// wantFailure checks a failure envelope: its status, that it names the
// selector and the url, and that it has a hint.
func wantFailure(t *testing.T, env map[string]any, status, selector string) {
	t.Helper()
	wantStatus(t, env, status)
	if env["selector"] != selector {
		t.Errorf("%s: selector = %v, want %q", status, env["selector"], selector)
	}
	if u, _ := env["url"].(string); !strings.HasPrefix(u, "http") {
		t.Errorf("%s: url = %v, want where the tab stands", status, env["url"])
	}
	if h, _ := env["hint"].(string); h == "" {
		t.Errorf("%s: no hint", status)
	}
}

func element(env map[string]any, key string) map[string]any {
	m, _ := env[key].(map[string]any)
	return m
}

// TestClick: a real click (isTrusted), what the reply says about it, the
// selector engines, and a click that navigates.
func TestClick(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>start</title>
<button id=b onclick="document.title='clicked trusted=' + event.isTrusted + ' x=' + (event.clientX > 0)">Press me</button>
<button class=dup onclick="document.title='dup 1'">Same</button><button class=dup onclick="document.title='dup 2'">Same</button>
<div style="display:none"><button id=first onclick="document.title='hidden one'">Twin</button></div>
<button onclick="document.title='visible twin'">Twin</button>
<a href="/next" id=next><span>Go <b>next</b></span></a>
<input type=submit value="Send it" onclick="document.title='input button';return false">
<div id=host></div>
<script>
const root = document.getElementById('host').attachShadow({mode: 'open'});
root.innerHTML = '<div id=inner></div>';
root.getElementById('inner').attachShadow({mode: 'open'}).innerHTML = '<button id=deep onclick="document.title=\'shadow\'">Deep</button>';
</script>`)
	s.page("/next", `<!doctype html><title>Next</title><p>second page`)
	a := newActor(t)
	a.open(s.URL + "/")

	env := a.call("click", map[string]any{"selector": "#b"})
	wantStatus(t, env, "ok")
	a.wantTitle("clicked trusted=true x=true")
	if env["matches"] != float64(1) || env["hint"] != nil {
		t.Errorf("one match: matches=%v hint=%v", env["matches"], env["hint"])
	}
	if c := element(env, "clicked"); c["tag"] != "button" || c["role"] != "button" || c["name"] != "Press me" {
		t.Errorf("clicked = %v", env["clicked"])
	}
	if env["url"] != s.URL+"/" || env["tab_count"] != float64(1) || env["new_tab"] != nil || env["navigated"] != nil {
		t.Errorf("click that opens nothing: %v", env)
	}

	// Several matches: the first is used, and the reply says so.
	env = a.call("click", map[string]any{"selector": "button.dup"})
	wantStatus(t, env, "ok")
	a.wantTitle("dup 1")
	if env["matches"] != float64(2) || !strings.Contains(fmt.Sprint(env["hint"]), "2 elements matched") {
		t.Errorf("two matches: matches=%v hint=%v", env["matches"], env["hint"])
	}
	// A hidden first match is passed over for the first visible one.
	env = a.call("click", map[string]any{"selector": "text=Twin"})
	wantStatus(t, env, "ok")
	a.wantTitle("visible twin")

	// text= finds the innermost element and lifts it to its link; an input
	// button is found by its value.
	env = a.call("click", map[string]any{"selector": "text=send IT"})
	wantStatus(t, env, "ok")
	a.wantTitle("input button")
	env = a.call("click", map[string]any{"selector": `xpath=//button[@id="b"]`})
	wantStatus(t, env, "ok")

	// CSS reaches into open shadow roots, nested ones included.
	env = a.call("click", map[string]any{"selector": "#deep"})
	wantStatus(t, env, "ok")
	a.wantTitle("shadow")

	// A click that navigates is followed to the new page.
	env = a.call("click", map[string]any{"selector": `text="Go next"`})
	wantStatus(t, env, "ok")
	if c := element(env, "clicked"); c["tag"] != "a" || c["role"] != "link" {
		t.Errorf("text= inside a link clicked %v, want the link", env["clicked"])
	}
	if env["navigated"] != true || env["url"] != s.URL+"/next" || env["title"] != "Next" {
		t.Errorf("click on a link: %v", env)
	}
	if s.count("/next") != 1 {
		t.Errorf("/next reached %d times", s.count("/next"))
	}
}

// TestClickWaitsForLateControls: a control that appears, shows or is
// enabled within the window is acted on; the reply waits only as long as
// the page takes.
func TestClickWaitsForLateControls(t *testing.T) {
	s := newSite(t, "127.0.0.1")
	s.page("/late", `<!doctype html><title>late</title>
<button id=off disabled onclick="document.title='enabled and clicked'">Later</button>
<button id=shy style="display:none" onclick="document.title='shown and clicked'">Shy</button>
<script>
setTimeout(() => document.getElementById('off').disabled = false, 800);
setTimeout(() => document.getElementById('shy').style.display = '', 600);
setTimeout(() => { const b = document.createElement('button'); b.id = 'new'; b.textContent = 'New';
  b.onclick = () => document.title = 'appeared and clicked'; document.body.append(b); }, 1000);
</script>`)
	a := newActor(t)

	a.open(s.URL + "/late")
	env, took := a.timed("click", map[string]any{"selector": "#off"})
	wantStatus(t, env, "ok")
	a.wantTitle("enabled and clicked")
	t.Logf("a button enabled 0.8 s after load: clicked after %v", took)
	if took > 2500*time.Millisecond {
		t.Errorf("took %v: the wait should end when the button is enabled", took)
	}

	a.open(s.URL + "/late")
	env = a.call("click", map[string]any{"selector": "#shy"})
	wantStatus(t, env, "ok")
	a.wantTitle("shown and clicked")

	a.open(s.URL + "/late")
	env, took = a.timed("click", map[string]any{"selector": "#new"})
	wantStatus(t, env, "ok")
	a.wantTitle("appeared and clicked")
	t.Logf("a button added 1 s after load: clicked after %v", took)
}

// TestClickFailures: every way a click fails fast, each with selector,
// url and a hint, and none of them clicking anything.
func TestClickFailures(t *testing.T) {
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>fail</title>
<button id=gone style="display:none">Hidden</button>
<button id=off disabled>Off</button>
<fieldset disabled><button id=inset>In a disabled fieldset</button></fieldset>
<div style="position:relative;margin:40px 0"><button id=under onclick="document.title='under clicked'">Under</button>
  <div id=banner style="position:absolute;inset:-10px;background:#eee">We use cookies</div></div>
<p><button id=popover onmouseenter="document.getElementById('menu').style.display='block'" onclick="document.title='popover clicked'">Menu</button></p>
<div id=menu onclick="this.style.display='none'" style="display:none;position:fixed;top:0;left:0;width:100vw;height:100vh;background:rgba(0,0,0,.2)">Open menu</div>
<p><button id=flee onmouseenter="this.remove()" onclick="document.title='flee clicked'">Flee</button></p>
<button id=far style="position:absolute;left:-9999px;top:10px" onclick="document.title='far clicked'">Far</button>
<p><button id=busy onmousedown="const t = Date.now(); while (Date.now() - t < 1500) {}; document.title='busy done'">Busy</button></p>
<input id=field>`)
	a := newActor(t)
	a.open(s.URL + "/")

	env, took := a.timed("click", map[string]any{"selector": "#missing"})
	wantFailure(t, env, "not_found", "#missing")
	if took < 2500*time.Millisecond || took > 6*time.Second {
		t.Errorf("not_found after %v, want about 3 s", took)
	}
	env, took = a.timed("click", map[string]any{"selector": "#missing", "timeout_ms": 300})
	wantFailure(t, env, "not_found", "#missing")
	if took > 1500*time.Millisecond {
		t.Errorf("not_found with timeout_ms=300 took %v", took)
	}
	// Budgets that leave a loaded machine room to find the control and tell
	// what is wrong with it.
	env = a.call("click", map[string]any{"selector": "#gone", "timeout_ms": 1500})
	wantFailure(t, env, "hidden", "#gone")
	env = a.call("click", map[string]any{"selector": "#off", "timeout_ms": 1500})
	wantFailure(t, env, "disabled", "#off")
	env = a.call("click", map[string]any{"selector": "#inset", "timeout_ms": 1500})
	wantFailure(t, env, "disabled", "#inset")

	// Covered: the hint names what covers it, and nothing is clicked.
	env = a.call("click", map[string]any{"selector": "#under"})
	wantFailure(t, env, "element_not_actionable", "#under")
	if !strings.Contains(fmt.Sprint(env["hint"]), `div#banner "We use cookies"`) {
		t.Errorf("covered: hint %q does not name the banner", env["hint"])
	}
	// Covered once the pointer arrives (a hover menu over it).
	env = a.call("click", map[string]any{"selector": "#popover"})
	wantFailure(t, env, "element_not_actionable", "#popover")
	if !strings.Contains(fmt.Sprint(env["covered_by"]), "div#menu") {
		t.Errorf("covered on hover: covered_by %v", env["covered_by"])
	}
	// (The menu is open over the page now; a click on it closes it.)
	wantStatus(t, a.call("click", map[string]any{"selector": "#menu"}), "ok")
	// Removed as the pointer arrives.
	env = a.call("click", map[string]any{"selector": "#flee"})
	wantFailure(t, env, "element_not_actionable", "#flee")
	if !strings.Contains(fmt.Sprint(env["error"]), "detached") {
		t.Errorf("detached: %v", env["error"])
	}
	// Placed where no scrolling reaches.
	env = a.call("click", map[string]any{"selector": "#far"})
	wantFailure(t, env, "element_not_actionable", "#far")
	a.wantTitle("fail")

	// A page that does not answer in time: timeout, bounded by timeout_ms.
	env, took = a.timed("click", map[string]any{"selector": "#busy", "timeout_ms": 300})
	wantFailure(t, env, "timeout", "#busy")
	if took > 1200*time.Millisecond {
		t.Errorf("timeout_ms=300 answered after %v", took)
	}
	// timeout_ms=0 is 1 ms, never unlimited.
	env, took = a.timed("click", map[string]any{"selector": "#under", "timeout_ms": 0})
	wantFailure(t, env, "timeout", "#under")
	if took > time.Second {
		t.Errorf("timeout_ms=0 answered after %v", took)
	}
	waitFor(t, "the busy handler to finish", 5*time.Second, func() bool { return a.title() == "busy done" })

	// Bad input is answered before anything happens.
	env = a.call("click", map[string]any{"selector": "button[", "timeout_ms": 500})
	wantStatus(t, env, "error")
	if env["argument"] != "selector" {
		t.Errorf("bad CSS: %v", env)
	}
	env = a.call("click", map[string]any{"selector": "role=button[name=x]"})
	if env["status"] != "error" || env["argument"] != "selector" {
		t.Errorf("unsupported engine: %v", env)
	}
	// A click declared to download that offers no file: said so, once
	// timeout_ms has passed (downloads_declared_test.go has the rest).
	env = a.call("click", map[string]any{"selector": "#field", "download": true, "timeout_ms": 500})
	wantStatus(t, env, "download_not_started")
	a.wantTitle("busy done")
}

// TestTypeText: the field ends up holding the text, typed as input events,
// in inputs, textareas, editable elements and shadow roots; failures; the
// text stays out of the reply and the audit trail.
func TestTypeText(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>type</title>
<form action="/search"><input id=q name=q value="old text" oninput="document.title='q=' + this.value"></form>
<textarea id=area oninput="document.title='area=' + this.value.replace(/\n/g, '|')"></textarea>
<div id=ed contenteditable oninput="document.title='ed=' + this.textContent">before</div>
<input id=ro readonly value="fixed"><input id=off disabled><input id=gone type=text style="display:none">
<button id=btn>Button</button>
<div id=host></div>
<script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML =
  '<input id=sh oninput="document.title=\'sh=\' + this.value">';</script>`)
	s.page("/search", `<!doctype html><title>results</title>`)
	a := newActor(t)
	a.open(s.URL + "/")

	const secret = "Ada Lovelace s3cr3t"
	env := a.call("type_text", map[string]any{"selector": "#q", "text": secret})
	wantStatus(t, env, "ok")
	a.wantTitle("q=" + secret)
	if c := element(env, "typed_into"); c["role"] != "textbox" || env["typed_chars"] != float64(len(secret)) {
		t.Errorf("typed_into %v typed_chars %v", env["typed_into"], env["typed_chars"])
	}
	// The reply says what the field holds after (issue 19): as value, and
	// as the field's changed line; nowhere else.
	if env["value"] != secret {
		t.Errorf("value = %v, want what the field holds", env["value"])
	}
	if c, _ := env["changes"].(string); !strings.Contains(c, "textbox: "+secret) {
		t.Errorf("changes = %q, want the field's line with its new value", c)
	}
	delete(env, "title") // the page itself puts the text in its title
	delete(env, "value")
	delete(env, "changes")
	if strings.Contains(jsonString(env), secret) {
		t.Errorf("the reply echoes the typed text beyond value: %v", env)
	}
	wantStatus(t, a.call("type_text", map[string]any{"selector": "#q", "text": ""}), "ok")
	a.wantTitle("q=")
	wantStatus(t, a.call("type_text", map[string]any{"selector": "#area", "text": "two\nlines"}), "ok")
	a.wantTitle("area=two|lines")
	wantStatus(t, a.call("type_text", map[string]any{"selector": "#ed", "text": "édité ✓"}), "ok")
	a.wantTitle("ed=édité ✓")
	wantStatus(t, a.call("type_text", map[string]any{"selector": "#sh", "text": "in the shadow"}), "ok")
	a.wantTitle("sh=in the shadow")

	env = a.call("type_text", map[string]any{"selector": "#ro", "text": "x"})
	wantFailure(t, env, "element_not_actionable", "#ro")
	if !strings.Contains(fmt.Sprint(env["error"]), "read-only") {
		t.Errorf("read-only: %v", env["error"])
	}
	env = a.call("type_text", map[string]any{"selector": "#btn", "text": "x"})
	wantFailure(t, env, "element_not_actionable", "#btn")
	if !strings.Contains(fmt.Sprint(env["error"]), "not a text field") {
		t.Errorf("not a text field: %v", env["error"])
	}
	env = a.call("type_text", map[string]any{"selector": "#nope", "text": "x", "timeout_ms": 1500})
	wantFailure(t, env, "not_found", "#nope")
	wantFailure(t, a.call("type_text", map[string]any{"selector": "#off", "text": "x", "timeout_ms": 1500}), "disabled", "#off")
	wantFailure(t, a.call("type_text", map[string]any{"selector": "#gone", "text": "x", "timeout_ms": 1500}), "hidden", "#gone")

	// submit=true presses Enter: the search form goes (a same-site GET).
	env = a.call("type_text", map[string]any{"selector": "#q", "text": "cats", "submit": true})
	wantStatus(t, env, "ok")
	if env["navigated"] != true || env["url"] != s.URL+"/search?q=cats" || env["submitted"] != true {
		t.Errorf("submit=true: %v", env)
	}

	for _, r := range rowsWhere(auditRows(t, a.dir), has{"tool": "type_text"}) {
		if args, _ := r["args"].(map[string]any); args["text"] != "[redacted]" {
			t.Errorf("audit row of type_text keeps text = %v", args["text"])
		}
	}
	if raw := readAudit(t, a.dir); strings.Contains(raw, secret) {
		t.Errorf("the typed text reached the audit trail")
	}
}

// TestPressKey: keys and chords arrive as keyboard events where the focus
// is; Enter submits a form; bad keys are refused before anything happens.
func TestPressKey(t *testing.T) {
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>keys</title>
<form action="/sent"><input id=q name=q oninput="document.title='q=' + this.value"
  onkeydown="if (event.key === 'Escape') document.title = 'escape trusted=' + event.isTrusted"></form>
<input id=second onfocus="document.title='second focused'"
  onkeydown="if (event.key === 'F2') { const t = Date.now(); while (Date.now() - t < 1500) {} document.title = 'busy key done'; }">
<script>document.getElementById('q').focus()</script>`)
	s.page("/sent", `<!doctype html><title>sent</title>`)
	a := newActor(t)
	a.open(s.URL + "/")

	wantStatus(t, a.call("press_key", map[string]any{"key": "Escape"}), "ok")
	a.wantTitle("escape trusted=true")
	wantStatus(t, a.call("type_text", map[string]any{"selector": "#q", "text": "hello"}), "ok")
	// Control+a selects all, Backspace deletes it.
	wantStatus(t, a.call("press_key", map[string]any{"key": "Control+a"}), "ok")
	wantStatus(t, a.call("press_key", map[string]any{"key": "Backspace"}), "ok")
	a.wantTitle("q=")
	for _, k := range []string{"H", "i", "Shift+1"} {
		wantStatus(t, a.call("press_key", map[string]any{"key": k}), "ok")
	}
	a.wantTitle("q=Hi!")
	wantStatus(t, a.call("press_key", map[string]any{"key": "Tab"}), "ok")
	a.wantTitle("second focused")
	// A page busy with the key: timeout, bounded by timeout_ms.
	env, took := a.timed("press_key", map[string]any{"key": "F2", "timeout_ms": 300})
	wantStatus(t, env, "timeout")
	if took > 1200*time.Millisecond || env["hint"] == nil {
		t.Errorf("press_key timeout after %v: %v", took, env)
	}
	waitFor(t, "the busy key handler", 5*time.Second, func() bool { return a.title() == "busy key done" })
	wantStatus(t, a.call("press_key", map[string]any{"key": "Shift+Tab"}), "ok")
	env = a.call("press_key", map[string]any{"key": "Enter"})
	wantStatus(t, env, "ok")
	if env["navigated"] != true || env["url"] != s.URL+"/sent?q=Hi%21" {
		t.Errorf("Enter in a search field: %v", env)
	}

	for _, bad := range []string{"", "Hyperspace", "Banana+a"} {
		env := a.call("press_key", map[string]any{"key": bad})
		if env["status"] != "error" || env["argument"] != "key" {
			t.Errorf("key %q: %v", bad, env)
		}
	}
}

// TestHover: a menu that opens only under the pointer opens, and its item
// can then be clicked.
func TestHover(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>hover</title>
<style>#sub { display: none } nav:hover #sub { display: block }</style>
<nav><span id=trigger onmouseenter="document.title='entered trusted=' + event.isTrusted">Products</span>
<div id=sub><a href="#" onclick="document.title='item clicked';return false">Widgets</a></div></nav>
<button id=off disabled>Off</button><span id=never hidden>never shown</span>`)
	a := newActor(t)
	a.open(s.URL + "/")

	// The budgets below bound how long a hidden or disabled element is
	// waited for; they leave the locate itself room on a loaded machine.
	env := a.call("click", map[string]any{"selector": "text=Widgets", "timeout_ms": 1500})
	wantFailure(t, env, "hidden", "text=Widgets")
	env = a.call("hover", map[string]any{"selector": "#trigger"})
	wantStatus(t, env, "ok")
	a.wantTitle("entered trusted=true")
	if h := element(env, "hovered"); h["tag"] != "span" || h["name"] != "Products" || env["matches"] != float64(1) {
		t.Errorf("hovered = %v", env)
	}
	wantStatus(t, a.call("click", map[string]any{"selector": "text=Widgets"}), "ok")
	a.wantTitle("item clicked")

	wantFailure(t, a.call("hover", map[string]any{"selector": "#none", "timeout_ms": 1500}), "not_found", "#none")
	wantFailure(t, a.call("hover", map[string]any{"selector": "#off", "timeout_ms": 1500}), "disabled", "#off")
	wantFailure(t, a.call("hover", map[string]any{"selector": "#never", "timeout_ms": 1500}), "hidden", "#never")
}

// TestScroll: the three ways, where it settles, a scroll that moved
// nothing, and the exactly-one rule.
func TestScroll(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>scroll</title><body style="margin:0">
<div style="height:5000px">tall</div><button id=end>End</button><div style="height:300px"></div><p id=gone hidden>gone</p>`)
	a := newActor(t)
	a.open(s.URL + "/")

	env := a.call("scroll", map[string]any{"to": "top"})
	wantStatus(t, env, "ok")
	if env["moved"] != false || env["scroll_y"] != float64(0) || !strings.Contains(fmt.Sprint(env["hint"]), "already at the top") {
		t.Errorf("scroll to the top at the top: %v", env)
	}
	env = a.call("scroll", map[string]any{"by_y": 600})
	wantStatus(t, env, "ok")
	if y := env["scroll_y"].(float64); y < 500 || y > 700 || env["moved"] != true || env["at_bottom"] != false {
		t.Errorf("wheel by 600: %v", env)
	}
	env = a.call("scroll", map[string]any{"by_y": -200})
	if y := env["scroll_y"].(float64); y < 300 || y > 500 {
		t.Errorf("wheel up by 200: %v", env)
	}
	env = a.call("scroll", map[string]any{"to": "bottom"})
	wantStatus(t, env, "ok")
	h := env["scroll_height"].(float64)
	if env["at_bottom"] != true || h < 5000 || env["scroll_y"].(float64)+env["viewport_height"].(float64) < h-1 {
		t.Errorf("to bottom: %v", env)
	}
	env = a.call("scroll", map[string]any{"to": "bottom"})
	if env["moved"] != false || env["at_bottom"] != true {
		t.Errorf("to bottom again: %v", env)
	}
	wantStatus(t, a.call("scroll", map[string]any{"to": "top"}), "ok")
	env = a.call("scroll", map[string]any{"selector": "#end"})
	wantStatus(t, env, "ok")
	if y := env["scroll_y"].(float64); y < 4000 || env["moved"] != true || element(env, "scrolled_to")["name"] != "End" {
		t.Errorf("scroll to #end: %v", env)
	}
	wantFailure(t, a.call("scroll", map[string]any{"selector": "#none", "timeout_ms": 1500}), "not_found", "#none")
	wantFailure(t, a.call("scroll", map[string]any{"selector": "#gone", "timeout_ms": 1500}), "hidden", "#gone")

	for _, bad := range []map[string]any{
		{},
		{"to": "top", "by_y": 100},
		{"selector": "#end", "to": "bottom"},
		{"by_y": 0},
		{"by_y": 20001},
		{"by_y": -30000},
		{"to": "middle"},
	} {
		env := a.call("scroll", bad)
		if env["status"] != "error" || env["argument"] == nil || env["hint"] == nil {
			t.Errorf("scroll %v: %v", bad, env)
		}
	}
}

// readAudit is the raw audit trail.
func readAudit(t *testing.T, dir string) string {
	t.Helper()
	var sb strings.Builder
	for _, r := range auditRows(t, dir) {
		sb.WriteString(jsonString(r))
	}
	return sb.String()
}

var _ = http.StatusOK
