package policy

import (
	"testing"
)

// chromeHosts are hosts as Chromium 156 writes them (new URL(u).host in the
// browser, which is how it requests them), "" where it refuses the URL.
var chromeHosts = []struct{ url, host string }{
	{"http://bücher.example/", "xn--bcher-kva.example"},
	{"http://%C3%BC.example/", "xn--tda.example"},
	{"http://BÜCHER.example/", "xn--bcher-kva.example"},
	{"http://xn--BCHER-kva.example/", "xn--bcher-kva.example"},
	{"http://xn--abc-.example/", "xn--abc-.example"},
	{"http://xn--zz.example/", "xn--zz.example"},
	{"http://EXAMPLE.com./", "example.com."},
	{"http://example.com../", "example.com.."},
	{"http://[0:0::1]/", "[::1]"},
	{"http://[::FFFF:1.2.3.4]/", "[::ffff:102:304]"},
	{"http://[1:0:0:2:0:0:0:3]/", "[1:0:0:2::3]"},
	{"http://[1:0:0:0:2:0:0:3]/", "[1::2:0:0:3]"},
	{"http://127.1/", "127.0.0.1"},
	{"http://2130706433/", "127.0.0.1"},
	{"http://0x7f.1/", "127.0.0.1"},
	{"http://0177.0.0.1/", "127.0.0.1"},
	{"http://0X7F.0.0.1/", "127.0.0.1"},
	{"http://127.0.0.1./", "127.0.0.1"},
	{"http://127.0.0.1../", "127.0.0.1.."},
	{"http://1.2.3.4.5/", ""},
	{"http://foo.09/", ""},
	{"http://foo.0x/", ""},
	{"http://0x/", "0.0.0.0"},
	{"http://4294967295/", "255.255.255.255"},
	{"http://4294967296/", ""},
	{"http://0x100000000/", ""},
	{"http://256.0.0.1/", ""},
	{"http://1.256/", "1.0.1.0"},
	{"http://1.65536/", "1.1.0.0"},
	{"http://a_b.example/", "a_b.example"},
	{"http://a<b/", ""},
	{"http://\u212avraudio.com/", "kvraudio.com"},
	{"http://ｅｘａｍｐｌｅ.com/", "example.com"},
	{"http://example。com/", "example.com"},
	{"http://faß.de/", "xn--fa-hia.de"},
	{"http://a\u200cb.example/", ""},
	{"http://١.example/", ""},
	{"http://xn--mgba3gch31f.example/", "xn--mgba3gch31f.example"},
	{"http://a..b/", "a..b"},
	{"http://.example/", ".example"},
	{"http://１２７.０.０.１/", "127.0.0.1"},
	{"http://0.0.0.0/", "0.0.0.0"},
	{"http://00/", "0.0.0.0"},
	{"http://09/", ""},
	{"http://0x7g/", "0x7g"},
	{"http://a.b.c.0x/", ""},
	{"http://😀.example/", "xn--e28h.example"},
}

// failClosed are URLs Chromium loads that this reading refuses: no origin,
// so never the same site as anything and never covered by a site grant. A
// grant asked for in such a spelling is asked again in Chrome's.
var failClosed = map[string]string{
	"http://a%2eb/":     "a.b",
	"https:example.com": "example.com",
	"http://a*b/":       "a%2Ab",
}

func TestHostAsChromeWritesIt(t *testing.T) {
	for _, c := range chromeHosts {
		o, ok := OriginOf(c.url)
		if c.host == "" {
			if ok {
				t.Errorf("OriginOf(%q) = %s, but the browser refuses it", c.url, o)
			}
			continue
		}
		if !ok {
			t.Errorf("OriginOf(%q) has no origin; the browser requests %s", c.url, c.host)
			continue
		}
		if want := "http://" + c.host; o.String() != want {
			t.Errorf("OriginOf(%q) = %s, the browser requests %s", c.url, o, want)
		}
		// What the browser requests reads back as itself.
		again, ok := OriginOf(o.String() + "/")
		if !ok || again != o {
			t.Errorf("%s read back as %s %v", o, again, ok)
		}
	}
	for u := range failClosed {
		if o, ok := OriginOf(u); ok {
			t.Errorf("OriginOf(%q) = %s; expected to fail closed", u, o)
		}
	}
}

// A grant given in any spelling is the grant a request in the browser's
// spelling is judged against, and the reverse.
func TestSpellingsShareAScope(t *testing.T) {
	groups := [][]string{
		{"http://127.0.0.1:8080/", "http://2130706433:8080/a", "http://0x7f.1:8080/", "http://127.1:8080/", "http://0177.0.0.1:8080/", "http://127.0.0.1.:8080/", "http://0x7F000001:8080/", "http://017700000001:8080"},
		{"https://xn--bcher-kva.example/", "https://bücher.example/x", "https://BÜCHER.EXAMPLE/", "https://XN--BCHER-KVA.example:443/", "https://b%C3%BCcher.example/"},
		{"https://example.com/", "https://EXAMPLE.COM/", "https://ｅｘａｍｐｌｅ.com/", "https://example。com/"},
		{"http://[::1]/", "http://[0:0:0:0:0:0:0:1]/", "http://[::0001]:80/"},
	}
	for _, g := range groups {
		want := ScopeOf(g[0])
		if want.Opaque() || want.IsZero() {
			t.Fatalf("%s has no origin", g[0])
		}
		for _, u := range g[1:] {
			if got := ScopeOf(u); got != want {
				t.Errorf("ScopeOf(%q) = %s, want %s", u, got, want)
			}
		}
	}
	apart := [][2]string{
		{"https://example.com/", "https://example.com./"},
		{"http://127.0.0.1/", "http://127.0.0.1../"},
		{"https://xn--abc-.example/", "https://abc.example/"},
		{"https://faß.de/", "https://fass.de/"},
		{"http://127.0.0.1/", "http://127.0.0.2/"},
	}
	for _, p := range apart {
		if ScopeOf(p[0]) == ScopeOf(p[1]) {
			t.Errorf("%s and %s are two sites to the browser", p[0], p[1])
		}
	}
}
