package policy

import (
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// FuzzParseTrusted: whatever the operator writes, a malformed entry never
// widens trust. Every accepted entry reads back to itself, an entry's reading
// does not depend on its neighbours, and no entry vouches for an origin whose
// host is not the entry's host or, for a wildcard, a proper subdomain of it.
func FuzzParseTrusted(f *testing.F) {
	seeds := [][2]string{
		{"kvraudio.com", "https://kvraudio.com/"},
		{"kvraudio.com", "https://kvraudio.com.evil.io/"},
		{"kvraudio.com", "https://kvraudio.com@evil.io/"},
		{"kvraudio.com", "https://kvraudio.com:8443/"},
		{"https://kvraudio.com.evil.io", "https://kvraudio.com.evil.io/"},
		{"https://kvraudio.com@evil.io", "https://evil.io/"},
		{"*.example.com", "https://a.b.example.com/"},
		{"*.example.com", "https://example.com/"},
		{"*.example.com", "https://a..example.com/"},
		{"example.com *.example.com", "https://www.example.com/"},
		{"http://localhost:3000", "http://localhost:3000/"},
		{"http://localhost:3000/", "https://localhost:3000/"},
		{"localhost:3000", "http://localhost:3000/"},
		{"*", "https://anything.test/"},
		{"*.com", "https://evil.com/"},
		{"*.127.0.0.1", "https://1.127.0.0.1/"},
		{"[::1] http://[::1]:80", "http://[::1]/"},
		{"example.com/path", "https://example.com/path"},
		{"user@example.com", "https://example.com/"},
		{"file:///etc/passwd data:text/plain about:blank blob:https://x.test/1", "file:///etc/passwd"},
		{",,a.test,, b.test\n\t*.c.test", "https://x.c.test/"},
		{"127.0.0.1 1.2.3 0x7f.0.0.1 2130706433", "https://127.0.0.1/"},
		{"EXAMPLE.com. .example.com", "https://example.com./"},
		{"\u212avraudio.com", "https://kvraudio.com/"},
		{"https://*.example.com *.*.example.com", "https://a.example.com/"},
		{"https://example.com:443 http://example.com:80", "http://example.com/"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, list, rawURL string) {
		entries, _ := ParseTrusted(list)

		// A token is read on its own: the list's entries are exactly the
		// union, in order, of what each token gives alone.
		var union []TrustedEntry
		seen := map[TrustedEntry]bool{}
		for _, tok := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || unicode.IsSpace(r) }) {
			es, _ := ParseTrusted(tok)
			if len(es) > 1 {
				t.Fatalf("one token %q gave %d entries", tok, len(es))
			}
			for _, e := range es {
				if !seen[e] {
					seen[e] = true
					union = append(union, e)
				}
			}
		}
		if len(union) != len(entries) {
			t.Fatalf("entries %v, per-token union %v", entries, union)
		}
		for i := range union {
			if union[i] != entries[i] {
				t.Fatalf("entries %v, per-token union %v", entries, union)
			}
		}

		for _, e := range entries {
			again, warns := ParseTrusted(e.String())
			if len(again) != 1 || again[0] != e || len(warns) != 0 {
				t.Fatalf("%#v wrote %q, which reads back as %v %q", e, e.String(), again, warns)
			}
			if e.Scheme != "http" && e.Scheme != "https" || e.Port < 1 || e.Port > 65535 || hostProblem(e.Host) != "" {
				t.Fatalf("accepted a bad entry %#v", e)
			}
			if e.Wildcard && (e.Scheme != "https" || e.Port != 443 || !strings.Contains(e.Host, ".") || numericLast(e.Host)) {
				t.Fatalf("accepted a too-wide wildcard %#v", e)
			}
		}

		o, ok := OriginOf(rawURL)
		for _, e := range entries {
			if !e.Matches(o) {
				continue
			}
			if !ok {
				t.Fatalf("%s vouched for %q, which has no origin", e, rawURL)
			}
			if !e.Wildcard && (o.Host != e.Host || o.Scheme != e.Scheme || o.Port != e.Port) {
				t.Fatalf("%s vouched for %s", e, o)
			}
			if e.Wildcard {
				sub, isSub := strings.CutSuffix(o.Host, "."+e.Host)
				if !isSub || sub == "" || strings.HasPrefix(sub, ".") || strings.Contains(sub, "..") || o.Scheme != "https" || o.Port != 443 {
					t.Fatalf("%s vouched for %s", e, o)
				}
			}
		}
		if !ok {
			if _, matched := (Trust{Navigate: entries, Send: entries}).Answers(Navigate, ScopeOf(rawURL), false); matched {
				t.Fatalf("an opaque URL %q was answered", rawURL)
			}
		}
	})
}

