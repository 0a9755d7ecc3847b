package snapshot

import (
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	text := "aria-ref=e1 link \"A\"\naria-ref=e2 button \"B\"\naria-ref=e3 link \"Ü\""
	whole := Cut(text, 0, 1000)
	if whole.Text != text || whole.Truncated || whole.Total != utf8.RuneCountInString(text) || whole.Next != 0 {
		t.Fatalf("whole: %+v", whole)
	}
	// Pages end on whole lines and add up to the whole.
	for max := 1; max <= len(text)+1; max++ {
		var pages []string
		for off := 0; ; {
			p := Cut(text, off, max)
			if p.Characters > max || utf8.RuneCountInString(p.Text) != p.Characters {
				t.Fatalf("max %d: page %q holds %d", max, p.Text, p.Characters)
			}
			pages = append(pages, p.Text)
			if !p.Truncated {
				break
			}
			if p.Next <= off {
				t.Fatalf("max %d: no progress at %d", max, off)
			}
			off = p.Next
		}
		got := strings.Join(pages, "\n")
		if max >= 24 && got != text {
			t.Errorf("max %d: pages %q", max, pages)
		}
		if max >= 24 {
			for _, p := range pages {
				if !strings.HasPrefix(p, "aria-ref=") {
					t.Errorf("max %d: a page starts mid-line: %q", max, p)
				}
			}
		}
	}
	if p := Cut(text, 500, 10); p.Text != "" || p.Truncated {
		t.Errorf("past the end: %+v", p)
	}
}

func ax(id, parent, role, name string, backend int64, kids []string, props ...AXProperty) AXNode {
	return AXNode{NodeID: id, ParentID: parent, Role: &AXValue{Value: role}, Name: &AXValue{Value: name}, Backend: backend, ChildIDs: kids, Properties: props}
}

func TestCollect(t *testing.T) {
	// Boxes are in the top-level document's coordinates (the session adds
	// each frame's offset).
	boxes := map[int64]Rect{1: {0, 0, 800, 3000}, 2: {10, 10, 50, 20}, 3: {10, 2000, 50, 20}, 4: {10, 40, 80, 20}, 6: {0, 100, 300, 150}, 7: {5, 105, 20, 10}}
	box := func(b int64) (Rect, bool) { r, ok := boxes[b]; return r, ok }
	child := &Frame{ID: "child", AX: []AXNode{
		ax("c1", "", "RootWebArea", "", 70, []string{"c2"}),
		ax("c2", "c1", "button", "In frame", 7, nil),
	}, Box: box, Clip: &Rect{0, 100, 300, 150}}
	main := &Frame{ID: "main", Box: box, Children: map[int64]*Frame{6: child}, AX: []AXNode{
		ax("1", "", "RootWebArea", "t", 1, []string{"2", "3", "4", "5", "6"}),
		ax("2", "1", "link", "  Pricing\n plans ", 2, nil, AXProperty{Name: "url", Value: &AXValue{Value: "https://a.test/pricing?x=1"}}),
		ax("3", "1", "checkbox", "Far", 3, nil, AXProperty{Name: "checked", Value: &AXValue{Value: "true"}}),
		ax("4", "1", "textbox", "Email", 4, []string{"9"}),
		ax("5", "1", "button", "No box", 5, nil),
		ax("6", "1", "Iframe", "", 6, nil),
		ax("9", "4", "StaticText", "secret value", 0, nil),
	}}
	items := Collect(main, Rect{0, 0, 800, 600}, false)
	var got []string
	for _, it := range items {
		got = append(got, it.Role+":"+it.Name)
	}
	if strings.Join(got, ",") != "link:Pricing plans,checkbox:Far,textbox:Email,button:In frame" {
		t.Fatalf("items %v", got)
	}
	ordered, inView := Order(items)
	if inView != 3 || ordered[3].Name != "Far" {
		t.Errorf("order %v, %d in view", ordered, inView)
	}
	page, _ := url.Parse("https://a.test/")
	if l := Line("e1", items[0], page); l != `aria-ref=e1 link "Pricing plans" -> /pricing?x=1` {
		t.Errorf("line %q", l)
	}
	if l := Line("e2", items[1], page); l != `aria-ref=e2 checkbox "Far" [checked]` {
		t.Errorf("line %q", l)
	}
	other, _ := url.Parse("https://b.test/")
	if l := Line("e1", items[0], other); !strings.HasSuffix(l, "-> https://a.test/pricing?x=1") {
		t.Errorf("cross-origin line %q", l)
	}
	// A region: only what it accepts, and the frames it holds.
	main.InRegion = func(b int64) bool { return b == 6 }
	items = Collect(main, Rect{0, 0, 800, 600}, true)
	if len(items) != 1 || items[0].Name != "In frame" {
		t.Errorf("region items %v", items)
	}
}

func TestClean(t *testing.T) {
	long := strings.Repeat("x", 400)
	if c := clean(long); utf8.RuneCountInString(c) != maxName || !strings.HasSuffix(c, "…") {
		t.Errorf("long name kept %d runes", utf8.RuneCountInString(c))
	}
	if c := clean(" a\n\tb  "); c != "a b" {
		t.Errorf("clean %q", c)
	}
}

func TestWordBreakNames(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		// Chrome spaces the text around each <wbr>; the text has none.
		{"mozilla .org /,%20https: //www .mozilla .org /tr /", "mozilla.org/,%20https://www.mozilla.org/tr/", "mozilla.org/,%20https://www.mozilla.org/tr/"},
		// Spaces the text has stay.
		{"Read the docs .example .org page", "Read the docs.example.org page", "Read the docs.example.org page"},
		{"Read the docs", "Read  the\ndocs", "Read the docs"},
		// A name from anywhere else (aria-label, title) is Chrome's.
		{"Home page", "example.org", "Home page"},
		{"Open example .org", "example.org", "Open example .org"},
		{"a b", "", "a b"},
	} {
		if got := wbrName(c.name, c.text); got != c.want {
			t.Errorf("wbrName(%q, %q) = %q, want %q", c.name, c.text, got, c.want)
		}
	}

	boxes := map[int64]Rect{1: {0, 0, 800, 600}, 2: {10, 10, 200, 20}, 3: {10, 40, 200, 20}, 4: {10, 70, 200, 20}}
	texts := map[int64]string{2: "www.example.org/long/path", 3: "example.org"}
	f := &Frame{ID: "main", Box: func(b int64) (Rect, bool) { r, ok := boxes[b]; return r, ok },
		WordBreakText: func(b int64) (string, bool) { s, ok := texts[b]; return s, ok },
		AX: []AXNode{
			ax("1", "", "RootWebArea", "t", 1, []string{"2", "3", "4"}),
			ax("2", "1", "link", "www .example .org /long /path", 2, nil),
			ax("3", "1", "link", "Example home", 3, nil),
			ax("4", "1", "button", "Save draft", 4, nil),
		}}
	var got []string
	for _, it := range Collect(f, Rect{0, 0, 800, 600}, false) {
		got = append(got, it.Role+":"+it.Name)
	}
	if strings.Join(got, ",") != "link:www.example.org/long/path,link:Example home,button:Save draft" {
		t.Fatalf("items %v", got)
	}
}
