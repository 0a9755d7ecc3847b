package policy

import (
	"reflect"
	"strings"
	"testing"
)

func entryStrings(es []TrustedEntry) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.String())
	}
	return out
}

func TestParseTrustedAccepts(t *testing.T) {
	tests := []struct {
		list string
		want []string
	}{
		{"https://www.kvraudio.com", []string{"https://www.kvraudio.com"}},
		{"http://localhost:3000", []string{"http://localhost:3000"}},
		{"http://localhost:3000/", []string{"http://localhost:3000"}},
		{"kvraudio.com", []string{"https://kvraudio.com"}},
		{"KVRaudio.com", []string{"https://kvraudio.com"}},
		{"*.Example.com", []string{"*.example.com"}},
		{"https://example.com:443", []string{"https://example.com"}},
		{"http://example.com:80/", []string{"http://example.com"}},
		{"https://example.com:8443", []string{"https://example.com:8443"}},
		{"http://127.0.0.1:8787", []string{"http://127.0.0.1:8787"}},
		{"127.0.0.1", []string{"https://127.0.0.1"}},
		{"localhost", []string{"https://localhost"}},
		{"my_host.internal", []string{"https://my_host.internal"}},
		{"xn--bcher-kva.example", []string{"https://xn--bcher-kva.example"}},
		{"example.0xzz", []string{"https://example.0xzz"}},
		// The list does not know public suffixes: two labels are accepted.
		{"*.co.uk", []string{"*.co.uk"}},
		// Separators: commas and any whitespace, mixed.
		{"kvraudio.com synthtopia.com console.cloud.google.com ads.google.com",
			[]string{"https://kvraudio.com", "https://synthtopia.com", "https://console.cloud.google.com", "https://ads.google.com"}},
		{"kvraudio.com, *.example.com\nhttp://localhost:3000\tjunk.test",
			[]string{"https://kvraudio.com", "*.example.com", "http://localhost:3000", "https://junk.test"}},
		{"a.test,b.test", []string{"https://a.test", "https://b.test"}},
		// Duplicates collapse; a bare host and its https origin are one entry.
		{"kvraudio.com https://kvraudio.com KVRAUDIO.COM", []string{"https://kvraudio.com"}},
		// A site that redirects between example.com and www.example.com
		// needs both.
		{"example.com *.example.com", []string{"https://example.com", "*.example.com"}},
	}
	for _, tt := range tests {
		got, warns := ParseTrusted(tt.list)
		if !reflect.DeepEqual(entryStrings(got), tt.want) || len(warns) != 0 {
			t.Errorf("ParseTrusted(%q) = %q, warnings %q; want %q", tt.list, entryStrings(got), warns, tt.want)
		}
	}
}

