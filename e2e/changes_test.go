package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Tests of `changes`: what click, type_text, press_key and select_option
// answer about what they changed on the page, and read_page(changes_since).
// Each test is an agent's task done from the answers alone, without a read
// between the acting calls; each logs the calls it took and the calls the
// same task takes when every effect must be looked at with read_page.

// changeLine parses one line of a changes summary.
var changeLine = regexp.MustCompile(`^([+~-]) (?:aria-ref=(e\d+) )?(\S+)(?: "((?:[^"\\]|\\.)*)")?(.*)$`)

// loggedChanges is the last summary each test logged (-v); tests run in
// parallel share it.
var (
	loggedMu      sync.Mutex
	loggedChanges = map[string]string{}
)

// change is one parsed line.
type change struct{ kind, ref, role, name, rest, line string }

// changesOf parses an answer's changes; it fails the test when there are none.
func changesOf(t *testing.T, env map[string]any) []change {
	t.Helper()
	s, ok := env["changes"].(string)
	if !ok || s == "" {
		t.Fatalf("no changes in the answer: %v", env)
	}
	if testing.Verbose() {
		loggedMu.Lock()
		fresh := loggedChanges[t.Name()] != s
		loggedChanges[t.Name()] = s
		loggedMu.Unlock()
		if fresh {
			t.Logf("changes:\n%s", s)
		}
	}
	var out []change
	for _, l := range strings.Split(s, "\n") {
		m := changeLine.FindStringSubmatch(l)
		if m == nil {
			if strings.HasPrefix(l, "(") && strings.Contains(l, "more changes") {
				continue
			}
			if l == "none" || strings.HasPrefix(l, "new page") || strings.HasPrefix(l, "new tab") {
				continue
			}
			t.Fatalf("changes line %q does not parse; changes:\n%s", l, s)
		}
		name, _ := unquote(m[4])
		out = append(out, change{kind: m[1], ref: m[2], role: m[3], name: name, rest: m[5], line: l})
	}
	return out
}

// find is the first change of that kind and role whose name holds name.
func find(cs []change, kind, role, name string) *change {
	for i, c := range cs {
		if c.kind == kind && c.role == role && strings.Contains(c.name, name) {
			return &cs[i]
		}
	}
	return nil
}

func mustFind(t *testing.T, env map[string]any, kind, role, name string) *change {
	t.Helper()
	c := find(changesOf(t, env), kind, role, name)
	if c == nil {
		t.Fatalf("no %s %s %q in changes:\n%s", kind, role, name, env["changes"])
	}
	if kind != "-" && c.ref == "" {
		t.Fatalf("%q has no ref", c.line)
	}
	return c
}

// A menu that opens on a click (divs with roles, built like a web app's
// kebab menu, items that act on click only): the click answers the items
// with refs, and one of them is clicked by its ref without a read.
const changesMenuPage = `<!doctype html><title>Files</title>
<style>.menu{position:absolute;background:#fff;border:1px solid #999}.menu[hidden]{display:none}.mi{padding:4px 12px;cursor:pointer}</style>
<h1>report.pdf</h1>
<button id=more aria-haspopup=menu aria-expanded=false aria-label="More actions">⋮</button>
<div class=menu role=menu hidden id=menu>
  <div class=mi role=menuitem tabindex=-1>Rename</div>
  <div class=mi role=menuitem tabindex=-1>Move to trash</div>
  <div class=mi role=menuitem tabindex=-1>Share</div>
</div>
<div role=status id=st></div>
<script>
const more = document.getElementById('more'), menu = document.getElementById('menu');
more.addEventListener('click', () => { menu.hidden = !menu.hidden; more.setAttribute('aria-expanded', String(!menu.hidden)); });
for (const mi of menu.children) mi.addEventListener('click', () => {
  menu.hidden = true; more.setAttribute('aria-expanded', 'false');
  document.getElementById('st').textContent = mi.textContent + ': done';
  document.title = 'Files: ' + mi.textContent;
});
</script>`

