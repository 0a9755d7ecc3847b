package e2e

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The guide (lyrad://guide, tools/guide.md, made from README.md's "Working
// with pages") states how pages behave. Each statement that a page can show
// has a test here, named TestGuide*, run through MCP on loopback pages.

// treeRef finds the ref of the first tree line matching re.
func treeRef(t *testing.T, tree, re string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^aria-ref=(e\d+) ` + re).FindStringSubmatch(tree)
	if m == nil {
		t.Fatalf("no tree line matches %q in:\n%s", re, tree)
	}
	return m[1]
}

// "A ref lasts while its element stays in its document": later reads (a
// text read, a tree read of another region, a tree read after the page
// changed) keep it and give the element the same ref; the element's removal
// and a navigation end it (not_found, with the hint to read again).
func TestGuideRefLifetime(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Inbox</title><h1>Inbox</h1>
<div id="list"><button id="arch" onclick="fetch('/archived')">Archive</button></div>
<div id="side"><button>Settings</button></div>
<button id="add" onclick="for (let i = 0; i < 5; i++) { const b = document.createElement('button'); b.textContent = 'New ' + i; list.prepend(b) }">Add</button>
<button id="rm" onclick="arch.remove()">Remove</button>`)
	s.page("/other", `<!doctype html><title>Other</title><button>Elsewhere</button>`)
	s.handle("/archived", func(w http.ResponseWriter, r *http.Request) {})
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	tree := func(args map[string]any) string {
		args["mode"] = "tree"
		env := call(t, cs, "read_page", args)
		wantStatus(t, env, "ok")
		return env["tree"].(string)
	}
	first := tree(map[string]any{})
	arch := treeRef(t, first, `button "Archive"`)
	settings := treeRef(t, first, `button "Settings"`)

	wantStatus(t, call(t, cs, "read_page", map[string]any{}), "ok")
	tree(map[string]any{"selector": "#side"})
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "#add"}), "ok")
	if again := tree(map[string]any{}); treeRef(t, again, `button "Archive"`) != arch {
		t.Errorf("Archive changed ref after the page changed: %s, then\n%s", arch, again)
	}
	// The latest read is of one region, which Archive is not in.
	tree(map[string]any{"selector": "#side"})
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "aria-ref=" + arch}), "ok")
	waitFor(t, "the click by the first read's ref", 10*time.Second, func() bool { return s.count("/archived") == 1 })

	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "#rm"}), "ok")
	env := call(t, cs, "click", map[string]any{"selector": "aria-ref=" + arch})
	wantStatus(t, env, "not_found")
	if h, _ := env["hint"].(string); !strings.Contains(h, `read_page(mode="tree") again`) {
		t.Errorf("removed element's ref: hint %q", h)
	}
	wantStatus(t, call(t, cs, "read_page", map[string]any{"selector": "aria-ref=" + settings}), "ok")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/other"}), "ok")
	wantStatus(t, call(t, cs, "read_page", map[string]any{"selector": "aria-ref=" + settings}), "not_found")
}

// "`-> #` is a link that loads no page" (href="#", a script's link): the
// tree does not show it as a link to the page itself. Needs the clickables
// branch.
func TestGuideHashLink(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/page.html", `<!doctype html><title>Links</title>
<a href="#" onclick="document.title='menu'; return false">Open menu</a> <a href="/real">Real page</a>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/page.html"}), "ok")
	tree := call(t, cs, "read_page", map[string]any{"mode": "tree"})["tree"].(string)
	treeRef(t, tree, `link "Open menu" -> #$`)
	treeRef(t, tree, `link "Real page" -> /real$`)
}

