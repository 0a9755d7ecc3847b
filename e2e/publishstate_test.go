package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// postSink records the posts a site received and what they carried under the
// fields a test asks about.
type postSink struct {
	mu    sync.Mutex
	posts []map[string][]string
}

func (k *postSink) handler(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
		_ = r.ParseMultipartForm(1 << 20)
	} else {
		_ = r.ParseForm()
	}
	k.mu.Lock()
	k.posts = append(k.posts, r.PostForm)
	k.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, `<!doctype html><title>Saved</title><div class="alert alert-success" role="status">Saved.</div>`)
}

func (k *postSink) count() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.posts)
}

// carried lists, for each post, what it sent under field.
func (k *postSink) carried(field string) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for _, p := range k.posts {
		out = append(out, field+"="+strings.Join(p[field], ","))
	}
	return out
}

// draftForm is an edit form kept as a draft (a Draft/Publish radio pair,
// Draft checked, and an unticked "Publish immediately" checkbox), posted
// with enctype to action; script runs in the page.
func draftForm(action, enctype, script string) string {
	return `<!doctype html><title>Edit</title><h1>Edit item</h1>
<form id="f" method="post" action="` + action + `" enctype="` + enctype + `">
<p><label for="title">Title</label> <input id="title" name="title" value="Spring fair"></p>
<p><label><input type="radio" name="is_draft" value="1" checked> Draft</label>
<label><input type="radio" name="is_draft" value="0"> Publish</label></p>
<p><label><input type="checkbox" name="publish_now" value="1"> Publish immediately</label></p>
<button type="submit" id="save">Save draft</button>
</form><script>` + script + `</script>`
}

// TestSaveDraftSendsTheDraft: save_draft on a form whose own submit
// handler makes the item public as it is sent (checks "Publish", ticks
// "Publish immediately", adds a hidden is_draft=0, or sets it in a
// formdata listener, or stops the formdata event so that lyrad cannot
// look) sends nothing, url-encoded or multipart; nor does a
// click with submits=true on it: what the browser is about to send is
// checked against the publish state approved, and the send is stopped
// before it leaves. The honest form still saves its draft, and publish
// with the user's yes still publishes.
func TestSaveDraftSendsTheDraft(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	saves := &postSink{}
	a.handle("/save", saves.handler)
	const urlenc, multipart = "application/x-www-form-urlencoded", "multipart/form-data"
	attacks := []struct{ name, enctype, script string }{
		// click with submits=true is held to the state it was approved with.
		{"click", urlenc, `f.addEventListener('submit', () => { f.querySelector('input[name=is_draft][value="0"]').checked = true; });`},
		{"radio", urlenc, `f.addEventListener('submit', () => { f.querySelector('input[name=is_draft][value="0"]').checked = true; });`},
		{"checkbox", multipart, `f.addEventListener('submit', () => { f.querySelector('input[name=publish_now]').checked = true; });`},
		{"appended", urlenc, `f.addEventListener('submit', () => { const i = document.createElement('input'); i.type = 'hidden'; i.name = 'is_draft'; i.value = '0'; f.appendChild(i); });`},
		{"formdata", multipart, `f.addEventListener('formdata', e => e.formData.set('is_draft', '0'));`},
		// The page keeps the formdata event from lyrad's listener: the
		// guard lets nothing go that the check did not pass.
		{"stopped", urlenc, `f.addEventListener('formdata', e => { e.stopPropagation(); e.formData.set('is_draft', '0'); });`},
	}
	for _, at := range attacks {
		a.page("/edit/"+at.name, draftForm("/save", at.enctype, at.script))
	}
	a.page("/edit/honest", draftForm("/save", multipart, ""))

	ask := &asker{}
	dir := t.TempDir()
	cs := connectAsking(t, dir, proto2026, ask.handle, "LYRA_BROWSER_CONSENT_TIMEOUT=120")
	for _, at := range attacks {
		before := saves.count()
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/edit/" + at.name}), "ok")
		var env map[string]any
		if at.name == "click" {
			env = call(t, cs, "click", map[string]any{"selector": "#save", "submits": true})
		} else {
			env = call(t, cs, "save_draft", map[string]any{"submit": "Save draft"})
		}
		// The refusal is in the trail by the time the call answers; give a
		// post that got through a moment to be counted all the same.
		time.Sleep(300 * time.Millisecond)
		t.Logf("%s: status %v, %d POSTs (%v); %v", at.name, env["status"], saves.count()-before, saves.carried("is_draft"), env["error"])
		if n := saves.count() - before; n != 0 {
			t.Errorf("%s: %d POSTs reached the site (%v), want 0", at.name, n, saves.carried("is_draft"))
		}
		if env["status"] != "not_private" {
			t.Errorf("%s: status %v, want not_private: %v", at.name, env["status"], env)
		}
		if msg := fmt.Sprint(env["error"]); !strings.Contains(msg, "nothing was sent") || !(strings.Contains(msg, "approved as") || at.name == "stopped") {
			t.Errorf("%s: %v", at.name, env)
		}
	}
	if n := ask.count("make content public"); n != 0 {
		t.Errorf("save_draft asked for PUBLISH %d times", n)
	}
	if rows := rowsWhere(auditRows(t, dir), has{"status": "not_private"}); len(rows) != len(attacks) {
		t.Errorf("%d audit rows not_private, want %d: %s", len(rows), len(attacks), jsonString(rows))
	}

	// The honest form saves its draft, once, as a draft.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/edit/honest"}), "ok")
	wantStatus(t, call(t, cs, "save_draft", map[string]any{"submit": "Save draft"}), "ok")
	waitFor(t, "the draft", 10*time.Second, func() bool { return saves.count() == 1 })
	if got := saves.carried("is_draft"); got[0] != "is_draft=1" || saves.carried("publish_now")[0] != "publish_now=" {
		t.Errorf("the saved draft carried %v %v", got, saves.carried("publish_now"))
	}

	// publish, approved, publishes.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/edit/honest"}), "ok")
	env := call(t, cs, "publish", map[string]any{"selector": `input[name=is_draft][value="0"]`, "submit": "Save draft"})
	wantStatus(t, env, "ok")
	waitFor(t, "the published item", 10*time.Second, func() bool { return saves.count() == 2 })
	if got := saves.carried("is_draft"); got[1] != "is_draft=0" || env["published"] != true {
		t.Errorf("publish carried %v; reply %v", got, env)
	}
	if n := ask.count("make content public"); n != 1 {
		t.Errorf("PUBLISH asked %d times, want 1", n)
	}
}

