package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// The forms flow as the tool descriptions tell it, followed the way an
// agent that knows only tools/list would: read_form, fill each field it
// lists (type_text by its id or name, select_option by the option's
// label), read_draft, then save_draft with a submit that read_form's
// submitText gave, and publish with a live control from read_form's
// drafts and the same submit. On pages built like real sites: a CMS
// editor whose Save draft is a <button> with an svg icon and a spinner,
// beside a Publish button with an icon font ligature; a shop whose Update
// button sits in a sticky header outside the form (form=); a notes app
// whose Save is a web component (<ui-button type=submit>, its text in a
// <slot>, its click handler calling requestSubmit). The server counts
// what it received.

// poster records the POSTs a loopback site receives, per path.
type poster struct {
	mu    sync.Mutex
	posts map[string][]map[string][]string
}

func newPoster() *poster { return &poster{posts: map[string][]map[string][]string{}} }

// record keeps the POST's fields and answers with done (a 303 to it).
func (p *poster) record(done string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		_ = r.ParseMultipartForm(1 << 20)
		fields := map[string][]string{}
		for k, v := range r.PostForm {
			fields[k] = v
		}
		p.mu.Lock()
		p.posts[r.URL.Path] = append(p.posts[r.URL.Path], fields)
		p.mu.Unlock()
		http.Redirect(w, r, done, http.StatusSeeOther)
	}
}

func (p *poster) count(path string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.posts[path])
}

func (p *poster) last(path string) map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]string{}
	if l := p.posts[path]; len(l) > 0 {
		for k, v := range l[len(l)-1] {
			out[k] = strings.Join(v, ",")
		}
	}
	return out
}

const flowCMS = `<!doctype html><html><head><title>New post ‹ Newsroom</title>
<style>
body{font:14px sans-serif} .btn{display:inline-flex;gap:6px;align-items:center;padding:6px 12px;border:1px solid #888;background:#eee;cursor:pointer}
.spinner{display:none} .material-icons{font-size:12px} .actions{margin-top:12px}
</style></head><body>
<header><div role="search"><input aria-label="Search posts"><button type="button" class="btn">Search</button></div></header>
<h1>New post</h1>
<form id="post" method="post" action="/cms/save">
<input type="hidden" name="csrf" value="tok-123">
<p><label for="title">Title</label> <input id="title" name="title" required></p>
<p><label for="cat">Category</label> <select id="cat" name="category"><option value="">Choose…</option><option value="news">News</option><option value="howto">How-to</option></select></p>
<p><label for="excerpt">Excerpt</label><br><textarea id="excerpt" name="excerpt"></textarea></p>
<fieldset><legend>Status</legend>
<label><input type="radio" name="status" value="draft" checked> Draft</label>
<label><input type="radio" name="status" value="published"> Published</label></fieldset>
<div class="actions">
<button type="submit" class="btn btn-secondary" name="action" value="draft"><svg aria-hidden="true" width="16" height="16" viewBox="0 0 16 16"><path d="M2 2h10l2 2v10H2z"/></svg><span>Save draft</span><span class="spinner">Saving…</span></button>
<button type="submit" class="btn btn-primary" name="action" value="publish"><span class="material-icons" aria-hidden="true">send</span>Publish</button>
<button type="button" class="btn" onclick="document.title='preview'"><span class="material-icons" aria-hidden="true">visibility</span>Preview</button>
</div>
</form></body></html>`