// "A field's line shows its value; a password only that it is filled;
// hide_values=true leaves values out" and "an unlabelled field is named by
// the text next to it (near ...)". Needs the clickables branch.
func TestGuideValuesInTree(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Values</title>
<label>Tags <input id="tags" value="Macao"></label>
<label>Password <input type="password" value="hunter2"></label>
<label><input type="checkbox" checked> Remember me</label>
<table><tr><td>Username</td><td><input id="u"></td></tr></table>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	tree := call(t, cs, "read_page", map[string]any{"mode": "tree"})["tree"].(string)
	treeRef(t, tree, `textbox "Tags": Macao`)
	treeRef(t, tree, `checkbox "Remember me" \[checked\]`)
	treeRef(t, tree, `textbox \(near "Username"\)`)
	if strings.Contains(tree, "hunter2") {
		t.Errorf("the password is shown:\n%s", tree)
	}
	hidden := call(t, cs, "read_page", map[string]any{"mode": "tree", "hide_values": true})
	wantStatus(t, hidden, "ok")
	if strings.Contains(hidden["tree"].(string), "Macao") {
		t.Errorf("hide_values=true shows a value:\n%s", hidden["tree"])
	}
}

// "A click moves the mouse over the element first: a list that picks on
// hover picks the item clicked" (here by mousemove, which a press alone does
// not fire). Needs the acting branch.
func TestGuideHoverPicks(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Pick</title>
<input id="tags" aria-label="Tags" autocomplete="off">
<ul id="opts" style="list-style:none;padding:0;margin:0;width:200px">
<li>Lisbon</li><li>Madrid</li><li>Macau</li><li>Macao</li></ul>
<script>
let active = 0;
const items = [...document.querySelectorAll('#opts li')];
items.forEach((li, i) => {
  li.style.padding = '4px';
  li.addEventListener('mousemove', () => { active = i; });
  li.addEventListener('mousedown', e => { e.preventDefault(); tags.value = items[active].textContent; document.title = 'picked:' + tags.value; });
});
</script>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "#opts li:nth-child(4)"}), "ok")
	env := call(t, cs, "get_url", nil)
	if env["title"] != "picked:Macao" {
		t.Errorf("clicked the 4th suggestion, the page picked %v", env["title"])
	}
}

// "A click scrolls the element into view in every panel around it." Needs
// the acting branch.
func TestGuideClickScrollsPanels(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Panel</title><style>body{margin:0;height:100vh;overflow:hidden}</style>
<div id="panel" style="height:300px;overflow:auto;border:1px solid"><div style="height:2000px">Terms</div>
<button id="accept" onclick="document.title='accepted'">Accept</button></div>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	env := call(t, cs, "click", map[string]any{"selector": "#accept"})
	wantStatus(t, env, "ok")
	waitFor(t, "the click below the panel's fold", 10*time.Second, func() bool {
		return call(t, cs, "get_url", nil)["title"] == "accepted"
	})
}

// "type_text fills date, time, month, week, color and range inputs with the
// ISO form; a malformed value is an error naming the format." Needs the
// acting branch.
func TestGuideDateInputs(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Dates</title>
<label>Start <input type="date" id="d" oninput="this.dataset.i=1" onchange="document.title='d:'+this.value+':'+this.dataset.i"></label>
<label>At <input type="time" id="t" onchange="document.title='t:'+this.value"></label>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	typed := call(t, cs, "type_text", map[string]any{"selector": "#d", "text": "2014-02-01"})
	wantStatus(t, typed, "ok")
	if typed["value"] != "2014-02-01" {
		t.Errorf("type_text does not answer the field's value: %v", typed)
	}
	if title := call(t, cs, "get_url", nil)["title"]; title != "d:2014-02-01:1" {
		t.Errorf("date input after type_text: %v (want input and change fired)", title)
	}
	wantStatus(t, call(t, cs, "type_text", map[string]any{"selector": "#t", "text": "13:45"}), "ok")
	if title := call(t, cs, "get_url", nil)["title"]; title != "t:13:45" {
		t.Errorf("time input after type_text: %v", title)
	}
	env := call(t, cs, "type_text", map[string]any{"selector": "#d", "text": "01/02/2014"})
	if env["status"] == "ok" {
		t.Fatalf("a malformed date was taken: %v", env)
	}
	if msg := jsonString(env); !strings.Contains(msg, "YYYY-MM-DD") && !strings.Contains(msg, "2014-02-01") {
		t.Errorf("the error does not name the format: %v", env)
	}
}

