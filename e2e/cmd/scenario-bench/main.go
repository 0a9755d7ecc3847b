// Command scenario-bench counts what common web-app tasks cost an agent
// through lyrad's tools: tool calls, bytes read and success per task, on
// pages built like real sites (an inbox of div rows with icon-only star and
// trash spans, a full-page START cover, an autocomplete that picks on hover,
// a panel that scrolls with its button below the fold, a date field, a login
// form with unlabelled fields, a collapsible panel) served on loopback.
//
// A scripted agent drives lyrad's binary over MCP (go-sdk client, stdio) as
// a model would knowing only the tools: it reads the tree, finds its target
// line by role and name (or the text it sits next to, or the row it is in),
// acts by ref, and takes the acting call's `changes` as its new view when
// the answer has one; otherwise it reads the tree again. Where the tree
// gives it nothing to act on it falls back as agents do: it reads the text
// and tries the selectors a model would guess (text=..., then a class name
// it happens to know), each try counted. Success is judged on the server's
// side: what the page sent (a fetch or a form post) is what the task asked.
//
//	go run ./e2e/cmd/scenario-bench -lyrad bin/lyrad [-v] [-only inbox]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	bin := flag.String("lyrad", "bin/lyrad", "lyrad binary")
	verbose := flag.Bool("v", false, "print every call the agent makes")
	only := flag.String("only", "", "run only the task of this name")
	flag.Parse()
	if err := run(*bin, *verbose, *only); err != nil {
		fmt.Fprintln(os.Stderr, "scenario-bench:", err)
		os.Exit(1)
	}
}

func run(bin string, verbose bool, only string) error {
	srv, err := serve()
	if err != nil {
		return err
	}
	defer srv.close()
	dir, err := os.MkdirTemp("", "scenario-bench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(bin, "stdio")
	// Consent off: the bench counts the agent's calls, and asks nobody.
	cmd.Env = append(os.Environ(), "LYRA_BROWSER_DATA_DIR="+dir, "LYRA_BROWSER_HEADLESS=true",
		"LYRA_BROWSER_LOG_LEVEL=error", "LYRA_BROWSER_CONSENT_CHANNEL=off")
	cmd.Stderr = os.Stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "scenario-bench", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	// Warm up: the first start of the browser is not a task's.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "open_browser", Arguments: map[string]any{}}); err != nil {
		return err
	}

	fmt.Printf("%-12s %-4s %6s %6s %6s %9s %9s  %s\n", "task", "won", "calls", "reads", "acts", "fallback", "bytes", "notes")
	var won, calls, reads, acts, fallbacks, bytes, n int
	for _, tk := range tasks() {
		if only != "" && tk.name != only {
			continue
		}
		srv.reset()
		a := &agent{cs: cs, verbose: verbose}
		if verbose {
			fmt.Printf("== %s\n", tk.name)
		}
		err := a.do(srv.url+tk.path, tk.steps)
		ok := err == nil
		if ok {
			// What the page sent may land a moment after the call that
			// set it off answered.
			deadline := time.Now().Add(5 * time.Second)
			for !tk.done(srv) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			ok = tk.done(srv)
			if !ok {
				err = fmt.Errorf("the server did not get what the task asked: %s", srv.summary())
			}
		}
		note := strings.Join(a.notes, "; ")
		if err != nil {
			note = err.Error()
			if len(a.notes) > 0 {
				note += " (" + strings.Join(a.notes, "; ") + ")"
			}
		}
		mark := "no"
		if ok {
			mark = "yes"
			won++
		}
		n++
		calls += a.calls
		reads += a.reads
		acts += a.acts
		fallbacks += a.fallbacks
		bytes += a.bytes
		fmt.Printf("%-12s %-4s %6d %6d %6d %9d %9d  %s\n", tk.name, mark, a.calls, a.reads, a.acts, a.fallbacks, a.bytes, note)
	}
	if n > 0 {
		fmt.Printf("%-12s %-4s %6.1f %6.1f %6.1f %9.1f %9.0f  (per task; won %d of %d)\n", "mean", "", float64(calls)/float64(n), float64(reads)/float64(n),
			float64(acts)/float64(n), float64(fallbacks)/float64(n), float64(bytes)/float64(n), won, n)
	}
	return nil
}

