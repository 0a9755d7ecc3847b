package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The form tools that act, against the loopback CMS (cms_test.go), with
// the user asked through the client. Each send is proven at the server:
// how many POSTs reached it and what they carried.

// asker answers consent questions as told and remembers them.
type asker struct {
	mu      sync.Mutex
	asked   []string
	decline string // a question containing this is declined
}

func (a *asker) handle(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req.Params.Message)
	if a.decline != "" && strings.Contains(req.Params.Message, a.decline) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
}

func (a *asker) count(word string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, m := range a.asked {
		if strings.Contains(m, word) {
			n++
		}
	}
	return n
}

func (a *asker) set(decline string) {
	a.mu.Lock()
	a.decline = decline
	a.mu.Unlock()
}

func TestFormToolsEndToEnd(t *testing.T) {
	parallel(t)
	needBrowser(t)
	c := newCMS(t)
	root := t.TempDir()
	photo := filepath.Join(root, "photo.txt")
	photoBytes := bytes.Repeat([]byte("PHOTO-BYTES\n"), 1000)
	must(t, os.WriteFile(photo, photoBytes, 0o600))
	must(t, os.MkdirAll(filepath.Join(root, ".ssh"), 0o700))
	key := filepath.Join(root, ".ssh", "id_ed25519")
	must(t, os.WriteFile(key, []byte("PRIVATE KEY"), 0o600))
	link := filepath.Join(root, "innocent.txt")
	must(t, os.Symlink(key, link))
	outside := filepath.Join(t.TempDir(), "elsewhere.txt")
	must(t, os.WriteFile(outside, []byte("x"), 0o600))

	ask := &asker{}
	dir := t.TempDir()
	cs := connectAsking(t, dir, proto2026, ask.handle, "LYRA_BROWSER_UPLOAD_ROOTS="+root, "LYRA_BROWSER_CONSENT_TIMEOUT=120")
	do := func(name string, args map[string]any) map[string]any { t.Helper(); return call(t, cs, name, args) }
	const body = "The exact body, with <b>no</b> markup & one line."

	wantStatus(t, do("navigate", map[string]any{"url": c.URL + "/edit"}), "ok")
	fill := func(title string) {
		t.Helper()
		wantStatus(t, do("type_text", map[string]any{"selector": "#title", "text": title}), "ok")
		env := do("set_editor", map[string]any{"content": body})
		wantStatus(t, env, "ok")
		if env["synced_field"] != "body" || env["written"] != float64(len(body)) {
			t.Errorf("set_editor: %v", env)
		}
	}
	fill("Hello world")

	// upload_file: paths are checked before anything is asked.
	asked := len(ask.asked)
	env := do("upload_file", map[string]any{"selector": "#image", "paths": []any{photo, filepath.Join(root, "nope.txt")}})
	wantStatus(t, env, "error")
	if m, _ := env["missing"].([]any); len(m) != 1 {
		t.Errorf("missing path: %v", env)
	}
	for _, p := range []string{outside, link, key} {
		env = do("upload_file", map[string]any{"selector": "#image", "paths": []any{p}})
		wantStatus(t, env, "error")
		if r, _ := env["refused"].([]any); len(r) != 1 {
			t.Errorf("%s was not refused: %v", p, env)
		}
	}
	if len(ask.asked) != asked {
		t.Errorf("a refused upload asked the user: %v", ask.asked[asked:])
	}
	// Asked on every call.
	wantStatus(t, do("upload_file", map[string]any{"selector": "#image", "paths": []any{photo}}), "ok")
	wantStatus(t, do("upload_file", map[string]any{"selector": "#image", "paths": []any{photo}}), "ok")
	if n := ask.count("give a file"); n != 2 {
		t.Errorf("UPLOAD asked %d times for two uploads", n)
	}

	// save_draft: needs submit; refuses a page armed to publish; declined
	// sends nothing.
	wantStatus(t, do("save_draft", nil), "needs_submit")
	wantStatus(t, do("click", map[string]any{"selector": "input[name=is_draft][value='0']"}), "ok")
	env = do("save_draft", map[string]any{"submit": "#submit"})
	wantStatus(t, env, "not_private")
	wantStatus(t, do("click", map[string]any{"selector": "input[name=is_draft][value='1']"}), "ok")
	ask.set("send a form")
	env = do("save_draft", map[string]any{"submit": "#submit"})
	if env["status"] == "ok" {
		t.Fatalf("declined save_draft: %v", env)
	}
	if n := c.postCount(); n != 0 {
		t.Fatalf("%d POSTs before any send was approved", n)
	}
	ask.set("")
	env = do("save_draft", map[string]any{"submit": "#submit"})
	wantStatus(t, env, "ok")
	if env["published"] != false || c.postCount() != 1 || c.postsWith("is_draft", "1") != 1 {
		t.Fatalf("save_draft: %v, %d POSTs", env, c.postCount())
	}
	p, _ := c.lastPost()
	if p.field("is_draft") != "1" || p.field("title") != "Hello world" || !strings.Contains(p.field("body"), "The exact body, with &lt;b&gt;no&lt;/b&gt; markup &amp; one line.") {
		t.Errorf("the saved draft: is_draft=%q title=%q body=%q", p.field("is_draft"), p.field("title"), p.field("body"))
	}
	if f, ok := p.file("image"); !ok || !bytes.Equal(f.Data, photoBytes) {
		t.Errorf("the attachment did not arrive whole (%v)", ok)
	}
	if ask.count("make content public") != 0 {
		t.Error("save_draft asked for PUBLISH")
	}

	// publish: needs submit; declined sends nothing; accepted sends once
	// with the live state, and the prompt names the item.
	wantStatus(t, do("navigate", map[string]any{"url": c.URL + "/edit"}), "ok")
	fill("Going live")
	wantStatus(t, do("publish", map[string]any{"selector": "input[name=is_draft][value='0']"}), "needs_submit")
	ask.set("make content public")
	env = do("publish", map[string]any{"selector": "input[name=is_draft][value='0']", "submit": "#submit"})
	if env["status"] == "ok" || c.postCount() != 1 {
		t.Fatalf("declined publish: %v, %d POSTs", env, c.postCount())
	}
	ask.set("")
	env = do("publish", map[string]any{"selector": "input[name=is_draft][value='0']", "submit": "#submit"})
	wantStatus(t, env, "ok")
	if env["published"] != true || c.postCount() != 2 {
		t.Fatalf("publish: %v, %d POSTs", env, c.postCount())
	}
	if p, _ := c.lastPost(); p.field("is_draft") != "0" || p.field("title") != "Going live" {
		t.Errorf("the published item: is_draft=%q title=%q", p.field("is_draft"), p.field("title"))
	}
	publishAsks := 0
	for _, m := range ask.asked {
		if strings.Contains(m, "make content public") {
			publishAsks++
			if !strings.Contains(m, "Going live") {
				t.Errorf("the PUBLISH prompt does not name the item: %q", m)
			}
		}
	}
	if publishAsks != 2 {
		t.Errorf("PUBLISH asked %d times for two calls", publishAsks)
	}

	// The site's refusal comes back as refused, with its message.
	wantStatus(t, do("navigate", map[string]any{"url": c.URL + "/edit"}), "ok")
	env = do("save_draft", map[string]any{"submit": "#submit"})
	wantStatus(t, env, "refused")
	if env["alert"] != cmsRefusal || c.postCount() != 3 {
		t.Errorf("refusal: %v, %d POSTs", env, c.postCount())
	}

	// The audit has the upload's paths and sizes, and none of the values.
	rows := auditRows(t, dir)
	text := jsonString(rows)
	for _, secret := range []string{"The exact body", "Hello world", "Going live"} {
		if strings.Contains(text, secret) {
			t.Errorf("the audit trail holds %q", secret)
		}
	}
	uploads := rowsWhere(rows, has{"tool": "upload_file", "status": "ok"})
	if len(uploads) != 2 || !strings.Contains(jsonString(uploads), photo) || !strings.Contains(jsonString(uploads), "12000") {
		t.Errorf("upload rows: %s", jsonString(uploads))
	}
}