// "press_key takes a sequence: keys=[...]". Needs the acting branch.
func TestGuidePressKeySequence(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Keys</title><input id="a" aria-label="First">
<button onclick="document.title='one'">One</button><button onclick="document.title='two'">Two</button>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "#a"}), "ok")
	wantStatus(t, call(t, cs, "press_key", map[string]any{"keys": []any{"Tab", "Tab", "Enter"}}), "ok")
	waitFor(t, "Tab, Tab, Enter", 10*time.Second, func() bool { return call(t, cs, "get_url", nil)["title"] == "two" })
}

// "Acting calls answer changes: the tree lines that appeared, disappeared
// or changed." Needs the changes branch.
func TestGuideChangesOnActing(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Mail</title><button onclick="dlg.hidden=false">Delete all</button>
<div id="dlg" role="dialog" aria-label="Confirm delete" hidden><p>Delete 3 messages?</p><button>Delete</button><button>Cancel</button></div>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	wantStatus(t, call(t, cs, "read_page", map[string]any{"mode": "tree"}), "ok")
	env := call(t, cs, "click", map[string]any{"selector": "text=Delete all"})
	wantStatus(t, env, "ok")
	ch := jsonString(env["changes"])
	if env["changes"] == nil || !strings.Contains(ch, "Cancel") {
		t.Errorf("the click's answer does not say the dialog opened: changes = %s", ch)
	}
}

// "save_draft takes as submit one of read_form's submitText strings", the
// flow the guide gives: read_form, fill, read_draft, save_draft. Needs the
// forms branch.
func TestGuideFormsSubmitText(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/edit", `<!doctype html><title>Edit post</title>
<form action="/save" method="post"><label>Title <input name="title"></label>
<label><input type="radio" name="status" value="draft" checked> Draft</label>
<label><input type="radio" name="status" value="published"> Published</label>
<button>Save</button></form>`)
	s.page("/save", `<!doctype html><title>Saved</title>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/edit"}), "ok")
	form := call(t, cs, "read_form", nil)
	wantStatus(t, form, "ok")
	texts, _ := form["submitText"].([]any)
	if len(texts) == 0 || texts[0] != "Save" {
		t.Fatalf("submitText = %v", form["submitText"])
	}
	wantStatus(t, call(t, cs, "type_text", map[string]any{"selector": "input[name=title]", "text": "Hello"}), "ok")
	wantStatus(t, call(t, cs, "read_draft", nil), "ok")
	wantStatus(t, call(t, cs, "save_draft", map[string]any{"submit": texts[0], "confirm": true}), "ok")
	waitFor(t, "the draft's post", 10*time.Second, func() bool { return s.count("/save") == 1 })
}

// "The tree lists what a page made clickable without a role" and "icon-only
// controls are named by their title, aria-label or alt". Needs the
// clickables branch.
func TestGuideClickablesListed(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Inbox</title><h1>Inbox</h1>
<div class="row" onclick="document.title='opened'"><span>Bob</span> <span>Quarterly numbers</span>
<span class="trash" title="Delete" style="display:inline-block;width:16px;height:16px;cursor:pointer" onclick="event.stopPropagation()"></span></div>
<details><summary>More options</summary><p>Nothing here.</p></details>
<span tabindex="0" onkeydown="">Focus me</span>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	tree := call(t, cs, "read_page", map[string]any{"mode": "tree"})["tree"].(string)
	for _, name := range []string{`Delete`, `More options`, `Focus me`} {
		treeRef(t, tree, `\S+ "`+name+`"`)
	}
	treeRef(t, tree, `\S+ "[^"]*Bob[^"]*"`)
}

