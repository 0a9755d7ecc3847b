package audit

import (
	"math"
	"regexp"
	"strings"
	"unicode/utf8"
)

// URLMax bounds a URL as lyrad writes it down (audit rows, log lines, what
// it keeps in memory): a page can make URLs of 2 MB, and one iframe each
// would otherwise cost that much per row.
const URLMax = 2048

// CutMark ends a URL that was cut at URLMax.
const CutMark = "[cut]"

// URL returns rawURL as lyrad may write it down: scheme, host, port and path
// kept; userinfo dropped; every query value and the fragment replaced by
// Redacted (query keys kept: "?q=[redacted]&page=[redacted]"); the payload
// of data: and opaque URLs (javascript:, mailto:) replaced likewise; the
// whole cut to URLMax bytes, ending in CutMark when cut. A query, fragment
// or userinfo secret can never come out, whatever the input: the parse is
// done by hand, never by a parser that could refuse a URL and leave it whole.
//
// The marker keeps the URL usable as one: browsers and net/url parse it,
// and a query key still reads as the key.
//
// What counts as what follows the WHATWG URL rules Chrome uses: tabs and
// newlines anywhere are dropped and control characters or spaces at either
// end are trimmed (so "ht\ttps://u:p@h" loses "u:p@" too), the fragment
// starts at the first '#', the query at the first '?' before it, and for
// http(s), ws(s), ftp and file a backslash ends the host like a slash.
func URL(rawURL string) string {
	w := cappedWriter{max: URLMax}
	writeURL(&w, cleanURL(rawURL), 0)
	return w.result()
}

// CutURL returns s whole when it fits in URLMax bytes, else its first bytes
// (on a character boundary) followed by CutMark, URLMax bytes in all. It
// redacts nothing: it is for URLs kept in memory to be compared or
// judged, where the origin must stay exact; write them down through URL.
func CutURL(s string) string {
	if len(s) <= URLMax {
		return s
	}
	return cutAt(s, URLMax)
}

func cutAt(s string, max int) string {
	n := max - len(CutMark)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + CutMark
}

// cappedWriter collects at most max bytes and remembers that more came.
type cappedWriter struct {
	b    []byte
	max  int
	over bool
}

func (w *cappedWriter) str(s string) {
	if w.over {
		return
	}
	if room := w.max + 1 - len(w.b); len(s) > room {
		// One byte past max is enough to know the result must be cut.
		s, w.over = s[:room], true
	}
	w.b = append(w.b, s...)
}

func (w *cappedWriter) result() string {
	s := string(w.b)
	if len(s) > w.max {
		return cutAt(s, w.max)
	}
	return s
}

// cleanURL applies the WHATWG preprocessing: leading and trailing C0
// controls and spaces go, tabs and newlines go from anywhere.
func cleanURL(s string) string {
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if strings.ContainsAny(s, "\t\n\r") {
		s = strings.Map(func(r rune) rune {
			if r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
	}
	return s
}

// specialSchemes have an authority even without "//" and take '\' for '/'.
var specialSchemes = map[string]bool{"http": true, "https": true, "ws": true, "wss": true, "ftp": true, "file": true}

func writeURL(w *cappedWriter, s string, depth int) {
	s, frag, hasFrag := strings.Cut(s, "#")
	defer func() {
		if hasFrag {
			w.str("#")
			if frag != "" {
				w.str(Redacted)
			}
		}
	}()
	scheme, rest, ok := splitScheme(s)
	if !ok {
		// A relative reference (or no URL at all): its authority when it
		// starts with "//", then path and query.
		if strings.HasPrefix(s, "//") {
			writeHierarchical(w, s, "")
			return
		}
		writePathQuery(w, s)
		return
	}
	w.str(scheme)
	w.str(":")
	switch {
	case specialSchemes[scheme] || strings.HasPrefix(rest, "//"):
		writeHierarchical(w, rest, scheme)
	case scheme == "about":
		writePathQuery(w, rest)
	case scheme == "blob" && depth < 2:
		// blob:https://origin/uuid: the inner URL is written like any.
		writeURL(w, rest, depth+1)
	case scheme == "data":
		writeData(w, rest)
	default:
		// Opaque (javascript:, mailto:, tel:, ...): all of it is payload.
		if rest != "" {
			w.str(Redacted)
		}
	}
}

// splitScheme splits "scheme:rest" when s starts with a valid scheme,
// lowercased.
func splitScheme(s string) (scheme, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return strings.ToLower(s[:i]), s[i+1:], true
		default:
			return "", s, false
		}
	}
	return "", s, false
}

