package policy

import (
	"net/url"
	"strconv"
	"strings"
)

// Origin is a site as the browser draws its borders: scheme, host and port.
// Two URLs are the same site exactly when their Origins are equal (==).
type Origin struct {
	Scheme string // "http" or "https"
	Host   string // as the browser writes it (canonicalHost); an IPv6 literal without its brackets
	Port   int    // always set: 80 and 443 are filled in
}

// OriginOf parses the origin of rawURL. ok is false for every URL that has
// no tuple origin: file:, data:, javascript:, about:, a blob: whose inner URL
// has none, any scheme but http(s), and anything unreadable. Such a URL is
// never the same site as anything, itself included.
func OriginOf(rawURL string) (Origin, bool) {
	if rest, ok := cutSchemeFold(rawURL, "blob:"); ok {
		if _, nested := cutSchemeFold(rest, "blob:"); nested {
			return Origin{}, false
		}
		rawURL = rest // blob:https://example.com/uuid belongs to https://example.com
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Opaque != "" {
		return Origin{}, false
	}
	var def int
	switch u.Scheme { // url.Parse lower-cases the scheme
	case "http":
		def = 80
	case "https":
		def = 443
	default:
		return Origin{}, false
	}
	// The host as the browser will request it (see canonicalHost):
	// bücher.example is xn--bcher-kva.example, 2130706433 is 127.0.0.1.
	host, ok := canonicalHost(u.Hostname(), strings.HasPrefix(u.Host, "["))
	if !ok {
		return Origin{}, false
	}
	port := def
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 || !allDigits(p) {
			return Origin{}, false
		}
		port = n
	}
	return Origin{Scheme: u.Scheme, Host: host, Port: port}, true
}

// String gives the origin as a browser writes it: "https://example.com",
// with the port only when it is not the scheme's default.
func (o Origin) String() string {
	if o.Scheme == "" || o.Host == "" {
		return ""
	}
	host := o.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if o.Port == 0 || o.Port == defaultPort(o.Scheme) {
		return o.Scheme + "://" + host
	}
	return o.Scheme + "://" + host + ":" + strconv.Itoa(o.Port)
}

// Scope returns the scope a grant on this origin is held on.
func (o Origin) Scope() Scope {
	if o.Scheme == "" || o.Host == "" {
		return Scope{}
	}
	return Scope{origin: o}
}

func defaultPort(scheme string) int {
	switch scheme {
	case "http":
		return 80
	case "https":
		return 443
	}
	return 0
}

// Scope is what a grant is held on. For a URL with an origin it is that
// origin. For an opaque URL (file:, data:, ...) it is the one exact URL
// (fragment dropped): every file: URL would otherwise be one origin, and one
// yes would be a yes to the whole disk. A grant on an opaque scope covers its
// URL once.
//
// Scopes are comparable; the zero Scope names nothing and holds no grant.
type Scope struct {
	origin Origin
	url    string // set only for an opaque URL
}

// ScopeOf returns the scope of rawURL: its origin, or for an opaque URL the
// URL itself. An empty URL gives the zero Scope.
func ScopeOf(rawURL string) Scope {
	if o, ok := OriginOf(rawURL); ok {
		return Scope{origin: o}
	}
	if i := strings.IndexByte(rawURL, '#'); i >= 0 {
		rawURL = rawURL[:i]
	}
	if rawURL == "" {
		return Scope{}
	}
	return Scope{url: rawURL}
}

// Opaque reports whether the scope is one exact URL rather than an origin.
func (s Scope) Opaque() bool { return s.url != "" }

// IsZero reports whether the scope names nothing.
func (s Scope) IsZero() bool { return s == Scope{} }

// Origin returns the scope's origin; ok is false for an opaque or zero scope.
func (s Scope) Origin() (Origin, bool) { return s.origin, s.url == "" && s.origin.Host != "" }

// String is the origin, or the exact URL of an opaque scope. It is a key, not
// a log line: an opaque URL may carry anything (see Loggable).
func (s Scope) String() string {
	if s.url != "" {
		return s.url
	}
	return s.origin.String()
}

// Loggable is the scope as it may appear in the audit trail or a reply: the
// origin, or for an opaque URL what LoggableURL keeps of it.
func (s Scope) Loggable() string {
	if s.url != "" {
		return LoggableURL(s.url)
	}
	return s.origin.String()
}

// LoggableURL is rawURL with what must not be written down removed: userinfo,
// query and fragment always, and the whole content of a non-hierarchical URL
// (data:, javascript:, about:, ...), of which only the scheme is kept.
func LoggableURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		if i := strings.IndexByte(rawURL, ':'); i > 0 && isScheme(rawURL[:i]) {
			return asciiLower(rawURL[:i]) + ":"
		}
		return ""
	}
	if u.Opaque != "" || (u.Host == "" && u.Scheme != "file") {
		if u.Scheme == "" {
			return ""
		}
		return u.Scheme + ":"
	}
	u.User = nil
	u.RawQuery, u.ForceQuery = "", false
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

func cutSchemeFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// asciiLower lower-cases ASCII letters only. A non-ASCII host is mapped by
// UTS #46 instead (canonicalHost), as the browser maps it: Go's Unicode case
// mapping is not that mapping.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if 'A' <= b[j] && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isScheme(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}