// FuzzClassify: no request, however odd, makes the judgement panic, and the
// classification keeps its promises.
func FuzzClassify(f *testing.F) {
	f.Add("https://shop.example/x", "GET", false, false, "", 0, false, "https://shop.example/")
	f.Add("https://away.test/", "POST", true, true, "https://shop.example/post", 307, false, "https://shop.example/")
	f.Add("https://away.test/", "POST", true, true, "https://shop.example/post", 302, false, "https://shop.example/")
	f.Add("https://example.com/", "GET", false, true, "http://example.com/", 301, false, "")
	f.Add("file:///etc/passwd", "", false, false, "", 0, false, "file:///etc/passwd")
	f.Add("data:text/html,hi", "get", false, false, "", 0, true, "about:blank")
	f.Add("blob:https://x.test/1", "DELETE", false, false, "", 303, false, "blob:null/1")
	f.Add("http://[::1]:80/", "PROPFIND", true, true, "%zz", -1, true, "\x00")
	f.Fuzz(func(t *testing.T, rawURL, method string, body, redirect bool, from string, status int, subframe bool, current string) {
		r := Request{URL: rawURL, Method: method, HasBody: body, IsRedirect: redirect, RedirectFrom: from, RedirectStatus: status, InSubframe: subframe}
		c := Classify(r, current)
		switch c.Kind {
		case Interaction:
			cur, ok1 := OriginOf(current)
			to, ok2 := OriginOf(rawURL)
			if !ok1 || !ok2 || cur != to || c.Capability != Interact {
				t.Fatalf("interaction across sites: %+v", c)
			}
		case Leaving:
			if c.Capability != Navigate || c.Subject != c.Destination {
				t.Fatalf("leaving: %+v", c)
			}
		case Submission:
			if c.Capability != Submit {
				t.Fatalf("submission: %+v", c)
			}
		case RedirectSameOrigin:
			if !staysPut(from, rawURL) {
				t.Fatalf("not a same-origin hop: %+v", c)
			}
		case Embed:
			if !subframe || IsFileURL(rawURL) {
				t.Fatalf("embed in a main frame, or of a file: %+v", c)
			}
		case File:
			if !IsFileURL(rawURL) || c.Capability != Navigate || c.Subject != ScopeOf(rawURL) {
				t.Fatalf("file: %+v", c)
			}
		default:
			t.Fatalf("unknown kind %q", c.Kind)
		}
		if c.Destination != ScopeOf(rawURL) {
			t.Fatalf("destination %q for %q", c.Destination, rawURL)
		}

		clk := newClock()
		g := NewGrants(0, clk.Now)
		g.Grant("s", c.Subject, Submit, GrantOptions{})
		g.Grant("s", c.Subject, Navigate, GrantOptions{})
		trust := Trust{}
		trust.Navigate, _ = ParseTrusted(current)
		j := Judgement{Class: c, Session: "s", Grants: g, Now: clk.Now(), Mode: Observe, Trust: trust}
		if v := Judge(j); !v.Allow {
			t.Fatalf("observe refused: %+v", v)
		}
		if !c.Subject.IsZero() && (!g.Has("s", c.Subject, Submit, clk.Now()) || !g.Has("s", c.Subject, Navigate, clk.Now())) {
			t.Fatal("observe spent a grant")
		}
		j.Mode = Enforce
		v := Judge(j)
		if c.Kind != Embed && c.Kind != RedirectSameOrigin && c.Subject.IsZero() && v.Allow && v.Reason != ReasonTrusted {
			t.Fatalf("allowed with nothing to hold a grant on: %+v", v)
		}
		j.Grants = nil
		_ = Judge(j)
		_ = v.Fields()
		_ = LoggableURL(rawURL)
	})
}

// The fuzz properties also hold for a deterministic sweep of near-miss hosts.
func TestTrustedNearMisses(t *testing.T) {
	entries, _ := ParseTrusted("kvraudio.com *.example.com http://localhost:3000")
	for _, u := range []string{
		"https://kvraudio.com.", "https://kvraudio.co", "https://kvraudio.com.evil.io",
		"https://xkvraudio.com", "https://kvraudio.com:444", "https://example.com",
		"https://example.com.", "https://xexample.com", "https://a.example.com.evil.io",
		"http://localhost:3001", "http://localhost", "https://localhost:3000",
		"http://127.0.0.1:3000",
	} {
		o, _ := OriginOf(u)
		if e, ok := Match(entries, o); ok {
			t.Errorf("%s matched %s", u, e)
		}
	}
}

