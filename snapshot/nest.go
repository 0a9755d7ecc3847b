package snapshot

import (
	"net/url"
	"strconv"
	"strings"
)

// The nested form of the map, for the Playwright MCP surface: the same
// items, each inside the containers that hold it on the page (a site's
// navigation and its list, a form, a table's row, a dialog), as
// Playwright's aria snapshot nests them:
//
//	- navigation "Main":
//	  - list:
//	    - listitem:
//	      - link "Deals" [ref=e2] [cursor=pointer]:
//	        - /url: /deals
//	- row:
//	  - cell "Kettle"
//	  - cell:
//	    - button "Buy kettle" [ref=e14]
//
// A container is shown only when it holds an item (a row's cells are
// shown with it, named by their text), so the form stays the map, not the
// page. Containers have no ref: what is acted on is an item. The element
// with the focus is marked [active].

// Node is one entry of the nested form: an item, a container that holds
// items, or a text in one. A read's nodes are in document order, a node
// after the node it stands in.
type Node struct {
	Parent int    // index of the node it stands in; -1 at the top
	Item   int    // index of the item among the read's items; -1 for a container or a text
	Role   string // a container's role; "text" for a text
	Name   string // a container's name, a text's words
	Active bool   // a container with the focus
}

// NestedYAML is the items in their containers as aria-snapshot YAML;
// refs are the items' refs, in the items' order. maxDepth > 0 leaves out
// what is nested deeper than that many levels below the top, as
// Playwright's snapshot depth does.
func NestedYAML(nodes []Node, items []Item, refs []string, page *url.URL, maxDepth int) string {
	depth := make([]int, len(nodes))
	kids := make([]bool, len(nodes))
	for i, n := range nodes {
		if n.Parent >= 0 {
			depth[i] = depth[n.Parent] + 1
			if maxDepth <= 0 || depth[i] <= maxDepth {
				kids[n.Parent] = true
			}
		}
	}
	var b strings.Builder
	for i, n := range nodes {
		if maxDepth > 0 && depth[i] > maxDepth {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		writeIndented(&b, depth[i], nodeEntry(n, items, refs, page, kids[i], ""))
	}
	return b.String()
}

// writeIndented writes an entry (one line, or a link's two) at a depth.
func writeIndented(b *strings.Builder, depth int, entry string) {
	for i, l := range strings.Split(entry, "\n") {
		if i > 0 {
			b.WriteByte('\n')
		}
		for range depth {
			b.WriteString("  ")
		}
		b.WriteString(l)
	}
}

// nodeEntry is one node as YAML: an item's entry, a container's, a text's;
// note is a comment for an item's line.
func nodeEntry(n Node, items []Item, refs []string, page *url.URL, kids bool, note string) string {
	switch {
	case n.Item >= 0 && n.Item < len(items):
		it := items[n.Item]
		ref := ""
		if n.Item < len(refs) {
			ref = refs[n.Item]
		}
		return yamlItem(ref, it.Role, it.Name, it.Hint, it.States, shortHref(it.Href, page), it.Value, kids, note)
	case n.Role == "text":
		return "- text: " + yamlScalar(n.Name)
	}
	var b strings.Builder
	b.WriteString("- ")
	b.WriteString(n.Role)
	if n.Name != "" {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(n.Name))
	}
	if n.Active {
		b.WriteString(" [active]")
	}
	if kids {
		b.WriteByte(':')
	}
	return b.String()
}

// NestedChanges is a diff (Diff, against a read whose nodes and items
// these are) in the nested form: each change that Summary would show,
// under the containers that hold it, with what it was in a comment; lines
// gone, and what was left out, as comments after them.
func NestedChanges(changes []Change, nodes []Node, items []Item, refs []string, page *url.URL, maxLines, maxBytes int) string {
	if len(changes) == 0 {
		return ""
	}
	byKey := make(map[key]int, len(items))
	for i, it := range items {
		byKey[key{it.Frame, it.Node}] = i
	}
	ref := func(it Item) string {
		if i, ok := byKey[key{it.Frame, it.Node}]; ok && i < len(refs) {
			return refs[i]
		}
		return ""
	}
	shown, more := pick(changes, ref, page, maxLines, maxBytes)
	nodeOf := make(map[int]int, len(nodes))
	for i, n := range nodes {
		if n.Item >= 0 {
			nodeOf[n.Item] = i
		}
	}
	notes := map[int]string{} // by node
	marked := make([]bool, len(nodes))
	var loose, gone []string
	for _, c := range shown {
		if c.Kind == Gone {
			gone = append(gone, "# gone: "+strings.TrimPrefix(ChangeLine(c, nil, page), "- "))
			continue
		}
		note := "appeared"
		if c.Kind == Changed {
			note = "changed, was: " + wasText(c.Was, c.Item)
		}
		i, ok := byKey[key{c.Item.Frame, c.Item.Node}]
		n, inTree := nodeOf[i]
		if !ok || !inTree {
			// Not in the nested form (it is in another read): on its own.
			loose = append(loose, yamlItem(ref(c.Item), c.Item.Role, c.Item.Name, c.Item.Hint, c.Item.States, shortHref(c.Item.Href, page), c.Item.Value, false, note))
			continue
		}
		notes[n] = note
		for ; n >= 0 && !marked[n]; n = nodes[n].Parent {
			marked[n] = true
		}
	}
	kids := make([]bool, len(nodes))
	for i, n := range nodes {
		if marked[i] && n.Parent >= 0 {
			kids[n.Parent] = true
		}
	}
	var b strings.Builder
	depth := make([]int, len(nodes))
	line := func(depth int, s string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		writeIndented(&b, depth, s)
	}
	for i, n := range nodes {
		if n.Parent >= 0 {
			depth[i] = depth[n.Parent] + 1
		}
		if marked[i] && n.Role != "text" {
			line(depth[i], nodeEntry(n, items, refs, page, kids[i], notes[i]))
		}
	}
	for _, s := range loose {
		line(0, s)
	}
	for _, s := range gone {
		line(0, s)
	}
	if more != "" {
		line(0, "# "+more)
	}
	return b.String()
}
