package e2e

import (
	"regexp"
	"strings"
	"testing"
)

// TestPlaywrightClickAnswersChanges: an acting call on this surface
// answers what it changed under ### Snapshot, with refs: a click that
// opens a menu answers the menu's items (and not what stood still), and
// a click on an item by the ref that answer gave lands, with no
// browser_snapshot between.
func TestPlaywrightClickAnswersChanges(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Menu</title>
<h1>Nothing picked</h1>
<button id=m aria-expanded=false>Fruit</button>
<div id=list></div>
<a href="/about">About us</a>
<script>
document.getElementById('m').onclick = () => {
  for (const f of ['Apples', 'Pears']) {
    const b = document.createElement('button');
    b.setAttribute('role', 'menuitem');
    b.textContent = f;
    b.onclick = () => { document.querySelector('h1').textContent = 'Picked ' + f; };
    document.getElementById('list').append(b);
  }
};
</script>`)
	cs := connectPW(t, t.TempDir(), nil, nil)
	nav := pwOK(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/"})
	open := pwOK(t, cs, "browser_click", map[string]any{"element": "Fruit menu", "target": pwRef(t, nav, "button", "Fruit")})
	snap := open.section("Snapshot")
	if strings.Contains(snap, "About us") {
		t.Errorf("the click's snapshot lists what did not change (the whole page, not what changed):\n%s", open.text)
	}
	var pears string
	for _, l := range strings.Split(snap, "\n") {
		if strings.Contains(l, `"Pears"`) && strings.Contains(l, "appeared") {
			if m := pwRefRE.FindStringSubmatch(l); m != nil {
				pears = m[1]
			}
		}
	}
	if pears == "" || !strings.Contains(snap, `"Apples" [ref=`) {
		t.Fatalf("the click's snapshot does not answer the new menu items with refs:\n%s", open.text)
	}
	pick := pwOK(t, cs, "browser_click", map[string]any{"element": "Pears", "target": pears})
	if !strings.Contains(pick.section("Snapshot"), `heading "Picked Pears"`) {
		t.Errorf("the item's click does not answer the heading it changed:\n%s", pick.text)
	}
}

// browser_type answers, in its snapshot of what changed, the messages the
// page shows on input, at once, a few milliseconds later or after a
// promise, and the field's value.
func TestPlaywrightTypeAnswersChanges(t *testing.T) {
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", typedErrorsPage)
	cs := connectPW(t, t.TempDir(), nil, nil)
	nav := pwOK(t, cs, "browser_navigate", map[string]any{"url": s.URL + "/"})
	for _, c := range []struct{ field, text, msg string }{
		{"User", "ada", "User ada is taken"},
		{"Code", "12", "Code 12 is too short"},
		{"Phone", "555", "Phone 555 needs a country code"},
	} {
		typed := pwOK(t, cs, "browser_type", map[string]any{"element": c.field + " field", "target": pwRef(t, nav, "textbox", c.field), "text": c.text})
		snap := typed.section("Snapshot")
		if !strings.Contains(snap, "alert") || !strings.Contains(snap, c.msg) {
			t.Errorf("%s: the message %q is not in what changed:\n%s", c.field, c.msg, typed.text)
		}
		// YAML quotes a value that reads as a number.
		if !regexp.MustCompile(`textbox "` + c.field + `"( \[active\])? \[ref=e\d+\]: "?` + c.text + `"?`).MatchString(snap) {
			t.Errorf("%s: the field's value %q is not in what changed:\n%s", c.field, c.text, typed.text)
		}
	}
}
