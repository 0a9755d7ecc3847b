package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/page"
)

// The page functions set_editor and save_draft are built on, driven
// straight over CDP against the CMS fixture (no lyrad, no guard): the
// editor found without a selector is the CKEditor iframe; writing it fills
// the hidden textarea the form posts, and the POST carries the exact
// markup; text is written as text, not parsed; the publish state reads
// private on Draft and not on Publish.
func TestFormPageFunctions(t *testing.T) {
	parallel(t)
	needBrowser(t)
	c := newCMS(t)
	conn, closeBrowser := plainChromium(t, true)
	defer closeBrowser()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tg, err := cdp.Call(ctx, conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	flatten := true
	att, err := cdp.Call(ctx, conn.Browser(), target.AttachToTarget, target.AttachToTargetParams{TargetID: tg.TargetID, Flatten: &flatten})
	if err != nil {
		t.Fatal(err)
	}
	s := conn.Session(att.SessionID)
	if _, err := cdp.Call(ctx, s, cdppage.Navigate, cdppage.NavigateParams{URL: c.URL + "/edit"}); err != nil {
		t.Fatal(err)
	}
	var w page.Worlds
	frame := cdp.FrameID(tg.TargetID)
	eval := func(fn string, out any, args ...any) {
		t.Helper()
		if err := w.CallFunction(ctx, s, frame, fn, out, args...); err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
	}
	waitFor(t, "the form and its editor", 20*time.Second, func() bool {
		var ready bool
		_ = w.CallFunction(ctx, s, frame, `function(){ const f = document.querySelector('#cke_body iframe');
			return document.readyState === 'complete' && !!f && !!f.contentDocument.body; }`, &ready)
		return ready
	})

	// No selector: the first editor is the CKEditor iframe.
	ed, err := page.FindEditor(ctx, conn, &w, page.FrameRef{Session: att.SessionID, Frame: frame})
	if err != nil || ed == 0 {
		t.Fatalf("FindEditor: %v, %v", ed, err)
	}
	group := page.NewActGroup()
	defer page.ReleaseHandles(conn, group, att.SessionID)
	const markup = `<p>Hello <b>world</b> &amp; you</p>`
	r, err := page.WriteEditor(ctx, conn, &w, page.NewNode(att.SessionID, frame, ed, group), markup, true)
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != "ckeditor" || r.SyncedField != "body" || r.SyncedEditor != "body" || r.FieldChars != len(markup) || r.Surface != "#cke_body > iframe.cke_wysiwyg_frame > body" {
		t.Errorf("html write: %+v", r)
	}
	var posted string
	eval(`function(){ return document.getElementById('body').value; }`, &posted)
	if posted != markup {
		t.Errorf("the textarea holds %q, want %q", posted, markup)
	}

	// Text is written as text: markup in it is not parsed.
	node := func(sel string) *page.Node {
		t.Helper()
		b, err := page.FindNode(ctx, conn, &w, att.SessionID, frame, `function(s){ return document.querySelector(s); }`, sel)
		if err != nil || b == 0 {
			t.Fatalf("%s: %v %v", sel, b, err)
		}
		return page.NewNode(att.SessionID, frame, b, group)
	}
	const plain = "Plain <b>not bold</b>"
	for _, sel := range []string{"#teaser", "#notes"} {
		r, err := page.WriteEditor(ctx, conn, &w, node(sel), plain, false)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Text string `json:"text"`
			Bold int    `json:"bold"`
		}
		eval(`function(s){ const e = document.querySelector(s); return {text: e.innerText.trim(), bold: e.querySelectorAll('b').length}; }`, &got, sel)
		if got.Text != plain || got.Bold != 0 || r.SyncedField != "" || r.Written != len(plain) {
			t.Errorf("%s: %+v, holds %+v", sel, r, got)
		}
	}
	// An element that is no editor is said to be none.
	if r, err := page.WriteEditor(ctx, conn, &w, node("#title"), "x", false); err != nil || !r.NotEditor {
		t.Errorf("#title: %+v %v", r, err)
	}

	// The publish state: Draft reads private, Publish does not.
	st, err := page.ReadPublishState(ctx, &w, s, frame)
	if err != nil || len(st) != 1 || st[0].Label != "Draft" || !page.StateIsPrivate(st) {
		t.Errorf("state on Draft: %+v %v", st, err)
	}
	eval(`function(){ document.querySelector('input[name=is_draft][value="0"]').click(); }`, nil)
	st, err = page.ReadPublishState(ctx, &w, s, frame)
	if err != nil || len(st) != 1 || st[0].Label != "Publish" || page.StateIsPrivate(st) {
		t.Errorf("state on Publish: %+v %v", st, err)
	}
	eval(`function(){ document.querySelector('input[name=is_draft][value="1"]').click(); }`, nil)

	// What the form posts is what the editor shows.
	eval(`function(){ document.getElementById('title').value = 'Spring sale'; document.getElementById('item').requestSubmit(); }`, nil)
	waitFor(t, "the POST", 20*time.Second, func() bool { return c.postCount() == 1 })
	p, _ := c.lastPost()
	if p.field("body") != markup || p.field("title") != "Spring sale" || p.field("is_draft") != "1" || p.Refused {
		t.Errorf("posted %+v", p.Fields)
	}
	waitFor(t, "the saved page", 20*time.Second, func() bool {
		a, err := page.ReadAfterSend(ctx, &w, s, frame)
		return err == nil && !a.FormPresent && !a.Refused
	})

	// A send the server refuses reads back as refused, with its message.
	if _, err := cdp.Call(ctx, s, cdppage.Navigate, cdppage.NavigateParams{URL: c.URL + "/edit"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the form again", 20*time.Second, func() bool {
		var ready bool
		_ = w.CallFunction(ctx, s, frame, `function(){ return document.readyState === 'complete' && !!document.getElementById('item'); }`, &ready)
		return ready
	})
	if a, err := page.ReadAfterSend(ctx, &w, s, frame); err != nil || a.Refused || !a.FormPresent {
		t.Errorf("the fresh form reads %+v %v", a, err)
	}
	eval(`function(){ document.getElementById('item').requestSubmit(); }`, nil)
	waitFor(t, "the refused POST", 20*time.Second, func() bool { return c.postCount() == 2 })
	var a *page.AfterSend
	waitFor(t, "the refusal on the page", 20*time.Second, func() bool {
		a, err = page.ReadAfterSend(ctx, &w, s, frame)
		return err == nil && a.Refused
	})
	if p, _ := c.lastPost(); !p.Refused || a.Alert != cmsRefusal || !a.FormPresent || len(a.Errors) != 1 {
		t.Errorf("refused send: post %+v, page %+v", p.Refused, a)
	}

	// The other editors a page may carry: TinyMCE (an iframe beside the
	// textarea it posts), Quill, and a page whose only editor is
	// ProseMirror, found without a selector.
	c.page("/editors", `<!doctype html><title>editors</title><form>
<textarea id="content" name="content" style="display:none"></textarea>
<div class="tox tox-tinymce"><iframe id="content_ifr" class="tox-edit-area__iframe"></iframe></div>
<div class="ql-container"><div class="ql-editor" contenteditable="true"><p>Quill text</p></div></div>
</form><script>
const d = document.getElementById('content_ifr').contentDocument;
d.open(); d.write('<body id="tinymce" class="mce-content-body" contenteditable="true"><p>Tiny text</p></body>'); d.close();
</script>`)
	c.page("/pm", `<!doctype html><title>pm</title><p>Intro</p><div class="ProseMirror" contenteditable="true"><p>PM</p></div>`)
	open := func(path string) {
		t.Helper()
		if _, err := cdp.Call(ctx, s, cdppage.Navigate, cdppage.NavigateParams{URL: c.URL + path}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, path, 20*time.Second, func() bool {
			var ready bool
			_ = w.CallFunction(ctx, s, frame, `function(p){ return location.pathname === p && document.readyState === 'complete'; }`, &ready, path)
			return ready
		})
	}
	open("/editors")
	doc, err := page.ReadFormDoc(ctx, &w, s, frame, "", false, 200)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]page.FormEditor{}
	for _, e := range doc.Editors {
		kinds[e.Kind] = e
	}
	if e := kinds["tinymce"]; e.Content != "Tiny text" || e.Field != "content" || e.Selector != "#content_ifr" {
		t.Errorf("TinyMCE: %+v", e)
	}
	if e := kinds["quill"]; e.Content != "Quill text" || e.Field != "" {
		t.Errorf("Quill: %+v", e)
	}
	ed, err = page.FindEditor(ctx, conn, &w, page.FrameRef{Session: att.SessionID, Frame: frame})
	if err != nil || ed == 0 {
		t.Fatalf("FindEditor on /editors: %v %v", ed, err)
	}
	r, err = page.WriteEditor(ctx, conn, &w, page.NewNode(att.SessionID, frame, ed, group), "<p>New</p>", true)
	if err != nil || r.Kind != "tinymce" || r.SyncedField != "content" || r.FieldChars != len("<p>New</p>") {
		t.Errorf("TinyMCE write: %+v %v", r, err)
	}
	open("/pm")
	ed, err = page.FindEditor(ctx, conn, &w, page.FrameRef{Session: att.SessionID, Frame: frame})
	if err != nil || ed == 0 {
		t.Fatalf("FindEditor on /pm: %v %v", ed, err)
	}
	r, err = page.WriteEditor(ctx, conn, &w, page.NewNode(att.SessionID, frame, ed, group), "Line one", false)
	if err != nil || r.Kind != "prosemirror" || r.Surface != "div.ProseMirror" || r.SurfaceChars != len("Line one") {
		t.Errorf("ProseMirror write: %+v %v", r, err)
	}
}