// FuzzScopeOf: the reading of a URL's site is the browser's. What it
// answers is a fixed point (the canonical form of a canonical form is
// itself, so no host the browser requests is read as another), and the
// spellings the browser treats as one site (letter case, an internationalised
// name in Unicode or in its xn-- form) give one Scope.
func FuzzScopeOf(f *testing.F) {
	for _, c := range chromeHosts {
		f.Add(c.url)
	}
	for u := range failClosed {
		f.Add(u)
	}
	f.Add("https://user:pw@Bücher.Example:8443/p?q#f")
	f.Add("blob:http://0x7f.1/uuid")
	f.Fuzz(func(t *testing.T, rawURL string) {
		s := ScopeOf(rawURL)
		o, ok := s.Origin()
		if !ok {
			return
		}
		if o.Host != asciiLower(o.Host) || !isASCII(o.Host) || o.Port < 1 || o.Port > 65535 {
			t.Fatalf("%q read as %#v", rawURL, o)
		}
		again := ScopeOf(o.String() + "/")
		if again != s {
			t.Fatalf("%q read as %s, which reads back as %s", rawURL, s, again)
		}
		if strings.Contains(o.Host, ":") {
			return // IPv6: no other spelling to try here
		}
		// Letter case is the browser's to ignore.
		if up := ScopeOf(strings.ToUpper(o.Scheme) + "://" + strings.ToUpper(o.Host) + ":" + strconv.Itoa(o.Port) + "/"); up != s {
			t.Fatalf("%s in capitals read as %s", s, up)
		}
		// An internationalised name in Unicode is the same site as its
		// xn-- form, when that form is one the browser would write.
		if a, err := idnaProfile.ToASCII(o.Host); err == nil && a == o.Host {
			if u, err := idnaProfile.ToUnicode(o.Host); err == nil && u != o.Host {
				if got := ScopeOf(o.Scheme + "://" + u + ":" + strconv.Itoa(o.Port) + "/"); got != s {
					t.Fatalf("%s written %q read as %s", s, u, got)
				}
			}
		}
	})
}

// FuzzIPv4Spellings: every way of writing an IPv4 address the browser
// accepts (one to four parts, each decimal, hex or octal, the last filling
// what the others leave, a trailing dot) names the dotted-quad site, both
// as a grant's scope and as a trusted entry's warning.
func FuzzIPv4Spellings(f *testing.F) {
	f.Add(uint32(0x7f000001), uint8(1), uint16(0), false)
	f.Add(uint32(0x7f000001), uint8(2), uint16(0x15), true)
	f.Add(uint32(0x7f000001), uint8(4), uint16(0xaa), false)
	f.Add(uint32(0), uint8(3), uint16(0xff), true)
	f.Add(uint32(0xffffffff), uint8(1), uint16(1), false)
	f.Fuzz(func(t *testing.T, addr uint32, nparts uint8, radixes uint16, dot bool) {
		n := int(nparts%4) + 1
		// The first n-1 parts are single bytes; the last holds the rest.
		var parts []uint64
		for i := 0; i < n-1; i++ {
			parts = append(parts, uint64(addr>>(8*(3-i))&0xff))
		}
		parts = append(parts, uint64(addr)&(uint64(1)<<(8*(5-n))-1))
		var sb strings.Builder
		for i, p := range parts {
			if i > 0 {
				sb.WriteByte('.')
			}
			switch radixes >> (2 * i) & 3 {
			case 0:
				sb.WriteString(strconv.FormatUint(p, 10))
			case 1:
				sb.WriteString("0x" + strconv.FormatUint(p, 16))
			case 2:
				sb.WriteString("0X" + strings.ToUpper(strconv.FormatUint(p, 16)))
			case 3:
				sb.WriteString("0" + strconv.FormatUint(p, 8))
			}
		}
		if dot {
			sb.WriteByte('.')
		}
		spelling := sb.String()
		quad := netip.AddrFrom4([4]byte{byte(addr >> 24), byte(addr >> 16), byte(addr >> 8), byte(addr)}).String()
		want := ScopeOf("http://" + quad + ":8080/")
		if got := ScopeOf("http://" + spelling + ":8080/x"); got != want {
			t.Fatalf("http://%s:8080 read as %s, the browser requests %s", spelling, got, want)
		}
		_, warns := ParseTrusted("http://" + spelling + ":8080")
		if spelling != quad && (len(warns) != 1 || !strings.Contains(warns[0], " "+quad+";")) {
			t.Fatalf("trusted entry %s: warnings %q, want one naming %s", spelling, warns, quad)
		}
	})
}