const flowShop = `<!doctype html><html><head><title>Edit product</title>
<style>header{position:sticky;top:0;background:#fff;display:flex;justify-content:space-between;border-bottom:1px solid #ccc}
.btn{padding:6px 12px}</style></head><body>
<header><h1>Edit product</h1><div class="bar"><a href="/shop">Cancel</a> <button type="submit" form="product" class="btn primary">Update</button></div></header>
<main>
<form id="product" method="post" action="/shop/save">
<div class="row"><label for="p-name">Product name</label><input id="p-name" name="name" value=""></div>
<div class="row"><label for="p-price">Price</label><input id="p-price" name="price" inputmode="decimal"></div>
<div class="row"><label for="p-kind">Kind</label><select id="p-kind" name="kind"><option value="phys">Physical</option><option value="dig">Digital</option></select></div>
<div class="row">Visibility:
<label><input type="radio" name="is_live" value="0" checked> Hidden</label>
<label><input type="radio" name="is_live" value="1"> Live</label></div>
</form></main></body></html>`

const flowNotes = `<!doctype html><html><head><title>Notes</title>
<script>
class UiIcon extends HTMLElement {
  connectedCallback() { if (!this.shadowRoot) this.attachShadow({mode: 'open'}).innerHTML = '<svg width="14" height="14" viewBox="0 0 14 14"><circle cx="7" cy="7" r="6"/></svg>'; }
}
class UiButton extends HTMLElement {
  connectedCallback() {
    if (this.shadowRoot) return;
    const r = this.attachShadow({mode: 'open'});
    r.innerHTML = '<style>button{display:inline-flex;gap:4px;padding:6px 12px}</style><button part="base" type="button"><slot name="prefix"></slot><slot></slot></button>';
    r.querySelector('button').addEventListener('click', () => {
      if ((this.getAttribute('type') || '') === 'submit') { const f = this.closest('form'); if (f) f.requestSubmit(); }
    });
  }
}
customElements.define('ui-icon', UiIcon);
customElements.define('ui-button', UiButton);
</script></head><body>
<form id="note" method="post" action="/notes/save">
<label>Heading <input name="heading"></label>
<div class="seg"><span>Visibility</span> <input type="radio" name="visibility" value="private" id="v-private" checked><label for="v-private">Private</label>
<input type="radio" name="visibility" value="public" id="v-public"><label for="v-public">Public</label></div>
<ui-button type="submit" variant="primary"><ui-icon slot="prefix" name="floppy"></ui-icon>Save</ui-button>
<ui-button variant="text">Cancel</ui-button>
</form></body></html>`

// flowTasks is another web component: a form-associated <x-save> with no
// type of its own, whose shadow holds a native submit button around a
// <slot>; that button has no form owner (shadow DOM), so the component's
// click handler sends through its ElementInternals.
const flowTasks = `<!doctype html><html><head><title>Tasks</title>
<script>
class XSave extends HTMLElement {
  static formAssociated = true;
  constructor() { super(); this.internals = this.attachInternals(); }
  connectedCallback() {
    if (this.shadowRoot) return;
    const r = this.attachShadow({mode: 'open'});
    r.innerHTML = '<button type="submit" part="button"><slot>Save</slot></button>';
    r.querySelector('button').addEventListener('click', e => { e.preventDefault(); this.internals.form && this.internals.form.requestSubmit(); });
  }
}
customElements.define('x-save', XSave);
</script></head><body>
<form id="task" method="post" action="/tasks/save">
<p><label for="t-what">What</label> <input id="t-what" name="what"></p>
<p><label><input type="checkbox" name="is_draft" value="1" checked> Keep as draft</label></p>
<x-save>Add task</x-save>
</form></body></html>`

// flowSite serves the pages and records their POSTs.
func flowSite(t *testing.T) (*site, *poster) {
	s := newSite(t, "127.0.0.1")
	p := newPoster()
	s.page("/cms/new", flowCMS)
	s.page("/shop/edit", flowShop)
	s.page("/notes/new", flowNotes)
	s.page("/tasks/new", flowTasks)
	s.page("/done", `<!doctype html><title>Done</title><h1>Done</h1>`)
	for _, path := range []string{"/cms/save", "/shop/save", "/notes/save", "/tasks/save"} {
		s.handle(path, p.record("/done"))
	}
	return s, p
}

