package snapshot

import (
	"net/url"
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	page, _ := url.Parse("http://shop.test/cart.html?x=1#top")
	for _, c := range []struct {
		it   Item
		want string
	}{
		{Item{Role: "link", Name: "Top", Href: "http://shop.test/cart.html?x=1#"}, `aria-ref=e1 link "Top" -> #`},
		{Item{Role: "link", Name: "Notes", Href: "http://shop.test/cart.html?x=1#notes"}, `aria-ref=e1 link "Notes" -> #notes`},
		{Item{Role: "link", Name: "Other", Href: "http://shop.test/cart.html#notes"}, `aria-ref=e1 link "Other" -> /cart.html#notes`},
		{Item{Role: "link", Name: "Self", Href: "http://shop.test/cart.html?x=1"}, `aria-ref=e1 link "Self" -> /cart.html?x=1`},
		{Item{Role: "link", Name: "Far", Href: "https://far.test/#a"}, `aria-ref=e1 link "Far" -> https://far.test/#a`},
		{Item{Role: "textbox", Name: "Tags", Value: "Macao"}, `aria-ref=e1 textbox "Tags": Macao`},
		{Item{Role: "textbox", Hint: `near "Password"`, States: []string{"filled"}}, `aria-ref=e1 textbox (near "Password") [filled]`},
		{Item{Role: "generic", Hint: `icon "trash"`, States: []string{"clickable"}}, `aria-ref=e1 generic (icon "trash") [clickable]`},
		{Item{Role: "button", Name: "Save", Hint: `icon "disk"`}, `aria-ref=e1 button "Save"`},
	} {
		if got := Line("e1", c.it, page); got != c.want {
			t.Errorf("Line(%+v) = %q, want %q", c.it, got, c.want)
		}
	}
}

func TestCutValue(t *testing.T) {
	if got := CutValue("a\n  b\tc"); got != "a b c" {
		t.Errorf("whitespace: %q", got)
	}
	long := CutValue(strings.Repeat("x", 100))
	if r := []rune(long); len(r) != MaxValue || r[len(r)-1] != '…' {
		t.Errorf("long value cut to %q", long)
	}
}
