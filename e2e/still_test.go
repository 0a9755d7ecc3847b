package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stillPage changes, when it is scrolled, what no MutationObserver and no
// input event tells of: a field's value set by script (a checkbox's name
// holds it) and a CSSOM rule that gives an element the pointer cursor.
const stillPage = `<!doctype html><html><head><title>Still</title><style id="s">.pad{height:3000px}</style></head><body>
<label><input type="checkbox"> Remind me <input id="n" type="number" value="3" aria-label="count" style="width:3em"> days before</label>
<p><span id="late">Open later</span></p>
<div class="pad"></div>
<script>
addEventListener('scroll', () => {
	if (window.moved) return;
	window.moved = true;
	document.getElementById('n').value = '9';
	document.getElementById('s').sheet.insertRule('#late{cursor:pointer}');
}, {passive: true});
</script>
</body></html>`

// TestTreeFollowsSilentChanges: what a tree read keeps for the next one
// while the page stands still (names, cursors, the style sheets' rules) is
// not kept past a change the page makes without a DOM mutation or an input
// event: a name holding a field's value follows the value, and a rule
// inserted through the CSSOM makes its element clickable in the next read.
func TestTreeFollowsSilentChanges(t *testing.T) {
	needBrowser(t)
	cs, read := treeReader(t, "/still", stillPage)
	// Twice: the second read is one the first left its kept names for.
	for i := 0; i < 2; i++ {
		tree := read()
		_, byName := treeLines(t, tree)
		if byName[`checkbox "Remind me 3 days before"`] == "" || strings.Contains(tree, `"Open later"`) {
			t.Fatalf("read %d before the scroll: want checkbox \"Remind me 3 days before\" and no clickable \"Open later\":\n%s", i+1, tree)
		}
	}
	// Scrolled by script in lyrad's world: a scroll event, nothing else.
	wantStatus(t, call(t, cs, "scroll", map[string]any{"to": "bottom"}), "ok")
	tree := readUntil(t, read, `after the scroll, want checkbox "Remind me 9 days before" and a clickable "Open later"`, func(tree string) bool {
		_, byName := treeLines(t, tree)
		return byName[`checkbox "Remind me 9 days before"`] != "" && strings.Contains(tree, `"Open later"`)
	})
	if !strings.Contains(tree, "clickable") {
		t.Errorf("\"Open later\" is listed but not as clickable:\n%s", tree)
	}
}

// linksPage changes, when it is scrolled, a link's href attribute and the
// document's base URL (a <base> added), which moves a relative link.
const linksPage = `<!doctype html><html><head><title>Links</title><style>.pad{height:3000px}</style></head><body>
<p><a id="a" href="/one">First</a></p>
<div><a href="two">Second</a></div>
<div class="pad"></div>
<script>
addEventListener('scroll', () => {
	if (window.moved) return;
	window.moved = true;
	document.getElementById('a').setAttribute('href', '/three');
	const b = document.createElement('base');
	b.href = '/sub/';
	document.head.appendChild(b);
}, {passive: true});
</script>
</body></html>`

// TestTreeLinkURLsFollowChanges: a link's URL, which a read keeps by
// element from read to read, follows a change of its href attribute and
// of the document's base URL.
func TestTreeLinkURLsFollowChanges(t *testing.T) {
	needBrowser(t)
	cs, read := treeReader(t, "/links", linksPage)
	// Twice: the second read finds the URLs the first kept.
	for i := 0; i < 2; i++ {
		if tree := read(); !strings.Contains(tree, `"First" -> /one`) || !strings.Contains(tree, `"Second" -> /two`) {
			t.Fatalf("read %d before the change: want First -> /one and Second -> /two:\n%s", i+1, tree)
		}
	}
	wantStatus(t, call(t, cs, "scroll", map[string]any{"to": "bottom"}), "ok")
	readUntil(t, read, "after the change, want First -> /three and Second -> /sub/two", func(tree string) bool {
		return strings.Contains(tree, `"First" -> /three`) && strings.Contains(tree, `"Second" -> /sub/two`)
	})
}

