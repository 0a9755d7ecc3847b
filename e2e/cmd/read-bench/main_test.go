package main

import (
	"net/url"
	"strings"
	"testing"
)

func TestCompare(t *testing.T) {
	page, _ := url.Parse("http://127.0.0.1:8080/story.html")
	pw := `- link "Pricing" [ref=e1]:
  - /url: /pricing
- link [ref=e2]:
  - /url: mailto:?subject=A story via Site&body=x%2Fy
  - img
- link "SmartAsset.com" [ref=e3]:
  - /url: https://smartasset.com
- link [ref=e4]:
  - /url: javascript:;
- link [ref=e5]:
  - /url: //cdn.example/a.html
  - heading "A story" [level=2] [ref=e6]
- link [ref=e7]:
  - /url: https://twitter.com/site
  - img
- link "Shouting" [ref=e8]:
  - /url: /shout
- button "Menu" [ref=e9]
- link "Gone" [ref=e10]:
  - /url: /gone
- link "Unreachable"
  - /url: /nobox`
	ly := strings.Join([]string{
		`aria-ref=e1 link "Pricing" -> /pricing`,
		`aria-ref=e2 link -> mailto:?subject=A%20story%20via%20Site&body=x%2Fy`,
		`aria-ref=e3 link "SMARTASSET.COM" -> https://smartasset.com/`,
		`aria-ref=e4 link`,
		`aria-ref=e5 link "A story" -> http://cdn.example/a.html`,
		// An unnamed link elsewhere does not stand in for twitter.
		`aria-ref=e6 link -> https://facebook.com/site`,
		// Same name but for case, another place: not the same link.
		`aria-ref=e7 link "SHOUTING" -> /elsewhere`,
		`aria-ref=e8 button "Menu"`,
	}, "\n")
	var got []string
	for _, m := range compare(page, pw, ly) {
		got = append(got, m.desc)
	}
	want := []string{`link "" -> https://twitter.com/site`, `link "Shouting" -> /shout`, `link "Gone" -> /gone`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("missing:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