// ---- the agent

// step is one thing the task asks: find a target and act on it.
type step struct {
	what    string   // what a person would call the target
	find    finder   // how the agent finds it in the tree
	act     string   // click, type or select
	text    string   // what to type, or the option to choose
	submits bool     // the action sends a form
	guesses []string // selectors a model would try when the tree has nothing
}

// finder finds a target's ref in a view (tree lines, or a changes summary
// with tree lines in it).
type finder func(view string) string

var lineRe = regexp.MustCompile(`aria-ref=(e\d+) (\S+)(?: "((?:[^"\\]|\\.)*)")?(.*)`)

type line struct{ ref, role, name, rest, raw string }

func lines(view string) []line {
	var out []line
	for _, l := range strings.Split(view, "\n") {
		if m := lineRe.FindStringSubmatch(l); m != nil {
			out = append(out, line{m[1], m[2], m[3], m[4], l})
		}
	}
	return out
}

// named finds the first line whose role matches roles and name matches name.
func named(roles, name string) finder {
	rr, nr := regexp.MustCompile(`^(?:`+roles+`)$`), regexp.MustCompile(name)
	return func(view string) string {
		for _, l := range lines(view) {
			if rr.MatchString(l.role) && nr.MatchString(l.name) {
				return l.ref
			}
		}
		return ""
	}
}

// near finds a field named by, or next to, the text a person sees by it.
func near(roles, text string) finder {
	rr := regexp.MustCompile(`(?i)^(?:` + roles + `)$`)
	return func(view string) string {
		for _, l := range lines(view) {
			if rr.MatchString(l.role) && (strings.EqualFold(l.name, text) || strings.Contains(l.rest, `near "`+text)) {
				return l.ref
			}
		}
		return ""
	}
}

// after finds a line of roles and name among the lines that follow the
// first line naming anchor (a row, then the control in it), before the next
// line like the row's (the same role, a name of several words, as the
// row's): the tree is flat, and a control not listed must not be taken from
// the next row.
func after(anchor string, roles, name string) finder {
	ar := regexp.MustCompile(anchor)
	rr, nr := regexp.MustCompile(`^(?:`+roles+`)$`), regexp.MustCompile(name)
	return func(view string) string {
		ls := lines(view)
		for i, l := range ls {
			if !ar.MatchString(l.name) {
				continue
			}
			for _, m := range ls[i+1:] {
				if m.role == l.role && len(strings.Fields(m.name)) > 1 && len(strings.Fields(l.name)) > 1 {
					break
				}
				if rr.MatchString(m.role) && (nr.MatchString(m.name) || nr.MatchString(hintOf(m.rest))) {
					return m.ref
				}
			}
		}
		return ""
	}
}

// hintRe is the hint a nameless control's line carries: (icon "trash"), (class "close").
var hintRe = regexp.MustCompile(`^\s*\((?:icon|class) "([^"]*)"\)`)

// hintOf is the word of a line's hint, as an agent reads `generic (class "trash")`.
func hintOf(rest string) string {
	if m := hintRe.FindStringSubmatch(rest); m != nil {
		return m[1]
	}
	return ""
}

type agent struct {
	cs      *mcp.ClientSession
	verbose bool

	calls, reads, acts, fallbacks, bytes int
	notes                                []string

	view  string // what the agent knows of the page: its last tree, and changes since
	fresh bool   // the view is up to date (a read, or an answer's changes)
	text  bool   // the page's text was read since the last change
}