// treeReader serves html at path on a loopback site, navigates a new
// lyrad there and returns its client and a whole-page tree read.
func treeReader(t *testing.T, path, html string) (*mcp.ClientSession, func() string) {
	t.Helper()
	s := newSite(t, "127.0.0.1")
	s.page(path, html)
	cs := connectStdio(t, t.TempDir(), proto2025)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + path, "wait_until": "load", "confirm": true}), "ok")
	return cs, func() string {
		t.Helper()
		env := call(t, cs, "read_page", map[string]any{"mode": "tree"})
		wantStatus(t, env, "ok")
		tree, _ := env["tree"].(string)
		return tree
	}
}

// readUntil reads until cond holds of the tree (up to 30 s, for a page
// that changes after a call answered) and returns that tree; it fails with
// want and the last tree.
func readUntil(t *testing.T, read func() string, want string, cond func(string) bool) string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		tree := read()
		if cond(tree) {
			return tree
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s:\n%s", want, tree)
		}
	}
}

// attrsPage changes, when it is scrolled, attributes of elements a read
// has already met: what the walk keeps of an element's attributes from
// read to read (which of them it carries, whether its class may say an
// error, the aria-owns and aria-invalid elements) must follow them.
const attrsPage = `<!doctype html><html><head><title>Attrs</title><style>.pad{height:3000px}</style></head><body>
<div id="h">Open the box</div>
<p><span id="s">Star this</span></p>
<p><a id="l" href="/x">Hide me</a></p>
<div id="e">The card number is wrong</div>
<p><input id="f" aria-label="Card" aria-describedby="m"> <span id="m">Use sixteen digits</span></p>
<div class="pad"></div>
<script>
addEventListener('scroll', () => {
	if (window.moved) return;
	window.moved = true;
	document.getElementById('h').setAttribute('onclick', '');
	document.getElementById('s').setAttribute('style', 'cursor:pointer');
	document.getElementById('l').setAttribute('aria-hidden', 'true');
	document.getElementById('e').setAttribute('class', 'error');
	document.getElementById('f').setAttribute('aria-invalid', 'true');
}, {passive: true});
</script>
</body></html>`

// TestTreeFollowsAttributeChanges: attributes set on elements that earlier
// reads met are seen by the next read: an onclick and a style attribute
// giving the pointer cursor make a text clickable, aria-hidden takes a
// link out, an error class and an invalid field's description make
// messages listed as errors.
func TestTreeFollowsAttributeChanges(t *testing.T) {
	needBrowser(t)
	cs, read := treeReader(t, "/attrs", attrsPage)
	line := func(tree, name string) string {
		for _, l := range strings.Split(tree, "\n") {
			if strings.Contains(l, `"`+name+`"`) {
				return l
			}
		}
		return ""
	}
	// Twice: the second read finds what the first kept.
	for i := 0; i < 2; i++ {
		tree := read()
		if line(tree, "Hide me") == "" || line(tree, "Open the box") != "" || line(tree, "Star this") != "" ||
			line(tree, "The card number is wrong") != "" || line(tree, "Use sixteen digits") != "" {
			t.Fatalf("read %d before the change: want the link \"Hide me\" and none of the texts:\n%s", i+1, tree)
		}
	}
	wantStatus(t, call(t, cs, "scroll", map[string]any{"to": "bottom"}), "ok")
	readUntil(t, read, "after the change: want no \"Hide me\", clickable \"Open the box\" and \"Star this\", both messages [error]", func(tree string) bool {
		return line(tree, "Hide me") == "" && strings.Contains(line(tree, "Open the box"), "clickable") &&
			strings.Contains(line(tree, "Star this"), "clickable") && strings.Contains(line(tree, "The card number is wrong"), "error") &&
			strings.Contains(line(tree, "Use sixteen digits"), "error")
	})
}
