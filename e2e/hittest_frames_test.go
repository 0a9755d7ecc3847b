package e2e

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestClickLandsThroughFrames (issue 20, attack 2): a page lays another
// site's frame, at opacity 0.02, over its own frames and over its own
// button, so that a click the agent aims at A's button lands on C's
// "Delete my account". The hit test holds from the top document down:
// each click, hover and click by ref on what lies under C's frame is
// refused as element_not_actionable naming C's frame and its origin, and
// nothing is dispatched (C counts 0 clicks and 0 hovers, A's buttons 0
// clicks). Also when the cover appears only as the pointer arrives.
// Frames nobody covers are clicked as before (the negative).
func TestClickLandsThroughFrames(t *testing.T) {
	parallel(t)
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	c := newSite(t, "127.0.0.3")
	frame := func(id, src, left, top, w, h, extra string) string {
		return fmt.Sprintf(`<iframe id=%s src="%s" style="position:absolute;left:%spx;top:%spx;width:%spx;height:%spx;%s"></iframe>`, id, src, left, top, w, h, extra)
	}
	veil := "border:0;opacity:0.02"
	a.page("/", `<!doctype html><title>hit</title><body style="margin:0">`+
		frame("inner", "/inner", "20", "20", "300", "120", "border:3px solid #333")+
		frame("over", c.URL+"/delete?n=1", "20", "20", "306", "126", veil)+
		frame("xframe", b.URL+"/xinner", "20", "180", "300", "120", "border:3px solid #333")+
		frame("over2", c.URL+"/delete?n=2", "20", "180", "306", "126", veil)+
		`<button id=top style="position:absolute;left:360px;top:20px;width:160px;height:40px" onclick="fetch('/top-clicked')">Top button</button>`+
		frame("over3", c.URL+"/delete?n=3", "350", "10", "180", "60", veil)+
		frame("late", "/late", "360", "180", "300", "120", "border:3px solid #333")+
		frame("over4", c.URL+"/delete?n=4", "360", "180", "306", "126", veil+";visibility:hidden")+
		frame("plain", "/plain", "20", "340", "300", "100", "border:1px solid #333")+
		frame("xplain", b.URL+"/xplain", "360", "340", "300", "100", "border:1px solid #333")+
		`<button id=sync style="position:absolute;left:20px;top:470px" onclick="fetch('/sync')">sync</button>`)
	a.page("/inner", `<!doctype html><body style="margin:0"><div style="height:30px"></div>
<button id=ab style="margin-left:40px" onclick="fetch('/a-clicked')" onmouseenter="fetch('/a-hovered')">A button</button>
<input id=ai style="margin-left:10px" oninput="fetch('/a-typed/' + this.value)">`)
	a.page("/late", `<!doctype html><body style="margin:0"><div style="height:30px"></div>
<button id=lb style="margin-left:40px" onclick="fetch('/late-clicked')"
  onmouseenter="parent.document.getElementById('over4').style.visibility = 'visible'">Late button</button>`)
	a.page("/plain", `<!doctype html><body style="margin:0"><button id=pb style="margin:20px" onclick="fetch('/plain-clicked')">Plain button</button>`)
	b.page("/xinner", `<!doctype html><body style="margin:0"><div style="height:30px"></div>
<button id=xb style="margin-left:40px" onclick="fetch('/b-clicked')">B button</button>`)
	b.page("/xplain", `<!doctype html><body style="margin:0"><button id=xpb style="margin:20px" onclick="fetch('/xplain-clicked')">Cross plain</button>`)
	c.handle("/delete", func(w http.ResponseWriter, r *http.Request) {
		n := r.URL.Query().Get("n")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><body style="margin:0" onkeydown="fetch('/c%[1]s-key')">
<button style="width:100vw;height:100vh" onclick="fetch('/c%[1]s-clicked')" onmouseover="fetch('/c%[1]s-hovered')">Delete my account</button>`, n)
	})
	act := newActor(t)
	act.open(a.URL + "/")
	waitFor(t, "every frame to load", 15*time.Second, func() bool {
		return a.count("/inner") == 1 && a.count("/late") == 1 && a.count("/plain") == 1 && b.count("/xinner") == 1 &&
			b.count("/xplain") == 1 && c.count("/delete") == 4
	})

	refused := func(tool string, args map[string]any, cover string) map[string]any {
		t.Helper()
		env := act.call(tool, args)
		if env["status"] != "element_not_actionable" {
			// Go on: what reached C is counted at the end.
			t.Errorf("%s %v: status %v, want element_not_actionable: %v", tool, args["selector"], env["status"], env)
			return env
		}
		wantFailure(t, env, "element_not_actionable", fmt.Sprint(args["selector"]))
		if by := fmt.Sprint(env["covered_by"]); !strings.Contains(by, cover) {
			t.Errorf("%s %v: covered_by = %q, want it to name %s", tool, args["selector"], by, cover)
		}
		if env["covered_origin"] != c.URL {
			t.Errorf("%s %v: covered_origin = %v, want C's %s (%v)", tool, args["selector"], env["covered_origin"], c.URL, env)
		}
		t.Logf("%s %v: %v", tool, args["selector"], env["error"])
		return env
	}
	// A hover first, while the pointer has been nowhere near C's frames.
	refused("hover", map[string]any{"selector": "#ab"}, "iframe#over")
	// A's own same-origin frame under C's frame: by CSS and by ref.
	refused("click", map[string]any{"selector": "#ab"}, "iframe#over")
	tree := fmt.Sprint(act.call("read_page", map[string]any{"mode": "tree"})["tree"])
	m := regexp.MustCompile(`aria-ref=(e\d+) button "A button"`).FindStringSubmatch(tree)
	if m == nil {
		t.Fatalf("no ref for A's button in the tree:\n%s", tree)
	}
	refused("click", map[string]any{"selector": "aria-ref=" + m[1]}, "iframe#over")
	// A cross-site (out-of-process) frame under C's frame.
	refused("click", map[string]any{"selector": "#xb"}, "iframe#over2")
	// The page's own top-level button under C's frame.
	refused("click", map[string]any{"selector": "#top"}, "iframe#over3")
	// The cover laid over the frame as the pointer arrives.
	env := refused("click", map[string]any{"selector": "#lb"}, "iframe#over4")
	if msg := fmt.Sprint(env["error"]); !strings.Contains(msg, "when the pointer reached it") {
		t.Errorf("the late cover: %q, want it said to have come as the pointer arrived", msg)
	}
	// Typing goes to the focused field, not to where a pointer would land:
	// A's field gets the text, C's frame over it no key.
	wantStatus(t, act.call("type_text", map[string]any{"selector": "#ai", "text": "hello"}), "ok")
	waitFor(t, "the text in A's field", 10*time.Second, func() bool { return a.count("/a-typed/hello") == 1 })

	// The negative: frames nothing covers take their clicks, same-origin
	// and cross-site; and a click in the top document, which orders what
	// the refused calls could have sent before it.
	wantStatus(t, act.call("click", map[string]any{"selector": "#pb"}), "ok")
	wantStatus(t, act.call("click", map[string]any{"selector": "#xpb"}), "ok")
	// A frame element itself is not clicked: the click would land on what
	// the frame shows, in another document (another site's, needing its
	// own INTERACT), not on the element named.
	for _, sel := range []string{"iframe#plain", "iframe#xplain"} {
		env := act.call("click", map[string]any{"selector": sel})
		wantFailure(t, env, "element_not_actionable", sel)
		if msg := fmt.Sprint(env["error"]); !strings.Contains(msg, "is a frame") {
			t.Errorf("click %s: %q, want it said to be a frame", sel, msg)
		}
	}
	wantStatus(t, act.call("click", map[string]any{"selector": "#sync"}), "ok")
	waitFor(t, "the uncovered clicks", 10*time.Second, func() bool {
		return a.count("/plain-clicked") == 1 && b.count("/xplain-clicked") == 1 && a.count("/sync") == 1
	})

	var reachedC int
	for _, n := range []string{"1", "2", "3", "4"} {
		reachedC += c.count("/c" + n + "-clicked")
		reachedC += c.count("/c" + n + "-key")
	}
	reachedC += c.count("/c1-hovered") + c.count("/c2-hovered") + c.count("/c3-hovered")
	reachedA := a.count("/a-clicked") + a.count("/a-hovered") + a.count("/top-clicked") + a.count("/late-clicked") + b.count("/b-clicked")
	if n := a.count("/plain-clicked") + b.count("/xplain-clicked"); n != 2 {
		t.Errorf("the uncovered frames' buttons got %d clicks, want 1 each (a click on their frame elements lands nowhere)", n)
	}
	t.Logf("reached C (clicks, keys, hovers): %d; covered targets' clicks and hovers: %d", reachedC, reachedA)
	if reachedC != 0 || reachedA != 0 {
		t.Errorf("input reached C %d times and the covered targets %d times, want 0 and 0", reachedC, reachedA)
	}
}

// TestClickLandsThroughFramesHidden: the same attack hidden further: the
// page's frame and C's frame over it inside a closed shadow root; a frame
// scaled so that the point computed from its box lands beside it; a frame
// that lets the pointer through (pointer-events: none) to the page; and a
// frame inside another site's frame, covered in the top document. Each is
// refused as element_not_actionable and nothing reaches C or the target;
// the same nested frame uncovered is found by CSS and clicked.
func TestClickLandsThroughFramesHidden(t *testing.T) {
	parallel(t)
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	c := newSite(t, "127.0.0.3")
	a.page("/", `<!doctype html><title>hidden</title><body style="margin:0">
<div id=host style="position:absolute;left:20px;top:20px;width:320px;height:140px"></div>
<script>
const r = document.getElementById('host').attachShadow({mode: 'closed'});
r.innerHTML = '<iframe src="/inner" style="position:absolute;left:0;top:0;width:300px;height:120px;border:0"></iframe>' +
  '<iframe src="`+c.URL+`/delete?n=1" style="position:absolute;left:0;top:0;width:300px;height:120px;border:0;opacity:0.02"></iframe>';
</script>
<iframe id=scaled src="/scaled" style="position:absolute;left:360px;top:20px;width:300px;height:120px;border:0;transform:scale(0.5);transform-origin:0 0"></iframe>
<iframe id=beside src="`+c.URL+`/delete?n=2" style="position:absolute;left:510px;top:20px;width:150px;height:60px;border:0;opacity:0.02"></iframe>
<iframe id=ghost src="/ghost" style="position:absolute;left:20px;top:180px;width:300px;height:120px;border:0;pointer-events:none"></iframe>
<iframe id=outer src="`+b.URL+`/outer" style="position:absolute;left:360px;top:180px;width:300px;height:160px;border:0"></iframe>
<iframe id=over3 src="`+c.URL+`/delete?n=3" style="position:absolute;left:360px;top:180px;width:300px;height:160px;border:0;opacity:0.02"></iframe>
<iframe id=outer2 src="`+b.URL+`/outer2" style="position:absolute;left:20px;top:360px;width:300px;height:160px;border:0"></iframe>
<button id=sync style="position:absolute;left:360px;top:400px" onclick="fetch('/sync')">sync</button>`)
	button := func(id, path string) string {
		return fmt.Sprintf(`<!doctype html><body style="margin:0"><div style="height:30px"></div>
<button id=%[1]s style="margin-left:40px;width:200px" onclick="fetch('%[2]s')">Target %[1]s</button>
<script>onload = () => fetch('/loaded-%[1]s')</script>`, id, path)
	}
	a.page("/inner", button("ab", "/a-clicked"))
	a.page("/scaled", button("sb", "/s-clicked"))
	a.page("/ghost", button("gb", "/g-clicked"))
	b.page("/outer", `<!doctype html><body style="margin:0"><iframe src="/nested" style="border:0;width:280px;height:120px;margin-top:20px"></iframe>`)
	b.page("/nested", button("nb", "/n-clicked"))
	b.page("/outer2", `<!doctype html><body style="margin:0"><iframe src="/nested2" style="border:0;width:280px;height:120px;margin-top:20px"></iframe>`)
	b.page("/nested2", button("nb2", "/n2-clicked"))
	c.handle("/delete", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><body style="margin:0"><button style="width:100vw;height:100vh" onclick="fetch('/c%s-clicked')">Delete my account</button>`, r.URL.Query().Get("n"))
	})
	act := newActor(t)
	act.open(a.URL + "/")
	waitFor(t, "every frame to load", 15*time.Second, func() bool {
		return a.count("/loaded-ab") == 1 && a.count("/loaded-sb") == 1 && a.count("/loaded-gb") == 1 && b.count("/loaded-nb") == 1 && b.count("/loaded-nb2") == 1 && c.count("/delete") == 3
	})
	tree := fmt.Sprint(act.call("read_page", map[string]any{"mode": "tree"})["tree"])
	ref := func(name string) string {
		m := regexp.MustCompile(`aria-ref=(e\d+) button "` + name + `"`).FindStringSubmatch(tree)
		if m == nil {
			t.Fatalf("no ref for %q in the tree:\n%s", name, tree)
		}
		return "aria-ref=" + m[1]
	}
	for _, sel := range []string{"#ab", "#sb", "#gb", "#nb", ref("Target nb")} {
		env := act.call("click", map[string]any{"selector": sel})
		t.Logf("click %s: %v %v (covered_origin %v)", sel, env["status"], env["error"], env["covered_origin"])
		if env["status"] != "element_not_actionable" {
			t.Errorf("click %s: status %v, want element_not_actionable: %v", sel, env["status"], env)
		}
	}
	// The negative: a frame of the same process inside another site's
	// frame, nothing over it, is found by CSS and clicked.
	nested := act.call("click", map[string]any{"selector": "#nb2"})
	if nested["status"] != "ok" {
		t.Errorf("the uncovered nested frame's button by CSS: %v", nested)
	}
	wantStatus(t, act.call("click", map[string]any{"selector": "#sync"}), "ok")
	waitFor(t, "the sync click", 10*time.Second, func() bool { return a.count("/sync") == 1 })
	if nested["status"] == "ok" {
		waitFor(t, "the nested frame's click", 10*time.Second, func() bool { return b.count("/n2-clicked") == 1 })
	}
	reachedC := c.count("/c1-clicked") + c.count("/c2-clicked") + c.count("/c3-clicked")
	reached := a.count("/a-clicked") + a.count("/s-clicked") + a.count("/g-clicked") + b.count("/n-clicked")
	t.Logf("reached C: %d; the targets: %d", reachedC, reached)
	if reachedC != 0 || reached != 0 {
		t.Errorf("clicks reached C %d times and the targets %d times, want 0 and 0", reachedC, reached)
	}
}

