package snapshot

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// What an acting call answers as `changes`, and read_page(changes_since)
// too: the lines of the action map that appeared, went or changed between
// two reads of one document, in the map's own line format so that each
// line's ref can be acted on at once.

// Change kinds, as a summary line starts.
const (
	Appeared = '+'
	Gone     = '-'
	Changed  = '~'
)

// Bounds of a summary: the lines it shows, and their bytes.
const (
	MaxChangeLines = 20
	MaxChangeBytes = 2048
)

// Change is one line of the map that differs between two reads. Item is
// the line as it is now (for Gone: as it was); Was is what it was before
// (Changed only).
type Change struct {
	Kind byte
	Item Item
	Was  Item
}

// key names an item across reads of one document (Frame, Node: the table
// id stays with its element).
type key struct {
	frame string
	node  int64
}

// liveRoles are the lines an agent most needs to see first: what the page
// says back (an alert, a status, a log) and dialogs.
var liveRoles = map[string]bool{"alert": true, "alertdialog": true, "dialog": true, "status": true, "log": true}

// Diff is what differs from before to after, most telling first: dialogs
// and live regions that appeared or changed, then lines that changed (a
// field's value, a control that expanded), then lines that appeared, then
// those gone; each group in after's order (before's for those gone).
// Position and whether an item is on screen do not count as a change.
func Diff(before, after []Item) []Change {
	was := make(map[key]int, len(before))
	for i, it := range before {
		was[key{it.Frame, it.Node}] = i
	}
	var live, changed, appeared, gone []Change
	seen := make(map[key]bool, len(after))
	for _, it := range after {
		k := key{it.Frame, it.Node}
		seen[k] = true
		i, ok := was[k]
		var c Change
		switch {
		case !ok:
			c = Change{Kind: Appeared, Item: it}
		case !same(before[i], it):
			c = Change{Kind: Changed, Item: it, Was: before[i]}
		default:
			continue
		}
		switch {
		case liveRoles[it.Role]:
			live = append(live, c)
		case c.Kind == Changed:
			changed = append(changed, c)
		default:
			appeared = append(appeared, c)
		}
	}
	for _, it := range before {
		if !seen[key{it.Frame, it.Node}] {
			gone = append(gone, Change{Kind: Gone, Item: it})
		}
	}
	return slices.Concat(live, changed, appeared, gone)
}

// same reports whether two reads of one element print the same line.
func same(a, b Item) bool {
	return a.Role == b.Role && a.Name == b.Name && a.Href == b.Href && a.Value == b.Value && slices.Equal(a.States, b.States)
}

// Summary prints changes, at most maxLines lines of at most maxBytes in
// all, and says how many more there were, of which kind. Lines gone are
// the least use to the next step: when anything else changed, at most
// maxGone of them are shown. ref gives the ref of an item of the newer
// read (Gone lines have none: their element is not in it). An empty diff
// says "none".
func Summary(changes []Change, ref func(Item) string, page *url.URL, maxLines, maxBytes int) string {
	if len(changes) == 0 {
		return "none"
	}
	shown, more := pick(changes, ref, page, maxLines, maxBytes)
	var b strings.Builder
	for i, c := range shown {
		l := boundedLine(c, ref, page, maxBytes)
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	if more != "" {
		b.WriteString("\n" + more)
	}
	return b.String()
}

// pick is the changes a summary shows, in their order, and the note that
// says how many more there were, of which kind ("" when none).
func pick(changes []Change, ref func(Item) string, page *url.URL, maxLines, maxBytes int) ([]Change, string) {
	others := 0
	for _, c := range changes {
		if c.Kind != Gone {
			others++
		}
	}
	var shown []Change
	size, gone := 0, 0
	var left [3]int // appeared, changed, gone left out
	for _, c := range changes {
		n := len(boundedLine(c, ref, page, maxBytes))
		if len(shown) >= maxLines || (len(shown) > 0 && size+1+n > maxBytes) || (c.Kind == Gone && others > 0 && gone >= maxGone) {
			left[strings.IndexByte("+~-", c.Kind)]++
			continue
		}
		if c.Kind == Gone {
			gone++
		}
		if len(shown) > 0 {
			size++
		}
		size += n
		shown = append(shown, c)
	}
	more := len(changes) - len(shown)
	if more == 0 {
		return shown, ""
	}
	var kinds []string
	for i, k := range []string{"appeared", "changed", "gone"} {
		if left[i] > 0 {
			kinds = append(kinds, fmt.Sprintf("%d %s", left[i], k))
		}
	}
	return shown, fmt.Sprintf("(%d more changes, %s: read_page(mode=\"tree\") lists the whole page)", more, strings.Join(kinds, ", "))
}

// boundedLine is a change's line, cut to maxBytes.
func boundedLine(c Change, ref func(Item) string, page *url.URL, maxBytes int) string {
	l := ChangeLine(c, ref, page)
	if len(l) > maxBytes {
		l = strings.ToValidUTF8(l[:maxBytes-len("…")], "") + "…"
	}
	return l
}

// maxGone is how many lines gone a summary shows beside other changes.
const maxGone = 5

// ChangeLine is one change as a summary prints it:
//
//   - aria-ref=e14 menuitem "Rename"
//     ~ aria-ref=e3 button "Actions" [expanded] (was: no state)
//   - button "Open"
func ChangeLine(c Change, ref func(Item) string, page *url.URL) string {
	if c.Kind == Gone {
		l := Line("", c.Item, page)
		return "- " + strings.TrimPrefix(l, "aria-ref= ")
	}
	l := string(c.Kind) + " " + Line(ref(c.Item), c.Item, page)
	if c.Kind == Changed {
		l += " (was: " + wasText(c.Was, c.Item) + ")"
	}
	return l
}

// wasText is what of old differs from now.
func wasText(old, now Item) string {
	var parts []string
	if old.Role != now.Role {
		parts = append(parts, old.Role)
	}
	if old.Name != now.Name {
		parts = append(parts, strconv.Quote(old.Name))
	}
	if !slices.Equal(old.States, now.States) {
		if len(old.States) == 0 {
			parts = append(parts, "no state")
		} else {
			parts = append(parts, "["+strings.Join(old.States, "] [")+"]")
		}
	}
	if old.Value != now.Value {
		if old.Value == "" {
			parts = append(parts, "empty")
		} else {
			parts = append(parts, "value "+strconv.Quote(old.Value))
		}
	}
	if old.Href != now.Href {
		parts = append(parts, "-> "+old.Href)
	}
	return strings.Join(parts, ", ")
}