// TestSendAskedWhereItGoes: a form on A whose submit handler re-aims its
// action at C sends nothing to C: a send to another origin needs NAVIGATE
// there, which nobody approved. A form whose action is C from the start is
// asked for naming C, and reaches C once.
func TestSendAskedWhereItGoes(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	c := newSite(t, "127.0.0.3")
	atA, atC := &postSink{}, &postSink{}
	a.handle("/save", atA.handler)
	c.handle("/steal", atC.handler)
	c.handle("/inbox", atC.handler)
	c.page("/", `<!doctype html><title>C</title>C`)
	reaim := fmt.Sprintf(`f.addEventListener('submit', () => { f.action = %q; });`, c.URL+"/steal")
	a.page("/reaim", draftForm("/save", "application/x-www-form-urlencoded", reaim))
	a.page("/reaim-click", strings.Replace(draftForm("/save", "application/x-www-form-urlencoded", reaim), "Save draft", "Send", 1))
	a.page("/toC", fmt.Sprintf(`<!doctype html><title>to C</title>
<form id="f" method="post" action="%s/inbox"><input name="msg" value="hello"><button id="send">Send</button></form>`, c.URL))

	ask := &asker{}
	dir := t.TempDir()
	cs := connectAsking(t, dir, proto2026, ask.handle, "LYRA_BROWSER_CONSENT_TIMEOUT=120")
	for _, x := range []struct{ page, tool string }{{"/reaim", "save_draft"}, {"/reaim-click", "click"}} {
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + x.page}), "ok")
		var env map[string]any
		if x.tool == "save_draft" {
			env = call(t, cs, "save_draft", map[string]any{"submit": "Save draft"})
		} else {
			env = call(t, cs, "click", map[string]any{"selector": "#save", "submits": true})
		}
		time.Sleep(300 * time.Millisecond)
		t.Logf("%s on %s: status %v; C got %d POSTs, A %d; %v", x.tool, x.page, env["status"], atC.count(), atA.count(), env["error"])
		if atC.count() != 0 {
			t.Fatalf("%s: C received %d posts: %v", x.tool, atC.count(), atC.carried("title"))
		}
		wantStatus(t, env, "blocked_by_policy")
		if env["refused"] != c.URL {
			t.Errorf("%s: refused %v, want %s", x.tool, env["refused"], c.URL)
		}
	}
	if n := ask.count(c.URL); n != 0 {
		t.Errorf("%d questions named C, which no form said it went to", n)
	}
	if atA.count() != 0 {
		t.Errorf("A received %d posts", atA.count())
	}

	// A form whose action is C: the question names C, NAVIGATE on C is
	// asked for (not held), and the form reaches C once.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/toC"}), "ok")
	asked := len(ask.asked)
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "#send", "submits": true}), "ok")
	waitFor(t, "the post to C", 10*time.Second, func() bool { return atC.count() == 1 })
	ask.mu.Lock()
	qs := append([]string(nil), ask.asked[asked:]...)
	ask.mu.Unlock()
	var submitQ, navigateQ int
	for _, q := range qs {
		if strings.Contains(q, "send a form (once) from "+a.URL) && strings.Contains(q, "goes to "+c.URL) {
			submitQ++
		}
		if strings.Contains(q, "open and use "+c.URL) {
			navigateQ++
		}
	}
	if submitQ != 1 || navigateQ != 1 {
		t.Errorf("questions %q: want one SUBMIT naming C and one NAVIGATE for C", qs)
	}

	// With NAVIGATE on C held, only the send is asked for, naming C.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/toC"}), "ok")
	asked = len(ask.asked)
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "#send", "submits": true}), "ok")
	waitFor(t, "the second post to C", 10*time.Second, func() bool { return atC.count() == 2 })
	ask.mu.Lock()
	qs = append([]string(nil), ask.asked[asked:]...)
	ask.mu.Unlock()
	if len(qs) != 1 || !strings.Contains(qs[0], "goes to "+c.URL) {
		t.Errorf("with NAVIGATE on C held, questions %q: want the one SUBMIT naming C", qs)
	}
}