func (a *agent) call(name string, args map[string]any) map[string]any {
	a.calls++
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return map[string]any{"status": "error", "error": err.Error()}
	}
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			a.bytes += len(t.Text)
		}
	}
	var env map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(b, &env)
	if a.verbose {
		s := string(b)
		if len(s) > 300 {
			s = s[:300] + "..."
		}
		fmt.Printf("  %s %s -> %s\n", name, jsonText(args), s)
	}
	return env
}

func jsonText(v any) string { b, _ := json.Marshal(v); return string(b) }

func (a *agent) readTree() {
	a.reads++
	env := a.call("read_page", map[string]any{"mode": "tree"})
	if env["status"] != "ok" {
		msg := fmt.Sprint(env["error"])
		if i := strings.IndexByte(msg, '\n'); i > 0 {
			msg = msg[:i]
		}
		a.notes = append(a.notes, fmt.Sprintf("the tree read answered %v (%s)", env["status"], msg))
	}
	a.view, _ = env["tree"].(string)
	a.fresh = true
}

func (a *agent) readText() {
	a.reads++
	a.call("read_page", map[string]any{})
	a.text = true
}

// acted takes an acting call's answer: its changes, when it has them, are
// what the agent knows of the page now (the earlier tree's refs last);
// otherwise it must look again.
func (a *agent) acted(env map[string]any) {
	a.acts++
	a.text = false
	if ch := changesText(env["changes"]); ch != "" {
		a.view = ch + "\n" + a.view
		a.fresh = true
		return
	}
	a.fresh = false
}

func changesText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, e := range c {
			if s, ok := e.(string); ok {
				parts = append(parts, s)
			} else {
				parts = append(parts, jsonText(e))
			}
		}
		return strings.Join(parts, "\n")
	case nil:
		return ""
	}
	return jsonText(v)
}

func (a *agent) do(url string, steps []step) error {
	env := a.call("navigate", map[string]any{"url": url})
	if env["status"] != "ok" {
		return fmt.Errorf("navigate: %v", env["status"])
	}
	a.acts++
	a.fresh, a.view = false, ""
	for _, s := range steps {
		if err := a.step(s); err != nil {
			return fmt.Errorf("%s: %w", s.what, err)
		}
	}
	// The agent looks at the outcome unless the last answer said it.
	if !a.fresh {
		a.readText()
	}
	return nil
}

func (a *agent) step(s step) error {
	ref := ""
	if a.fresh {
		ref = s.find(a.view)
	}
	if ref == "" {
		// What the agent knows may be old, or not have the target: look.
		a.readTree()
		ref = s.find(a.view)
	}
	if ref != "" {
		env := a.act(s, "aria-ref="+ref)
		if env["status"] == "ok" {
			return nil
		}
		if s.act != "type" {
			return fmt.Errorf("%s by its ref: %v", s.act, env["status"])
		}
		// A field type_text does not take (a date input on old lyrad):
		// click into it and press the keys one by one, as agents did.
		return a.keyByKey(s, "aria-ref="+ref)
	}
	// The tree lists nothing for it: read the text, then guess selectors.
	a.notes = append(a.notes, s.what+": not in the tree")
	if !a.text {
		a.readText()
	}
	for _, g := range s.guesses {
		a.fallbacks++
		env := a.act(s, g)
		if env["status"] == "ok" {
			return nil
		}
	}
	return fmt.Errorf("no selector found it")
}

func (a *agent) act(s step, sel string) map[string]any {
	var env map[string]any
	switch s.act {
	case "click":
		args := map[string]any{"selector": sel}
		if s.submits {
			args["submits"] = true
		}
		env = a.call("click", args)
	case "type":
		env = a.call("type_text", map[string]any{"selector": sel, "text": s.text})
	case "select":
		env = a.call("select_option", map[string]any{"selector": sel, "label": s.text})
	}
	if env["status"] == "ok" {
		a.acted(env)
	}
	return env
}