// agent drives lyrad knowing only what the tools answer.
type agent struct {
	t  *testing.T
	do func(string, map[string]any) map[string]any
}

func strList(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// fill fills every field read_form listed that values names (by label):
// a select by its option's label, the rest typed. A field is addressed as
// read_form gives it: #id, else [name="..."].
func (g *agent) fill(form map[string]any, values map[string]string) {
	g.t.Helper()
	filled := 0
	for _, f := range listOf(form, "fields") {
		label, _ := f["label"].(string)
		v, ok := values[label]
		if !ok {
			continue
		}
		sel := fmt.Sprintf("[name=%q]", f["name"])
		if id, _ := f["id"].(string); id != "" {
			sel = "#" + id
		}
		if f["tag"] == "select" {
			wantStatus(g.t, g.do("select_option", map[string]any{"selector": sel, "label": v}), "ok")
		} else {
			wantStatus(g.t, g.do("type_text", map[string]any{"selector": sel, "text": v}), "ok")
		}
		filled++
	}
	if filled != len(values) {
		g.t.Fatalf("read_form listed %d of the %d fields to fill: %v", filled, len(values), listOf(form, "fields"))
	}
}

// liveControl is the selector read_form's drafts give for the control
// whose label is label.
func liveControl(t *testing.T, form map[string]any, label string) string {
	t.Helper()
	for _, d := range listOf(form, "drafts") {
		if d["label"] == label {
			s, _ := d["selector"].(string)
			return s
		}
	}
	t.Fatalf("read_form drafts have no %q: %v", label, form["drafts"])
	return ""
}

// submitFor is the submitText entry that is want, as read_form gave it.
func submitFor(t *testing.T, form map[string]any, want string) string {
	t.Helper()
	for _, s := range strList(form["submitText"]) {
		if s == want {
			return s
		}
	}
	t.Fatalf("read_form submitText %v has no %q", form["submitText"], want)
	return ""
}

func TestFormsFlowAsDocumented(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s, posts := flowSite(t)
	ask := &asker{}
	cs := connectAsking(t, t.TempDir(), proto2026, ask.handle, "LYRA_BROWSER_CONSENT_TIMEOUT=120")
	g := &agent{t: t}
	g.do = func(name string, args map[string]any) map[string]any { g.t.Helper(); return call(g.t, cs, name, args) }

	cases := []struct {
		name, page, save         string
		values                   map[string]string
		submit, live             string
		wantSubmits              []string
		wantFields, wantLiveWire map[string]string
	}{
		{name: "cms: a Save draft button with an icon, beside Publish", page: "/cms/new", save: "/cms/save",
			values: map[string]string{"Title": "Spring fair", "Category": "How-to", "Excerpt": "Stalls open at nine."},
			submit: "Save draft", live: "Published", wantSubmits: []string{"Save draft", "Publish"},
			wantFields:   map[string]string{"title": "Spring fair", "category": "howto", "excerpt": "Stalls open at nine.", "status": "draft", "action": "draft", "csrf": "tok-123"},
			wantLiveWire: map[string]string{"status": "published"}},
		{name: "shop: Update outside the form (form=)", page: "/shop/edit", save: "/shop/save",
			values: map[string]string{"Product name": "Teapot", "Price": "12.50", "Kind": "Digital"},
			submit: "Update", live: "Live", wantSubmits: []string{"Update"},
			wantFields:   map[string]string{"name": "Teapot", "price": "12.50", "kind": "dig", "is_live": "0"},
			wantLiveWire: map[string]string{"is_live": "1"}},
		{name: "notes: a web-component Save", page: "/notes/new", save: "/notes/save",
			values: map[string]string{"Heading": "Groceries"},
			submit: "Save", live: "Public", wantSubmits: []string{"Save"},
			wantFields:   map[string]string{"heading": "Groceries", "visibility": "private"},
			wantLiveWire: map[string]string{"visibility": "public"}},
		{name: "tasks: a form-associated web component, its submit in its shadow", page: "/tasks/new", save: "/tasks/save",
			values: map[string]string{"What": "Call the plumber"},
			submit: "Add task", wantSubmits: []string{"Add task"},
			wantFields: map[string]string{"what": "Call the plumber", "is_draft": "1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g.t = t
			wantStatus(t, g.do("navigate", map[string]any{"url": s.URL + c.page}), "ok")
			form := g.do("read_form", nil)
			wantStatus(t, form, "ok")
			if got := strList(form["submitText"]); strings.Join(got, "|") != strings.Join(c.wantSubmits, "|") {
				t.Errorf("submitText = %q, want %q", got, c.wantSubmits)
			}
			g.fill(form, c.values)
			draft := g.do("read_draft", nil)
			wantStatus(t, draft, "ok")
			if draft["isDraft"] != true {
				t.Errorf("read_draft isDraft = %v", draft["isDraft"])
			}
			for label, v := range c.values {
				if !strings.Contains(jsonString(draft["fields"]), v) {
					t.Errorf("read_draft does not show %s = %q: %v", label, v, draft["fields"])
				}
			}
			env := g.do("save_draft", map[string]any{"submit": submitFor(t, form, c.submit)})
			wantStatus(t, env, "ok")
			if env["published"] != false {
				t.Errorf("save_draft published = %v", env["published"])
			}
			if n := posts.count(c.save); n != 1 {
				t.Fatalf("%d POSTs reached %s after save_draft, want 1", n, c.save)
			}
			got := posts.last(c.save)
			for k, v := range c.wantFields {
				if got[k] != v {
					t.Errorf("the draft's %s = %q, want %q (all: %v)", k, got[k], v, got)
				}
			}

			if c.live == "" {
				return
			}
			// publish, the same way: the live control from drafts, the
			// submit from submitText.
			wantStatus(t, g.do("navigate", map[string]any{"url": s.URL + c.page}), "ok")
			form = g.do("read_form", nil)
			g.fill(form, c.values)
			sub := c.submit
			if c.page == "/cms/new" {
				sub = "Publish"
			}
			env = g.do("publish", map[string]any{"selector": liveControl(t, form, c.live), "submit": submitFor(t, form, sub)})
			wantStatus(t, env, "ok")
			if env["published"] != true {
				t.Errorf("publish published = %v", env["published"])
			}
			if n := posts.count(c.save); n != 2 {
				t.Fatalf("%d POSTs reached %s after publish, want 2", n, c.save)
			}
			got = posts.last(c.save)
			for k, v := range c.wantLiveWire {
				if got[k] != v {
					t.Errorf("the published item's %s = %q, want %q (all: %v)", k, got[k], v, got)
				}
			}
		})
	}
	if n := ask.count("make content public"); n != 3 {
		t.Errorf("PUBLISH asked %d times for three publishes", n)
	}
}

// submit as a button's text, a CSS selector or a ref; in any case; a text
// two different controls say is an error listing them, and nothing is
// sent; a text nothing says lists the page's submit controls; a submit
// control that itself says it publishes is not save_draft's.
func TestSaveDraftSubmitForms(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	p := newPoster()
	s.page("/cms/new", flowCMS)
	s.page("/done", `<!doctype html><title>Done</title><h1>Done</h1>`)
	s.handle("/cms/save", p.record("/done"))
	// Two forms that each have a Save; one form with Save at its top and
	// its bottom (the same control twice).
	s.page("/two", `<!doctype html><title>two</title>
<form id="a" method="post" action="/cms/save"><input type="radio" name="status" value="draft" checked aria-label="Draft"><button>Save</button></form>
<form id="b" method="post" action="/cms/save"><input type="radio" name="status" value="draft" checked aria-label="Draft"><button name="x" value="b">Save</button></form>`)
	s.page("/dup", `<!doctype html><title>dup</title>
<form id="c" method="post" action="/cms/save"><input type="submit" name="_save" value="Save"><input name="title" value="t">
<label><input type="radio" name="status" value="draft" checked> Draft</label><input type="submit" name="_save" value="Save"></form>`)
	ask := &asker{}
	cs := connectAsking(t, t.TempDir(), proto2026, ask.handle, "LYRA_BROWSER_CONSENT_TIMEOUT=120")
	do := func(name string, args map[string]any) map[string]any { t.Helper(); return call(t, cs, name, args) }

	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/cms/new"}), "ok")
	wantStatus(t, do("type_text", map[string]any{"selector": "#title", "text": "T"}), "ok")
	// The Publish button is a submit control, but save_draft does not
	// send with it: nothing reaches the server.
	env := do("save_draft", map[string]any{"submit": "Publish"})
	wantStatus(t, env, "not_private")
	if n := p.count("/cms/save"); n != 0 {
		t.Fatalf("save_draft with Publish sent %d POSTs", n)
	}
	// Nothing says it: not_found, naming the argument and the candidates.
	env = do("save_draft", map[string]any{"submit": "Save as draft"})
	wantStatus(t, env, "not_found")
	if env["argument"] != "submit" || !strings.Contains(jsonString(env["candidates"]), "Save draft") {
		t.Errorf("an unknown submit text: %v", env)
	}
	// Another case finds it.
	wantStatus(t, do("save_draft", map[string]any{"submit": "save DRAFT"}), "ok")
	if got := p.last("/cms/save"); p.count("/cms/save") != 1 || got["action"] != "draft" {
		t.Fatalf("save_draft by text in another case: %d POSTs, %v", p.count("/cms/save"), got)
	}
	// A CSS selector still works.
	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/cms/new"}), "ok")
	wantStatus(t, do("type_text", map[string]any{"selector": "#title", "text": "T"}), "ok")
	wantStatus(t, do("save_draft", map[string]any{"submit": "button[value=draft]"}), "ok")
	if n := p.count("/cms/save"); n != 2 {
		t.Fatalf("save_draft by CSS: %d POSTs", n)
	}
	// And a ref from read_page's tree (this worked before: a control).
	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/cms/new"}), "ok")
	wantStatus(t, do("type_text", map[string]any{"selector": "#title", "text": "T"}), "ok")
	tree := fmt.Sprint(do("read_page", map[string]any{"mode": "tree"})["tree"])
	m := regexp.MustCompile(`aria-ref=(e\d+) button "Save draft[^"]*"`).FindStringSubmatch(tree)
	if m == nil {
		t.Fatalf("no ref for Save draft in the tree:\n%s", tree)
	}
	wantStatus(t, do("save_draft", map[string]any{"submit": "aria-ref=" + m[1]}), "ok")
	if n := p.count("/cms/save"); n != 3 {
		t.Fatalf("save_draft by ref: %d POSTs", n)
	}

	// Two forms, two Saves: an error listing both; nothing sent.
	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/two"}), "ok")
	env = do("save_draft", map[string]any{"submit": "Save"})
	wantStatus(t, env, "error")
	cands, _ := env["candidates"].([]any)
	if env["argument"] != "submit" || len(cands) != 2 || !strings.Contains(jsonString(cands), "form#a") || !strings.Contains(jsonString(cands), "form#b") {
		t.Errorf("an ambiguous submit: %v", env)
	}
	if n := p.count("/cms/save"); n != 3 {
		t.Fatalf("an ambiguous submit sent: %d POSTs", n)
	}
	// The same control at the top and the bottom is one: sent once.
	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/dup"}), "ok")
	wantStatus(t, do("save_draft", map[string]any{"submit": "Save"}), "ok")
	if got := p.last("/cms/save"); p.count("/cms/save") != 4 || got["_save"] != "Save" || got["title"] != "t" {
		t.Fatalf("save_draft with a duplicated Save: %d POSTs, %v", p.count("/cms/save"), got)
	}
}
