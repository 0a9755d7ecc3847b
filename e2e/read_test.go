package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// readSites serves a page with what a ref must reach: an icon-only link,
// two links with the same text, an open shadow root, a same-origin iframe
// and a cross-site (out-of-process) iframe, plus things that must not be
// listed (hidden elements, input values).
func readSites(t *testing.T) (a, b *site) {
	a = newSite(t, "127.0.0.1")
	b = newSite(t, "127.0.0.2")
	a.page("/", fmt.Sprintf(`<!doctype html><title>Read me</title>
<h1>Plans</h1>
<nav id="top"><a href="/pricing">Pricing</a> <a href="/icon" aria-label="Home"><svg width="16" height="16"><rect width="16" height="16"/></svg></a>
<a href="/a">More</a> <a href="/b">More</a></nav>
<form id="login"><label>Email <input type="text" name="email" value="secret-value-123"></label>
<label><input type="checkbox" checked> Remember me</label>
<select aria-label="Plan"><option>Free</option><option selected>Pro</option></select>
<button type="button">Save</button></form>
<div id="host"></div>
<div style="display:none"><a href="/hidden">Hidden link</a></div>
<a href="/invisible" style="visibility:hidden">Invisible link</a>
<p>Some text about plans.</p>
<iframe id="same" src="/inner" width="400" height="120"></iframe>
<iframe id="cross" src="%s/cross" width="400" height="120"></iframe>
<div style="height:3000px"></div>
<h2>Footer</h2><a href="https://example.org/far">Far away</a>
<script>document.getElementById('host').attachShadow({mode:'open'}).innerHTML='<button>Shadow button</button>';</script>`, b.URL))
	a.page("/inner", `<!doctype html><title>inner</title><a href="/inner-link">Inner link</a><button>Inner button</button>`)
	b.page("/cross", `<!doctype html><title>cross</title><a href="/deal">Cross-site deal</a><input aria-label="Coupon" value="HIDDEN-COUPON">`)
	return a, b
}

var refLine = regexp.MustCompile(`^aria-ref=(e\d+) (\S+)(?: "((?:[^"\\]|\\.)*)")?(.*)$`)

// treeLines parses a tree into ref -> line and role+name -> ref.
func treeLines(t *testing.T, tree string) (map[string]string, map[string]string) {
	t.Helper()
	byRef, byName := map[string]string{}, map[string]string{}
	for _, l := range strings.Split(tree, "\n") {
		if l == "" {
			continue
		}
		m := refLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("tree line %q does not parse", l)
		}
		if _, dup := byRef[m[1]]; dup {
			t.Fatalf("ref %s twice in the tree", m[1])
		}
		byRef[m[1]] = l
		byName[m[2]+` "`+m[3]+`"`] = m[1]
	}
	return byRef, byName
}

