package e2e

import "testing"

// TestEmptySelectorIsAnArgumentError: a call on an element with selector
// "" answers an error envelope naming the argument; nothing panics (a
// click with selector "" crashed lyrad, and its browser with it), and the
// server answers the next call.
func TestEmptySelectorIsAnArgumentError(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>start</title><select id=s><option>a</option></select><input id=i><button id=b>Go</button>`)
	cs := connectStdio(t, t.TempDir(), proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"click", map[string]any{"selector": ""}},
		{"hover", map[string]any{"selector": ""}},
		{"type_text", map[string]any{"selector": "", "text": "x"}},
		{"select_option", map[string]any{"selector": "", "value": "a"}},
		{"read_image", map[string]any{"selector": ""}},
	} {
		env := call(t, cs, c.tool, c.args)
		if env["status"] == "ok" || env["argument"] != "selector" {
			t.Errorf("%s with selector \"\": %v, want an error naming selector", c.tool, env)
		}
	}
	wantStatus(t, call(t, cs, "get_url", nil), "ok")
}
