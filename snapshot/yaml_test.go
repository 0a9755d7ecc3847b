package snapshot

import (
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func TestYAMLEntries(t *testing.T) {
	page, _ := url.Parse("https://shop.test/cart")
	items := []struct {
		ref  string
		it   Item
		want string
	}{
		{"e2", Item{Role: "button", Name: "Submit"}, `- button "Submit" [ref=e2]`},
		{"e3", Item{Role: "heading", Name: "Hello", States: []string{"level=1"}}, `- heading "Hello" [level=1] [ref=e3]`},
		{"e5", Item{Role: "generic", Name: "Menu", States: []string{"clickable"}}, `- generic "Menu" [ref=e5] [cursor=pointer]`},
		{"e7", Item{Role: "link", Name: "Other", Href: "https://shop.test/other.html"}, "- link \"Other\" [ref=e7] [cursor=pointer]:\n  - /url: /other.html"},
		{"e9", Item{Role: "textbox", Name: "Tags", Value: "Macao"}, `- textbox "Tags" [ref=e9]: Macao`},
		{"e10", Item{Role: "textbox", Name: "Note", Value: "a: b"}, `- textbox "Note" [ref=e10]: "a: b"`},
		{"e11", Item{Role: "checkbox", Name: "Remember \"me\"", States: []string{"checked"}}, `- checkbox "Remember \"me\"" [checked] [ref=e11]`},
		{"e12", Item{Role: "textbox", Hint: `near "Password"`, States: []string{"filled"}}, `- textbox [filled] [ref=e12] # near "Password"`},
		{"e13", Item{Role: "spinbutton", Name: "Qty", Value: "3"}, `- spinbutton "Qty" [ref=e13]: "3"`},
	}
	for _, c := range items {
		// As the nested form shows it, and as a changes line read back.
		if got := NestedYAML([]Node{{Parent: -1, Item: 0}}, []Item{c.it}, []string{c.ref}, page, 0); got != c.want {
			t.Errorf("NestedYAML(%s):\n got %s\nwant %s", c.ref, got, c.want)
		}
		line := Line(c.ref, c.it, page)
		if l, ok := ParseLine(line); !ok || l.YAML() != c.want {
			t.Errorf("ParseLine(%q).YAML():\n got %s\nwant %s", line, l.YAML(), c.want)
		}
	}
}

func TestParseLineRefusesOtherLines(t *testing.T) {
	for _, s := range []string{"", "hello", "aria-ref=", `aria-ref=e1 button "unterminated`} {
		if _, ok := ParseLine(s); ok {
			t.Errorf("ParseLine(%q) = ok", s)
		}
	}
}

func TestYAMLFromChanges(t *testing.T) {
	in := "~ aria-ref=e3 textbox \"Name\": Ada (was: empty)\n+ aria-ref=e9 link \"Next\" -> /next\n- button \"Old\"\n(3 more changes, 3 appeared: read_page(mode=\"tree\") lists the whole page)"
	want := "- textbox \"Name\" [ref=e3]: Ada # changed, was: empty\n- link \"Next\" [ref=e9] [cursor=pointer]: # appeared\n  - /url: /next\n# gone: button \"Old\"\n# (3 more changes, 3 appeared: read_page(mode=\"tree\") lists the whole page)"
	if got := YAMLFromChanges(in); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if YAMLFromChanges("none") != "" {
		t.Errorf("none")
	}
}

// nestPage is a site's page in the nested form: a navigation's list of
// links, a paragraph with a link in its text, a table's row (a cell named
// by its text beside one holding a button), a clickable box holding a
// link, a field with the focus.
func nestPage() ([]Node, []Item, []string) {
	items := []Item{
		{Frame: "F", Node: 1, Role: "link", Name: "Deals", Href: "https://shop.test/deals"},
		{Frame: "F", Node: 2, Role: "link", Name: "Read more", Href: "https://shop.test/more"},
		{Frame: "F", Node: 3, Role: "button", Name: "Buy kettle"},
		{Frame: "F", Node: 4, Role: "generic", Name: "Row 1", States: []string{"clickable"}},
		{Frame: "F", Node: 5, Role: "link", Name: "Open", Href: "https://shop.test/1"},
		{Frame: "F", Node: 6, Role: "textbox", Name: "Query", Value: "tea", States: []string{"active"}},
	}
	refs := []string{"e1", "e2", "e3", "e4", "e5", "e6"}
	nodes := []Node{
		{Parent: -1, Item: -1, Role: "navigation", Name: "Main"}, // 0
		{Parent: 0, Item: -1, Role: "list"},                      // 1
		{Parent: 1, Item: -1, Role: "listitem"},                  // 2
		{Parent: 2, Item: 0},                                     // 3
		{Parent: -1, Item: -1, Role: "main"},                     // 4
		{Parent: 4, Item: -1, Role: "paragraph"},                 // 5
		{Parent: 5, Item: -1, Role: "text", Name: "Find things."},
		{Parent: 5, Item: 1},
		{Parent: 5, Item: -1, Role: "text", Name: "about: us"},
		{Parent: 4, Item: -1, Role: "row"},                  // 9
		{Parent: 9, Item: -1, Role: "cell", Name: "Kettle"}, // 10
		{Parent: 9, Item: -1, Role: "cell"},                 // 11
		{Parent: 11, Item: 2},
		{Parent: 4, Item: 3}, // 13
		{Parent: 13, Item: 4},
		{Parent: 4, Item: -1, Role: "form", Name: "Search", Active: false}, // 15
		{Parent: 15, Item: 5},
	}
	return nodes, items, refs
}

func TestNestedYAML(t *testing.T) {
	page, _ := url.Parse("https://shop.test/")
	nodes, items, refs := nestPage()
	want := `- navigation "Main":
  - list:
    - listitem:
      - link "Deals" [ref=e1] [cursor=pointer]:
        - /url: /deals
- main:
  - paragraph:
    - text: Find things.
    - link "Read more" [ref=e2] [cursor=pointer]:
      - /url: /more
    - text: "about: us"
  - row:
    - cell "Kettle"
    - cell:
      - button "Buy kettle" [ref=e3]
  - generic "Row 1" [ref=e4] [cursor=pointer]:
    - link "Open" [ref=e5] [cursor=pointer]:
      - /url: /1
  - form "Search":
    - textbox "Query" [active] [ref=e6]: tea`
	if got := NestedYAML(nodes, items, refs, page, 0); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// A container with the focus (a dialog focused itself) says so.
	box := []Node{{Parent: -1, Item: -1, Role: "dialog", Name: "Confirm", Active: true}, {Parent: 0, Item: 2}}
	if got, want := NestedYAML(box, items, refs, page, 0), "- dialog \"Confirm\" [active]:\n  - button \"Buy kettle\" [ref=e3]"; got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// depth 1: the top and what is right under it.
	if got, want := NestedYAML(nodes, items, refs, page, 1), "- navigation \"Main\":\n  - list\n- main:\n  - paragraph\n  - row\n  - generic \"Row 1\" [ref=e4] [cursor=pointer]\n  - form \"Search\""; got != want {
		t.Errorf("depth 1: got\n%s\nwant\n%s", got, want)
	}
	if got := NestedYAML(nil, nil, nil, page, 0); got != "" {
		t.Errorf("no nodes: %q", got)
	}
}

func TestNestedChanges(t *testing.T) {
	page, _ := url.Parse("https://shop.test/")
	nodes, items, refs := nestPage()
	was := items[5]
	was.Value, was.States = "", nil
	changes := []Change{
		{Kind: Changed, Item: items[5], Was: was},
		{Kind: Appeared, Item: items[2]},
		{Kind: Gone, Item: Item{Frame: "F", Node: 9, Role: "button", Name: "Old"}},
	}
	// Each change under the containers that hold it, in the page's order;
	// nothing else of the page.
	want := `- main:
  - row:
    - cell:
      - button "Buy kettle" [ref=e3] # appeared
  - form "Search":
    - textbox "Query" [active] [ref=e6]: tea # changed, was: no state, empty
# gone: button "Old"`
	if got := NestedChanges(changes, nodes, items, refs, page, MaxChangeLines, MaxChangeBytes); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// An item inside an item: the one around it is its context, with no note.
	got := NestedChanges([]Change{{Kind: Appeared, Item: items[4]}}, nodes, items, refs, page, MaxChangeLines, MaxChangeBytes)
	want = "- main:\n  - generic \"Row 1\" [ref=e4] [cursor=pointer]:\n    - link \"Open\" [ref=e5] [cursor=pointer]: # appeared\n      - /url: /1"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Bounded as Summary is: what is left out is said, as Summary says it.
	got = NestedChanges(changes, nodes, items, refs, page, 1, MaxChangeBytes)
	if !strings.HasSuffix(got, "\n# (2 more changes, 1 appeared, 1 gone: read_page(mode=\"tree\") lists the whole page)") || strings.Contains(got, "Buy kettle") {
		t.Errorf("bounded to one line:\n%s", got)
	}
	if sum := Summary(changes, func(it Item) string { return "e" + strconv.FormatInt(it.Node, 10) }, page, 1, MaxChangeBytes); !strings.HasSuffix(sum, "\n(2 more changes, 1 appeared, 1 gone: read_page(mode=\"tree\") lists the whole page)") {
		t.Errorf("Summary bounded to one line:\n%s", sum)
	}
	// A change not in the nested form (read elsewhere) stands on its own.
	other := Item{Frame: "G", Node: 1, Role: "button", Name: "Elsewhere"}
	got = NestedChanges([]Change{{Kind: Appeared, Item: other}}, nodes, append(items, other), append(refs, "e7"), page, MaxChangeLines, MaxChangeBytes)
	if got != `- button "Elsewhere" [ref=e7] # appeared` {
		t.Errorf("loose: %q", got)
	}
	if NestedChanges(nil, nodes, items, refs, page, MaxChangeLines, MaxChangeBytes) != "" {
		t.Errorf("no changes")
	}
}
