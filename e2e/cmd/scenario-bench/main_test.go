package main

import "testing"

// The agent finds its targets in trees as lyrad writes them today and as
// the issue-19 branches write them (values, near names, href="#", changes).
func TestFinders(t *testing.T) {
	tree := `aria-ref=e1 heading "Inbox" [level=1]
aria-ref=e2 generic "Alice" [cursor=pointer]
aria-ref=e3 generic "☆" [cursor=pointer]
aria-ref=e4 generic "Bob" [cursor=pointer]
aria-ref=e5 generic "☆" [cursor=pointer]
aria-ref=e6 generic "trash" [cursor=pointer]
aria-ref=e10 generic "☆ Bob Quarterly numbers" [clickable]
aria-ref=e11 generic "☆ Carol Re: the offsite" [clickable]
aria-ref=e12 generic "☆" [clickable]
aria-ref=e13 generic (class "trash") [clickable]
aria-ref=e7 textbox (near "Username")
aria-ref=e8 textbox "Tags": Macao
aria-ref=e9 link "Open menu" -> #`
	for _, c := range []struct {
		name string
		f    finder
		want string
	}{
		{"row then star", after(`Bob`, btn, `(?i)^(☆|star)`), "e5"},
		{"row then trash", after(`Bob`, btn, `(?i)^trash`), "e6"},
		{"not the next row's", after(`Bob`, btn, `(?i)^☆`), "e5"},
		{"a row without it", after(`Quarterly`, btn, `(?i)^☆`), ""},
		{"by its hint", after(`Carol`, btn, `(?i)^trash`), "e13"},
		{"near", near("textbox", "Username"), "e7"},
		{"label", near("textbox", "Tags"), "e8"},
		{"named", named(btn, `^Open menu$`), "e9"},
		{"absent", named(btn, `^Carol$`), ""},
	} {
		if got := c.f(tree); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	if got := changesText([]any{"+ aria-ref=e10 button \"Delete\"", map[string]any{"line": "x"}}); got != "+ aria-ref=e10 button \"Delete\"\n{\"line\":\"x\"}" {
		t.Errorf("changes: %q", got)
	}
	if named(btn, `^Delete$`)(changesText("+ aria-ref=e10 button \"Delete\"")) != "e10" {
		t.Error("a changes line is not found")
	}
}
