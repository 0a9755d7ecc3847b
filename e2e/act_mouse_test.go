package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Acting where a person's mouse would (issue 19): panels that scroll by
// themselves, menus that pick on hover, covers, text= in prose, date and
// colour inputs, key sequences, and the value a field holds after. Each
// page reports what it saw to its own server.

// waitBudget bounds the wait for what a page tells its server.
const waitBudget = 10 * time.Second

// heard records the query strings a site received at one path.
type heard struct {
	mu  sync.Mutex
	got []string
}

func (k *heard) on(s *site, path, html string) {
	s.handle(path, func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		k.got = append(k.got, r.URL.RawQuery)
		k.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, html)
	})
}

func (k *heard) all() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.got...)
}

// scrollingInboxPage is a webmail: the window does not scroll; the folder pane and
// the message list are panels that scroll by themselves, the list inside
// the main pane, which scrolls too. Rows are divs with click handlers, and
// each click is told to the server. Below the panels, a status bar.
const scrollingInboxPage = `<!doctype html><title>Inbox</title>
<style>
 html, body { margin: 0; height: 100%; overflow: hidden; font: 14px sans-serif }
 header { height: 40px; background: #234; color: #fff }
 #main { position: absolute; top: 40px; left: 160px; right: 0; height: 330px; overflow: auto }
 #folders { position: absolute; top: 40px; left: 0; width: 160px; height: 330px; overflow-y: auto }
 #list { height: 200px; overflow-y: auto; border: 1px solid #ccc; margin-top: 100px }
 .row { height: 30px; border-bottom: 1px solid #eee; cursor: pointer }
 .row:hover { background: #eef }
 #tail { height: 400px }
 footer { position: absolute; top: 380px; left: 0; right: 0; height: 200px; background: #ddd }
</style>
<header>Mail</header>
<nav id=folders></nav>
<div id=main>
 <div class=toolbar>Inbox — 40 conversations</div>
 <div id=list class=inbox></div>
 <div id=tail><select id=move name=move><option value="">Move to…</option><option value=archive>Archive</option></select></div>
</div>
<footer>Status: connected</footer>
<script>
const list = document.getElementById('list');
for (let i = 1; i <= 40; i++) {
  const r = document.createElement('div');
  r.className = 'row'; r.id = 'm' + i;
  r.innerHTML = '<span class=from>Sender ' + i + '</span> <span class=subj>Subject number ' + i + '</span>';
  r.addEventListener('click', () => fetch('/open?m=' + i));
  r.addEventListener('mouseenter', () => fetch('/hover?m=' + i));
  list.append(r);
}
const folders = document.getElementById('folders');
for (let i = 1; i <= 30; i++) {
  const f = document.createElement('div');
  f.className = 'row'; f.textContent = 'Folder ' + i;
  f.onclick = () => fetch('/folder?f=' + i);
  folders.append(f);
}
</script>`

// TestClickInScrollingPanel: a row below the fold of a message list (its
// box inside the window, clipped by the list) is clicked, as is one below
// the fold of the list's own pane; the window never moves. scroll with a
// selector in the list says which panel it moved.
func TestClickInScrollingPanel(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", scrollingInboxPage)
	var opened, folder, hovered heard
	opened.on(s, "/open", "ok")
	hovered.on(s, "/hover", "ok")
	folder.on(s, "/folder", "ok")
	a := newActor(t)
	a.open(s.URL + "/")

	// Row 9 sits at y 40+100+8*31 ≈ 390 of the window: inside it, but under
	// the list's fold (the list shows about 6 rows) and behind the footer.
	env := a.call("click", map[string]any{"selector": "#m9"})
	wantStatus(t, env, "ok")
	// Row 30 is below the fold of the list and of the main pane.
	env = a.call("click", map[string]any{"selector": "text=Subject number 30"})
	wantStatus(t, env, "ok")
	// A folder far down its own pane.
	wantStatus(t, a.call("click", map[string]any{"selector": "text=Folder 25"}), "ok")
	waitFor(t, "the clicks to reach the server", waitBudget, func() bool { return len(opened.all()) == 2 && len(folder.all()) == 1 })
	if got := opened.all(); got[0] != "m=9" || got[1] != "m=30" {
		t.Errorf("the server heard of %v, want m=9 then m=30", got)
	}
	if got := folder.all(); got[0] != "f=25" {
		t.Errorf("folder clicks %v, want f=25", got)
	}

	// A hover below the list's fold reaches its row.
	wantStatus(t, a.call("hover", map[string]any{"selector": "#m37"}), "ok")
	waitFor(t, "the hover to reach the server", waitBudget, func() bool {
		for _, q := range hovered.all() {
			if q == "m=37" {
				return true
			}
		}
		return false
	})

	// scroll(selector=) on a row in the list: the list moved, and says so.
	env = a.call("scroll", map[string]any{"selector": "#m2"})
	wantStatus(t, env, "ok")
	p, _ := env["panel"].(map[string]any)
	if env["moved"] != true || p == nil || !strings.Contains(fmt.Sprint(p["element"]), "div#list") {
		t.Fatalf("scroll to #m2 in the list: moved=%v panel=%v", env["moved"], env["panel"])
	}
	if y, _ := p["scroll_y"].(float64); y > 40 || p["height"] != float64(200) {
		t.Errorf("list after scrolling to row 2: %v", p)
	}
	if env["scroll_y"] != float64(0) {
		t.Errorf("the window moved: scroll_y=%v", env["scroll_y"])
	}
	// Again: nothing moves now, and the answer says so.
	env = a.call("scroll", map[string]any{"selector": "#m2"})
	if env["moved"] != false || env["panel"] != nil {
		t.Errorf("scroll to a row in view: moved=%v panel=%v", env["moved"], env["panel"])
	}
	// A select list under the main pane's fold is chosen in, and answers
	// its value.
	env = a.call("select_option", map[string]any{"selector": "#move", "value": "archive"})
	wantStatus(t, env, "ok")
	if env["value"] != "archive" {
		t.Errorf("select_option value = %v", env["value"])
	}
}

