package snapshot

import (
	"net/url"
	"testing"
)

func TestYAMLFromMapRoundTrip(t *testing.T) {
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
		if got := YAMLLine(c.ref, c.it, page); got != c.want {
			t.Errorf("YAMLLine(%s):\n got %s\nwant %s", c.ref, got, c.want)
		}
		line := Line(c.ref, c.it, page)
		if got := YAMLFromMap(line); got != c.want {
			t.Errorf("YAMLFromMap(%q):\n got %s\nwant %s", line, got, c.want)
		}
	}
}

func TestParseLineRefusesOtherLines(t *testing.T) {
	for _, s := range []string{"", "hello", "aria-ref=", `aria-ref=e1 button "unterminated`} {
		if _, ok := ParseLine(s); ok {
			t.Errorf("ParseLine(%q) = ok", s)
		}
	}
	if got := YAMLFromMap("aria-ref=e1 button \"A\"\n(3 more not listed)"); got != "- button \"A\" [ref=e1]\n# (3 more not listed)" {
		t.Errorf("notes: %q", got)
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
