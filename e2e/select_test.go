package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestSelectOption: a <select> chosen by value, label and index fires the
// page's change listener; bad input is refused before anything happens;
// not a select, no such option and a disabled option each answer with the
// reason; a choice that posts the form is stopped unless declared.
func TestSelectOption(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.handle("/post", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>posted</title>")
	})
	s.page("/", `<!doctype html><title>start</title>
<select id=country onchange="document.title = 'chose ' + this.value">
  <option value="">Pick one</option><option value="de">Germany</option><option value="fr">France</option>
  <option value="xx" disabled>Nowhere</option>
</select>
<form method=post action="/post"><select id=auto name=a onchange="this.form.submit()"><option>one</option><option>two</option></select></form>
<button id=btn>Not a list</button>`)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")

	for _, c := range []struct {
		args  map[string]any
		value string
	}{
		{map[string]any{"value": "de"}, "de"},
		{map[string]any{"label": "France"}, "fr"},
		{map[string]any{"index": int64(1)}, "de"},
	} {
		c.args["selector"] = "#country"
		env := call(t, cs, "select_option", c.args)
		wantStatus(t, env, "ok")
		sel, _ := env["selected"].(map[string]any)
		if sel["value"] != c.value {
			t.Errorf("%v: selected %v", c.args, sel)
		}
		if got := call(t, cs, "get_url", nil)["title"]; got != "chose "+c.value {
			t.Errorf("%v: the page's change listener saw %v", c.args, got)
		}
	}

	for _, bad := range []map[string]any{
		{"selector": "#country"},
		{"selector": "#country", "value": "de", "label": "Germany"},
		{"selector": "#country", "index": int64(-1)},
	} {
		if env := call(t, cs, "select_option", bad); env["status"] != "error" || env["argument"] == nil {
			t.Errorf("%v: %v, want an error naming the argument", bad, env)
		}
	}
	if env := call(t, cs, "select_option", map[string]any{"selector": "#btn", "value": "x", "timeout_ms": int64(500)}); env["status"] != "element_not_actionable" {
		t.Errorf("a button: %v", env)
	}
	if env := call(t, cs, "select_option", map[string]any{"selector": "#country", "value": "it"}); env["status"] != "not_found" || env["choices"] == nil {
		t.Errorf("no such option: %v", env)
	}
	if env := call(t, cs, "select_option", map[string]any{"selector": "#country", "label": "Nowhere"}); env["status"] != "disabled" {
		t.Errorf("a disabled option: %v", env)
	}

	// Choosing posts the form: stopped when undeclared, sent when declared.
	env := call(t, cs, "select_option", map[string]any{"selector": "#auto", "label": "two"})
	waitFor(t, "the undeclared post's refusal", 15*time.Second, func() bool { return len(refusals(t, dir, "/post")) >= 1 })
	if s.count("/post") != 0 || (env["status"] != "blocked_by_policy" && env["status"] != "ok") {
		t.Errorf("undeclared: %v, server saw %d", env, s.count("/post"))
	}
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	wantStatus(t, call(t, cs, "select_option", map[string]any{"selector": "#auto", "label": "two", "submits": true}), "ok")
	waitFor(t, "the declared post", 5*time.Second, func() bool { return s.count("/post") == 1 })
}
