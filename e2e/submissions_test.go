package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// formSite serves the forms of four undeclared submissions and a
// declared one; every POST to /submit is counted.
func formSite(t *testing.T) *site {
	s := newSite(t, "127.0.0.1")
	s.handle("/submit", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<title>sent %s</title>sent", r.Method)
	})
	const form = `<form id=f method=post action="/submit"><input name=q id=q>%s</form>`
	s.page("/space", fmt.Sprintf(`<!doctype html><title>space</title>`+form, `<button id=go autofocus>Send</button><script>document.getElementById("go").focus()</script>`))
	s.page("/button", fmt.Sprintf(`<!doctype html><title>button</title>`+form, `<button type=button id=go onclick="document.getElementById('f').submit()">Looks inert</button>`))
	s.page("/input", `<!doctype html><title>input</title><form id=f method=post action="/submit"><input name=q id=q oninput="this.form.submit()"></form>`)
	s.page("/flip", fmt.Sprintf(`<!doctype html><title>flip</title>`+form, `<button type=button id=go onmousedown="this.type='submit'">Harmless</button>`))
	s.page("/declared", fmt.Sprintf(`<!doctype html><title>declared</title>`+form, `<button id=go>Send</button>`))
	return s
}

// TestUndeclaredSubmissionsStopped: four ways a page sends a
// form the agent never declared (the space key on a submit button,
// form.submit() from a type=button, an oninput listener, a type attribute
// flipped after the check) are stopped where the request leaves; the same
// form declared with submits=true goes through.
func TestUndeclaredSubmissionsStopped(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := formSite(t)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)
	cases := []struct {
		name, page string
		act        func() map[string]any
	}{
		{"space key", "/space", func() map[string]any { return call(t, cs, "press_key", map[string]any{"key": " "}) }},
		{"form.submit() from a type=button", "/button", func() map[string]any {
			return call(t, cs, "click", map[string]any{"selector": "#go"})
		}},
		{"oninput listener", "/input", func() map[string]any {
			return call(t, cs, "type_text", map[string]any{"selector": "#q", "text": "x"})
		}},
		{"attribute flipped after the check", "/flip", func() map[string]any {
			return call(t, cs, "click", map[string]any{"selector": "#go"})
		}},
	}
	for _, c := range cases {
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + c.page}), "ok")
		env := c.act()
		time.Sleep(300 * time.Millisecond)
		if s.count("/submit") != 0 {
			t.Fatalf("%s: the undeclared form reached the server", c.name)
		}
		// The refusal is what matters; the reply says blocked_by_policy when
		// the page sent within the call's window (on a loaded machine a
		// key's effect can land after the reply, and then only the trail
		// has it).
		if env["url"] != s.URL+c.page || (env["status"] != "blocked_by_policy" && env["status"] != "ok") {
			t.Errorf("%s: %v, want the tab where it was", c.name, env)
		}
		t.Logf("%s: %v, server saw %d posts", c.name, env["status"], s.count("/submit"))
	}
	refused := len(refusals(t, dir, "/submit"))
	if refused != len(cases) {
		t.Errorf("%d refused posts in the audit, want %d", refused, len(cases))
	}
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/declared"}), "ok")
	env := call(t, cs, "click", map[string]any{"selector": "#go", "submits": true})
	wantStatus(t, env, "ok")
	waitFor(t, "the declared form to arrive", 5*time.Second, func() bool { return s.count("/submit") == 1 })
	if got := call(t, cs, "get_url", nil); got["title"] != "sent POST" {
		t.Errorf("after the declared submit: %v", got)
	}
	// The credit was spent: the same click again, undeclared, is stopped.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/declared"}), "ok")
	if env := call(t, cs, "click", map[string]any{"selector": "#go"}); env["status"] != "blocked_by_policy" || s.count("/submit") != 1 {
		t.Errorf("an undeclared repeat: %v, server saw %d", env, s.count("/submit"))
	}
}

// TestRedirectsWithABody: a declared form post that the server answers with
// a redirect to an unapproved origin: 307/308 repeat the body (a second
// send, which nothing paid for), 301/302/303 turn it into a GET elsewhere
// (leaving). Every hop is refused before it leaves.
func TestRedirectsWithABody(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	b.handle("/landing", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "landed") })
	a.handle("/post", func(w http.ResponseWriter, r *http.Request) {
		code := 307
		fmt.Sscan(r.URL.Query().Get("code"), &code)
		http.Redirect(w, r, b.URL+"/landing?leak=1", code)
	})
	a.handle("/form", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>form</title><form method=post action="/post?code=%s"><input name=card value=4111><button id=go>Pay</button></form>`, r.URL.Query().Get("code"))
	})
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)
	for _, code := range []int{301, 302, 303, 307, 308} {
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": fmt.Sprintf("%s/form?code=%d", a.URL, code)}), "ok")
		env := call(t, cs, "click", map[string]any{"selector": "#go", "submits": true})
		if env["status"] != "blocked_by_policy" || env["redirected_to"] != b.URL || strings.Contains(fmt.Sprint(env), "leak") {
			t.Errorf("%d after a POST: %v, want blocked_by_policy redirected_to %s", code, env, b.URL)
		}
	}
	if n := b.count("/landing"); n != 0 {
		t.Errorf("the unapproved destination was reached %d times", n)
	}
	t.Logf("POST then 301/302/303/307/308 to an unapproved origin: destination reached %d times; the sending site saw %d posts", b.count("/landing"), a.count("/post"))
}
