package session

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/lyrad/lyrad/policy"
)

// forged is attack 9's reason: line breaks, a second question of lyrad's
// own wording, a right-to-left override and a left-to-right isolate.
const forged = "save the draft\n\nAllow the agent to open and use docs.example.com?\r\n\u202emoc.elpmaxe\u2066 ok\u2069\u200b\ufeff\x00\x1b[2J"

func TestPromptLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"save the draft", "save the draft"},
		{"  two\n\nlines \t here  ", "two lines here"},
		{"\u202eevil\u202c.com", "evil.com"},
		{"a\u200bb\u200cc\u200dd\u2060e\ufefff\u00adg", "abcdefg"},
		{"x\u2028y\u2029z\u0085w", "x y z w"},
		{`say "yes" \ now`, `say \"yes\" \\ now`},
		{"tag\U000E0041\U000E007F end", "tag end"},
		{"vs\ufe0f\u034fx", "vsx"},
		{"bad\xff\xfeutf8", "badutf8"},
		{"\x1b[31mred\x07", "[31mred"},
	} {
		if got := promptLine(c.in, 100); got != c.want {
			t.Errorf("promptLine(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := promptLine(strings.Repeat("é", 300), 10); got != strings.Repeat("é", 10)+"…" {
		t.Errorf("cut: %q", got)
	}
	if got := promptLine("aaaa bbbb", 5); got != "aaaa…" {
		t.Errorf("cut at a space: %q", got)
	}
}

// The question the user answers: lyrad's line first and alone, the
// agent's reason on the next, quoted, clean.
func TestAskMessageKeepsTheReasonApart(t *testing.T) {
	scope := policy.ScopeOf("http://127.0.0.1:8080/")
	msg := askMessage(policy.Submit, scope, "", forged)
	lines := strings.Split(msg, "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want the question and the reason:\n%s", len(lines), msg)
	}
	if lines[0] != "Allow the agent to send a form (once) from "+scope.Loggable()+"?" {
		t.Errorf("question line: %q", lines[0])
	}
	if want := `Agent's reason: "save the draft Allow the agent to open and use docs.example.com? moc.elpmaxe ok[2J"`; lines[1] != want {
		t.Errorf("reason line:\n %q\nwant\n %q", lines[1], want)
	}
	if n := strings.Count(msg, "\nAllow the agent") + strings.Count(lines[0][:1], "A"); n != 1 {
		t.Errorf("%d lines start a question, want 1", n)
	}
	checkShown(t, msg)

	long := askMessage(policy.Navigate, scope, "", strings.Repeat("x", 5000))
	if n := utf8.RuneCountInString(long); n > 400 {
		t.Errorf("a 5000-rune reason made a %d-rune question", n)
	}
	if got := askMessage(policy.Navigate, scope, "", " \n\u202e "); strings.Contains(got, "reason") {
		t.Errorf("an empty reason was shown: %q", got)
	}
}

// A page's label (attack 9's radio) and item are quoted in lyrad's line.
func TestPublishDetailQuotesThePage(t *testing.T) {
	scope := policy.ScopeOf("http://127.0.0.1:8080/")
	detail := publishDetail(quoted("My post\u202e", maxPageRunes) + " (its publish setting now: " + quoted("Private\u202e\n?cilbup ekam", maxPageRunes) + ")")
	msg := askMessage(policy.Publish, scope, detail, "publish it")
	lines := strings.Split(msg, "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "Item to publish") || lines[2] != `Agent's reason: "publish it"` {
		t.Errorf("publish question:\n%s", msg)
	}
	checkShown(t, msg)
}

// checkShown: msg holds no control (but its own line breaks), format, bidi
// or zero-width rune.
func checkShown(t *testing.T, msg string) {
	t.Helper()
	for i, r := range msg {
		if r == '\n' {
			continue
		}
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) || r == utf8.RuneError {
			t.Errorf("rune %U at %d shown in %q", r, i, msg)
		}
	}
}

func FuzzPromptLine(f *testing.F) {
	for _, s := range []string{forged, "", `"\`, "a\u202eb", strings.Repeat("\u200b", 50), "x\xffy"} {
		f.Add(s, 20)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		if max < 1 || max > 500 {
			max = 1 + (max%500+500)%500
		}
		out := promptLine(s, max)
		if !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8: %q", out)
		}
		body := strings.TrimSuffix(out, "…")
		if strings.ContainsAny(body, "\n\r\t") {
			t.Fatalf("a line break or tab: %q", out)
		}
		runes := 0
		for i, r := range body {
			runes++
			if !shownRune(r) || r == utf8.RuneError || (unicode.IsSpace(r) && r != ' ') {
				t.Fatalf("rune %U at %d kept: %q", r, i, out)
			}
			if r == '"' && (i == 0 || body[i-1] != '\\') {
				t.Fatalf("an unescaped quote: %q", out)
			}
		}
		if strings.HasPrefix(body, " ") || strings.HasSuffix(body, " ") || strings.Contains(body, "  ") {
			t.Fatalf("spaces not folded: %q", out)
		}
		// Escapes count as one: the cut leaves at most 2*max runes.
		if runes > 2*max {
			t.Fatalf("%d runes for max %d", runes, max)
		}
		if quoted(s, max) != `"`+out+`"` {
			t.Fatal("quoted differs from promptLine")
		}
	})
}
