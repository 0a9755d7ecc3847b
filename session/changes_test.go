package session

import (
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/snapshot"
)

func TestTreeReadsBounded(t *testing.T) {
	var s treeReads
	add := func(tab target.ID) *treeRead {
		s.mu.Lock()
		s.next++
		r := &treeRead{id: fmt.Sprintf("r%d", s.next), tab: tab}
		s.list = append(s.list, r)
		s.mu.Unlock()
		s.trim(tab)
		return r
	}
	var first, last *treeRead
	for i := 0; i < 10; i++ {
		r := add("A")
		if i == 0 {
			first = r
		}
		last = r
	}
	if s.byID(first.id) != nil {
		t.Errorf("%s kept beyond the tab's %d", first.id, maxTreesPerTab)
	}
	if s.byID(last.id) != last || s.latest("A") != last {
		t.Errorf("the newest read is not kept")
	}
	for i := 0; i < 40; i++ {
		add(target.ID(fmt.Sprint("T", i)))
	}
	if len(s.list) > maxTrees {
		t.Errorf("%d reads kept, at most %d", len(s.list), maxTrees)
	}
	// Large reads: bounded by their lines, the newest kept.
	big := func() *treeRead {
		r := add("B")
		r.items = make([]snapshot.Item, maxTreeItems/2+1)
		s.trim("B")
		return r
	}
	big()
	r := big()
	if len(s.list) != 1 || s.list[0] != r {
		t.Errorf("%d reads kept after two over half the lines bound, want the newest alone", len(s.list))
	}
}

func TestSinceAnotherDocumentInAFrame(t *testing.T) {
	item := func(frame string, node int64, name string) snapshot.Item {
		return snapshot.Item{Frame: frame, Node: node, Role: "button", Name: name}
	}
	before := &treeRead{items: []snapshot.Item{item("M", 1, "Main"), item("F", 1, "Old frame button")},
		tokens: map[string]string{"M": "m1", "F": "f1"}}
	// The frame loaded another document: node 1 there is another element.
	now := &treeRead{items: []snapshot.Item{item("M", 1, "Main"), item("F", 1, "Old frame button")},
		tokens: map[string]string{"M": "m1", "F": "f2"}}
	got := now.since(before, []string{"e1", "e7"}, nil)
	want := "+ aria-ref=e7 button \"Old frame button\"\n- button \"Old frame button\""
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if before.items[1].Frame != "F" {
		t.Errorf("the kept read was changed")
	}
	now.tokens["F"] = "f1"
	if got := now.since(before, []string{"e1", "e7"}, nil); got != "none" {
		t.Errorf("same documents: %q", got)
	}
}
