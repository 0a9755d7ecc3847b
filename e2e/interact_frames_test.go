package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestActInFrames: elements in a same-origin iframe and in a cross-site
// (out-of-process) iframe, reached by CSS (searched in the frames when the
// page itself has no match) and by aria-ref. The iframes sit away from the
// corner, with borders and padding, one of them below the fold, so a click
// that got the frame's offset wrong would miss: each inner page reports
// what reached it to its own server.
func TestActInFrames(t *testing.T) {
	parallel(t)
	a1 := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	a1.page("/", fmt.Sprintf(`<!doctype html><title>frames</title><body style="margin:0">
<div style="height:120px">top</div>
<iframe id=same src="/inner" style="position:absolute;left:130px;top:140px;width:420px;height:220px;border:6px solid #333;padding:9px"></iframe>
<iframe id=cross src="%s/xinner" style="position:absolute;left:210px;top:1500px;width:460px;height:260px;border:4px solid #333;padding:13px"></iframe>
<div style="height:2200px"></div>`, b.URL))
	inner := func(prefix string) string {
		return fmt.Sprintf(`<!doctype html><title>%[1]s inner</title><body style="margin:0">
<div style="height:70px"></div>
<button id=%[1]sb style="margin-left:55px" onclick="fetch('/clicked?' + event.isTrusted)">%[1]s button</button>
<input id=%[1]st style="margin-left:20px" oninput="fetch('/typed/' + this.value)">
<span id=%[1]sh onmouseenter="fetch('/hovered')">%[1]s hover</span>
<div style="position:relative;margin-top:10px"><button id=%[1]sc>%[1]s covered</button>
  <div style="position:absolute;inset:0;background:#ccc">%[1]s overlay</div></div>`, prefix)
	}
	a1.page("/inner", inner("s"))
	b.page("/xinner", inner("x"))
	a := newActor(t)
	a.open(a1.URL + "/")
	waitFor(t, "both frames to load", 10*time.Second, func() bool { return a1.count("/inner") == 1 && b.count("/xinner") == 1 })

	// Same-origin frame, by CSS.
	env := a.call("click", map[string]any{"selector": "#sb"})
	wantStatus(t, env, "ok")
	waitFor(t, "the same-origin frame's click", 5*time.Second, func() bool { return a1.count("/clicked") == 1 })
	if element(env, "clicked")["name"] != "s button" {
		t.Errorf("clicked %v", env["clicked"])
	}
	wantStatus(t, a.call("type_text", map[string]any{"selector": "#st", "text": "same"}), "ok")
	waitFor(t, "typing in the same-origin frame", 5*time.Second, func() bool { return a1.count("/typed/same") == 1 })

	// Cross-site frame below the fold, by CSS: its own session, its own
	// geometry plus where its iframe sits.
	env = a.call("click", map[string]any{"selector": "#xb"})
	wantStatus(t, env, "ok")
	waitFor(t, "the cross-site frame's click", 5*time.Second, func() bool { return b.count("/clicked") == 1 })
	wantStatus(t, a.call("type_text", map[string]any{"selector": "#xt", "text": "cross"}), "ok")
	waitFor(t, "typing in the cross-site frame", 5*time.Second, func() bool { return b.count("/typed/cross") == 1 })
	// Keys go to the focused frame.
	wantStatus(t, a.call("press_key", map[string]any{"key": "Shift+z"}), "ok")
	waitFor(t, "a key in the cross-site frame", 5*time.Second, func() bool { return b.count("/typed/crossZ") == 1 })
	wantStatus(t, a.call("hover", map[string]any{"selector": "#xh"}), "ok")
	waitFor(t, "hovering in the cross-site frame", 5*time.Second, func() bool { return b.count("/hovered") == 1 })
	env = a.call("click", map[string]any{"selector": "#xc"})
	wantFailure(t, env, "element_not_actionable", "#xc")
	if !strings.Contains(fmt.Sprint(env["covered_by"]), "x overlay") {
		t.Errorf("covered in the frame: %v", env)
	}
	env = a.call("scroll", map[string]any{"selector": "#same"})
	wantStatus(t, env, "ok")

	// By aria-ref, from the tree read.
	tree := fmt.Sprint(a.call("read_page", map[string]any{"mode": "tree"})["tree"])
	for _, c := range []struct {
		name string
		site *site
	}{{"s button", a1}, {"x button", b}} {
		m := regexp.MustCompile(`aria-ref=(e\d+) button "` + c.name + `"`).FindStringSubmatch(tree)
		if m == nil {
			t.Fatalf("no ref for %q in the tree:\n%s", c.name, tree)
		}
		before := c.site.count("/clicked")
		env := a.call("click", map[string]any{"selector": "aria-ref=" + m[1]})
		wantStatus(t, env, "ok")
		waitFor(t, "the click by ref on "+c.name, 5*time.Second, func() bool { return c.site.count("/clicked") == before+1 })
	}
	// A ref that is not from the latest read: not_found at once.
	env, took := a.timed("click", map[string]any{"selector": "aria-ref=e9999"})
	wantStatus(t, env, "not_found")
	if took > time.Second || env["hint"] == nil {
		t.Errorf("stale ref: %v after %v", env, took)
	}
}