// writeHierarchical writes "//host:port/path?query" from s (what follows
// the scheme): userinfo, everything up to the last '@' of the authority,
// is dropped.
func writeHierarchical(w *cappedWriter, s, scheme string) {
	seps := "/?"
	switch {
	case scheme == "file":
		// file:///p has an empty host; a third slash starts the path.
		if len(s) < 2 || !isSlash(s[0]) || !isSlash(s[1]) {
			writePathQuery(w, s) // file:/p: no host at all
			return
		}
		seps, s = `/\?`, s[2:]
	case specialSchemes[scheme]:
		// http:host, https:\\host and https:////host all name host.
		seps = `/\?`
		s = strings.TrimLeft(s, `/\`)
	default:
		s = strings.TrimPrefix(s, "//")
	}
	end := strings.IndexAny(s, seps)
	if end < 0 {
		end = len(s)
	}
	authority := s[:end]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		authority = authority[at+1:]
	}
	w.str("//")
	w.str(authority)
	writePathQuery(w, s[end:])
}

func isSlash(c byte) bool { return c == '/' || c == '\\' }

// writePathQuery keeps the path, but for segments that look like secrets
// (writePath), and each query key; values go.
func writePathQuery(w *cappedWriter, s string) {
	path, query, hasQuery := strings.Cut(s, "?")
	writePath(w, path)
	if !hasQuery {
		return
	}
	w.str("?")
	for i := 0; !w.over; i++ {
		part, more, found := strings.Cut(query, "&")
		if i > 0 {
			w.str("&")
		}
		if key, value, ok := strings.Cut(part, "="); ok {
			w.str(key)
			w.str("=")
			if value != "" {
				w.str(Redacted)
			}
		} else if part != "" {
			// A bare "?SECRET" is a value, not a key.
			w.str(Redacted)
		}
		if !found {
			return
		}
		query = more
	}
}

// writeData keeps a data: URL's media type, when it looks like one, and
// drops its payload.
func writeData(w *cappedWriter, s string) {
	mediaType, _, _ := strings.Cut(s, ",")
	if len(mediaType) > 200 || strings.IndexFunc(mediaType, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/+-.;=_", r))
	}) >= 0 {
		mediaType = ""
	}
	w.str(mediaType)
	if len(s) > len(mediaType) {
		w.str(",")
		w.str(Redacted)
	}
}

// urlInText finds what looks like a URL inside free text (an error message,
// a log line): a scheme followed by "//", or one of the schemes that are
// written without it. It ends at white space, quotes or angle brackets,
// which is where Go, Chrome and JSON put a URL's end when they quote one.
var urlInText = regexp.MustCompile("(?i)(?:[a-z][a-z0-9+.-]*://|\\b(?:data|javascript|blob|about|mailto):)[^\\s\"'<>`]*")

// ScrubText returns s with every URL found in it written as URL writes it.
// For free text: an error message, a log line, a reason.
func ScrubText(s string) string {
	if !strings.Contains(s, ":") {
		return s
	}
	return urlInText.ReplaceAllStringFunc(s, URL)
}

// IsURLKey reports whether values under key are URLs to be written through
// URL, whatever else they look like: "url", "request_url", "url_before",
// "requestedUrl", "urls", "href", "src", "referrer", "location", "issuer",
// and keys ending in "from" or "to" ("redirect_from", "redirected_to").
func IsURLKey(key string) bool {
	words := splitWords(key)
	for _, w := range words {
		switch strings.TrimSuffix(w, "s") {
		case "url", "uri", "href", "src", "referrer", "referer", "location", "issuer":
			return true
		}
	}
	if n := len(words); n > 1 {
		switch words[n-1] {
		case "from", "to":
			return true
		}
	}
	return false
}

// writePath writes a path with the segments that look like secrets
// replaced by Redacted: a reset or magic link carries its secret in the
// path (/reset/<secret>) as often as in the query. A segment is secret
// when it follows a segment naming such a link (secretPathWord), or when
// it looks like a token itself (tokenLike). Matrix parameters
// (";jsessionid=...") lose their values like query values do.
func writePath(w *cappedWriter, path string) {
	afterKeyword := false
	for i := 0; len(path) > 0 && !w.over; i++ {
		// A segment starts after '/' (or '\', which the special schemes
		// read as '/'); the separator itself is kept.
		if isSlash(path[0]) {
			w.str(path[:1])
			path = path[1:]
			continue
		}
		end := strings.IndexAny(path, `/\`)
		if end < 0 {
			end = len(path)
		}
		seg := path[:end]
		path = path[end:]
		name, params, hasParams := strings.Cut(seg, ";")
		switch {
		case name == "":
		case afterKeyword || tokenLike(name):
			w.str(Redacted)
		default:
			w.str(name)
		}
		afterKeyword = name != "" && secretPathWord(name) || afterKeyword && name == ""
		if hasParams {
			for _, p := range strings.Split(params, ";") {
				w.str(";")
				if k, v, ok := strings.Cut(p, "="); ok {
					w.str(k)
					w.str("=")
					if v != "" {
						w.str(Redacted)
					}
				} else if p != "" {
					w.str(Redacted)
				}
			}
		}
	}
}

// secretPathPrefixes start the words of path segments after which the next
// segment is a secret: /reset/<secret>, /password-reset/<secret>,
// /magic-link/<secret>, /verify-email/<secret>, /invitations/<secret>.
var secretPathPrefixes = []string{
	"reset", "token", "magic", "login", "verify", "verif", "invit",
	"confirm", "activat", "unsubscribe", "signin", "otp", "secret",
	"password", "passwd", "apikey", "oauth", "sso", "session",
}

func secretPathWord(seg string) bool {
	seg = strings.ToLower(seg)
	for _, w := range splitWords(seg) {
		for _, p := range secretPathPrefixes {
			if strings.HasPrefix(w, p) {
				return true
			}
		}
	}
	return false
}

// tokenLike: a segment that reads as a generated secret, not a name a
// person chose. Long (over 48 bytes, with a digit or a '%'), or, without its
// separators, 16 or more characters where letters and digits alternate at
// least 3 times (hex, base64, UUIDs: "3f2a9c0d-...", "c2ab3f-8d1e2f3a4b5c"),
// or 16 or more digits, or 20 or more letters of which between 30% and 70%
// are capitals ("AbXkQpLrTzVwMnBcDfGh"; a CamelCase name has about one a
// word), or 24 or more characters of high entropy (random base64). A slug such as "2026-12-01-release-notes" (one alternation) stays.
func tokenLike(seg string) bool {
	glued, digits, upper, letters, transitions, prev := 0, 0, 0, 0, 0, 0 // prev: 1 letter, 2 digit
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		kind := 0
		switch {
		case 'A' <= c && c <= 'Z':
			kind, upper, letters = 1, upper+1, letters+1
		case 'a' <= c && c <= 'z':
			kind, letters = 1, letters+1
		case '0' <= c && c <= '9', c == '%':
			kind, digits = 2, digits+1 // an escaped byte is no word's either
		case c == '-' || c == '_' || c == '.' || c == '~' || c == '=' || c == '+':
		default:
			kind = 1 // other bytes (UTF-8 text) read as letters
		}
		if kind != 0 {
			glued++
			if prev != 0 && prev != kind {
				transitions++
			}
			prev = kind
		}
	}
	switch {
	case len(seg) > 48 && digits > 0:
		return true
	case glued >= 16 && transitions >= 3:
		return true
	case digits >= 16 && digits == glued:
		return true
	case letters >= 20 && upper*10 >= letters*3 && upper*10 <= letters*7:
		return true
	case glued >= 24 && entropy(seg) >= 4.3:
		return true
	}
	return false
}

// entropy is the Shannon entropy of s's bytes, in bits a byte: a random
// base64 string of 43 characters has about 4.9, English words under 4.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h, n := 0.0, float64(len(s))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// Title is a page's title as the record keeps it: a document without a
// title of its own gets its URL as one from Chrome (host and path, the
// scheme left off), which would carry the URL's secrets past URL; such a
// title is the redacted URL, written the same way. A page's own title is
// kept.
func Title(title, rawURL string) string {
	if title == "" || !strings.Contains(title, "/") || !strings.Contains(rawURL, title) {
		return title
	}
	r := URL(rawURL)
	if i := strings.Index(r, "://"); i >= 0 {
		r = r[i+3:]
	}
	return r
}
