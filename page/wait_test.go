package page

import "testing"

func TestURLGlob(t *testing.T) {
	cases := []struct {
		glob, url string
		match     bool
	}{
		{"**/checkout**", "https://shop.test/checkout/step1", true},
		{"**/checkout**", "https://shop.test/cart", false},
		{"https://shop.test/cart*", "https://shop.test/cart?x=1", true},
		{"https://shop.test/cart*", "https://shop.test/cart/more", false},
		{"checkout", "https://shop.test/checkout", false}, // whole URL
		{"**/item/?", "https://a.test/item/7", true},
		{"**/*.{png,jpg}", "https://a.test/x/y.jpg", true},
		{"**/*.{png,jpg}", "https://a.test/x/y.gif", false},
		{"https://a.test/a+b(c)", "https://a.test/a+b(c)", true},
		{"**/ü*", "https://a.test/über", true},
	}
	for _, c := range cases {
		if got := urlGlob(c.glob).MatchString(c.url); got != c.match {
			t.Errorf("%q on %q = %v, want %v", c.glob, c.url, got, c.match)
		}
	}
}