func TestReadPageTree(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a, _ := readSites(t)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/", "wait_until": "load"}), "ok")
	var env map[string]any
	waitFor(t, "both iframes in the tree", 10*time.Second, func() bool {
		env = call(t, cs, "read_page", map[string]any{"mode": "tree"})
		tree, _ := env["tree"].(string)
		return strings.Contains(tree, "Inner link") && strings.Contains(tree, "Cross-site deal")
	})
	wantStatus(t, env, "ok")
	tree := env["tree"].(string)
	t.Logf("tree:\n%s", tree)
	byRef, byName := treeLines(t, tree)
	for _, want := range []string{
		`link "Pricing"`, `link "Home"`, `textbox "Email"`, `checkbox "Remember me"`, `combobox "Plan"`,
		`button "Save"`, `button "Shadow button"`, `link "Inner link"`, `button "Inner button"`,
		`link "Cross-site deal"`, `textbox "Coupon"`, `heading "Plans"`, `heading "Footer"`, `link "Far away"`,
	} {
		if byName[want] == "" {
			t.Errorf("%s missing from the tree", want)
		}
	}
	for _, never := range []string{"Hidden link", "Invisible link", "Free", "Some text"} {
		if strings.Contains(tree, never) {
			t.Errorf("tree shows %q", never)
		}
	}
	// A field's value is page content like any text: shown, in the
	// cross-site frame too; the select shows its chosen option.
	for name, val := range map[string]string{`textbox "Email"`: "secret-value-123", `textbox "Coupon"`: "HIDDEN-COUPON", `combobox "Plan"`: "Pro"} {
		if l := byRef[byName[name]]; !strings.HasSuffix(l, ": "+val) {
			t.Errorf("%s shows as %q, want its value %s", name, l, val)
		}
	}
	// hide_values hides them all.
	hidden := call(t, cs, "read_page", map[string]any{"mode": "tree", "hide_values": true})
	wantStatus(t, hidden, "ok")
	if ht, _ := hidden["tree"].(string); strings.Contains(ht, "secret-value-123") || strings.Contains(ht, "HIDDEN-COUPON") || !strings.Contains(ht, `textbox "Email" [filled]`) {
		t.Errorf("hide_values still shows values:\n%s", ht)
	}
	if l := byRef[byName[`checkbox "Remember me"`]]; !strings.HasSuffix(l, "[checked]") {
		t.Errorf("checkbox line %q lacks [checked]", l)
	}
	if l := byRef[byName[`link "Pricing"`]]; !strings.HasSuffix(l, "-> /pricing") {
		t.Errorf("same-origin link %q should show its path", l)
	}
	if l := byRef[byName[`link "Far away"`]]; !strings.HasSuffix(l, "-> https://example.org/far") {
		t.Errorf("cross-origin link %q should show its full URL", l)
	}
	if l := byRef[byName[`heading "Plans"`]]; !strings.Contains(l, "[level=1]") {
		t.Errorf("heading line %q lacks its level", l)
	}
	// Two links named More, each with its own ref.
	if n := strings.Count(tree, `link "More"`); n != 2 {
		t.Errorf("%d lines for the two More links", n)
	}
	// On-screen first: the far link and the footer are below the fold.
	inView := int(env["in_viewport"].(float64))
	lines := strings.Split(tree, "\n")
	if inView < 5 || inView >= len(lines) || int(env["elements"].(float64)) != len(lines) {
		t.Fatalf("in_viewport %d, elements %v, %d lines", inView, env["elements"], len(lines))
	}
	for i, l := range lines {
		far := strings.Contains(l, "Far away") || strings.Contains(l, `"Footer"`)
		if far && i < inView {
			t.Errorf("off-screen line %q listed among the %d on screen", l, inView)
		}
	}
	// Refs count from e1 in reading order on a fresh document.
	if !strings.HasPrefix(lines[0], "aria-ref=e1 ") {
		t.Errorf("first line %q", lines[0])
	}
}

// TestReadPageLinkNames: links as real pages write them are listed, each
// named by the text a person sees. Chrome spaces the text around a <wbr>
// ("mozilla<wbr>.org" is "mozilla .org" to its accessibility tree); the
// tree names it as shown. An icon-only mailto: link whose href holds raw
// spaces, and a link shown in capitals, are listed with where they go.
func TestReadPageLinkNames(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	a.page("/", `<!doctype html><title>Links</title>
<p><a href="/tr">mozilla<wbr>.org<wbr>/tr<wbr>/</a></p>
<p><a href="/see">see www.<wbr>example.<wbr>org now</a></p>
<p><a href="/labelled" aria-label="Long address">www<wbr>.example<wbr>.org</a></p>
<h2>Super<wbr>cali<wbr>fragilistic</h2>
<p><a href="mailto:?subject=Hello there via Site&amp;body=a%20b"><svg width="16" height="16"><rect width="16" height="16"/></svg></a></p>
<p><a href="https://smartasset.example/" style="text-transform:uppercase">SmartAsset.com</a></p>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/", "wait_until": "load"}), "ok")
	env := call(t, cs, "read_page", map[string]any{"mode": "tree"})
	wantStatus(t, env, "ok")
	tree := env["tree"].(string)
	t.Logf("tree:\n%s", tree)
	byRef, byName := treeLines(t, tree)
	for _, want := range []string{`link "mozilla.org/tr/"`, `link "see www.example.org now"`, `link "Long address"`, `heading "Supercalifragilistic"`} {
		if byName[want] == "" {
			t.Errorf("%s missing from the tree", want)
		}
	}
	if l := byRef[byName[`link "mozilla.org/tr/"`]]; !strings.HasSuffix(l, "-> /tr") {
		t.Errorf("wbr link line %q", l)
	}
	if !regexp.MustCompile(`(?m)^aria-ref=e\d+ link -> mailto:\?subject=Hello%20there%20via%20Site&body=a%20b$`).MatchString(tree) {
		t.Errorf("the icon-only mailto: link is not listed with its href")
	}
	if !regexp.MustCompile(`(?mi)^aria-ref=e\d+ link "SmartAsset\.com" -> https://smartasset\.example/$`).MatchString(tree) {
		t.Errorf("the capitalised link is not listed")
	}
}

