package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode"
)

// forgedReason is the third red team's attack 9: line breaks, a line that
// reads as lyrad's own question for another site, a right-to-left override
// and a left-to-right isolate, and a zero-width space.
const forgedReason = "save the draft\n\nAllow the agent to open and use docs.example.com?\n\u202emoc.elpmaxe.scod\u2066 \u200bthanks"

// TestPromptTextCannotForge: the agent's reason and a page's labels are
// shown in the question the user answers on one line, quoted, with no
// control, bidi or zero-width character; lyrad's own question is the first
// line and the only one that asks.
func TestPromptTextCannotForge(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/edit", "<!doctype html><title>Edit</title>\n"+
		`<form method="post" action="/save">`+
		`<p><label for="title">Title</label> <input id="title" name="title" value="Quarterly `+"\u202e"+`gnissim"></p>`+
		`<p><label><input type="radio" name="is_draft" value="1" checked> Draft `+"\u202e"+`cilbup</label> `+
		`<label><input type="radio" name="is_draft" value="0"> Publish</label></p>`+
		`<button type="submit" id="submit">Submit</button></form>`)
	s.handle("/save", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<!doctype html><title>Saved</title>saved")
	})
	ask := &asker{}
	cs := connectAsking(t, t.TempDir(), proto2025, ask.handle)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/edit", "reason": forgedReason}), "ok")
	env := call(t, cs, "publish", map[string]any{"selector": "input[name=is_draft][value='0']", "submit": "#submit", "reason": forgedReason})
	wantStatus(t, env, "ok")
	if s.count("/save") != 1 {
		t.Errorf("the publish reached the site %d times, want 1", s.count("/save"))
	}

	ask.mu.Lock()
	asked := append([]string(nil), ask.asked...)
	ask.mu.Unlock()
	if len(asked) < 3 {
		t.Fatalf("%d questions asked (navigate, send, publish expected): %q", len(asked), asked)
	}
	questions, hidden, reasons, pageLines := 0, 0, 0, 0
	for _, m := range asked {
		lines := strings.Split(m, "\n")
		for i, line := range lines {
			if strings.HasPrefix(line, "Allow the agent to") {
				questions++
				if i != 0 {
					t.Errorf("a question on line %d of %q", i+1, m)
				}
			}
			if strings.HasPrefix(line, `Agent's reason: "`) && strings.HasSuffix(line, `"`) && strings.Contains(line, "docs.example.com") {
				reasons++
			}
			if strings.Contains(line, "Quarterly") && strings.Contains(line, `"Draft cilbup"`) {
				pageLines++
			}
		}
		for _, r := range m {
			if r != '\n' && (unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r)) {
				hidden++
			}
		}
	}
	t.Logf("%d questions asked; %d lyrad question lines, %d hidden characters, %d quoted reason lines, %d quoted page lines", len(asked), questions, hidden, reasons, pageLines)
	if questions != len(asked) {
		t.Errorf("%d lines read as lyrad's question in %d prompts, want exactly 1 each:\n%s", questions, len(asked), strings.Join(asked, "\n---\n"))
	}
	if hidden != 0 {
		t.Errorf("%d control, bidi or zero-width characters shown to the user", hidden)
	}
	if reasons != len(asked) {
		t.Errorf("the reason on one quoted line in %d of %d prompts", reasons, len(asked))
	}
	if pageLines == 0 {
		t.Errorf("no prompt names the item and its setting, quoted:\n%s", strings.Join(asked, "\n---\n"))
	}
}
