package snapshot

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
)

func it(node int64, role, name string, states ...string) Item {
	return Item{Frame: "F", Node: node, Role: role, Name: name, States: states}
}

func refOf(i Item) string { return fmt.Sprintf("e%d", i.Node) }

func TestDiffKinds(t *testing.T) {
	before := []Item{it(1, "button", "Actions"), it(2, "button", "Open"), it(3, "textbox", "Tags"), it(4, "link", "Home")}
	tags := it(3, "textbox", "Tags")
	tags.Value = "Macao"
	moved := it(4, "link", "Home")
	moved.Box, moved.InViewport = Rect{X: 5, Y: 900, W: 10, H: 10}, true
	after := []Item{
		it(1, "button", "Actions", "expanded"),
		it(5, "menuitem", "Rename"),
		tags,
		moved,
		it(6, "alert", "Name is required"),
	}
	page, _ := url.Parse("http://x.test/")
	got := Summary(Diff(before, after), refOf, page, MaxChangeLines, MaxChangeBytes)
	want := strings.Join([]string{
		`+ aria-ref=e6 alert "Name is required"`,
		`~ aria-ref=e1 button "Actions" [expanded] (was: no state)`,
		`~ aria-ref=e3 textbox "Tags"` + valueSuffix("Macao") + ` (was: empty)`,
		`+ aria-ref=e5 menuitem "Rename"`,
		`- button "Open"`,
	}, "\n")
	if got != want {
		t.Errorf("summary:\n%s\nwant:\n%s", got, want)
	}
}

// valueSuffix is how Line shows a value, whatever form it takes.
func valueSuffix(v string) string {
	l := Line("e", Item{Role: "textbox", Value: v}, nil)
	return strings.TrimPrefix(l, "aria-ref=e textbox")
}

func TestDiffKeysByFrameAndNode(t *testing.T) {
	a := Item{Frame: "A", Node: 1, Role: "button", Name: "OK"}
	b := Item{Frame: "B", Node: 1, Role: "button", Name: "OK"}
	cs := Diff([]Item{a}, []Item{b})
	if len(cs) != 2 || cs[0].Kind != Appeared || cs[1].Kind != Gone {
		t.Fatalf("the same node id in another frame is another element: %+v", cs)
	}
	if cs := Diff([]Item{a}, []Item{a}); len(cs) != 0 {
		t.Fatalf("no change: %+v", cs)
	}
	if s := Summary(nil, refOf, nil, MaxChangeLines, MaxChangeBytes); s != "none" {
		t.Fatalf("empty summary %q", s)
	}
}

func TestDiffChangedStatesAndName(t *testing.T) {
	cs := Diff([]Item{it(1, "checkbox", "Remember", "checked"), it(2, "status", "Saving")},
		[]Item{it(1, "checkbox", "Remember"), it(2, "status", "Saved")})
	got := Summary(cs, refOf, nil, MaxChangeLines, MaxChangeBytes)
	want := "~ aria-ref=e2 status \"Saved\" (was: \"Saving\")\n~ aria-ref=e1 checkbox \"Remember\" (was: [checked])"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSummaryBounded(t *testing.T) {
	var after []Item
	for i := 1; i <= 500; i++ {
		after = append(after, it(int64(i), "button", strings.Repeat("row ", 30)+fmt.Sprint(i)))
	}
	s := Summary(Diff(nil, after), refOf, nil, MaxChangeLines, MaxChangeBytes)
	lines := strings.Split(s, "\n")
	if len(lines) > MaxChangeLines+1 {
		t.Errorf("%d lines", len(lines))
	}
	if len(s) > MaxChangeBytes+100 {
		t.Errorf("%d bytes", len(s))
	}
	last := lines[len(lines)-1]
	shown := len(lines) - 1
	if want := fmt.Sprintf("(%d more changes, %d appeared:", 500-shown, 500-shown); !strings.HasPrefix(last, want) {
		t.Errorf("last line %q, want %q...", last, want)
	}
	// A short list is bounded by lines.
	var short []Item
	for i := 1; i <= 30; i++ {
		short = append(short, it(int64(i), "button", "b"))
	}
	s = Summary(Diff(nil, short), refOf, nil, MaxChangeLines, MaxChangeBytes)
	if n := strings.Count(s, "\n"); n != MaxChangeLines || !strings.HasSuffix(s, "(10 more changes, 10 appeared: read_page(mode=\"tree\") lists the whole page)") {
		t.Errorf("%d lines:\n%s", n+1, s)
	}
	// Lines gone beside others: a few shown, the rest counted.
	var behind []Item
	for i := 1; i <= 30; i++ {
		behind = append(behind, it(int64(i), "link", "file"))
	}
	s = Summary(Diff(behind, []Item{it(99, "dialog", "Delete?")}), refOf, nil, MaxChangeLines, MaxChangeBytes)
	if n := strings.Count(s, "\n- "); n != maxGone || !strings.HasSuffix(s, "(25 more changes, 25 gone: read_page(mode=\"tree\") lists the whole page)") {
		t.Errorf("%d gone lines:\n%s", n, s)
	}
	// Only lines gone: as many as fit.
	s = Summary(Diff(behind, nil), refOf, nil, MaxChangeLines, MaxChangeBytes)
	if n := strings.Count(s, "- "); n != MaxChangeLines {
		t.Errorf("%d gone lines of 30 alone:\n%s", n, s)
	}
	// One huge line is cut, not dropped.
	huge := Item{Frame: "F", Node: 1, Role: "alert", Name: strings.Repeat("x", 5000)}
	if s := Summary(Diff(nil, []Item{huge}), refOf, nil, MaxChangeLines, MaxChangeBytes); len(s) > MaxChangeBytes+4 {
		t.Errorf("%d bytes", len(s))
	}
}