func TestParseTrustedDrops(t *testing.T) {
	tests := []struct {
		entry string
		why   string // a word the warning must contain
	}{
		{"*", "lone"},
		{"*.com", "single-label"},
		{"*.localhost", "single-label"},
		{"*.127.0.0.1", "IP"},
		{"*.0.0.1", "IP"},
		{"*.10.0.0.1", "IP"},
		{"*.*.example.com", "first label"},
		{"*example.com", "first label"},
		{"www.*.example.com", "first label"},
		{"*.", "no host"},
		{"https://*.example.com", "wildcard"},
		{"[::1]", "IPv6"},
		{"::1", "IPv6"},
		{"http://[::1]:3000", "IPv6"},
		{"https://[2001:db8::1]", "IPv6"},
		{"fe80::1", "IPv6"},
		{"example.com/path", "path"},
		{"https://example.com/path", "path"},
		{"https://example.com//", "path"},
		{"https://example.com/?q=1", "path"},
		{"https://example.com#top", "path"},
		{"https://example.com?x", "path"},
		{`https://example.com\evil`, "path"},
		{"user@example.com", "userinfo"},
		{"https://user:pw@example.com", "userinfo"},
		{"https://kvraudio.com@evil.io", "userinfo"},
		{"localhost:3000", "port on a bare host"},
		{"a.test:443", "port on a bare host"},
		{"127.0.0.1:8787", "port on a bare host"},
		{"file:///etc/passwd", "http and https"},
		{"data:text/plain", "http and https"},
		{"about:blank", "http and https"},
		{"blob:https://example.com/x", "http and https"},
		{"javascript:alert(1)", "http and https"},
		{"ftp://example.com", "http and https"},
		{"ws://example.com", "http and https"},
		{"https:example.com", "http and https"},
		{"https://", "no host"},
		{"https://:443", "no host"},
		{"https://example.com:", "port"},
		{"https://example.com:0", "port"},
		{"https://example.com:65536", "port"},
		{"https://example.com:08080", "port"},
		{"https://example.com:+80", "port"},
		{"https://example.com:80a", "port"},
		{"junk!!", "character"},
		{"exa%6dple.com", "character"},
		{"example.com.", "empty label"},
		{".example.com", "empty label"},
		{"a..example.com", "empty label"},
		{"1.2.3", "IPv4"},
		{"2130706433", "IPv4 address 127.0.0.1"},
		{"0x7f.0.0.1", "IPv4 address 127.0.0.1"},
		{"127.0.0.01", "IPv4 address 127.0.0.1"},
		{"256.1.1.1", "IPv4"},
		{"example.0x1f", "IPv4"}, // the browser reads a hex last label as a number too
		{"*.example.0x", "IP"},
		// Another spelling of a host is dropped, naming the one to write.
		{"bücher.de", "writes this host xn--bcher-kva.de;"},
		{"https://BÜCHER.de:8443", "writes this host xn--bcher-kva.de;"},
		{"*.bücher.de", "writes this host xn--bcher-kva.de;"},
		{"\u212avraudio.com", "writes this host kvraudio.com;"}, // the Kelvin sign K maps to k
		{"example\u3002com", "writes this host example.com;"},
		{"http://127.1:8080", "IPv4 address 127.0.0.1;"},
		{"http://2130706433", "IPv4 address 127.0.0.1;"},
		{"0x7f.1", "IPv4 address 127.0.0.1;"},
		{"0177.0.0.1", "IPv4 address 127.0.0.1;"},
		{"127.0.0.1.", "IPv4 address 127.0.0.1;"},
		{"a\u200cb.example", "can load"},  // a joiner where none may stand
		{"exa\uff0fmple.com", "can load"}, // fullwidth solidus: a '/' to the browser
		{"example.com:abc", "malformed"},
		{"1a:b", "malformed"},
		{strings.Repeat("a", 64) + ".com", "63"},
		{strings.Repeat("a.", 130) + "com", "too long"},
	}
	for _, tt := range tests {
		// Each bad entry sits between two good ones that must still load.
		list := "good.test, " + tt.entry + " https://also.test"
		got, warns := ParseTrusted(list)
		want := []string{"https://good.test", "https://also.test"}
		if !reflect.DeepEqual(entryStrings(got), want) {
			t.Errorf("%q: entries %q, want %q", tt.entry, entryStrings(got), want)
		}
		if len(warns) != 1 || !strings.Contains(warns[0], tt.why) || !strings.Contains(warns[0], "dropped") {
			t.Errorf("%q: warnings %q, want one about %q", tt.entry, warns, tt.why)
		}
	}
}

func TestParseTrustedEmpty(t *testing.T) {
	for _, list := range []string{"", "  ", "\n\t", "a.test,", "a.test ,  "} {
		_, warns := ParseTrusted(list)
		if len(warns) != 0 {
			t.Errorf("%q: warnings %q; a blank list or a trailing comma is not worth one", list, warns)
		}
	}
	for _, list := range []string{",,", "a.test,,b.test", ", a.test", "a.test, ,b.test"} {
		got, warns := ParseTrusted(list)
		if len(warns) == 0 || !strings.Contains(warns[0], "empty") {
			t.Errorf("%q: want an empty-entry warning, got %q", list, warns)
		}
		for _, e := range got {
			if e.Host != "a.test" && e.Host != "b.test" {
				t.Errorf("%q: unexpected entry %s", list, e)
			}
		}
	}
	if got, _ := ParseTrusted("*, file:///etc/passwd, data:text/plain"); len(got) != 0 {
		t.Errorf("nothing readable, nothing trusted: %q", entryStrings(got))
	}
}