func TestReadPageText(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a, _ := readSites(t)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/", "wait_until": "load"}), "ok")
	env := call(t, cs, "read_page", nil)
	wantStatus(t, env, "ok")
	text := env["text"].(string)
	if !strings.Contains(text, "Some text about plans.") || strings.Contains(text, "Hidden link") || strings.Contains(text, "<") {
		t.Errorf("text = %q", text)
	}
	if env["mode"] != "text" || env["truncated"] != false || int(env["total_chars"].(float64)) != utf8.RuneCountInString(text) {
		t.Errorf("envelope %v", env)
	}
	env = call(t, cs, "read_page", map[string]any{"links": true})
	links, _ := env["links"].([]any)
	hrefs := map[string]string{}
	for _, l := range links {
		m := l.(map[string]any)
		if _, dup := hrefs[m["href"].(string)]; dup {
			t.Errorf("link %v twice", m)
		}
		hrefs[m["href"].(string)] = m["text"].(string)
	}
	if hrefs[a.URL+"/pricing"] != "Pricing" || hrefs[a.URL+"/icon"] != "Home" || hrefs["https://example.org/far"] != "Far away" {
		t.Errorf("links %v", links)
	}
	if _, ok := hrefs[a.URL+"/hidden"]; ok {
		t.Errorf("hidden link listed: %v", links)
	}
	if env["links_truncated"] != false {
		t.Errorf("links_truncated = %v", env["links_truncated"])
	}
	// A region.
	env = call(t, cs, "read_page", map[string]any{"selector": "#login"})
	wantStatus(t, env, "ok")
	if text := env["text"].(string); !strings.Contains(text, "Remember me") || strings.Contains(text, "Plans") {
		t.Errorf("region text %q", text)
	}
	// Links of one element, by its ref.
	_, byName := treeLines(t, call(t, cs, "read_page", map[string]any{"mode": "tree"})["tree"].(string))
	env = call(t, cs, "read_page", map[string]any{"links": true, "selector": "aria-ref=" + byName[`link "Pricing"`]})
	if l, _ := env["links"].([]any); len(l) != 1 || env["text"] != "Pricing" {
		t.Errorf("links of a ref: %v", env)
	}
	env = call(t, cs, "read_page", map[string]any{"selector": "text=Some text"})
	if env["text"] != "Some text about plans." {
		t.Errorf("text= region: %v", env["text"])
	}
}

// TestReadPageRefs: a ref is a handle on an element of the page read. An
// element read again keeps its ref; an unknown ref and every ref after a navigation
// answer not_found with the hint to read the tree again.
func TestReadPageRefs(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a, _ := readSites(t)
	a.page("/dyn", `<!doctype html><title>dyn</title><button id="x">Remove me</button><button>Stay</button>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/dyn"}), "ok")
	_, byName := treeLines(t, call(t, cs, "read_page", map[string]any{"mode": "tree"})["tree"].(string))
	rm, stay := byName[`button "Remove me"`], byName[`button "Stay"`]
	if rm == "" || stay == "" {
		t.Fatalf("refs %v", byName)
	}
	// Region read by ref: the element's own text.
	env := call(t, cs, "read_page", map[string]any{"selector": "aria-ref=" + stay})
	if env["text"] != "Stay" {
		t.Errorf("read by ref: %v", env)
	}
	// Read again: same elements, same refs.
	_, again := treeLines(t, call(t, cs, "read_page", map[string]any{"mode": "tree"})["tree"].(string))
	if again[`button "Stay"`] != stay || again[`button "Remove me"`] != rm {
		t.Errorf("refs moved between two reads of the same page: %v then %v", byName, again)
	}
	stale := func(ref, why string) {
		t.Helper()
		env := call(t, cs, "read_page", map[string]any{"selector": "aria-ref=" + ref})
		wantStatus(t, env, "not_found")
		if h, _ := env["hint"].(string); !strings.Contains(h, `read_page(mode="tree") again`) {
			t.Errorf("%s: hint %q", why, h)
		}
	}
	stale("e999", "unknown ref")
	a.page("/dyn2", `<!doctype html><title>dyn2</title><button>Other</button>`)
	// A navigation ends every ref.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/dyn2"}), "ok")
	stale(stay, "ref after navigation")
	// The first read on a new document counts from e1 again.
	tree := call(t, cs, "read_page", map[string]any{"mode": "tree"})["tree"].(string)
	if !strings.HasPrefix(tree, "aria-ref=e1 button \"Other\"") {
		t.Errorf("tree on a new document: %q", tree)
	}
}

// TestReadPageRemovedElement: an element removed after the read ends its
// ref.
func TestReadPageRemovedElement(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	// The element goes when the test says so (a click), not on a timer that
	// could fire before the first read on a slow machine.
	s.page("/", `<!doctype html><title>rm</title><button id="x">Going</button><button>Staying</button>
<button id="rm" onclick="document.getElementById('x').remove()">Remove</button>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	_, byName := treeLines(t, call(t, cs, "read_page", map[string]any{"mode": "tree"})["tree"].(string))
	going := byName[`button "Going"`]
	if going == "" {
		t.Fatalf("no ref for the button: %v", byName)
	}
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "#rm"}), "ok")
	wantStatus(t, call(t, cs, "wait_for", map[string]any{"selector": "#x", "state": "detached"}), "ok")
	env := call(t, cs, "read_page", map[string]any{"selector": "aria-ref=" + going})
	wantStatus(t, env, "not_found")
	env = call(t, cs, "read_image", map[string]any{"selector": "aria-ref=" + going})
	wantStatus(t, env, "not_found")
	// A newer read keeps the others' refs.
	_, after := treeLines(t, call(t, cs, "read_page", map[string]any{"mode": "tree"})["tree"].(string))
	if after[`button "Staying"`] != byName[`button "Staying"`] {
		t.Errorf("Staying changed ref: %v -> %v", byName, after)
	}
}

