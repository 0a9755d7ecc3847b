// Package snapshot turns what Chrome says about a page into what read_page
// answers: the action map (one line per visible thing to act on, plus
// headings) and pages of long output.
//
// Role and name come from the accessibility tree Chrome computes
// (Accessibility.getFullAXTree, one call per frame, no Accessibility.enable),
// visibility and position from the layout Chrome computed
// (DOMSnapshot.captureSnapshot, one call per process). Both are read by
// backendNodeId, so nothing runs in the page to build the map. The package
// speaks no CDP itself: the session fetches, this package decides.
package snapshot

import (
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"
)

// AXValue is the part of Accessibility.AXValue the map uses.
type AXValue struct {
	Type  string `json:"type"`
	Value any    `json:"value"`
}

// AXProperty is one Accessibility.AXProperty.
type AXProperty struct {
	Name  string   `json:"name"`
	Value *AXValue `json:"value"`
}

// AXNode is the part of Accessibility.AXNode the map uses; decoding only
// these fields keeps a 2.6 MB tree cheap to read.
type AXNode struct {
	NodeID     string       `json:"nodeId"`
	Ignored    bool         `json:"ignored"`
	Role       *AXValue     `json:"role"`
	Name       *AXValue     `json:"name"`
	Properties []AXProperty `json:"properties"`
	ChildIDs   []string     `json:"childIds"`
	ParentID   string       `json:"parentId"`
	Backend    int64        `json:"backendDOMNodeId"`
}

func (n *AXNode) role() string { return str(n.Role) }
func (n *AXNode) name() string { return str(n.Name) }

func (n *AXNode) prop(name string) (any, bool) {
	for _, p := range n.Properties {
		if p.Name == name && p.Value != nil {
			return p.Value.Value, true
		}
	}
	return nil, false
}

func str(v *AXValue) string {
	if v == nil {
		return ""
	}
	s, _ := v.Value.(string)
	return s
}

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

// Frame is one document of the tab: its accessibility tree, where its
// elements are laid out, and the frames it embeds.
type Frame struct {
	ID      string // frame id
	Session string // CDP session of the target that renders it
	Loader  string // its document's loader id
	AX      []AXNode
	// Box is an element's layout box, with its descendants' boxes, in the
	// tab's top-level document coordinates; false when it has none.
	Box func(backend int64) (Rect, bool)
	// Clip is the part of the top-level document this frame shows
	// through (its iframe element's box); nil for the main frame.
	Clip *Rect
	// Children are the embedded frames by their iframe element.
	Children map[int64]*Frame
	// InRegion, when set, limits the map to elements it accepts.
	InRegion func(backend int64) bool
	// WordBreakText, when set, is the rendered text of an element whose
	// content holds a <wbr> (its laid-out text nodes joined as they stand
	// in the document); false for any other element. See wbrName.
	WordBreakText func(backend int64) (string, bool)
}

// Item is one line of the map.
type Item struct {
	Frame      *Frame
	Backend    int64
	Role       string
	Name       string
	Href       string // absolute; "" for non-links
	States     []string
	InViewport bool
	order      int
}

// roles are what the map lists: the things an agent acts on, and headings
// to find its way. Chrome's own role names for native controls
// (DisclosureTriangle for <summary>, ...) are included.
var roles = map[string]bool{
	"link": true, "button": true, "checkbox": true, "radio": true, "switch": true,
	"textbox": true, "searchbox": true, "combobox": true, "listbox": true, "option": true,
	"menuitem": true, "menuitemcheckbox": true, "menuitemradio": true, "tab": true,
	"slider": true, "spinbutton": true, "treeitem": true, "heading": true,
	"DisclosureTriangle": true, "ColorWell": true, "Date": true, "DateTime": true,
	"InputTime": true, "PopUpButton": true, "ToggleButton": true,
}

// leaf roles hold nothing else to list: a text field's inner text is its
// value (never shown), a select's options are read with read_form.
var leaf = map[string]bool{"textbox": true, "searchbox": true, "combobox": true, "spinbutton": true, "slider": true, "MenuListPopup": true}