// TestLyradBindingsAreNotThePages: the two bindings lyrad's world reports
// through (a real press for takeover, a checked send for save_draft) are
// not the page's to call. A hostile page looks for them in its own world
// all through a save_draft whose send it turns public, and tries to vouch
// for its own send; the site counts what the page found and what it got.
func TestLyradBindingsAreNotThePages(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	saves := &postSink{}
	a.handle("/save", saves.handler)
	var mu sync.Mutex
	found := map[string]int{}
	a.handle("/probe", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		found[r.URL.Query().Get("b")+"="+r.URL.Query().Get("t")]++
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	a.page("/edit", draftForm("/save", "application/x-www-form-urlencoded", `
const names = [`+fmt.Sprintf("%q, %q", "__lyradInput", "lyradSendChecked")+`];
const probe = () => { for (const b of names) { const f = window[b]; try { if (typeof f === "function") f("{}"); } catch (e) {} new Image().src = "/probe?b=" + b + "&t=" + typeof f; } };
probe();
setInterval(probe, 50);
document.getElementById("f").addEventListener("submit", () => {
	probe();
	document.querySelector("input[name=is_draft][value='0']").checked = true;
});`))
	ask := &asker{}
	cs := connectAsking(t, t.TempDir(), proto2026, ask.handle)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/edit"}), "ok")
	env := call(t, cs, "save_draft", map[string]any{"submit": "Save draft"})
	wantStatus(t, env, "not_private")
	// A probe the page sends after the call's answer shows it kept looking.
	before := func() int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, c := range found {
			n += c
		}
		return n
	}()
	waitFor(t, "the page's probes after the call", 20*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, c := range found {
			n += c
		}
		return n >= before+4
	})
	mu.Lock()
	defer mu.Unlock()
	t.Logf("the page's probes: %v; POSTs at the site %d", found, saves.count())
	for k := range found {
		if !strings.HasSuffix(k, "=undefined") {
			t.Errorf("the page found lyrad's binding: %s", k)
		}
	}
	if found["__lyradInput=undefined"] == 0 || found["lyradSendChecked=undefined"] == 0 {
		t.Errorf("the page's probes did not arrive: %v", found)
	}
	if n := saves.count(); n != 0 {
		t.Errorf("%d POSTs reached the site, want 0: %v", n, saves.carried("is_draft"))
	}
}
