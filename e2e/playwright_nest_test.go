package e2e

import (
	"slices"
	"strings"
	"testing"
)

// nestSite is a page built as a real site is: a header with the site's
// navigation (a list of links), a region with clickable cards (divs with
// a pointer cursor), a search form, a table row with a button, a web
// component (its controls in a shadow root) and a modal dialog that
// focuses its own button.
const nestSite = `<!doctype html><title>Shop</title>
<style>.card { cursor: pointer; padding: 4px; border: 1px solid #ccc }</style>
<header>
  <a href="/">Shop</a>
  <nav aria-label="Main"><ul><li><a href="/deals">Deals</a></li><li><a href="/help">Help</a></li></ul></nav>
</header>
<main>
  <h1>Welcome</h1>
  <section aria-label="Featured">
    <div class="card" onclick="this.textContent = 'Picked kettle'">Blue kettle</div>
    <div class="card" onclick="this.textContent = 'Picked teapot'">Red teapot</div>
  </section>
  <form aria-label="Search" onsubmit="event.preventDefault()">
    <label>Query <input name="q"></label>
    <button>Search</button>
  </form>
  <table><tr><td>Kettle</td><td>$20</td><td><button onclick="this.textContent = 'Bought'">Buy</button></td></tr></table>
  <stock-counter></stock-counter>
  <button onclick="document.getElementById('dlg').showModal()">Open dialog</button>
  <dialog id="dlg" aria-label="Confirm"><p>Sure?</p><button autofocus onclick="this.closest('dialog').close()">OK</button></dialog>
</main>
<footer><a href="/privacy">Privacy</a> · <a href="/terms">Terms</a></footer>
<script>
customElements.define('stock-counter', class extends HTMLElement {
  constructor() {
    super();
    const r = this.attachShadow({ mode: 'open' });
    r.innerHTML = '<div role="group" aria-label="Counter"><button>Add one</button></div>';
    r.querySelector('button').onclick = (e) => { e.target.textContent = 'Added 1'; };
  }
});
</script>`

// snapChain is the entries that hold the first snapshot entry starting
// with want, outermost first, by their indentation ("" and false when no
// entry starts so).
func snapChain(snap, want string) ([]string, bool) {
	lines := strings.Split(snap, "\n")
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), want) {
			continue
		}
		var chain []string
		in := indent(l)
		for j := i - 1; j >= 0 && in > 0; j-- {
			if d := indent(lines[j]); d < in && strings.HasPrefix(strings.TrimSpace(lines[j]), "- ") {
				chain = append(chain, strings.TrimSpace(lines[j]))
				in = d
			}
		}
		slices.Reverse(chain)
		return chain, true
	}
	return nil, false
}

