package page

import (
	"github.com/chromedp/cdproto/cdp"

	"github.com/lyrad/lyrad/snapshot"
)

// nestOf assembles a read's nested form from its documents' records
// (snapshot.JSTree with nest): each document's in order, a frame's under
// its frame element. items are the read's, in its order: an item left out
// of them (past the cap) is left out here too, and what it held stands in
// what held it. The item with the focus gets the state "active": the
// deepest focused element, through the frame elements that hold it.
func nestOf(tfs map[cdp.FrameID]*treeFrame, root *treeFrame, items []snapshot.Item) []snapshot.Node {
	type key struct {
		frame string
		node  int64
	}
	at := make(map[key]int, len(items))
	for i, it := range items {
		at[key{it.Frame, it.Node}] = i
	}
	focusIn, focus := root, root.res.Active
	for focus != 0 {
		c := childAt(tfs, focusIn, focus)
		if c == nil || c.res.Active == 0 {
			break
		}
		focusIn, focus = c, c.res.Active
	}
	if i, ok := at[key{string(focusIn.ID), focus}]; ok && focus != 0 {
		items[i].States = append(items[i].States, "active")
	}
	num := func(v any) int64 { f, _ := v.(float64); return int64(f) }
	var nodes []snapshot.Node
	var add func(f *treeFrame, top int)
	add = func(f *treeFrame, top int) {
		// What each record's id stands for among the nodes.
		local := make(map[int64]int, len(f.res.Nest))
		parent := func(up int64) int {
			if i, ok := local[up]; ok && up != 0 {
				return i
			}
			return top
		}
		for _, r := range f.res.Nest {
			switch len(r) {
			case 2: // an item
				id, p := num(r[0]), parent(num(r[1]))
				i, ok := at[key{string(f.ID), id}]
				if !ok {
					local[id] = p
					continue
				}
				local[id] = len(nodes)
				nodes = append(nodes, snapshot.Node{Parent: p, Item: i})
			case 3: // a text
				s, _ := r[2].(string)
				if s = snapshot.Clean(s); s != "" {
					nodes = append(nodes, snapshot.Node{Parent: parent(num(r[1])), Item: -1, Role: "text", Name: s})
				}
			case 5: // a container
				id := num(r[0])
				role, _ := r[2].(string)
				name, _ := r[3].(string)
				local[id] = len(nodes)
				nodes = append(nodes, snapshot.Node{Parent: parent(num(r[1])), Item: -1, Role: role, Name: snapshot.Clean(name),
					Active: num(r[4]) == 1 && f == focusIn})
				if role == "iframe" {
					if c := childAt(tfs, f, id); c != nil {
						add(c, local[id])
					}
				}
			}
		}
	}
	add(root, -1)
	return prune(nodes)
}

// prune leaves out the containers that hold no item (a frame element whose
// document lists none, and what held only it); a container with nothing
// in it is a row's cell, named by its text, and stays. A text stays with
// its container.
func prune(nodes []snapshot.Node) []snapshot.Node {
	kids := make([]bool, len(nodes))
	for _, n := range nodes {
		if n.Parent >= 0 {
			kids[n.Parent] = true
		}
	}
	keep := make([]bool, len(nodes))
	all := true
	for i := len(nodes) - 1; i >= 0; i-- {
		n := nodes[i]
		if n.Item >= 0 || (n.Role != "text" && n.Role != "iframe" && !kids[i]) {
			keep[i] = true
		}
		if keep[i] && n.Parent >= 0 {
			keep[n.Parent] = true
		}
	}
	for i, n := range nodes {
		if n.Role == "text" && n.Item < 0 {
			keep[i] = n.Parent < 0 || keep[n.Parent]
		}
		all = all && keep[i]
	}
	if all {
		return nodes
	}
	at := make([]int, len(nodes))
	out := nodes[:0:0]
	for i, n := range nodes {
		if !keep[i] {
			continue
		}
		if n.Parent >= 0 {
			n.Parent = at[n.Parent]
		}
		at[i] = len(out)
		out = append(out, n)
	}
	return out
}