// keyByKey fills a field a key at a time, as agents did where type_text
// refused it: a click to focus it, then one press_key per character. A date
// field takes its digits segment by segment, month first (Chrome's en-US
// field), from its first segment, which a click in its middle does not
// reach: Tab from the top of the page (the field is the page's first) does.
func (a *agent) keyByKey(s step, sel string) error {
	a.notes = append(a.notes, s.what+": type_text refused, key by key")
	a.fallbacks++
	date := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`).MatchString(s.text)
	if !date {
		if env := a.call("click", map[string]any{"selector": sel}); env["status"] != "ok" {
			return fmt.Errorf("click into the field: %v", env["status"])
		}
		a.acts++
	}
	var keys []string
	for _, k := range s.text {
		keys = append(keys, string(k))
	}
	if m := regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})$`).FindStringSubmatch(s.text); m != nil {
		keys = []string{"Tab"}
		for _, k := range m[2] + m[3] + m[1] {
			keys = append(keys, string(k))
		}
	}
	for _, k := range keys {
		if env := a.call("press_key", map[string]any{"key": k}); env["status"] != "ok" {
			return fmt.Errorf("press_key %q: %v", k, env["status"])
		}
		a.acts++
	}
	a.fresh = false
	return nil
}

// ---- the pages and their tasks

type task struct {
	name, path string
	steps      []step
	done       func(*server) bool
}

const btn = "button|link|generic|menuitem|option|listitem|img|clickable"

func tasks() []task {
	return []task{
		{
			name: "inbox", path: "/inbox",
			steps: []step{
				{what: "Bob's star", find: after(`Bob`, btn, `(?i)^(☆|star)`), act: "click",
					// The text shows "☆ Bob": a star by the name (text=☆ would
					// take Alice's, the first).
					guesses: []string{`xpath=//*[text()='Bob']/preceding-sibling::*[contains(., '☆')]`}},
				{what: "Carol's trash", find: after(`Carol`, btn, `(?i)^(trash|delete)`), act: "click",
					// The icon has no text to read: a name a model would try,
					// then a class name it happens to know.
					guesses: []string{`text=Delete`, `xpath=//div[contains(@class,'row')][contains(., 'Carol')]//*[contains(@class,'trash')]`}},
			},
			done: func(s *server) bool {
				return s.got("POST /api/star", "id=2") && s.got("POST /api/trash", "id=3") && !s.got("POST /api/star", "id=1")
			},
		},
		{
			name: "cover", path: "/cover",
			steps: []step{
				{what: "START", find: named(btn, `^START$`), act: "click", guesses: []string{`text=START`, `text="START"`}},
				{what: "Level 1", find: named(btn, `^Level 1$`), act: "click", guesses: []string{`text=Level 1`}},
			},
			done: func(s *server) bool { return s.got("GET /api/level", "n=1") },
		},
		{
			name: "autocomplete", path: "/tags",
			steps: []step{
				{what: "Tags field", find: near("textbox|combobox", "Tags"), act: "type", text: "Mac", guesses: []string{`#tags`}},
				{what: "Macao", find: named(btn, `^Macao$`), act: "click", guesses: []string{`text="Macao"`}},
				{what: "Save", find: named(btn, `^Save$`), act: "click", submits: true, guesses: []string{`text=Save`}},
			},
			done: func(s *server) bool { return s.got("POST /tags", "tags=Macao") },
		},
		{
			name: "panel", path: "/terms",
			steps: []step{
				{what: "Accept", find: named(btn, `^Accept$`), act: "click", guesses: []string{`text=Accept`}},
			},
			done: func(s *server) bool { return s.got("POST /api/accept", "") },
		},
		{
			name: "date", path: "/trip",
			steps: []step{
				{what: "Departure", find: near("textbox|date|generic|spinbutton", "Departure"), act: "type", text: "2014-02-01", guesses: []string{`input[type=date]`}},
				{what: "Book", find: named(btn, `^Book$`), act: "click", submits: true, guesses: []string{`text=Book`}},
			},
			done: func(s *server) bool { return s.got("POST /trip", "depart=2014-02-01") },
		},
		{
			name: "login", path: "/login",
			steps: []step{
				{what: "Username", find: near("textbox", "Username"), act: "type", text: "ann", guesses: []string{`input:not([type=password])`}},
				{what: "Password", find: near("textbox|password", "Password"), act: "type", text: "pw-123", guesses: []string{`input[type=password]`}},
				{what: "Sign in", find: named(btn, `^Sign in$`), act: "click", submits: true, guesses: []string{`text=Sign in`}},
			},
			done: func(s *server) bool { return s.got("POST /login", "pass=pw-123&user=ann") },
		},
		{
			name: "collapsible", path: "/faq",
			steps: []step{
				{what: "Shipping", find: named(btn+"|button|heading", `^Shipping$`), act: "click", guesses: []string{`text=Shipping`}},
				{what: "Choose express", find: named(btn, `^Choose express$`), act: "click", guesses: []string{`text=Choose express`}},
			},
			done: func(s *server) bool { return s.got("POST /api/express", "") },
		},
	}
}