// "text= acts on a visible, uncovered match it can act on, and says how many
// others matched" and "a click on a covered point names what covers it".
// Needs the acting branch.
func TestGuideTextPrefersActionable(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Game</title><p>The game starts when you press START.</p>
<div id="cover" style="position:fixed;inset:0;background:#123;color:#fff;cursor:pointer" onclick="document.title='started'; this.remove()"><span>START</span></div>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	env := call(t, cs, "click", map[string]any{"selector": "text=START"})
	wantStatus(t, env, "ok")
	if !strings.Contains(jsonString(env), "match") {
		t.Errorf("text= does not say others matched: %v", env)
	}
	if title := call(t, cs, "get_url", nil)["title"]; title != "started" {
		t.Errorf("text=START clicked something else: title %v", title)
	}
}

// "scroll(selector=...) brings an element into view through its panels and
// names the panel it moved." Needs the acting branch.
func TestGuideScrollPanel(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Panel</title><style>html,body{margin:0;height:100%;overflow:hidden}</style>
<div id="panel" style="height:200px;overflow:auto"><div style="height:2000px"></div><button id="deep">Deep</button></div>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	env := call(t, cs, "scroll", map[string]any{"selector": "#deep"})
	wantStatus(t, env, "ok")
	if env["moved"] != true || !strings.Contains(jsonString(env), "panel") {
		t.Errorf("scroll into a panel: %v", env)
	}
}

// "read_page(changes_since=<read_id>) gives the same against an earlier
// read (each tree read answers its read_id)". Needs the changes branch.
func TestGuideChangesSince(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Mail</title><button onclick="dlg.hidden=false">Delete all</button>
<div id="dlg" role="dialog" aria-label="Confirm delete" hidden><button>Delete</button><button>Cancel</button></div>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	first := call(t, cs, "read_page", map[string]any{"mode": "tree"})
	id, _ := first["read_id"].(string)
	if id == "" {
		t.Fatalf("a tree read answers no read_id: %v", first)
	}
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "text=Delete all"}), "ok")
	env := call(t, cs, "read_page", map[string]any{"mode": "tree", "changes_since": id})
	wantStatus(t, env, "ok")
	if !strings.Contains(jsonString(env), "Cancel") || strings.Contains(jsonString(env), "Delete all") {
		t.Errorf("changes since the first read: %v", env)
	}
}

// "A send the site refuses (an error box, ...) answers refused with the
// message." Needs the forms branch.
func TestGuideRefusedInCommonMarkup(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/edit", `<!doctype html><title>Edit post</title>
<form action="/save" method="post"><label>Title <input name="title"></label>
<label><input type="radio" name="status" value="draft" checked> Draft</label>
<button>Save</button></form>`)
	s.page("/save", `<!doctype html><title>Edit post</title><div class="error">The title is required.</div>
<form action="/save" method="post"><label>Title <input name="title"></label><button>Save</button></form>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/edit"}), "ok")
	env := call(t, cs, "save_draft", map[string]any{"submit": "button", "confirm": true})
	wantStatus(t, env, "refused")
	if !strings.Contains(jsonString(env), "The title is required.") {
		t.Errorf("refused without the site's message: %v", env)
	}
}

// "An acting call that changes a field answers the field's value afterwards
// (for a password only that it is filled)." Needs the acting branch.
func TestGuideTypedValue(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Sign in</title>
<label>Email <input id="e" oninput="this.value = this.value.toLowerCase()"></label>
<label>Password <input id="p" type="password"></label>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	env := call(t, cs, "type_text", map[string]any{"selector": "#e", "text": "Ann@Example.COM"})
	wantStatus(t, env, "ok")
	if env["value"] != "ann@example.com" {
		t.Errorf("type_text answers value %v, want what the field holds after", env["value"])
	}
	env = call(t, cs, "type_text", map[string]any{"selector": "#p", "text": "hunter2-secret"})
	wantStatus(t, env, "ok")
	if strings.Contains(jsonString(env), "hunter2") {
		t.Errorf("a password is echoed: %v", env)
	}
}