// The same flow through confirm=true, for a client that cannot be asked.
func TestFormToolsLegacyConsent(t *testing.T) {
	parallel(t)
	needBrowser(t)
	c := newCMS(t)
	dir := t.TempDir()
	cs := connectAsking(t, dir, proto2026, nil)
	do := func(name string, args map[string]any) map[string]any { t.Helper(); return call(t, cs, name, args) }
	wantStatus(t, do("navigate", map[string]any{"url": c.URL + "/edit", "confirm": true}), "ok")
	wantStatus(t, do("type_text", map[string]any{"selector": "#title", "value": "Legacy", "confirm": true}), "ok")
	env := do("save_draft", map[string]any{"submit": "#submit"})
	if env["status"] == "ok" || c.postCount() != 0 {
		t.Fatalf("save_draft without confirm: %v, %d POSTs", env, c.postCount())
	}
	wantStatus(t, do("save_draft", map[string]any{"submit": "#submit", "confirm": true}), "ok")
	if p, _ := c.lastPost(); c.postCount() != 1 || p.field("is_draft") != "1" || p.field("title") != "Legacy" {
		t.Errorf("legacy save: %d POSTs, %v", c.postCount(), p.Fields)
	}
	wantStatus(t, do("navigate", map[string]any{"url": c.URL + "/edit", "confirm": true}), "ok")
	wantStatus(t, do("type_text", map[string]any{"selector": "#title", "text": "Legacy live", "confirm": true}), "ok")
	wantStatus(t, do("publish", map[string]any{"selector": "input[name=is_draft][value='0']", "submit": "#submit", "confirm": true}), "ok")
	if p, _ := c.lastPost(); c.postCount() != 2 || p.field("is_draft") != "0" {
		t.Errorf("legacy publish: %d POSTs, %v", c.postCount(), p.Fields)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A hostile page keeps a private decoy form first and arms the form the
// submit control really sends: save_draft reads the state of the form it
// would send, answers not_private, and nothing reaches the server.
func TestSaveDraftReadsTheFormItSends(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/edit", `<!doctype html><title>edit</title>
<form id=decoy action="/save" method=post><label><input type=radio name=is_draft value=1 checked> Draft</label><label><input type=radio name=is_draft value=0> Publish</label></form>
<form id=real action="/save" method=post><input name=title value=x>
<label><input type=radio name=is_draft value=1> Draft</label><label><input type=radio name=is_draft value=0 checked> Publish</label>
<button id=send>Submit</button></form>`)
	s.page("/save", `<!doctype html><title>saved</title>`)
	a := &actor{t: t, cs: connectStdio(t, t.TempDir(), proto2026), dir: t.TempDir()}
	a.open(s.URL + "/edit")
	env := a.call("save_draft", map[string]any{"submit": "#send"})
	wantStatus(t, env, "not_private")
	if n := s.count("/save"); n != 0 {
		t.Fatalf("%d requests reached /save", n)
	}
	// The control: the decoy's own submit is private and is sent.
	wantStatus(t, a.call("click", map[string]any{"selector": "#real input[value='1']"}), "ok")
	wantStatus(t, a.call("save_draft", map[string]any{"submit": "#send", "confirm": true}), "ok")
	if n := s.count("/save"); n != 1 {
		t.Fatalf("the private send reached /save %d times", n)
	}
}