func TestChangesMenuOpens(t *testing.T) {
	parallel(t)
	a := newActor(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", changesMenuPage)
	a.open(s.URL + "/")
	calls := 1

	env := a.call("click", map[string]any{"selector": "#more"})
	calls++
	wantStatus(t, env, "ok")
	mustFind(t, env, "~", "button", "More actions")
	mustFind(t, env, "+", "menuitem", "Rename")
	trash := mustFind(t, env, "+", "menuitem", "Move to trash")
	if id, _ := env["read_id"].(string); id == "" {
		t.Errorf("no read_id with the changes: %v", env)
	}

	// The item's ref, straight from the answer.
	env = a.call("click", map[string]any{"selector": "aria-ref=" + trash.ref})
	calls++
	wantStatus(t, env, "ok")
	a.wantTitle("Files: Move to trash")
	mustFind(t, env, "+", "status", "Move to trash: done")
	mustFind(t, env, "-", "menuitem", "Rename")
	// Without the summary: a read after the first click to find the item,
	// and one after the second to see it took.
	t.Logf("calls: %d with changes, %d without", calls, calls+2)
}

// A sign-up form: a submit with an empty email shows an error next to the
// field (role=alert) and marks the field aria-invalid; choosing "Other" in
// a select shows a field to say what; the field's value shows once typed.
const changesFormPage = `<!doctype html><title>Sign up</title>
<style>.invalid-feedback{display:none;color:#c00}.is-invalid ~ .invalid-feedback{display:block}</style>
<form id=f novalidate>
  <label for=email>Email</label> <input id=email name=email aria-describedby=email-err>
  <div class=error id=email-err role=alert></div>
  <label for=pw>Password</label> <input id=pw type=password class=form-control>
  <div class=invalid-feedback>Use 8 characters or more for your password</div>
  <label for=src>Heard of us from</label>
  <select id=src><option>Search</option><option>Friend</option><option>Other</option></select>
  <div id=otherbox hidden><label for=other>Please specify</label> <input id=other></div>
  <p><span role=status id=count>0 / 40</span></p>
  <button type=submit>Create account</button>
</form>
<script>
const f = document.getElementById('f'), email = document.getElementById('email'), err = document.getElementById('email-err');
f.addEventListener('submit', (e) => {
  e.preventDefault();
  const pw = document.getElementById('pw');
  const badEmail = !email.value.includes('@'), badPw = pw.value.length < 8;
  if (badEmail) { email.setAttribute('aria-invalid', 'true'); err.textContent = 'Enter an email address, like name@example.com'; }
  else { email.removeAttribute('aria-invalid'); err.textContent = ''; }
  pw.classList.toggle('is-invalid', badPw);
  if (!badEmail && !badPw) document.title = 'Welcome';
});
document.getElementById('src').addEventListener('change', (e) => { document.getElementById('otherbox').hidden = e.target.value !== 'Other'; });
email.addEventListener('input', () => { document.getElementById('count').textContent = email.value.length + ' / 40'; });
</script>`

func TestChangesFormErrorAndField(t *testing.T) {
	parallel(t)
	a := newActor(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", changesFormPage)
	a.open(s.URL + "/")
	calls := 1

	// The submit, empty: the error next to the field, and the field invalid.
	env := a.call("click", map[string]any{"selector": "text=Create account"})
	calls++
	wantStatus(t, env, "ok")
	mustFind(t, env, "+", "alert", "Enter an email address")
	if f := mustFind(t, env, "+", "generic", "Use 8 characters"); !strings.Contains(f.rest, "[error]") {
		t.Errorf("the password's message %q does not say it is an error", f.line)
	}
	if f := mustFind(t, env, "~", "textbox", "Email"); !strings.Contains(f.rest, "[invalid]") {
		t.Errorf("the field's line %q does not say it is invalid", f.line)
	}

	// A choice that shows another field.
	env = a.call("select_option", map[string]any{"selector": "#src", "label": "Other"})
	calls++
	wantStatus(t, env, "ok")
	other := mustFind(t, env, "+", "textbox", "Please specify")

	// Typed: the field's line with its new value, and the counter.
	env = a.call("type_text", map[string]any{"selector": "#email", "text": "ana@example.com"})
	calls++
	wantStatus(t, env, "ok")
	mustFind(t, env, "~", "status", "15 / 40")
	if f := mustFind(t, env, "~", "textbox", "Email"); !strings.Contains(f.line, "ana@example.com") {
		t.Errorf("the field's line %q lacks its value", f.line)
	}

	// The field the select showed, by its ref from that answer.
	env = a.call("type_text", map[string]any{"selector": "aria-ref=" + other.ref, "text": "A podcast"})
	calls++
	wantStatus(t, env, "ok")
	env = a.call("type_text", map[string]any{"selector": "#pw", "text": "correct horse"})
	calls++
	wantStatus(t, env, "ok")
	env = a.call("click", map[string]any{"selector": "text=Create account"})
	calls++
	wantStatus(t, env, "ok")
	a.wantTitle("Welcome")
	mustFind(t, env, "-", "alert", "Enter an email address")
	mustFind(t, env, "-", "generic", "Use 8 characters")
	t.Logf("calls: %d with changes, %d without (a read after the submit, after the choice and after the type)", calls, calls+3)
}

// A status announcement set a moment after the click (a save that answers
// from a timer), and press_key's answer.
func TestChangesLiveStatus(t *testing.T) {
	parallel(t)
	a := newActor(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Editor</title>
<textarea id=body aria-label="Body"></textarea>
<span id=save role=button tabindex=0>Save</span>
<div aria-live=polite id=live></div>
<script>
document.getElementById('save').addEventListener('click', () => { setTimeout(() => { document.getElementById('live').textContent = 'Draft saved at 10:42'; }, 0); });
document.getElementById('body').addEventListener('keydown', (e) => { if (e.key === 'Enter' && e.ctrlKey) document.getElementById('live').textContent = 'Sent'; });
</script>`)
	a.open(s.URL + "/")
	env := a.call("click", map[string]any{"selector": "#save"})
	wantStatus(t, env, "ok")
	if c := mustFind(t, env, "+", "generic", "Draft saved at 10:42"); !strings.Contains(c.rest, "[live=polite]") {
		t.Errorf("the live region's line %q does not say it is live", c.line)
	}
	env = a.call("click", map[string]any{"selector": "#body"})
	wantStatus(t, env, "ok")
	env = a.call("press_key", map[string]any{"key": "Control+Enter"})
	wantStatus(t, env, "ok")
	mustFind(t, env, "~", "generic", "Sent")
}

// read_page(changes_since): rows a page adds by itself (it polls its
// server) are answered against an earlier read, with refs that work.
func TestChangesSinceRead(t *testing.T) {
	parallel(t)
	a := newActor(t)
	s := newSite(t, "127.0.0.1")
	var ready atomic.Bool
	s.handle("/rows", func(w http.ResponseWriter, r *http.Request) {
		if ready.Load() {
			fmt.Fprint(w, "Invoice 1043")
		}
	})
	s.page("/", `<!doctype html><title>Inbox</title>
<h1>Invoices</h1><ul id=list><li><a href="#1041">Invoice 1041</a></li><li><a href="#1042">Invoice 1042</a></li></ul>
<script>
let busy = false, got = false;
setInterval(async () => {
  if (busy || got) return;
  busy = true;
  const t = await (await fetch('/rows')).text();
  busy = false;
  if (!t) return;
  got = true;
  const li = document.createElement('li');
  li.innerHTML = '<a href="#1043">' + t + '</a>';
  li.firstChild.addEventListener('click', () => { document.title = 'Opened 1043'; });
  document.getElementById('list').append(li);
}, 100);
</script>`)
	a.open(s.URL + "/")
	env := a.call("read_page", map[string]any{"mode": "tree"})
	wantStatus(t, env, "ok")
	id, _ := env["read_id"].(string)
	if id == "" {
		t.Fatalf("a whole-page tree read carries no read_id: %v", env)
	}

	// Bad ids name the argument.
	env = a.call("read_page", map[string]any{"changes_since": "r999999"})
	wantStatus(t, env, "error")
	if env["argument"] != "changes_since" {
		t.Errorf("unknown read_id: argument = %v, want changes_since; %v", env["argument"], env)
	}
	env = a.call("read_page", map[string]any{"changes_since": id, "selector": "#list"})
	wantStatus(t, env, "error")
	if env["argument"] != "changes_since" {
		t.Errorf("changes_since with a selector: argument = %v; %v", env["argument"], env)
	}

	ready.Store(true)
	waitFor(t, "the page to add its row", 30*time.Second, func() bool {
		txt, _ := a.call("read_page", nil)["text"].(string)
		return strings.Contains(txt, "Invoice 1043")
	})
	env = a.call("read_page", map[string]any{"changes_since": id})
	wantStatus(t, env, "ok")
	row := mustFind(t, env, "+", "link", "Invoice 1043")
	if cs := changesOf(t, env); len(cs) != 1 {
		t.Errorf("changes since the read: %d lines, want the row only:\n%s", len(cs), env["changes"])
	}
	if env["tree"] != nil {
		t.Errorf("changes_since answered the whole tree too")
	}
	wantStatus(t, a.call("click", map[string]any{"selector": "aria-ref=" + row.ref}), "ok")
	a.wantTitle("Opened 1043")
	// Nothing since the newest read.
	next, _ := env["read_id"].(string)
	env = a.call("read_page", map[string]any{"changes_since": next})
	wantStatus(t, env, "ok")
	if c, _ := env["changes"].(string); c != "none" {
		t.Errorf("changes since the newest read: %q, want none", c)
	}
}

// A click that loads another document answers that, not a diff of two pages.
func TestChangesNewPage(t *testing.T) {
	parallel(t)
	a := newActor(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Home</title><a href="/pricing">Pricing</a><button>Stay</button>`)
	s.page("/pricing", `<!doctype html><title>Pricing plans</title><h1>Plans</h1><a href="/">Home</a><button>Buy</button><a href="/help" target=_blank>Help</a>`)
	s.page("/help", `<!doctype html><title>Help center</title><h1>Help</h1>`)
	a.open(s.URL + "/")
	env := a.call("read_page", map[string]any{"mode": "tree"})
	id, _ := env["read_id"].(string)
	env = a.call("click", map[string]any{"selector": "text=Pricing"})
	wantStatus(t, env, "ok")
	if c, _ := env["changes"].(string); c != "new page: Pricing plans" {
		t.Errorf("changes after a navigation = %q, want \"new page: Pricing plans\"", c)
	}
	env = a.call("read_page", map[string]any{"changes_since": id})
	wantStatus(t, env, "ok")
	if c, _ := env["changes"].(string); c != "new page: Pricing plans" {
		t.Errorf("changes since a read of the page before = %q, want the new page", c)
	}
	// A link that opens a tab: the tab is said, the session is on it.
	env = a.call("click", map[string]any{"selector": "text=Help"})
	wantStatus(t, env, "ok")
	if c, _ := env["changes"].(string); !strings.HasPrefix(c, "new tab") || env["new_tab"] != true {
		t.Errorf("changes after a click that opened a tab = %q (new_tab %v), want \"new tab: ...\"", c, env["new_tab"])
	}
	t.Logf("new tab: %q", env["changes"])
}

// A click that adds 500 rows answers a bounded summary and a count.
func TestChangesBounded(t *testing.T) {
	parallel(t)
	a := newActor(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Log</title><button id=load>Load all</button><table id=t></table>
<script>
document.getElementById('load').addEventListener('click', () => {
  let h = '';
  for (let i = 1; i <= 500; i++) h += '<tr><td>Entry ' + i + ' with a long description of what happened at this point</td><td><button>Details ' + i + '</button></td></tr>';
  document.getElementById('t').innerHTML = h;
});
</script>`)
	a.open(s.URL + "/")
	env := a.call("click", map[string]any{"selector": "#load"})
	wantStatus(t, env, "ok")
	c, _ := env["changes"].(string)
	lines := strings.Split(c, "\n")
	if len(lines) > 21 || len(c) > 2300 {
		t.Errorf("changes: %d lines, %d bytes; want at most 21 lines, about 2 KB", len(lines), len(c))
	}
	last := lines[len(lines)-1]
	want := fmt.Sprintf("(%d more changes", 500-(len(lines)-1))
	if !strings.HasPrefix(last, want) {
		t.Errorf("last line %q, want it to start %q", last, want)
	}
	mustFind(t, env, "+", "button", "Details 1")
}

// A confirmation dialog (a modal <dialog>): the click answers the dialog
// and its buttons first, with refs; the page behind it, inert, is gone.
func TestChangesDialog(t *testing.T) {
	parallel(t)
	a := newActor(t)
	s := newSite(t, "127.0.0.1")
	var rows strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&rows, "<li><a href=\"#f%d\">file-%d.txt</a></li>", i, i)
	}
	s.page("/", `<!doctype html><title>Drive</title><h1>My files</h1><ul>`+rows.String()+`</ul>
<button id=del>Delete all</button>
<dialog id=dlg><p>Delete 30 files? This cannot be undone.</p><button id=no>Cancel</button> <button id=yes>Delete</button></dialog>
<script>
const dlg = document.getElementById('dlg');
document.getElementById('del').onclick = () => dlg.showModal();
document.getElementById('no').onclick = () => dlg.close();
document.getElementById('yes').onclick = () => { dlg.close(); document.querySelector('ul').remove(); document.title = 'Drive: empty'; };
</script>`)
	a.open(s.URL + "/")
	calls := 1
	env := a.call("click", map[string]any{"selector": "#del"})
	calls++
	wantStatus(t, env, "ok")
	cs := changesOf(t, env)
	if len(cs) == 0 || cs[0].kind != "+" || cs[0].role != "dialog" || !strings.Contains(cs[0].name, "Delete 30 files?") {
		t.Fatalf("the dialog is not the first line:\n%s", env["changes"])
	}
	yes := mustFind(t, env, "+", "button", "Delete")
	if yes.name != "Delete" {
		t.Fatalf("found %q, want the dialog's Delete button", yes.line)
	}
	env = a.call("click", map[string]any{"selector": "aria-ref=" + yes.ref})
	calls++
	wantStatus(t, env, "ok")
	a.wantTitle("Drive: empty")
	mustFind(t, env, "-", "dialog", "Delete 30 files?")
	t.Logf("calls: %d with changes, %d without", calls, calls+2)
}

// A click whose handler leaves the page busy for seconds: the answer does
// not wait for the page to say what changed; it says it could not tell.
func TestChangesBusyPage(t *testing.T) {
	parallel(t)
	a := newActor(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Busy</title><button id=go>Crunch</button>
<script>
document.getElementById('go').onclick = () => setTimeout(() => { const end = Date.now() + 8000; while (Date.now() < end) {} }, 0);
</script>`)
	a.open(s.URL + "/")
	env := a.call("click", map[string]any{"selector": "#go"})
	wantStatus(t, env, "ok")
	if env["changes"] != nil {
		t.Errorf("changes from a page that could not be read: %v", env["changes"])
	}
	if h, _ := env["hint"].(string); !strings.Contains(h, "too busy to say what changed") {
		t.Errorf("hint %q does not say what changed could not be told", h)
	}
}

// The messages a form shows as a field is typed into: at once, a few
// milliseconds later (a timer its input handler set), and after a promise.
// Each is in type_text's changes, with the field's value: the map is read
// once the page ran what it timed for up to textWait after the input.
const typedErrorsPage = `<!doctype html><title>Sign up</title>
<label>User <input id=user></label>
<label>Code <input id=code></label>
<label>Phone <input id=phone></label>
<div id=msgs></div>
<script>
function say(text) {
  const d = document.createElement('div');
  d.setAttribute('role', 'alert');
  d.textContent = text;
  document.getElementById('msgs').append(d);
}
document.getElementById('user').addEventListener('input', e => say('User ' + e.target.value + ' is taken'));
// A few milliseconds later, as a validation that waits a moment does.
document.getElementById('code').addEventListener('input', e => { const v = e.target.value; setTimeout(() => say('Code ' + v + ' is too short'), 3); });
document.getElementById('phone').addEventListener('input', e => { const v = e.target.value; Promise.resolve().then(() => say('Phone ' + v + ' needs a country code')); });
</script>`

func TestChangesTypedErrorLater(t *testing.T) {
	parallel(t)
	a := newActor(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", typedErrorsPage)
	a.open(s.URL + "/")
	for _, c := range []struct{ sel, text, msg string }{
		{"#user", "ada", "User ada is taken"},
		{"#code", "12", "Code 12 is too short"},
		{"#phone", "555", "Phone 555 needs a country code"},
	} {
		// Some by ref, as an agent acting from a read does.
		sel := c.sel
		if c.sel != "#user" {
			tree := a.call("read_page", map[string]any{"mode": "tree"})
			m := regexp.MustCompile(`aria-ref=(e\d+) textbox "` + map[string]string{"#code": "Code", "#phone": "Phone"}[c.sel] + `"`).FindStringSubmatch(fmt.Sprint(tree["tree"]))
			if m == nil {
				t.Fatalf("no ref for %s in the tree:\n%v", c.sel, tree["tree"])
			}
			sel = "aria-ref=" + m[1]
		}
		env := a.call("type_text", map[string]any{"selector": sel, "text": c.text})
		wantStatus(t, env, "ok")
		mustFind(t, env, "+", "alert", c.msg)
		if env["value"] != c.text {
			t.Errorf("%s: value = %v, want %q", c.sel, env["value"], c.text)
		}
	}
}