// TestPlaywrightSnapshotNested: the surface's snapshot is nested as
// Playwright MCP's aria snapshot is (each entry under the containers that
// hold it: the site's navigation and its list, the form, the table's row
// beside its cells' text, the web component's group, the dialog; depth
// cuts it as Playwright's does), a ref
// taken from deep in it clicks its element, the changes an acting call
// answers come under their containers too, and [active] follows the
// focus: onto the field typed into, off it when a card is clicked, onto
// a button in a shadow root, the dialog's own button, and back.
func TestPlaywrightSnapshotNested(t *testing.T) {
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", nestSite)
	cs := connectPW(t, t.TempDir(), nil, nil)
	nav := pwOK(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/"})
	snap := nav.section("Snapshot")
	chainIs := func(what, snap, want string, chain ...string) {
		t.Helper()
		got, ok := snapChain(snap, want)
		if !ok {
			t.Errorf("%s: no entry %q in the snapshot:\n%s", what, want, snap)
			return
		}
		if !slices.Equal(got, chain) {
			t.Errorf("%s: %q stands in\n  %q\nwant\n  %q\nsnapshot:\n%s", what, want, got, chain, snap)
		}
	}
	chainIs("navigate", snap, `- link "Deals" [ref=`, `- banner:`, `- navigation "Main":`, `- list:`, `- listitem:`)
	chainIs("navigate", snap, `- generic "Blue kettle" [ref=`, `- main:`, `- region "Featured":`)
	chainIs("navigate", snap, `- textbox "Query" [ref=`, `- main:`, `- form "Search":`)
	chainIs("navigate", snap, `- button "Buy" [ref=`, `- main:`, `- table:`, `- row:`, `- cell:`)
	chainIs("navigate", snap, `- cell "Kettle"`, `- main:`, `- table:`, `- row:`)
	chainIs("navigate", snap, `- button "Add one" [ref=`, `- main:`, `- group "Counter":`)
	chainIs("navigate", snap, `- link "Terms" [ref=`, `- contentinfo:`)
	chainIs("navigate", snap, `- text: ·`, `- contentinfo:`)
	if strings.Contains(snap, "[active]") {
		t.Errorf("a page just loaded has its body focused, nothing [active]:\n%s", snap)
	}
	// depth, as Playwright's: what is nested deeper is left out.
	shallow := pwOK(t, cs, "browser_snapshot", map[string]any{"depth": 1}).section("Snapshot")
	if !strings.Contains(shallow, "\n  - navigation \"Main\"\n") || strings.Contains(shallow, "Deals") || !strings.Contains(shallow, `- link "Shop" [ref=`) {
		t.Errorf("browser_snapshot with depth 1:\n%s", shallow)
	}

	// Typed into, the field has the focus; the change is told under its form.
	typed := pwOK(t, cs, "browser_type", map[string]any{"element": "Query", "target": pwRef(t, nav, "textbox", "Query"), "text": "tea"})
	chainIs("browser_type's changes", typed.section("Snapshot"), `- textbox "Query" [active] [ref=`, `- main:`, `- form "Search":`)
	if sn := typed.section("Snapshot"); strings.Contains(sn, "Deals") || !strings.Contains(sn, `[active] [ref=`+pwRef(t, nav, "textbox", "Query")+`]: tea`) {
		t.Errorf("browser_type answers what it changed, and only that:\n%s", typed.text)
	}

	// A ref from deep in the nesting clicks its element; a card takes no
	// focus, and the field loses it.
	card := pwOK(t, cs, "browser_click", map[string]any{"element": "Blue kettle", "target": pwRef(t, nav, "generic", "Blue kettle")})
	chainIs("the card's click", card.section("Snapshot"), `- generic "Picked kettle" [ref=`, `- main:`, `- region "Featured":`)
	after := pwOK(t, cs, "browser_snapshot", nil).section("Snapshot")
	if strings.Contains(after, "[active]") || !strings.Contains(after, `- textbox "Query" [ref=`) {
		t.Errorf("after clicking the card nothing has the focus:\n%s", after)
	}

	// A button in the web component's shadow root: the deepest focused
	// element is [active], not its host.
	buy := pwOK(t, cs, "browser_click", map[string]any{"element": "Buy", "target": pwRef(t, nav, "button", "Buy")})
	chainIs("the row's click", buy.section("Snapshot"), `- button "Bought" [active] [ref=`, `- main:`, `- table:`, `- row:`, `- cell:`)
	pwOK(t, cs, "browser_click", map[string]any{"element": "Add one", "target": pwRef(t, nav, "button", "Add one")})
	after = pwOK(t, cs, "browser_snapshot", nil).section("Snapshot")
	chainIs("after the shadow button's click", after, `- button "Added 1" [active] [ref=`, `- main:`, `- group "Counter":`)
	if n := strings.Count(after, "[active]"); n != 1 {
		t.Errorf("%d entries [active], want 1:\n%s", n, after)
	}

	// The modal dialog: its button focused itself.
	open := pwOK(t, cs, "browser_click", map[string]any{"element": "Open dialog", "target": pwRef(t, nav, "button", "Open dialog")})
	osnap := open.section("Snapshot")
	chain, ok := snapChain(osnap, `- button "OK" [active] [ref=`)
	if !ok || len(chain) != 2 || chain[0] != "- main:" || !strings.HasPrefix(chain[1], `- dialog "Confirm" [ref=`) {
		t.Fatalf("the dialog's button, focused, under the dialog: %q\n%s", chain, open.text)
	}
	ok2 := pwRef(t, open, "button", "OK")
	pwOK(t, cs, "browser_click", map[string]any{"element": "OK", "target": ok2})
	after = pwOK(t, cs, "browser_snapshot", nil).section("Snapshot")
	if strings.Contains(after, `"OK"`) || !strings.Contains(after, `- button "Open dialog" [active] [ref=`) {
		t.Errorf("the dialog closed gives the focus back to the button that opened it:\n%s", after)
	}
}
