package page

import (
	"slices"
	"testing"

	"github.com/lyrad/lyrad/snapshot"
)

func TestRefStoreAssign(t *testing.T) {
	var r RefStore
	mk := func(it snapshot.Item) ElementRef {
		return ElementRef{TabID: "tab", SessionID: "s1", Token: "t", Node: it.Node, Name: it.Name}
	}
	items := func(backends ...int64) []snapshot.Item {
		var out []snapshot.Item
		for _, b := range backends {
			out = append(out, snapshot.Item{Node: b})
		}
		return out
	}
	if got := r.Assign("tab", "doc1", items(10, 11), mk); !slices.Equal(got, []string{"e1", "e2"}) {
		t.Fatalf("first read: %v", got)
	}
	// The same document read again: an element keeps its ref, a new one
	// gets the next, and a ref of the earlier read is still served (the
	// element may be outside the region read, or no longer listed: whether
	// it is still in its document is checked when the ref is used).
	if got := r.Assign("tab", "doc1", items(11, 12), mk); !slices.Equal(got, []string{"e2", "e3"}) {
		t.Fatalf("second read: %v", got)
	}
	if e, ok := r.Lookup("e1"); !ok || e.Node != 10 {
		t.Errorf("e1 of the first read = %+v %v", e, ok)
	}
	if e, ok := r.Lookup("e3"); !ok || e.Node != 12 {
		t.Errorf("e3 = %+v %v", e, ok)
	}
	if r.MainLoader() != "doc1" {
		t.Errorf("main loader %q", r.MainLoader())
	}
	// Another document starts again from e1.
	if got := r.Assign("tab", "doc2", items(12), mk); !slices.Equal(got, []string{"e1"}) {
		t.Fatalf("after navigation: %v", got)
	}
	if _, ok := r.Lookup("e3"); ok {
		t.Error("e3 of the first document still served after a navigation")
	}
	// A tree read of another tab starts again too.
	r.Assign("tab2", "doc3", items(40), mk)
	if e, ok := r.Lookup("e1"); !ok || e.TabID != "tab" || e.Node != 40 {
		t.Errorf("another tab's read: e1 = %+v %v", e, ok)
	}
}
