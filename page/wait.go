package page

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/snapshot"
)

// Excerpt is the start of the frame's visible text (at most 200
// characters, spaces folded), or "" when it cannot be read within a second.
func Excerpt(s *cdpconn.Session, w *Worlds, frame cdp.FrameID) string {
	cctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	// The start of the text only: a page's text may be megabytes.
	var r TextSlice
	if w.CallFunction(cctx, s, frame, snapshot.JSTextSlice, &r, "", "", 0, 4000, false) != nil {
		return ""
	}
	t := strings.Join(strings.Fields(r.Text), " ")
	if rs := []rune(t); len(rs) > 200 {
		t = string(rs[:200]) + "…"
	}
	return t
}

// urlGlob compiles a wait_for url glob: it matches the whole URL; ** is
// any run of characters, * any run without a slash, ? one character that
// is not a slash, {a,b} either; anything else is itself.
func urlGlob(glob string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	inGroup := false
	g := []rune(glob)
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case c == '*' && i+1 < len(g) && g[i+1] == '*':
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '{':
			inGroup = true
			b.WriteString("(?:")
		case c == '}' && inGroup:
			inGroup = false
			b.WriteString(")")
		case c == ',' && inGroup:
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	if inGroup {
		b.WriteString(")")
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return regexp.MustCompile("^" + regexp.QuoteMeta(glob) + "$")
	}
	return re
}