// ---- the server

type server struct {
	url string
	srv *http.Server
	mu  sync.Mutex
	log []string // "METHOD /path" + " " + the sorted form or query
}

func (s *server) reset() {
	s.mu.Lock()
	s.log = nil
	s.mu.Unlock()
}

// got says whether a request to what arrived carrying form (sorted
// key=value pairs joined by &; "" for any).
func (s *server) got(what, form string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.log {
		if l == what+" "+form || (form == "" && strings.HasPrefix(l, what+" ")) {
			return true
		}
	}
	return false
}

func (s *server) summary() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var sent []string
	for _, l := range s.log {
		if !strings.HasPrefix(l, "GET /") || strings.Contains(l, "/api/") {
			sent = append(sent, l)
		}
	}
	if len(sent) == 0 {
		return "nothing sent"
	}
	return strings.Join(sent, ", ")
}

func (s *server) close() { s.srv.Close() }

func serve() (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{url: "http://" + ln.Addr().String()}
	mux := http.NewServeMux()
	for path, html := range pages {
		html := html
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			s.record(r)
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, html)
		})
	}
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		s.record(r)
		w.WriteHeader(http.StatusNoContent)
	})
	s.srv = &http.Server{Handler: mux}
	go s.srv.Serve(ln)
	return s, nil
}

func (s *server) record(r *http.Request) {
	r.ParseForm()
	s.mu.Lock()
	s.log = append(s.log, r.Method+" "+r.URL.Path+" "+r.Form.Encode())
	s.mu.Unlock()
}

