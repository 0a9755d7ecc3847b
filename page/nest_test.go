package page

import (
	"reflect"
	"slices"
	"testing"

	"github.com/chromedp/cdproto/cdp"

	"github.com/lyrad/lyrad/snapshot"
)

// recs builds JSTree nest records (numbers as JSON decodes them).
func recs(rs ...[]any) [][]any {
	for _, r := range rs {
		for i, v := range r {
			if n, ok := v.(int); ok {
				r[i] = float64(n)
			}
		}
	}
	return rs
}

func TestNestOfFramesAndFocus(t *testing.T) {
	root := &treeFrame{Frame: Frame{ID: "main"}, res: treeResult{Token: "t1", Active: 10, Nest: recs(
		[]any{-1, 0, "navigation", "Main", 0},
		[]any{1, -1},
		[]any{10, 0, "iframe", "", 1}, // the focus is in its document
		[]any{-2, 0, "main", "", 0},
		[]any{11, -2, "iframe", "", 0}, // its document lists nothing
	)}}
	child := &treeFrame{Frame: Frame{ID: "child"}, ownerOK: true, owner: 10, ownerOf: "t1", res: treeResult{Token: "t2", Active: 3, Nest: recs(
		[]any{-1, 0, "form", "Search", 0},
		[]any{0, -1, "Find:"},
		[]any{2, -1},
		[]any{3, -1},
		[]any{4, -1}, // left out of the read (past its cap)
		[]any{5, 4},  // what it held stands in the form
	)}}
	empty := &treeFrame{Frame: Frame{ID: "empty"}, ownerOK: true, owner: 11, ownerOf: "t1", res: treeResult{Token: "t3"}}
	tfs := map[cdp.FrameID]*treeFrame{"main": root, "child": child, "empty": empty}
	items := []snapshot.Item{
		{Frame: "child", Node: 3, Role: "textbox", Name: "Query"},
		{Frame: "main", Node: 1, Role: "link", Name: "Deals"},
		{Frame: "child", Node: 2, Role: "button", Name: "Go"},
		{Frame: "child", Node: 5, Role: "link", Name: "Inner"},
	}
	got := nestOf(tfs, root, items)
	want := []snapshot.Node{
		{Parent: -1, Item: -1, Role: "navigation", Name: "Main"},
		{Parent: 0, Item: 1},
		{Parent: -1, Item: -1, Role: "iframe"},
		{Parent: 2, Item: -1, Role: "form", Name: "Search"},
		{Parent: 3, Item: -1, Role: "text", Name: "Find:"},
		{Parent: 3, Item: 2},
		{Parent: 3, Item: 0},
		{Parent: 3, Item: 3},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("nodes:\n got %+v\nwant %+v", got, want)
	}
	// The deepest focused element is the field in the frame, not the frame element.
	if !slices.Equal(items[0].States, []string{"active"}) {
		t.Errorf("the focused field's states: %v", items[0].States)
	}
	for _, it := range items[1:] {
		if len(it.States) > 0 {
			t.Errorf("%s %q has states %v", it.Role, it.Name, it.States)
		}
	}

	// A frame element with the focus, its document's body focused: the
	// frame element is the deepest.
	child.res.Active = 0
	items[0].States = nil
	got = nestOf(tfs, root, items)
	if !got[2].Active || len(items[0].States) > 0 {
		t.Errorf("focus on the frame element: iframe %+v, field %v", got[2], items[0].States)
	}
}
