package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// formField finds a field of a read_form answer by name.
func formField(env map[string]any, name string) map[string]any {
	fields, _ := env["fields"].([]any)
	for _, f := range fields {
		m, _ := f.(map[string]any)
		if m["name"] == name {
			return m
		}
	}
	return nil
}

// listOf is an answer's list of objects under key.
func listOf(env map[string]any, key string) []map[string]any {
	var out []map[string]any
	items, _ := env[key].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// read_form lists every field and option of the CMS form: the shadow
// root's field, the cross-site frame's field, the editors (the iframe
// editor's body included), the publish controls, and never a password's
// value or a hidden input's.
func TestReadFormCMS(t *testing.T) {
	parallel(t)
	needBrowser(t)
	c := newCMS(t).withPriceFrame(t)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": c.URL + "/edit", "wait_until": "load"}), "ok")
	var env map[string]any
	waitFor(t, "the cross-site frame's field in read_form", 15*time.Second, func() bool {
		env = call(t, cs, "read_form", nil)
		return env["status"] == "ok" && formField(env, "price") != nil
	})
	text := jsonString(env)
	t.Logf("read_form: %s", text)
	if env["scope"] != "form#item" {
		t.Errorf("scope %v, want form#item", env["scope"])
	}
	for _, secret := range []string{"hunter2", "CSRF-SECRET"} {
		if strings.Contains(text, secret) {
			t.Errorf("the answer shows %s", secret)
		}
	}
	for _, name := range []string{"title", "summary", "subtitle", "body", "category", "country", "featured", "notify", "is_draft", "image", "api_key", "tags", "price"} {
		if formField(env, name) == nil {
			t.Errorf("field %s not listed", name)
		}
	}
	if formField(env, "q") != nil {
		t.Error("a field outside the form is listed without whole_page")
	}
	if f := formField(env, "title"); f["label"] != "Title" || f["usable"] != true || f["value"] != "" || f["tag"] != "input" || f["type"] != "text" {
		t.Errorf("title: %v", f)
	}
	if f := formField(env, "summary"); f["required"] != true || f["label"] != "Summary" {
		t.Errorf("summary: %v", f)
	}
	if f := formField(env, "body"); f["usable"] != false || f["tag"] != "textarea" {
		t.Errorf("the hidden textarea: %v", f)
	}
	cat := formField(env, "category")
	opts, _ := cat["options"].([]any)
	var vals []string
	for _, o := range opts {
		vals = append(vals, fmt.Sprint(o.(map[string]any)["value"]))
	}
	if strings.Join(vals, ",") != ",news,offer,event" || cat["value"] != "news" {
		t.Errorf("category options %v, value %v", vals, cat["value"])
	}
	country := formField(env, "country")
	if o, _ := country["options"].([]any); len(o) != 60 || country["optionCount"] != float64(80) {
		t.Errorf("country: %d options listed, optionCount %v; want 60 of 80", len(o), country["optionCount"])
	}
	if f := formField(env, "image"); f["type"] != "file" || f["accept"] != ".jpg,.png,.txt" || f["multiple"] != true || f["usable"] != false {
		t.Errorf("file input: %v", f)
	}
	if f := formField(env, "api_key"); f["type"] != "password" || f["filled"] != true {
		t.Errorf("password: %v", f)
	} else if _, shown := f["value"]; shown {
		t.Errorf("password value shown: %v", f)
	}
	if f := formField(env, "tags"); f["value"] != "go, cdp" || f["label"] != "Tags" {
		t.Errorf("shadow root field: %v", f)
	}
	if f := formField(env, "price"); f["value"] != "9.99" || f["frame"] != "#pricebox" {
		t.Errorf("cross-site frame field: %v", f)
	}
	if f := formField(env, "featured"); f["checked"] != false {
		t.Errorf("featured: %v", f)
	}
	if env["hiddenCount"] != float64(1) {
		t.Errorf("hiddenCount %v, want 1", env["hiddenCount"])
	}
	kinds := map[string]map[string]any{}
	for _, e := range listOf(env, "editors") {
		kinds[e["kind"].(string)] = e
	}
	if e := kinds["ckeditor"]; e == nil || e["content"] != "Start here" || e["field"] != "body" || e["fieldChars"] != float64(0) {
		t.Errorf("the CKEditor: %v", e)
	}
	if e := kinds["contenteditable"]; e == nil || e["content"] != "Teaser here" || e["selector"] != "#teaser" {
		t.Errorf("the contenteditable: %v", e)
	}
	if e := kinds["prosemirror"]; e == nil || e["content"] != "Notes here" {
		t.Errorf("the ProseMirror div: %v", e)
	}
	if n := len(listOf(env, "editors")); n != 3 {
		t.Errorf("%d editors, want 3 (the iframe body is not listed twice)", n)
	}
	drafts := listOf(env, "drafts")
	if len(drafts) != 2 || drafts[0]["label"] != "Draft" || drafts[0]["checked"] != true || drafts[1]["selector"] != `input[name="is_draft"][value="0"]` {
		t.Errorf("drafts: %v", drafts)
	}
	if jsonString(env["state"]) != `["Draft"]` || !strings.Contains(jsonString(env["submitText"]), "Submit") {
		t.Errorf("state %v, submitText %v", env["state"], env["submitText"])
	}
	if env["truncated"] != false || env["fieldCount"] != env["totalFields"] {
		t.Errorf("fieldCount %v, totalFields %v, truncated %v", env["fieldCount"], env["totalFields"], env["truncated"])
	}

	// whole_page adds what sits outside the form; root narrows; a root
	// that matches nothing is not_found.
	whole := call(t, cs, "read_form", map[string]any{"whole_page": true})
	wantStatus(t, whole, "ok")
	if formField(whole, "q") == nil || formField(whole, "title") == nil || whole["scope"] != "page" {
		t.Errorf("whole_page: scope %v, q %v", whole["scope"], formField(whole, "q"))
	}
	wantStatus(t, call(t, cs, "read_form", map[string]any{"root": "#nope"}), "not_found")
	head := call(t, cs, "read_form", map[string]any{"root": "header"})
	wantStatus(t, head, "ok")
	if formField(head, "q") == nil || formField(head, "title") != nil {
		t.Errorf("root=header: %v", head["fields"])
	}
	bad := call(t, cs, "read_form", map[string]any{"root": "[[["})
	wantStatus(t, bad, "error")
	if bad["argument"] != "root" || !hasHint(bad) {
		t.Errorf("a bad root: %v", bad)
	}
	small := call(t, cs, "read_form", map[string]any{"max_fields": 2})
	if small["fieldCount"] != float64(2) || small["truncated"] != true {
		t.Errorf("max_fields=2: fieldCount %v truncated %v", small["fieldCount"], small["truncated"])
	}

	// A read asks nothing and sends nothing.
	if c.postCount() != 0 {
		t.Errorf("%d POSTs after reads", c.postCount())
	}
}

// read_draft shows what the form would send: checked boxes only, the
// chosen publish state, the editors' content and the attachment slots;
// after the Publish radio is chosen, isDraft turns false.
func TestReadDraftCMS(t *testing.T) {
	parallel(t)
	needBrowser(t)
	c := newCMS(t)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": c.URL + "/edit", "wait_until": "load"}), "ok")
	wantStatus(t, call(t, cs, "type_text", map[string]any{"selector": "#title", "text": "Spring sale"}), "ok")
	env := call(t, cs, "read_draft", nil)
	wantStatus(t, env, "ok")
	text := jsonString(env)
	t.Logf("read_draft: %s", text)
	for _, secret := range []string{"hunter2", "CSRF-SECRET"} {
		if strings.Contains(text, secret) {
			t.Errorf("the answer shows %s", secret)
		}
	}
	names := map[string]map[string]any{}
	for _, f := range listOf(env, "fields") {
		names[f["name"].(string)] = f
	}
	if f := names["title"]; f == nil || f["value"] != "Spring sale" {
		t.Errorf("title: %v", f)
	}
	if names["notify"] == nil || names["featured"] != nil {
		t.Errorf("checked boxes only: notify %v, featured %v", names["notify"], names["featured"])
	}
	if f := names["is_draft"]; f == nil || f["value"] != "1" {
		t.Errorf("is_draft: %v", f)
	}
	if f := names["category"]; f == nil || f["value"] != "News" {
		t.Errorf("category: %v", f)
	}
	if names["subtitle"] != nil || names["summary"] == nil {
		t.Error("an empty field is listed as something the form sends")
	}
	if f := names["api_key"]; f == nil || f["filled"] != true {
		t.Errorf("password: %v", f)
	}
	state := listOf(env, "state")
	if len(state) != 1 || state[0]["name"] != "is_draft" || state[0]["value"] != "1" || state[0]["label"] != "Draft" || env["isDraft"] != true {
		t.Errorf("state %v, isDraft %v", state, env["isDraft"])
	}
	att := listOf(env, "attachments")
	if len(att) != 1 || att[0]["name"] != "image" || jsonString(att[0]["files"]) != "[]" {
		t.Errorf("attachments: %v", att)
	}
	sub := listOf(env, "submits")
	if len(sub) != 1 || sub[0]["text"] != "Submit" || sub[0]["selector"] != "#submit" {
		t.Errorf("submits: %v", sub)
	}
	if len(listOf(env, "editors")) != 3 {
		t.Errorf("editors: %v", env["editors"])
	}

	// Armed to publish: the state says so, and isDraft is false.
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": `input[name="is_draft"][value="0"]`}), "ok")
	env = call(t, cs, "read_draft", map[string]any{"max_chars": 1})
	wantStatus(t, env, "ok")
	state = listOf(env, "state")
	if len(state) != 1 || state[0]["value"] != "0" || state[0]["label"] != "Publish" || env["isDraft"] != false {
		t.Errorf("armed: state %v, isDraft %v", state, env["isDraft"])
	}
	if c.postCount() != 0 {
		t.Errorf("%d POSTs after reads", c.postCount())
	}
	for _, r := range auditRows(t, dir) {
		if r["tool"] == "read_draft" && strings.Contains(jsonString(r), "Spring sale") {
			t.Errorf("a value in the audit: %v", r)
		}
	}
}

// A hostile form cannot blow up the answer: thousands of fields with huge
// labels and values, a select with thousands of long options. max_fields
// bounds the list, every string is cut, and max_chars is clamped.
func TestReadFormHostile(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>hostile</title><form id="f"></form>
<script>
const f = document.getElementById('f');
const big = 'L'.repeat(5000), huge = 'V'.repeat(2000000);
let html = '';
for (let i = 0; i < 1500; i++) html += '<p><label>' + big + i + ' <input name="n' + i + '"></label></p>';
f.innerHTML = html;
for (let i = 0; i < 3; i++) f.querySelector('[name=n' + i + ']').value = huge;
const sel = document.createElement('select');
sel.name = 'many';
for (let i = 0; i < 5000; i++) { const o = document.createElement('option'); o.value = 'v'.repeat(3000) + i; o.text = 'T'.repeat(3000); sel.appendChild(o); }
f.prepend(sel);
</script>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/", "wait_until": "load"}), "ok")

	env := call(t, cs, "read_form", map[string]any{"max_fields": 50})
	wantStatus(t, env, "ok")
	if env["fieldCount"] != float64(50) || env["totalFields"] != float64(1501) || env["truncated"] != true {
		t.Errorf("fieldCount %v totalFields %v truncated %v", env["fieldCount"], env["totalFields"], env["truncated"])
	}
	if n := len(jsonString(env)); n > 100_000 {
		t.Errorf("max_fields=50 answered %d bytes", n)
	}
	many := formField(env, "many")
	if o, _ := many["options"].([]any); len(o) != 60 || many["optionCount"] != float64(5000) {
		t.Errorf("options: %d listed, optionCount %v", len(o), many["optionCount"])
	}
	for _, f := range listOf(env, "fields") {
		if len([]rune(fmt.Sprint(f["label"]))) > 120 || len([]rune(fmt.Sprint(f["value"]))) > 200 {
			t.Fatalf("a string not cut: label %d, value %d runes", len(fmt.Sprint(f["label"])), len(fmt.Sprint(f["value"])))
		}
	}
	if f := formField(env, "n0"); f["valueChars"] != float64(2000000) {
		t.Errorf("n0: valueChars %v", f["valueChars"])
	}

	// max_fields is clamped to 500, and the answer stays bounded.
	env = call(t, cs, "read_form", map[string]any{"max_fields": 100000})
	wantStatus(t, env, "ok")
	if env["fieldCount"] != float64(500) {
		t.Errorf("max_fields=100000: fieldCount %v, want 500", env["fieldCount"])
	}
	if n := len(jsonString(env)); n > 600_000 {
		t.Errorf("500 fields answered %d bytes", n)
	}

	// read_draft: max_chars is clamped to 80..4000, each value cut to it.
	env = call(t, cs, "read_draft", map[string]any{"max_chars": 1})
	wantStatus(t, env, "ok")
	fields := listOf(env, "fields")
	if len(fields) == 0 {
		t.Fatal("read_draft listed nothing")
	}
	for _, f := range fields {
		if v := fmt.Sprint(f["value"]); len([]rune(v)) > 80 {
			t.Fatalf("read_draft value of %d runes with max_chars=1 (clamped to 80)", len([]rune(v)))
		}
	}
	if n := len(jsonString(env)); n > 200_000 {
		t.Errorf("read_draft answered %d bytes", n)
	}
}