// TestReadPagePaging: however large the page, a default answer holds at
// most max_chars; pages break on whole lines and add up to the whole.
func TestReadPagePaging(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	var b strings.Builder
	b.WriteString("<!doctype html><title>big</title>")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, `<p><a href="/item/%d">Item number %d with a longish name</a> and some words after it</p>`, i, i)
	}
	s.page("/big", b.String())
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/big"}), "ok")
	for _, mode := range []string{"tree", "text"} {
		env := call(t, cs, "read_page", map[string]any{"mode": mode})
		wantStatus(t, env, "ok")
		first := env[mode].(string)
		total := int(env["total_chars"].(float64))
		if n := utf8.RuneCountInString(first); n > 20000 || n < 19000 || env["truncated"] != true || total <= 20000 {
			t.Fatalf("%s: default page of %d chars, truncated %v, total %d", mode, n, env["truncated"], total)
		}
		// Page through with a small max_chars; every page holds whole lines.
		var pages []string
		offset := 0
		for i := 0; ; i++ {
			env := call(t, cs, "read_page", map[string]any{"mode": mode, "offset": offset, "max_chars": 50000})
			wantStatus(t, env, "ok")
			text := env[mode].(string)
			if utf8.RuneCountInString(text) > 50000 {
				t.Fatalf("%s page %d holds %d chars", mode, i, utf8.RuneCountInString(text))
			}
			if mode == "tree" {
				treeLines(t, text) // every line parses: no ref cut in half
			}
			pages = append(pages, text)
			if env["truncated"] != true {
				break
			}
			offset = int(env["next_offset"].(float64))
		}
		full := call(t, cs, "read_page", map[string]any{"mode": mode, "max_chars": 200000})[mode].(string)
		if strings.Join(pages, "\n") != full || len(pages) < 2 {
			t.Errorf("%s: %d pages do not add up to the whole (%d chars)", mode, len(pages), utf8.RuneCountInString(full))
		}
		if mode == "tree" && !strings.HasPrefix(pages[0], "aria-ref=e1 ") {
			t.Errorf("tree starts %q", pages[0][:40])
		}
		// Past the end: empty, not an error.
		env = call(t, cs, "read_page", map[string]any{"mode": mode, "offset": total + 10})
		if env["status"] != "ok" || env[mode] != "" || env["truncated"] != false {
			t.Errorf("offset past the end: %v", env)
		}
	}
}