// autocompletePage is a tag field whose suggestion list follows the
// pointer, as list widgets do: the first pointer event after the list
// opens only arms the hover (a list that opens under a resting pointer
// must not steal the highlight from the keyboard: react-select's
// blockOptionHover), and then the item the pointer moves over is
// highlighted in the next animation frame (rAF-throttled mousemove). A
// press on the list takes the highlighted item. The form sends the tag to
// the server.
const autocompletePage = `<!doctype html><title>Tags</title>
<style> #sugg { list-style: none; margin: 0; padding: 0; border: 1px solid #999; width: 200px }
 #sugg li { padding: 6px } #sugg li.on { background: #36c; color: #fff } </style>
<form action="/save"><label>Tags <input id=tags name=tags autocomplete=off></label>
<ul id=sugg hidden></ul><button>Save</button></form>
<script>
const names = ['Madagascar', 'Malawi', 'Malaysia', 'Macao', 'Mali', 'Malta'];
const input = document.getElementById('tags'), ul = document.getElementById('sugg');
let on = 0, pending = null, armed = false;
const paint = () => [...ul.children].forEach((li, i) => li.classList.toggle('on', i === on));
input.addEventListener('input', () => {
  ul.innerHTML = '';
  for (const n of names.filter(n => n.toLowerCase().startsWith(input.value.toLowerCase()))) {
    const li = document.createElement('li'); li.textContent = n; ul.append(li);
  }
  on = 0; armed = false; paint(); ul.hidden = !ul.children.length;
});
ul.addEventListener('mousemove', e => {
  if (!armed) { armed = true; return; }
  const li = e.target.closest('li');
  if (!li || pending) return;
  pending = requestAnimationFrame(() => { pending = null; on = [...ul.children].indexOf(li); paint(); });
});
ul.addEventListener('mousedown', e => {
  e.preventDefault();
  input.value = ul.children[on].textContent; ul.hidden = true;
});
</script>`

// TestClickHoverPicksAutocomplete: clicking the 4th suggestion of a list
// that picks on hover fills in the 4th, and the server gets it; also when
// the list is built of divs with no list markup.
func TestClickHoverPicksAutocomplete(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", autocompletePage)
	divs := strings.NewReplacer("<ul id=sugg hidden></ul>", "<div id=sugg hidden></div>", "#sugg li", "#sugg div",
		"createElement('li')", "createElement('div')", "closest('li')", "closest('#sugg > div')").Replace(autocompletePage)
	s.page("/divs", divs)
	var saved heard
	saved.on(s, "/save", `<!doctype html><title>saved</title>`)
	a := newActor(t)
	for round := 0; round < 4; round++ {
		a.open(s.URL + []string{"/", "/divs"}[round%2])
		wantStatus(t, a.call("type_text", map[string]any{"selector": "#tags", "text": "Ma"}), "ok")
		wantStatus(t, a.call("click", map[string]any{"selector": "text=Macao"}), "ok")
		env := a.call("click", map[string]any{"selector": "text=Save", "submits": true})
		wantStatus(t, env, "ok")
		if env["navigated"] != true {
			t.Fatalf("save: %v", env)
		}
	}
	if got := saved.all(); len(got) != 4 || strings.Count(strings.Join(got, " "), "tags=Macao") != 4 {
		t.Errorf("the server received %v, want tags=Macao four times (ul, divs, ul, divs)", got)
	}
}

