// Package snapshot turns what Chrome says about a page into what read_page
// answers: the action map (one line per visible thing to act on, plus
// headings) and pages of long output.
//
// The map is read in lyrad's isolated world (JSTree: role, name, states
// and box of each element, by the rules Chrome's accessibility tree
// follows), never in the page's own world. The package speaks no CDP
// itself: package page runs its scripts, this package holds them and
// formats what they answer.
package snapshot

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Rect is a box in CSS pixels.
type Rect struct{ X, Y, W, H float64 }

// Empty reports a box with no area.
func (r Rect) Empty() bool { return r.W <= 0 || r.H <= 0 }

// Union is the smallest box holding both; an empty box adds nothing.
func (r Rect) Union(o Rect) Rect {
	if o.Empty() {
		return r
	}
	if r.Empty() {
		return o
	}
	x0, y0 := min(r.X, o.X), min(r.Y, o.Y)
	x1, y1 := max(r.X+r.W, o.X+o.W), max(r.Y+r.H, o.Y+o.H)
	return Rect{x0, y0, x1 - x0, y1 - y0}
}

// Intersects reports whether two boxes overlap.
func (r Rect) Intersects(o Rect) bool {
	return !r.Empty() && !o.Empty() && r.X < o.X+o.W && o.X < r.X+r.W && r.Y < o.Y+o.H && o.Y < r.Y+r.H
}

// Item is one line of the map.
type Item struct {
	Frame      string // the frame id of its document
	Node       int64  // its id in that document's table (JSTree)
	Role       string
	Name       string
	Href       string // absolute; "" for non-links
	States     []string
	Value      string // a field's current value, "" for none; a password's is never read ([filled] in States)
	Hint       string // not an accessible name, shown when there is none: near "Username", icon "trash"
	Box        Rect   // in its document's viewport
	InViewport bool
}

// maxName bounds a name on a line; a longer one is cut with an ellipsis.
const maxName = 160

// MaxValue bounds a field's value on a line.
const MaxValue = 40

// CutValue collapses whitespace and bounds the length of a value.
func CutValue(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > MaxValue {
		r := []rune(s)
		s = string(r[:MaxValue-1]) + "…"
	}
	return s
}

// Clean collapses whitespace and bounds the length of a name.
func Clean(s string) string {
	s = strings.Join(strings.FieldsFunc(s, asciiSpace), " ") // U+00A0 stays, as in Chrome's names
	if utf8.RuneCountInString(s) > maxName {
		r := []rune(s)
		s = string(r[:maxName-1]) + "…"
	}
	return s
}

func asciiSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v'
}

// Order puts on-screen items first, each group in reading order, and
// reports how many are on screen.
func Order(items []Item) ([]Item, int) {
	out := make([]Item, 0, len(items))
	for _, it := range items {
		if it.InViewport {
			out = append(out, it)
		}
	}
	n := len(out)
	for _, it := range items {
		if !it.InViewport {
			out = append(out, it)
		}
	}
	return out, n
}

// Line is one item as the map prints it:
//
//	aria-ref=e12 link "Pricing" -> /pricing
//	aria-ref=e16 checkbox "Remember me" [checked]
//	aria-ref=e17 textbox "Tags": Macao
//	aria-ref=e18 textbox (near "Password") [filled]
//	aria-ref=e19 generic (icon "trash") [clickable]
//
// A link to the page's own origin shows its path, one within the page its
// fragment (-> #top, -> # for href="#"); any other its full URL. A field's
// value comes last, after a colon.
func Line(ref string, it Item, page *url.URL) string {
	var b strings.Builder
	b.WriteString("aria-ref=")
	b.WriteString(ref)
	b.WriteByte(' ')
	b.WriteString(it.Role)
	if it.Name != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(it.Name))
	} else if it.Hint != "" {
		b.WriteString(" (")
		b.WriteString(it.Hint)
		b.WriteByte(')')
	}
	for _, s := range it.States {
		b.WriteString(" [")
		b.WriteString(s)
		b.WriteByte(']')
	}
	if h := shortHref(it.Href, page); h != "" {
		b.WriteString(" -> ")
		b.WriteString(h)
	}
	if it.Value != "" {
		b.WriteString(": ")
		b.WriteString(it.Value)
	}
	return b.String()
}

func shortHref(href string, page *url.URL) string {
	if href == "" || strings.HasPrefix(strings.ToLower(href), "javascript:") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil || page == nil {
		return href
	}
	if u.Scheme == page.Scheme && u.Host == page.Host {
		// Within the page (href="#", "#top"): only the fragment, so that
		// it does not read as a load of the page.
		if i := strings.IndexByte(href, '#'); i >= 0 && u.EscapedPath() == page.EscapedPath() && u.RawQuery == page.RawQuery {
			return "#" + u.EscapedFragment()
		}
		s := u.EscapedPath()
		if s == "" {
			s = "/"
		}
		if u.RawQuery != "" {
			s += "?" + u.RawQuery
		}
		if u.Fragment != "" {
			s += "#" + u.EscapedFragment()
		}
		return s
	}
	return href
}