// TestReadPageFailures: each status read_page can answer.
func TestReadPageFailures(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a, _ := readSites(t)
	l := startServe(t, "")
	cs := l.connectHTTP(t, proto2026)
	other := l.connectHTTP(t, proto2026)
	wantStatus(t, call(t, cs, "read_page", nil), "browser_not_open")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/"}), "ok")
	wantStatus(t, call(t, other, "read_page", nil), "session_conflict")
	for _, mode := range []string{"text", "tree"} {
		env := call(t, cs, "read_page", map[string]any{"mode": mode, "selector": "#does-not-exist"})
		wantStatus(t, env, "not_found")
		if env["selector"] != "#does-not-exist" || !hasHint(env) {
			t.Errorf("not_found envelope %v", env)
		}
		env = call(t, cs, "read_page", map[string]any{"mode": mode, "selector": "div[["})
		if env["status"] != "error" || env["argument"] != "selector" {
			t.Errorf("bad CSS: %v", env)
		}
	}
	bad := []struct {
		args map[string]any
		arg  string
	}{
		{map[string]any{"mode": "html"}, "mode"},
		{map[string]any{"max_chars": 0}, "max_chars"},
		{map[string]any{"max_chars": 10000000}, "max_chars"},
		{map[string]any{"offset": -1}, "offset"},
		{map[string]any{"mode": "tree", "links": true}, "links"},
		{map[string]any{"selector": ""}, "selector"},
		{map[string]any{"links": "yes"}, "links"},
		{map[string]any{"depth": 3}, "depth"},
	}
	for _, b := range bad {
		env := call(t, cs, "read_page", b.args)
		if env["status"] != "error" || env["argument"] != b.arg || !hasHint(env) {
			t.Errorf("read_page(%v) = %v, want an error naming %s", b.args, env, b.arg)
		}
	}
	// A region of the tree: the form only.
	env := call(t, cs, "read_page", map[string]any{"mode": "tree", "selector": "#login"})
	wantStatus(t, env, "ok")
	tree := env["tree"].(string)
	if !strings.Contains(tree, `checkbox "Remember me"`) || strings.Contains(tree, "Pricing") || strings.Contains(tree, "Inner link") {
		t.Errorf("region tree %q", tree)
	}
	// The region read replaced the refs: a ref of the nav is gone, the
	// form's stay.
	_, region := treeLines(t, tree)
	env = call(t, cs, "read_page", map[string]any{"selector": "aria-ref=" + region[`button "Save"`]})
	if env["text"] != "Save" {
		t.Errorf("region ref: %v", env)
	}
	// A region inside the shadow root, by CSS that pierces it.
	env = call(t, cs, "read_page", map[string]any{"mode": "tree", "selector": "#host"})
	if tree, _ := env["tree"].(string); !strings.Contains(tree, `button "Shadow button"`) || strings.Count(tree, "\n") != 0 {
		t.Errorf("shadow host region: %v", env)
	}
}

// TestReadPageOffsetSnapshot: a later page of a read is cut from the
// snapshot the first page was: while the page keeps adding links at its
// top, the second page still continues the first (same total, no line
// repeated), and only a read at offset 0 sees the change.
func TestReadPageOffsetSnapshot(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	var b strings.Builder
	b.WriteString("<!doctype html><title>growing</title><div id=top></div>")
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&b, `<p><a href="/item/%d">Item number %d</a></p>`, i, i)
	}
	b.WriteString(`<script>let n = 0; setInterval(() => { document.getElementById('top').insertAdjacentHTML('afterbegin', '<p><a href="/new/' + n + '">New link ' + (n++) + '</a></p>'); }, 10);</script>`)
	s.page("/grow", b.String())
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/grow"}), "ok")
	for _, mode := range []string{"tree", "text"} {
		first := call(t, cs, "read_page", map[string]any{"mode": mode, "max_chars": 2000})
		wantStatus(t, first, "ok")
		total := first["total_chars"].(float64)
		// The page changes in between: shown by a fresh read, below.
		offset := first["next_offset"].(float64)
		var pages []string
		pages = append(pages, first[mode].(string))
		for first["truncated"] == true {
			env := call(t, cs, "read_page", map[string]any{"mode": mode, "offset": offset, "max_chars": 2000})
			wantStatus(t, env, "ok")
			if env["total_chars"].(float64) != total {
				t.Fatalf("%s: page at %v counts %v chars, the first page %v: rebuilt from a changed page", mode, offset, env["total_chars"], total)
			}
			pages = append(pages, env[mode].(string))
			if env["truncated"] != true {
				break
			}
			offset = env["next_offset"].(float64)
		}
		whole := strings.Join(pages, "\n")
		if utf8.RuneCountInString(whole) != int(total) {
			t.Errorf("%s: %d pages hold %d chars of %v", mode, len(pages), utf8.RuneCountInString(whole), total)
		}
		seen := map[string]bool{}
		for _, l := range strings.Split(whole, "\n") {
			if l != "" && seen[l] && mode == "tree" {
				t.Errorf("%s: line %q on two pages", mode, l)
			}
			seen[l] = true
		}
		again := call(t, cs, "read_page", map[string]any{"mode": mode, "max_chars": 2000})
		if again["total_chars"].(float64) == total {
			t.Errorf("%s: a read at offset 0 did not read the page afresh (%v chars both times)", mode, total)
		}
	}
}