// TestClickWebComponentSlottedText: a web component's own button around
// text slotted into it takes the click (the hit at its text is the host,
// the text's parent, and was taken for a cover); an overlay inside the
// component over its button is still refused, and gets nothing.
func TestClickWebComponentSlottedText(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>wc</title><body style="margin:20px">
<my-btn id=ok>Slotted label</my-btn>
<my-btn id=veiled veil>Veiled label</my-btn>
<script>
customElements.define('my-btn', class extends HTMLElement {
  constructor() {
    super();
    const r = this.attachShadow({mode: 'open'});
    const id = this.id;
    r.innerHTML = '<div style="position:relative;display:inline-block;margin:10px">' +
      '<button id=' + id + '-inner style="padding:12px 30px"><slot></slot></button>' +
      (this.hasAttribute('veil') ? '<div id=' + id + '-veil style="position:absolute;inset:0;opacity:0.05;background:#000"></div>' : '') + '</div>';
    r.getElementById(id + '-inner').onclick = () => fetch('/' + id + '-clicked');
    const v = r.getElementById(id + '-veil');
    if (v) v.onclick = () => fetch('/veil-clicked');
  }
});
</script>`)
	act := newActor(t)
	act.open(s.URL + "/")
	env := act.call("click", map[string]any{"selector": "#ok-inner"})
	wantStatus(t, env, "ok")
	env = act.call("click", map[string]any{"selector": "text=Slotted label"})
	wantStatus(t, env, "ok")
	waitFor(t, "both clicks on the component's button", 10*time.Second, func() bool { return s.count("/ok-clicked") == 2 })
	env = act.call("click", map[string]any{"selector": "#veiled-inner"})
	wantFailure(t, env, "element_not_actionable", "#veiled-inner")
	if by := fmt.Sprint(env["covered_by"]); !strings.Contains(by, "veiled-veil") {
		t.Errorf("the veiled button: covered_by %q, want the veil inside the component", by)
	}
	// A click after it orders what the refused one could have sent.
	wantStatus(t, act.call("click", map[string]any{"selector": "#ok-inner"}), "ok")
	waitFor(t, "the click after", 10*time.Second, func() bool { return s.count("/ok-clicked") == 3 })
	if n := s.count("/veil-clicked") + s.count("/veiled-clicked"); n != 0 {
		t.Errorf("the refused click reached the page %d times", n)
	}
}
