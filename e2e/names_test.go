package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
)

// namesPage is a toolbar as component libraries write it: buttons and
// links that are web components wrapping <button><slot></slot></button>,
// text inside display:contents wrappers, an image that is the button,
// icon text from ::before, a quantity field inside a checkbox's label.
// Several of them would read as identical nameless lines if their text
// were lost.
const namesPage = `<!doctype html><html><head><title>Inbox</title><style>
.ico::before{content:"Refresh"} .ico{width:24px;height:24px;display:inline-block}
.play::before{content:"Play"} .pause::before{content:"Pause"}
</style></head><body>
<div role="toolbar">
<my-btn>Archive</my-btn>
<my-btn><span>Delete</span></my-btn>
<my-link href="/settings">Settings</my-link>
<button><span style="display:contents">Send</span></button>
<button><div style="display:contents"><b style="display:contents">Reply</b> all</div></button>
<a href="/profile"><div style="display:contents"><span>Profile</span></div></a>
<img role="button" tabindex="0" alt="Close" title="Dismiss" src="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==" width="20" height="20">
<button class="ico"></button>
<button id="pp" class="play" onclick="this.className = this.className == 'play' ? 'pause' : 'play'"></button>
</div>
<label><input type="checkbox"> Remind me <input type="number" value="3" aria-label="count" style="width:3em"> days before</label>
<script>
customElements.define('my-btn', class extends HTMLElement {
	connectedCallback() { if (!this.shadowRoot) this.attachShadow({mode: 'open'}).innerHTML = '<button part="b"><slot></slot></button>'; }
});
customElements.define('my-link', class extends HTMLElement {
	connectedCallback() { if (!this.shadowRoot) this.attachShadow({mode: 'open'}).innerHTML = '<a href="' + this.getAttribute('href') + '"><slot></slot></a>'; }
});
</script>
</body></html>`

// TestTreeNamesSlotsAndContents: read_page(mode=tree) names a button whose
// text sits in a <slot> of a web component, text inside display:contents
// wrappers, an <img role=button> by its alt, a button by its ::before
// text, and a checkbox by a label with a field in it (the field's value),
// as Chrome's accessibility tree does (each expected line is checked
// against a plain Chromium's tree too).
func TestTreeNamesSlotsAndContents(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/inbox", namesPage)
	want := []string{
		`button "Archive"`, `button "Delete"`, `link "Settings"`,
		`button "Send"`, `button "Reply all"`, `link "Profile"`,
		`button "Close"`, `button "Refresh"`, `button "Play"`,
		`checkbox "Remind me 3 days before"`,
	}

	ctx, sess := plainTab(t, 90*time.Second)
	if _, err := cdp.Call(ctx, sess, cdppage.Navigate, cdppage.NavigateParams{URL: s.URL + "/inbox"}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "Chrome's tree to name every control as expected", 30*time.Second, func() bool {
		have := map[string]bool{}
		listed, _ := chromeItems(ctx, t, sess)
		for _, it := range listed {
			have[it.role+` "`+it.name+`"`] = true
		}
		for _, w := range want {
			if !have[w] {
				return false
			}
		}
		return true
	})
	cs := connectStdio(t, t.TempDir(), proto2025)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/inbox", "wait_until": "load", "confirm": true}), "ok")
	env := call(t, cs, "read_page", map[string]any{"mode": "tree"})
	wantStatus(t, env, "ok")
	tree, _ := env["tree"].(string)
	t.Logf("tree:\n%s", tree)
	_, byName := treeLines(t, tree)
	for _, w := range want {
		if byName[w] == "" {
			t.Errorf("no line %s", w)
		}
	}
	if strings.Contains(tree, "button\n") || strings.HasSuffix(tree, "button") {
		t.Errorf("a nameless button in the tree")
	}

	// The ::before text follows the page: a toggle's icon text changes
	// with its class, and the next read says so.
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "#pp"}), "ok")
	env = call(t, cs, "read_page", map[string]any{"mode": "tree"})
	wantStatus(t, env, "ok")
	tree, _ = env["tree"].(string)
	_, byName = treeLines(t, tree)
	if byName[`button "Pause"`] == "" || byName[`button "Play"`] != "" {
		t.Errorf("after the click, want button \"Pause\" and no \"Play\":\n%s", tree)
	}
}