// startScreenPage is a game's start screen: instructions that mention the
// button, a full-page cover with START on it (a div with a handler), a
// button under the cover, two stacked cards that share a class, and a
// button the pointer passes through.
const startScreenPage = `<!doctype html><title>Game</title>
<style> body { margin: 0; font: 16px sans-serif }
 #cover { position: fixed; inset: 0; background: rgba(0,0,0,.85); display: flex; align-items: center; justify-content: center }
 #cover .go { color: #fff; font-size: 40px; cursor: pointer; padding: 20px; border: 2px solid #fff }
 .card { position: absolute; top: 300px; left: 20px; width: 200px; height: 80px; background: #fc0 }
</style>
<p id=how>The game starts when you press START. Then press Play.</p>
<button id=play onclick="fetch('/play')">Play</button>
<div class=card id=back onclick="fetch('/card?c=back')">Back card</div><div class=card id=front onclick="fetch('/card?c=front')" style="left:40px">Front card</div>
<div id=cover><div class=go onclick="fetch('/start'); document.getElementById('cover').remove()">START</div></div>
<button id=ghost style="pointer-events:none;position:absolute;top:500px" onclick="fetch('/ghost')">Ghost</button>`

// TestClickCoveredAndTextPrefers: text= in prose and on the control picks
// the control; a covered element's answer names the cover (not "html"),
// says whether it matches too, and its hint never says to dismiss the
// page.
func TestClickCoveredAndTextPrefers(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", startScreenPage)
	var start, play, card, ghost heard
	start.on(s, "/start", "ok")
	play.on(s, "/play", "ok")
	card.on(s, "/card", "ok")
	ghost.on(s, "/ghost", "ok")
	a := newActor(t)
	a.open(s.URL + "/")

	// Under the cover: named by its text, and not a match.
	env := a.call("click", map[string]any{"selector": "#play"})
	wantFailure(t, env, "element_not_actionable", "#play")
	by := fmt.Sprint(env["covered_by"])
	if !strings.Contains(by, "div#cover") || !strings.Contains(by, "START") || env["covered_matches"] != false {
		t.Errorf("covered by the start screen: covered_by=%q covered_matches=%v", by, env["covered_matches"])
	}
	// The pointer passes through the ghost button to the page: no "html".
	env = a.call("click", map[string]any{"selector": "#ghost"})
	wantFailure(t, env, "element_not_actionable", "#ghost")
	for _, k := range []string{"error", "hint", "covered_by"} {
		if v := fmt.Sprint(env[k]); strings.Contains(v, "dismiss html") || strings.Contains(v, "dismiss body") || v == "html" || v == "body" {
			t.Errorf("ghost: %s = %q", k, v)
		}
	}

	// text=START matches the instructions ("starts ... START") and the
	// cover's START: the one on top, that takes a click, is clicked.
	env = a.call("click", map[string]any{"selector": "text=START"})
	wantStatus(t, env, "ok")
	if env["matches"] != float64(2) || !strings.Contains(fmt.Sprint(env["hint"]), "1 other matched") {
		t.Errorf("text=START: matches=%v hint=%v", env["matches"], env["hint"])
	}
	waitFor(t, "the start click", waitBudget, func() bool { return len(start.all()) == 1 })

	// Now Play is free.
	wantStatus(t, a.call("click", map[string]any{"selector": "#play"}), "ok")
	// .card: the first visible is the back card, under the front one,
	// which matches too: said so.
	env = a.call("click", map[string]any{"selector": ".card"})
	wantFailure(t, env, "element_not_actionable", ".card")
	if env["covered_matches"] != true || !strings.Contains(fmt.Sprint(env["covered_by"]), "div#front") ||
		!strings.Contains(fmt.Sprint(env["error"]), "also matches the selector") {
		t.Errorf(".card: covered_by=%v covered_matches=%v error=%v", env["covered_by"], env["covered_matches"], env["error"])
	}
	waitFor(t, "the play click", waitBudget, func() bool { return len(play.all()) == 1 })
	if len(card.all()) != 0 || len(ghost.all()) != 0 || len(start.all()) != 1 {
		t.Errorf("clicks that should not have landed: card %v ghost %v start %v", card.all(), ghost.all(), start.all())
	}
}