func TestTrustedMatch(t *testing.T) {
	tests := []struct {
		entry, url, want string // want "" for no match
	}{
		// A bare host: that host over https, and nothing near it.
		{"kvraudio.com", "https://kvraudio.com/forum?q=1#top", "https://kvraudio.com"},
		{"kvraudio.com", "https://kvraudio.com:443/", "https://kvraudio.com"},
		{"kvraudio.com", "HTTPS://KVRAudio.COM/", "https://kvraudio.com"},
		{"kvraudio.com", "https://www.kvraudio.com/", ""},
		{"kvraudio.com", "http://kvraudio.com/", ""},
		{"kvraudio.com", "https://kvraudio.com:8443/", ""},
		{"kvraudio.com", "https://kvraudio.com.evil.io/", ""},
		{"kvraudio.com", "https://evilkvraudio.com/", ""},
		{"kvraudio.com", "https://kvraudio.com@evil.io/", ""},
		{"kvraudio.com", "https://kvraudio.com:443@evil.io/", ""},
		{"kvraudio.com", "https://kvraudio.com%2eevil.io/", ""},
		{"kvraudio.com", "https://kvraudio.com./", ""},
		// A full origin: exactly that scheme, host and port.
		{"https://www.kvraudio.com", "https://www.kvraudio.com/x", "https://www.kvraudio.com"},
		{"https://www.kvraudio.com", "https://kvraudio.com/", ""},
		{"http://localhost:3000", "http://localhost:3000/app", "http://localhost:3000"},
		{"http://localhost:3000", "http://localhost:3001/", ""},
		{"http://localhost:3000", "https://localhost:3000/", ""},
		{"http://localhost:3000", "http://localhost/", ""},
		{"http://localhost:3000", "http://127.0.0.1:3000/", ""},
		{"http://127.0.0.1:8787", "http://127.0.0.1:8787/", "http://127.0.0.1:8787"},
		{"http://127.0.0.1:8787", "http://127.0.0.2:8787/", ""},
		// A wildcard: any subdomain over https on the default port, never the apex.
		{"*.example.com", "https://a.example.com/", "*.example.com"},
		{"*.example.com", "https://a.b.example.com/", "*.example.com"},
		{"*.example.com", "https://example.com/", ""},
		{"*.example.com", "http://a.example.com/", ""},
		{"*.example.com", "https://a.example.com:8443/", ""},
		{"*.example.com", "https://evilexample.com/", ""},
		{"*.example.com", "https://a.example.com.evil.io/", ""},
		{"*.example.com", "https://example.com.evil.io/", ""},
		{"*.example.com", "https://example.com@evil.io/", ""},
		{"*.example.com", "https://.example.com/", ""},
		{"*.example.com", "https://a..example.com/", ""},
		// A document with no site is nobody's to vouch for.
		{"kvraudio.com", "file:///etc/passwd", ""},
		{"kvraudio.com", "data:text/html,hi", ""},
		{"*.example.com", "about:blank", ""},
		{"*.example.com", "", ""},
	}
	for _, tt := range tests {
		entries, warns := ParseTrusted(tt.entry)
		if len(entries) != 1 || len(warns) != 0 {
			t.Fatalf("%q did not parse: %q", tt.entry, warns)
		}
		o, ok := OriginOf(tt.url)
		got, matched := Match(entries, o)
		if !ok && matched {
			t.Errorf("%s matched an opaque URL %q", tt.entry, tt.url)
		}
		if got != tt.want || matched != (tt.want != "") {
			t.Errorf("Match(%s, %q) = %q %v, want %q", tt.entry, tt.url, got, matched, tt.want)
		}
	}
}

func TestTrustAnswers(t *testing.T) {
	nav, _ := ParseTrusted("kvraudio.com")
	send, _ := ParseTrusted("app.example")
	trust := Trust{Navigate: nav, Send: send}
	kvr, app := ScopeOf("https://kvraudio.com/"), ScopeOf("https://app.example/")
	tests := []struct {
		cap   Capability
		scope Scope
		off   bool
		want  bool
	}{
		{Navigate, kvr, false, true},
		{Interact, kvr, false, true},
		// The navigate list never answers a single-use capability.
		{Submit, kvr, false, false},
		{Upload, kvr, false, false},
		{Publish, kvr, false, false},
		{Download, kvr, false, false},
		// The send list answers SUBMIT and UPLOAD and nothing else.
		{Submit, app, false, true},
		{Upload, app, false, true},
		{Publish, app, false, false},
		{Download, app, false, false},
		{Navigate, app, false, false},
		{Interact, app, false, false},
		// Neither applies when approval is off, or to an opaque origin.
		{Navigate, kvr, true, false},
		{Submit, app, true, false},
		{Navigate, ScopeOf("file:///etc/passwd"), false, false},
		{Navigate, Scope{}, false, false},
	}
	for _, tt := range tests {
		entry, ok := trust.Answers(tt.cap, tt.scope, tt.off)
		if ok != tt.want || (ok && entry == "") {
			t.Errorf("Answers(%s, %q, off=%v) = %q %v, want %v", tt.cap, tt.scope, tt.off, entry, ok, tt.want)
		}
	}
}