var pages = map[string]string{
	// Rows are divs with click handlers; the star is a span holding ☆, the
	// trash an empty span drawn by its class.
	"/inbox": `<!doctype html><title>Inbox</title>
<style>.row{display:flex;gap:12px;padding:8px;border-bottom:1px solid #ddd;cursor:pointer}.star,.trash{cursor:pointer;width:18px;height:18px;display:inline-block}
.trash{background:linear-gradient(#900,#600)}</style>
<h1>Inbox</h1><div id="list">
<div class="row" onclick="openMsg(1)"><span class="star" data-id="1">☆</span><span class="from">Alice</span><span class="subj">Lunch on Friday?</span><span class="trash" data-id="1"></span></div>
<div class="row" onclick="openMsg(2)"><span class="star" data-id="2">☆</span><span class="from">Bob</span><span class="subj">Quarterly numbers</span><span class="trash" data-id="2"></span></div>
<div class="row" onclick="openMsg(3)"><span class="star" data-id="3">☆</span><span class="from">Carol</span><span class="subj">Re: the offsite</span><span class="trash" data-id="3"></span></div>
</div><div id="msg"></div>
<script>
function openMsg(id){ document.getElementById('msg').textContent = 'Message ' + id; }
document.querySelectorAll('.star').forEach(s => s.addEventListener('click', e => { e.stopPropagation(); s.textContent = '★';
  fetch('/api/star', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'id=' + s.dataset.id}); }));
document.querySelectorAll('.trash').forEach(s => s.addEventListener('click', e => { e.stopPropagation(); s.closest('.row').remove();
  fetch('/api/trash', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'}, body: 'id=' + s.dataset.id}); }));
</script>`,

	// A full-page cover to click first; the instructions say "starts".
	"/cover": `<!doctype html><title>Game</title>
<p>The game starts when you press START on the cover.</p>
<button onclick="fetch('/api/level?n=1')">Level 1</button> <button onclick="fetch('/api/level?n=2')">Level 2</button>
<div id="cover" style="position:fixed;inset:0;background:#123;color:#fff;display:flex;align-items:center;justify-content:center;font-size:40px;cursor:pointer"
 onclick="this.remove()"><span>START</span></div>`,

	// An autocomplete whose list items choose on hover (mousemove), then
	// take the hovered one on mousedown.
	"/tags": `<!doctype html><title>Tags</title>
<form method="post" action="/tags"><label for="tags">Tags</label> <input id="tags" name="tags" autocomplete="off">
<ul id="sugg" style="list-style:none;margin:0;padding:0;width:220px;border:1px solid #ccc" hidden></ul>
<button>Save</button></form>
<script>
const all = ['Lisbon', 'Madrid', 'Macau', 'Macao', 'Manila'];
let active = 0;
tags.addEventListener('input', () => {
  const q = tags.value.toLowerCase(); sugg.innerHTML = ''; active = 0;
  all.filter(c => c.toLowerCase().startsWith(q)).forEach((c, i) => {
    const li = document.createElement('li'); li.textContent = c; li.style.padding = '4px'; li.style.cursor = 'pointer';
    li.addEventListener('mousemove', () => { active = i; });
    li.addEventListener('mousedown', e => { e.preventDefault(); tags.value = sugg.children[active].textContent; sugg.hidden = true; });
    sugg.appendChild(li);
  });
  sugg.hidden = !sugg.children.length;
});
</script>`,

	// A panel that scrolls by itself, its button below the fold; the page
	// does not scroll.
	"/terms": `<!doctype html><title>Terms</title><style>html,body{margin:0;height:100%;overflow:hidden}</style>
<h1>Terms of service</h1>
<div id="panel" style="height:240px;overflow-y:auto;border:1px solid #999;padding:8px">
<div style="height:1800px">1. You agree to everything. 2. And more.</div>
<button onclick="fetch('/api/accept', {method: 'POST'}); this.textContent = 'Accepted'">Accept</button></div>`,

	// A date field in a form.
	"/trip": `<!doctype html><title>Trip</title>
<form method="post" action="/trip"><label>Departure <input type="date" name="depart" required></label>
<button>Book</button></form>`,

	// A login form whose fields have no labels, only text beside them.
	"/login": `<!doctype html><title>Sign in</title>
<form method="post" action="/login"><div class="f"><div class="l">Username</div><input name="user"></div>
<div class="f"><div class="l">Password</div><input type="password" name="pass"></div>
<button>Sign in</button></form>`,

	// A collapsible panel whose header is a div with a click handler.
	"/faq": `<!doctype html><title>FAQ</title><h1>Help</h1>
<div class="acc"><div class="acc-h" style="cursor:pointer" onclick="this.nextElementSibling.hidden = !this.nextElementSibling.hidden">Returns</div>
<div hidden><p>Send it back within 30 days.</p></div></div>
<div class="acc"><div class="acc-h" style="cursor:pointer" onclick="this.nextElementSibling.hidden = !this.nextElementSibling.hidden">Shipping</div>
<div hidden><p>Standard takes 5 days.</p><button onclick="fetch('/api/express', {method: 'POST'})">Choose express</button></div></div>`,
}