// bookingPage is a booking form with every input whose value is set whole;
// each counts the input and change events it got, and the form sends the
// values and the counts.
const bookingPage = `<!doctype html><title>Book</title>
<form action="/book">
<label>Day <input type=date name=day id=day min="2014-01-01"></label>
<label>At <input type=time name=at id=at></label>
<label>Arrive <input type=datetime-local name=arrive id=arrive></label>
<label>Month <input type=month name=month id=month></label>
<label>Week <input type=week name=week id=week></label>
<label>Colour <input type=color name=colour id=colour></label>
<label>Guests <input type=range name=guests id=guests min=0 max=100></label>
<input type=hidden name=events id=events>
<button>Book</button>
</form>
<script>
const counts = {};
for (const el of document.querySelectorAll('input:not([type=hidden])')) {
  counts[el.name] = {input: 0, change: 0};
  for (const ev of ['input', 'change']) el.addEventListener(ev, e => {
    if (!e.bubbles) return;
    counts[el.name][ev]++;
    document.getElementById('events').value = Object.entries(counts).map(([k, c]) => k + ':' + c.input + '/' + c.change).join(',');
  });
}
</script>`

// TestTypeTextDateInputs: type_text fills date, time, datetime-local,
// month, week, colour and range inputs with their ISO form, firing input
// and change once each; a malformed value is refused naming the form.
func TestTypeTextDateInputs(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", bookingPage)
	var booked heard
	booked.on(s, "/book", `<!doctype html><title>booked</title>`)
	a := newActor(t)
	a.open(s.URL + "/")

	for _, f := range []struct{ sel, text, want string }{
		{"#day", "2014-02-01", "2014-02-01"},
		{"#at", "13:45", "13:45"},
		{"#arrive", "2014-02-01T13:45", "2014-02-01T13:45"},
		{"#month", "2014-02", "2014-02"},
		{"#week", "2014-W05", "2014-W05"},
		{"#colour", "#FF0000", "#ff0000"},
		{"#guests", "42", "42"},
	} {
		env := a.call("type_text", map[string]any{"selector": f.sel, "text": f.text})
		wantStatus(t, env, "ok")
		if env["value"] != f.want {
			t.Errorf("type_text %s %q: value = %v, want %q", f.sel, f.text, env["value"], f.want)
		}
	}
	// Malformed: refused before anything is set, naming the form.
	for _, bad := range []struct{ sel, text, form string }{
		{"#day", "01/02/2014", "YYYY-MM-DD"},
		{"#day", "2014-02-30", "YYYY-MM-DD"},
		{"#at", "1:45 pm", "HH:MM"},
		{"#week", "2014-5", "YYYY-Www"},
		{"#colour", "red", "#rrggbb"},
		{"#guests", "many", "number"},
	} {
		env := a.call("type_text", map[string]any{"selector": bad.sel, "text": bad.text})
		wantStatus(t, env, "error")
		if env["argument"] != "text" || !strings.Contains(fmt.Sprint(env["error"]), bad.form) || env["hint"] == nil {
			t.Errorf("type_text %s %q: %v", bad.sel, bad.text, env)
		}
	}
	// "" clears a date, as the picker's clear button does.
	wantStatus(t, a.call("type_text", map[string]any{"selector": "#day", "text": ""}), "ok")
	env := a.call("type_text", map[string]any{"selector": "#day", "text": "2014-02-01"})
	if env["value"] != "2014-02-01" {
		t.Errorf("day set again: %v", env)
	}
	env = a.call("click", map[string]any{"selector": "text=Book", "submits": true})
	wantStatus(t, env, "ok")
	waitFor(t, "the booking to reach the server", waitBudget, func() bool { return len(booked.all()) == 1 })
	got := booked.all()[0]
	for _, want := range []string{"day=2014-02-01", "at=13%3A45", "arrive=2014-02-01T13%3A45", "month=2014-02", "week=2014-W05",
		"colour=%23ff0000", "guests=42",
		"events=day%3A3%2F3%2Cat%3A1%2F1%2Carrive%3A1%2F1%2Cmonth%3A1%2F1%2Cweek%3A1%2F1%2Ccolour%3A1%2F1%2Cguests%3A1%2F1"} {
		if !strings.Contains(got, want) {
			t.Errorf("the server received %q, missing %q", got, want)
		}
	}
}