// Collect walks the tab's frames in reading order (document order, frames
// spliced in where their iframe stands) and returns the visible items.
// viewport is the visible part of the top-level document. With region set,
// only items a frame's InRegion accepts, and everything in the frames they
// hold, are listed.
func Collect(main *Frame, viewport Rect, region bool) []Item {
	var out []Item
	var walkFrame func(f *Frame, inRegion bool)
	walkFrame = func(f *Frame, inRegion bool) {
		byID := make(map[string]*AXNode, len(f.AX))
		var roots []*AXNode
		for i := range f.AX {
			n := &f.AX[i]
			byID[n.NodeID] = n
		}
		for i := range f.AX {
			n := &f.AX[i]
			if n.ParentID == "" || byID[n.ParentID] == nil {
				roots = append(roots, n)
			}
		}
		seen := map[string]bool{}
		var walk func(n *AXNode, inRegion bool)
		walk = func(n *AXNode, inRegion bool) {
			if seen[n.NodeID] {
				return // aria-owns can make a node a child twice
			}
			seen[n.NodeID] = true
			if !inRegion && f.InRegion != nil && n.Backend != 0 && f.InRegion(n.Backend) {
				inRegion = true
			}
			role := n.role()
			if child, ok := f.Children[n.Backend]; ok && n.Backend != 0 && role == "Iframe" {
				walkFrame(child, inRegion)
				return
			}
			if !n.Ignored && roles[role] && n.Backend != 0 && inRegion && !insideSelect(n, byID) {
				if box, ok := f.Box(n.Backend); ok && !box.Empty() {
					name := n.name()
					if f.WordBreakText != nil && strings.ContainsAny(name, " \t\n") {
						if text, ok := f.WordBreakText(n.Backend); ok {
							name = wbrName(name, text)
						}
					}
					it := Item{Frame: f, Backend: n.Backend, Role: role, Name: clean(name), States: states(n), order: len(out)}
					if role == "link" {
						if u, ok := n.prop("url"); ok {
							it.Href, _ = u.(string)
						}
					}
					it.InViewport = box.Intersects(viewport) && (f.Clip == nil || box.Intersects(*f.Clip))
					out = append(out, it)
				}
			}
			if leaf[role] {
				return
			}
			for _, id := range n.ChildIDs {
				if c := byID[id]; c != nil {
					walk(c, inRegion)
				}
			}
		}
		for _, r := range roots {
			walk(r, inRegion)
		}
	}
	walkFrame(main, !region)
	return out
}

// wbrName corrects a name Chrome computed from content that holds <wbr>
// elements. Chrome puts a space between the text on either side of a <wbr>
// ("mozilla<wbr>.org" is named "mozilla .org"), though a <wbr> is only a
// place a line may break, never a space: the text shows, and a person
// would type, "mozilla.org". text is the element's rendered text as it
// stands in the document. When the name is that text but for whitespace,
// the name was computed from it, and the text is the right name; any other
// name (aria-label, title, alt) is kept as Chrome gives it.
func wbrName(name, text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" || text == name {
		return name
	}
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	if squeeze(name) != squeeze(text) {
		return name
	}
	return text
}

// insideSelect: the options of a native <select> are not separate targets.
func insideSelect(n *AXNode, byID map[string]*AXNode) bool {
	if n.role() != "option" {
		return false
	}
	p := byID[n.ParentID]
	return p != nil && (p.role() == "MenuListPopup" || p.role() == "combobox")
}

// states are the bracketed flags of a line: what an agent needs to decide,
// not every ARIA property.
func states(n *AXNode) []string {
	var out []string
	if v, ok := n.prop("level"); ok && n.role() == "heading" {
		if f, ok := v.(float64); ok {
			out = append(out, "level="+strconv.Itoa(int(f)))
		}
	}
	if v, ok := n.prop("checked"); ok {
		switch v {
		case "true", true:
			out = append(out, "checked")
		case "mixed":
			out = append(out, "mixed")
		}
	}
	if v, ok := n.prop("pressed"); ok && (v == "true" || v == true) {
		out = append(out, "pressed")
	}
	if v, ok := n.prop("selected"); ok && v == true {
		out = append(out, "selected")
	}
	if v, ok := n.prop("expanded"); ok && v == true {
		out = append(out, "expanded")
	}
	if v, ok := n.prop("disabled"); ok && v == true {
		out = append(out, "disabled")
	}
	return out
}

// maxName bounds a name on a line; a longer one is cut with an ellipsis.
const maxName = 160

// clean collapses whitespace and bounds the length of a name.
func clean(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > maxName {
		r := []rune(s)
		s = string(r[:maxName-1]) + "…"
	}
	return s
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
//
// A link to the page's own origin shows its path; any other its full URL.
func Line(ref string, it Item, page *url.URL) string {
	var b strings.Builder
	b.WriteString("aria-ref=")
	b.WriteString(ref)
	b.WriteByte(' ')
	b.WriteString(it.Role)
	if it.Name != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(it.Name))
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
