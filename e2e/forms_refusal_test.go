package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// A site's refusal written the ways sites write it: save_draft answers
// refused with the site's message. The server answers the form again with
// its reason in the markup of each kind; for the browser's own validation
// nothing is sent at all. A success page with the word "error" in its
// article, and a green "Draft saved." alert, is no refusal; nor is a
// fresh empty form answered after a save, though its required field is
// now invalid.

// refusalForm is the edit page; reason is the server's answer's markup
// (empty on the first load).
func refusalForm(kind, reason string) string {
	title := `<input id="title" name="title">`
	email := ""
	switch kind {
	case "aria-describedby":
		if reason != "" {
			title = `<input id="title" name="title" aria-invalid="true" aria-describedby="title-err">`
		}
	case "aria-errormessage":
		if reason != "" {
			title = `<input id="title" name="title" aria-invalid="true" aria-errormessage="title-msg">`
		}
	case "validation":
		email = `<p><label for="email">Email</label> <input id="email" name="email" type="email" required></p>`
	case "again":
		// Filled on the first load; the answer is a fresh form whose
		// required field is empty: no refusal, the send went through.
		value := ` value="a@example.test"`
		if reason != "" {
			value = ""
		}
		email = `<p><label for="email">Email</label> <input id="email" name="email" type="email" required` + value + `></p>`
	}
	return `<!doctype html><title>Edit</title>
<style>.error{color:#b00;border:1px solid #b00;padding:4px} .field-msg{color:#b00;font-size:12px}</style>
<h1>Edit item</h1>` + reason + `
<form id="item" method="post" action="/r/save?kind=` + kind + `">
<p><label for="title">Title</label> ` + title + `</p>` + messageFor(kind, reason) + email + `
<p><label><input type="radio" name="status" value="draft" checked> Draft</label> <label><input type="radio" name="status" value="live"> Published</label></p>
<button type="submit" id="save">Save draft</button>
</form>`
}

// messageFor is the message element a field's aria attribute points at.
func messageFor(kind, reason string) string {
	if reason == "" {
		return ""
	}
	switch kind {
	case "aria-describedby":
		return `<span id="title-err" class="field-msg">Use at most 80 characters.</span>`
	case "aria-errormessage":
		return `<div id="title-msg" class="field-msg">This title is already taken.</div>`
	}
	return ""
}

func TestSaveDraftRefusals(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	posts := 0
	reasons := map[string]string{
		"div-error":         `<div class="error">The item could not be saved: the slug is in use.</div>`,
		"label-error":       `<label class="error" for="title">Please enter a shorter title.</label>`,
		"role-alert":        `<p role="alert">Your session expired: sign in again.</p>`,
		"aria-describedby":  " ",
		"aria-errormessage": " ",
		"again":             `<div class="notice notice-success"><p>Saved. Add another?</p></div>`,
	}
	s.handle("/r/edit", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, refusalForm(r.URL.Query().Get("kind"), ""))
	})
	s.handle("/r/save", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		posts++
		s.mu.Unlock()
		kind := r.URL.Query().Get("kind")
		if kind == "ok" {
			http.Redirect(w, r, "/r/done", http.StatusSeeOther)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, refusalForm(kind, reasons[kind]))
	})
	s.page("/r/done", `<!doctype html><title>Saved</title>
<div class="alert alert-success" role="status">Draft saved.</div>
<div class="notice notice-success is-dismissible"><p>Post draft updated.</p></div>
<article><h2>How we fixed the error in the feed</h2><p>An error in the importer dropped every second item; the error is fixed.</p>
<p class="error-free">Three weeks error-free since.</p></article>
<form action="/r/edit"><label>Name <span class="error-star">*</span> <input name="n" value="x"></label>
<button type="button" class="btn btn-error">Delete this item</button> <a class="link-error" href="/r/edit">Report a problem</a></form>`)
	postCount := func() int { s.mu.Lock(); defer s.mu.Unlock(); return posts }

	ask := &asker{}
	cs := connectAsking(t, t.TempDir(), proto2026, ask.handle, "LYRA_BROWSER_CONSENT_TIMEOUT=120")
	for _, c := range []struct {
		kind, want string
		posts      int // how many POSTs the send makes
	}{
		{"div-error", "the slug is in use", 1},
		{"label-error", "Please enter a shorter title.", 1},
		{"aria-describedby", "Title: Use at most 80 characters.", 1},
		{"aria-errormessage", "Title: This title is already taken.", 1},
		{"role-alert", "Your session expired", 1},
		{"validation", "Email: ", 0},
		{"ok", "", 1},
		{"again", "", 1},
	} {
		t.Run(c.kind, func(t *testing.T) {
			before := postCount()
			wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/r/edit?kind=" + c.kind}), "ok")
			wantStatus(t, call(t, cs, "type_text", map[string]any{"selector": "#title", "text": "Spring fair"}), "ok")
			// By CSS, so that only the reading of the refusal is tested.
			env := call(t, cs, "save_draft", map[string]any{"submit": "#save"})
			if n := postCount() - before; n != c.posts {
				t.Errorf("%d POSTs, want %d", n, c.posts)
			}
			if c.want == "" {
				wantStatus(t, env, "ok")
				if env["errors"] != nil || env["alert"] != nil {
					t.Errorf("a success page read as errors: %v", env)
				}
				return
			}
			wantStatus(t, env, "refused")
			alert, _ := env["alert"].(string)
			t.Logf("%s: %s", c.kind, env["error"])
			if !strings.Contains(alert, c.want) || !strings.Contains(fmt.Sprint(env["error"]), c.want) {
				t.Errorf("alert %q, error %q; want %q in both (%v)", alert, env["error"], c.want, env)
			}
		})
	}
}
