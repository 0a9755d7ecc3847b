package policy

import "testing"

func TestOriginOf(t *testing.T) {
	tests := []struct {
		url  string
		want string // Origin.String(); "" when ok must be false
		port int
	}{
		{"https://Example.COM/path?q=1#x", "https://example.com", 443},
		{"HTTPS://KVRAudio.COM/", "https://kvraudio.com", 443},
		{"http://example.com/", "http://example.com", 80},
		{"http://example.com:80/", "http://example.com", 80},
		{"https://example.com:443/", "https://example.com", 443},
		{"https://example.com:8443/", "https://example.com:8443", 8443},
		{"http://example.com:443/", "http://example.com:443", 443},
		{"http://localhost:3000/app", "http://localhost:3000", 3000},
		{"http://127.0.0.1:8787/", "http://127.0.0.1:8787", 8787},
		{"http://[::1]:3000/", "http://[::1]:3000", 3000},
		{"https://user:pw@example.com/", "https://example.com", 443},
		// userinfo is not the host: this is evil.io
		{"https://kvraudio.com@evil.io/", "https://evil.io", 443},
		{"https://kvraudio.com:443@evil.io/", "https://evil.io", 443},
		{"https://kvraudio.com.evil.io/", "https://kvraudio.com.evil.io", 443},
		{"blob:https://example.com/5b1c", "https://example.com", 443},
		// no tuple origin
		{"", "", 0},
		{"file:///etc/passwd", "", 0},
		{"FILE:///etc/passwd", "", 0},
		{"data:text/html,hi", "", 0},
		{"javascript:alert(1)", "", 0},
		{"about:blank", "", 0},
		{"about:srcdoc", "", 0},
		{"blob:null/5b1c", "", 0},
		{"blob:file:///x", "", 0},
		{"blob:blob:https://example.com/x", "", 0},
		{"https:example.com", "", 0},
		{"//example.com/", "", 0},
		{"ftp://example.com/", "", 0},
		{"ws://example.com/", "", 0},
		{"chrome://settings", "", 0},
		{"chrome-extension://abc/page.html", "", 0},
		{"https:///path", "", 0},
		{"https://example.com:0/", "", 0},
		{"https://example.com:99999/", "", 0},
		{"https://kvraudio.com%2eevil.io/", "", 0},
		{"http://exa mple.com/", "", 0},
	}
	for _, tt := range tests {
		o, ok := OriginOf(tt.url)
		if ok != (tt.want != "") {
			t.Errorf("OriginOf(%q) ok = %v (%+v), want %v", tt.url, ok, o, tt.want != "")
			continue
		}
		if !ok {
			continue
		}
		if o.String() != tt.want || o.Port != tt.port {
			t.Errorf("OriginOf(%q) = %s port %d, want %s port %d", tt.url, o, o.Port, tt.want, tt.port)
		}
	}
}

func TestOriginEquality(t *testing.T) {
	same := [][2]string{
		{"https://example.com/a", "https://EXAMPLE.com:443/b?x"},
		{"http://example.com", "http://example.com:80/"},
	}
	for _, p := range same {
		a, _ := OriginOf(p[0])
		b, _ := OriginOf(p[1])
		if a != b {
			t.Errorf("%s and %s should be one origin", p[0], p[1])
		}
	}
	differ := [][2]string{
		{"http://example.com", "https://example.com"},
		{"https://example.com", "https://www.example.com"},
		{"https://example.com", "https://example.com:8443"},
		{"http://127.0.0.1:8000", "http://localhost:8000"},
		{"http://127.0.0.1:8000", "http://127.0.0.2:8000"},
		{"https://example.com", "https://example.com."},
	}
	for _, p := range differ {
		a, _ := OriginOf(p[0])
		b, _ := OriginOf(p[1])
		if a == b {
			t.Errorf("%s and %s should be different origins", p[0], p[1])
		}
	}
}

func TestScopeOf(t *testing.T) {
	s := ScopeOf("https://example.com/x")
	if s.Opaque() || s.String() != "https://example.com" {
		t.Errorf("origin scope = %q opaque=%v", s, s.Opaque())
	}
	if ScopeOf("https://example.com/y") != s {
		t.Error("two paths of one origin are one scope")
	}
	f := ScopeOf("file:///home/u/a.html#top")
	if !f.Opaque() || f.String() != "file:///home/u/a.html" {
		t.Errorf("file scope = %q opaque=%v", f, f.Opaque())
	}
	if ScopeOf("file:///home/u/b.html") == f {
		t.Error("two file: URLs must be two scopes")
	}
	if _, ok := f.Origin(); ok {
		t.Error("an opaque scope has no origin")
	}
	if !ScopeOf("").IsZero() || !ScopeOf("#x").IsZero() {
		t.Error("an empty URL names nothing")
	}
	if got := ScopeOf("data:text/html,<secret>").Loggable(); got != "data:" {
		t.Errorf("data: scope logs as %q", got)
	}
	if !(Origin{}).Scope().IsZero() {
		t.Error("the zero Origin has no scope")
	}
}

func TestLoggableURL(t *testing.T) {
	tests := map[string]string{
		"https://u:p@example.com/a/b?token=1#frag": "https://example.com/a/b",
		"http://localhost:3000/":                   "http://localhost:3000/",
		"file:///home/u/a.html?x#y":                "file:///home/u/a.html",
		"data:text/html,<b>secret</b>":             "data:",
		"javascript:alert(document.cookie)":        "javascript:",
		"about:blank":                              "about:",
		"":                                         "",
		"%zz":                                      "",
	}
	for in, want := range tests {
		if got := LoggableURL(in); got != want {
			t.Errorf("LoggableURL(%q) = %q, want %q", in, got, want)
		}
	}
}