// TestPressKeySequence: keys presses several keys in order, each where the
// focus is after the last (Tab, Tab, Enter on a button); exactly one of key
// and keys.
func TestPressKeySequence(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>keys</title>
<form action="/go"><input id=user name=user><input id=pass name=pass type=password>
<a href="/help" id=help>Help</a>
<button name=b value=sent id=send>Sign in</button></form>`)
	var went heard
	went.on(s, "/go", `<!doctype html><title>went</title>`)
	a := newActor(t)
	a.open(s.URL + "/")

	wantStatus(t, a.call("type_text", map[string]any{"selector": "#user", "text": "ada"}), "ok")
	env := a.call("press_key", map[string]any{"keys": []any{"Tab", "Tab", "Tab", "Enter"}, "submits": true})
	wantStatus(t, env, "ok")
	if ks, _ := env["keys"].([]any); len(ks) != 4 || env["navigated"] != true {
		t.Errorf("keys Tab Tab Tab Enter: %v", env)
	}
	waitFor(t, "the form to reach the server", waitBudget, func() bool { return len(went.all()) == 1 })
	if got := went.all()[0]; got != "user=ada&pass=&b=sent" {
		t.Errorf("the server received %q", got)
	}
	for _, bad := range []struct {
		args map[string]any
		arg  string
		says string
	}{
		{map[string]any{"key": "Tab", "keys": []any{"Tab"}}, "key, keys", "exactly one"},
		{map[string]any{}, "key", "exactly one"},
		{map[string]any{"keys": []any{"Tab", "Tabb", "Enter"}}, "keys", "keys[1]"},
		{map[string]any{"keys": []any{}}, "keys", "empty"},
	} {
		env := a.call("press_key", bad.args)
		if env["status"] != "error" || env["argument"] != bad.arg || !strings.Contains(fmt.Sprint(env["error"]), bad.says) || env["hint"] == nil {
			t.Errorf("press_key %v: %v", bad.args, env)
		}
	}
	if len(went.all()) != 1 {
		t.Errorf("a refused call pressed keys: %v", went.all())
	}
}

// TestActingAnswersFieldValue: type_text, select_option and a click on a
// checkbox (or its label) answer what the field holds after: the value as
// the page made it (a field that formats what is typed), a password only
// as filled.
func TestActingAnswersFieldValue(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>signup</title>
<form action="/signup">
<label>Code <input id=code name=code oninput="this.value = this.value.toUpperCase().replace(/[^A-Z0-9]/g, '')"></label>
<label>Password <input id=pw name=pw type=password></label>
<label><input type=checkbox id=terms name=terms> I accept the terms</label>
<span role=checkbox aria-checked=false tabindex=0 id=news onclick="this.setAttribute('aria-checked', this.getAttribute('aria-checked') !== 'true')">News</span>
<select id=country name=country><option value=fr>France</option><option value=de>Germany</option></select>
<button>Sign up</button></form>`)
	var signed heard
	signed.on(s, "/signup", `<!doctype html><title>done</title>`)
	a := newActor(t)
	a.open(s.URL + "/")

	env := a.call("type_text", map[string]any{"selector": "#code", "text": "ab-12 c"})
	wantStatus(t, env, "ok")
	if env["value"] != "AB12C" {
		t.Errorf("code value = %v, want the page's AB12C", env["value"])
	}
	const secret = "hunter2-secret"
	env = a.call("type_text", map[string]any{"selector": "#pw", "text": secret})
	wantStatus(t, env, "ok")
	if env["filled"] != true || env["value"] != nil || strings.Contains(jsonString(env), secret) {
		t.Errorf("password: %v", env)
	}
	env = a.call("click", map[string]any{"selector": "text=I accept the terms"})
	wantStatus(t, env, "ok")
	if env["checked"] != true {
		t.Errorf("click on the terms label: checked = %v", env["checked"])
	}
	env = a.call("click", map[string]any{"selector": "#news"})
	if env["checked"] != true {
		t.Errorf("click on a role=checkbox: checked = %v", env["checked"])
	}
	env = a.call("select_option", map[string]any{"selector": "#country", "label": "Germany"})
	if env["value"] != "de" {
		t.Errorf("select_option value = %v", env["value"])
	}
	env = a.call("click", map[string]any{"selector": "text=Sign up", "submits": true})
	wantStatus(t, env, "ok")
	if env["checked"] != nil || env["value"] != nil {
		t.Errorf("a click on a button answers no field: %v", env)
	}
	waitFor(t, "the form to reach the server", waitBudget, func() bool { return len(signed.all()) == 1 })
	if got := signed.all()[0]; got != "code=AB12C&pw="+secret+"&terms=on&country=de" {
		t.Errorf("the server received %q", got)
	}
}
