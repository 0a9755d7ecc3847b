package e2e

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// cms is a loopback back office, modelled on a real CMS's news-item form:
// a title, a CKEditor 4-like iframe editor whose hidden
// textarea fills only when CKEDITOR.instances.body.updateElement() runs (no
// submit hook: a test that sees the body posted proves the sync), an inline
// contenteditable, a ProseMirror-like div, an is_draft radio pair that opens
// on Draft, a <select>, a required summary (filled, so a send is not
// stopped by the browser's own validation), a hidden file input, a password field, a field in
// an open shadow root, and a submit button. The server records every POST
// with its fields and file bytes, and refuses one without a title by
// answering the form again with an error message in #alert.
//
// Paths: /edit (the form), /save (the form's action), /done (after a save).
type cms struct {
	*site
	frame *site // optional cross-site frame inside the form (withPriceFrame)

	mu    sync.Mutex
	posts []cmsPost
}

// cmsPost is one POST to /save.
type cmsPost struct {
	Fields  map[string][]string
	Files   []cmsFile
	Refused bool // the server answered with its error message
}

// cmsFile is one file part of a POST.
type cmsFile struct {
	Field, Name string
	Data        []byte
}

// cmsRefusal is what the server says when the title is missing.
const cmsRefusal = "Add a title: the item was not saved."

func newCMS(t *testing.T) *cms {
	t.Helper()
	c := &cms{site: newSite(t, "127.0.0.1")}
	c.handle("/edit", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, c.form(""))
	})
	c.handle("/save", c.save)
	c.page("/done", `<!doctype html><title>Saved</title><h1>Saved</h1>`)
	return c
}

// withPriceFrame puts a cross-site (out-of-process) iframe with a price
// field inside the form.
func (c *cms) withPriceFrame(t *testing.T) *cms {
	t.Helper()
	c.frame = newSite(t, "127.0.0.2")
	c.frame.page("/price", `<!doctype html><title>price</title><label>Price <input name="price" value="9.99"></label>`)
	return c
}

// form renders the edit page, with alert as the server's message.
func (c *cms) form(alert string) string {
	frame := ""
	if c.frame != nil {
		frame = fmt.Sprintf(`<iframe id="pricebox" src="%s/price" width="300" height="60"></iframe>`, c.frame.URL)
	}
	alertBox := ""
	if alert != "" {
		alertBox = `<div id="alert" class="alertbox" role="alert">` + html.EscapeString(alert) + `</div>`
	}
	return `<!doctype html><title>Edit news item</title>
<header><input name="q" aria-label="Search the site"></header>
` + alertBox + `
<form id="item" method="post" action="/save" enctype="multipart/form-data">
<input type="hidden" name="csrf" value="CSRF-SECRET-TOKEN">
<p><label for="title">Title</label> <input id="title" name="title"></p>
<p><label>Summary <input name="summary" value="A short summary" required></label> <label>Subtitle <input name="subtitle"></label></p>
<textarea id="body" name="body" style="display:none"></textarea>
<div id="cke_body" class="cke cke_reset cke_editor_body"><iframe class="cke_wysiwyg_frame cke_reset" title="Rich Text Editor, body" style="width:500px;height:120px"></iframe></div>
<div id="teaser" contenteditable="true" style="min-height:30px;border:1px solid #999">Teaser here</div>
<div id="notes" class="ProseMirror" contenteditable="true" style="min-height:30px;border:1px solid #999"><p>Notes here</p></div>
<p><label>Category <select name="category"><option value="">Choose</option><option value="news" selected>News</option><option value="offer">Deal/Offer</option><option value="event">Event</option></select></label></p>
<p><label>Country <select name="country">` + cmsCountries() + `</select></label></p>
<p><label><input type="checkbox" name="featured" value="1"> Featured</label> <label><input type="checkbox" name="notify" value="1" checked> Notify subscribers</label></p>
<p><label><input type="radio" name="is_draft" value="1" checked> Draft</label> <label><input type="radio" name="is_draft" value="0"> Publish</label></p>
<p><label class="picker">Image <input type="file" id="image" name="image" accept=".jpg,.png,.txt" multiple style="display:none"></label></p>
<p><label>API key <input type="password" name="api_key" value="hunter2-SECRET"></label></p>
<p><tag-picker id="tags"></tag-picker></p>
` + frame + `
<button type="submit" id="submit">Submit</button>
</form>
<script>
// A CKEditor 4 stand-in: an editable iframe body, and the textarea the
// form posts, filled only by updateElement().
(function () {
  const ta = document.getElementById('body');
  const frame = document.querySelector('#cke_body iframe');
  const doc = frame.contentDocument;
  doc.open();
  doc.write('<!doctype html><html><body class="cke_editable cke_editable_themed" contenteditable="true"><p>Start here</p></body></html>');
  doc.close();
  const editable = () => frame.contentDocument.body;
  window.CKEDITOR = {instances: {body: {
    name: 'body', element: {$: ta},
    editable: () => ({$: editable()}),
    getData: () => editable().innerHTML,
    setData: html => { editable().innerHTML = html; },
    updateElement() { ta.value = this.getData(); },
  }}};
  const host = document.getElementById('tags');
  host.attachShadow({mode: 'open'}).innerHTML = '<label>Tags <input name="tags" value="go, cdp"></label>';
})();
</script>`
}

// cmsCountries is a <select> with more options than read_form lists (60).
func cmsCountries() string {
	var b strings.Builder
	for i := 1; i <= 80; i++ {
		fmt.Fprintf(&b, `<option value="c%d">Country %d</option>`, i, i)
	}
	return b.String()
}

// save records the POST and answers: the form again with the error
// message when the title is missing, else a redirect to /done.
func (c *cms) save(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	p := cmsPost{Fields: map[string][]string{}}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
		if err := r.ParseMultipartForm(32 << 20); err == nil {
			for k, v := range r.MultipartForm.Value {
				p.Fields[k] = v
			}
			for field, hs := range r.MultipartForm.File {
				for _, h := range hs {
					f, err := h.Open()
					if err != nil {
						continue
					}
					data, _ := io.ReadAll(f)
					f.Close()
					p.Files = append(p.Files, cmsFile{Field: field, Name: h.Filename, Data: data})
				}
			}
		}
	} else if err := r.ParseForm(); err == nil {
		for k, v := range r.PostForm {
			p.Fields[k] = v
		}
	}
	p.Refused = strings.TrimSpace(first(p.Fields["title"])) == ""
	c.mu.Lock()
	c.posts = append(c.posts, p)
	c.mu.Unlock()
	if p.Refused {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, c.form(cmsRefusal))
		return
	}
	http.Redirect(w, r, "/done", http.StatusSeeOther)
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// postCount is how many POSTs reached /save.
func (c *cms) postCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.posts)
}

// lastPost is the latest POST to /save; ok is false when none came.
func (c *cms) lastPost() (p cmsPost, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.posts) == 0 {
		return cmsPost{}, false
	}
	return c.posts[len(c.posts)-1], true
}

// postsWith counts the POSTs whose field holds value (is_draft=1, say).
func (c *cms) postsWith(field, value string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, p := range c.posts {
		for _, v := range p.Fields[field] {
			if v == value {
				n++
				break
			}
		}
	}
	return n
}

// field is a POST's first value of a field.
func (p cmsPost) field(name string) string { return first(p.Fields[name]) }

// file is a POST's first file part of a field; ok is false when none.
func (p cmsPost) file(field string) (cmsFile, bool) {
	for _, f := range p.Files {
		if f.Field == field && f.Name != "" {
			return f, true
		}
	}
	return cmsFile{}, false
}
