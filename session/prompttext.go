package session

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text in a question the user answers that lyrad did not write (the
// agent's reason, a page's labels and values, a client's name) is shown on
// one line, quoted, cut to a length, with nothing in it that could pass for
// lyrad's own words or change how the rest of the question reads: no line
// breaks (a second "Allow the agent to ...?" line), no control characters,
// no bidi controls (U+202E turns "moc.evil" into "evil.com"), no zero-width
// or other invisible format characters, no quote that ends the quoting.

// Lengths at which untrusted text in a question is cut.
const (
	maxReasonRunes = 200 // the agent's reason
	maxPageRunes   = 80  // a page's label or value
	maxNameRunes   = 60  // a client's name
)

// promptLine is s made safe to show on one line of a question: every
// control, format (bidi, zero-width, soft hyphen, tag), line and paragraph
// separator, private-use, surrogate, unassigned or invalid rune dropped;
// every run of spaces (line breaks and tabs included) one space; a double
// quote or backslash escaped; cut to max runes with "…" when longer.
func promptLine(s string, max int) string {
	var b strings.Builder
	n := 0
	space := false
	cut := false
	for _, r := range s {
		if r == utf8.RuneError || !shownRune(r) {
			continue
		}
		if unicode.IsSpace(r) {
			space = n > 0
			continue
		}
		add := 1
		if space {
			add++
		}
		if n+add > max {
			cut = true
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
		n += add
	}
	out := b.String()
	if cut {
		out += "…"
	}
	return out
}

// shownRune: r may appear in a question as itself (whitespace is folded by
// the caller).
func shownRune(r rune) bool {
	if unicode.IsSpace(r) {
		return true
	}
	switch {
	case unicode.Is(unicode.Cc, r), unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r),
		unicode.Is(unicode.Cs, r), unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
		return false
	case r == '\u034f', r == '\u115f', r == '\u1160', r == '\u3164', r == '\uffa0',
		r >= '\ufe00' && r <= '\ufe0f', r >= 0xe0100 && r <= 0xe01ef:
		// Invisible though not Cf: the combining grapheme joiner, Hangul
		// fillers, variation selectors.
		return false
	case r >= 0xfff9 && r <= 0xfffc:
		return false // interlinear annotation, object replacement
	}
	return unicode.IsGraphic(r)
}

// quoted is promptLine in double quotes.
func quoted(s string, max int) string {
	return `"` + promptLine(s, max) + `"`
}
