package policy

import (
	"strconv"
	"strings"
)

// TrustedEntry is one readable entry of an operator's trusted list
// (LYRA_BROWSER_TRUSTED_ORIGINS, LYRA_BROWSER_TRUSTED_SEND_ORIGINS).
//
//	https://www.example.com, http://localhost:3000
//	                 exactly that scheme, host and port
//	example.com      https on the default port, that host only: not
//	                 www.example.com, not http://, not :8443
//	*.example.com    https on the default port, any subdomain at any depth;
//	                 never example.com itself
//
// A bare host is the same entry as https://host.
type TrustedEntry struct {
	Scheme   string // "http" or "https"; "https" for a wildcard
	Host     string // for a wildcard, the parent domain (without "*.")
	Port     int    // 443 for a wildcard
	Wildcard bool
}

// String writes the entry so that ParseTrusted reads it back to itself.
func (e TrustedEntry) String() string {
	if e.Wildcard {
		return "*." + e.Host
	}
	return Origin{Scheme: e.Scheme, Host: e.Host, Port: e.Port}.String()
}

// Matches reports whether the entry vouches for o. Fields are compared, never
// text: https://example.com.evil.io, https://example.com@evil.io and
// https://example.com:8443 are not example.com.
func (e TrustedEntry) Matches(o Origin) bool {
	if e.Host == "" || o.Host == "" {
		return false
	}
	if !e.Wildcard {
		return o.Scheme == e.Scheme && o.Host == e.Host && o.Port == e.Port
	}
	if o.Scheme != "https" || o.Port != 443 {
		return false
	}
	sub, ok := strings.CutSuffix(o.Host, "."+e.Host)
	// The part in front must be whole labels: "a..example.com" and
	// ".example.com" are nobody's subdomain.
	return ok && sub != "" && hostProblem(o.Host) == ""
}

// Match returns the first entry that vouches for o, as its String.
func Match(entries []TrustedEntry, o Origin) (entry string, ok bool) {
	for _, e := range entries {
		if e.Matches(o) {
			return e.String(), true
		}
	}
	return "", false
}

// ParseTrusted reads a trusted list: entries separated by commas and/or
// whitespace. An entry that cannot be read is dropped with a warning and the
// rest still load, so a typo never widens trust and never empties the list.
// Duplicates are dropped silently.
func ParseTrusted(list string) (entries []TrustedEntry, warnings []string) {
	seen := map[TrustedEntry]bool{}
	pieces := strings.Split(list, ",")
	blank := strings.TrimSpace(list) == ""
	for i, piece := range pieces {
		fields := strings.Fields(piece)
		if len(fields) == 0 {
			// "a,,b" has an empty entry; a list that is blank, or ends in
			// one comma, is not worth a warning.
			if !blank && !(i == len(pieces)-1 && i > 0) {
				warnings = append(warnings, "empty entry dropped")
			}
			continue
		}
		for _, tok := range fields {
			e, why := parseEntry(tok)
			if why != "" {
				warnings = append(warnings, quoteEntry(tok)+" dropped: "+why)
				continue
			}
			if !seen[e] {
				seen[e] = true
				entries = append(entries, e)
			}
		}
	}
	return entries, warnings
}

func quoteEntry(tok string) string {
	if len(tok) > 80 {
		tok = tok[:80] + "..."
	}
	return strconv.Quote(tok)
}

// parseEntry reads one entry; why says what is wrong with an unreadable one.
func parseEntry(tok string) (e TrustedEntry, why string) {
	if tok == "" {
		return e, "empty"
	}
	if len(tok) > 300 {
		return e, "too long to be a site"
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] <= ' ' || tok[i] == 0x7f {
			return e, "a control character or space inside an entry"
		}
	}
	s := asciiLower(tok)
	if s == "*" {
		return e, "a lone * would trust every site"
	}
	if scheme, rest, ok := strings.Cut(s, "://"); ok {
		if scheme != "http" && scheme != "https" {
			return e, "only http and https name a site"
		}
		return parseOrigin(scheme, strings.TrimSuffix(rest, "/"))
	}
	if strings.ContainsAny(s, "[]") {
		return e, "IPv6 literals are not read"
	}
	if strings.Count(s, ":") > 1 {
		return e, "IPv6 literals are not read"
	}
	if before, after, ok := strings.Cut(s, ":"); ok {
		switch {
		case allDigits(strings.TrimSuffix(after, "/")):
			return e, "a port on a bare host; write the whole origin, e.g. http://localhost:3000"
		case isScheme(before) && !strings.Contains(before, "."):
			return e, "only http and https name a site" // file:, data:, about:, blob:, https:host
		}
		return e, "malformed"
	}
	s = strings.TrimSuffix(s, "/")
	if why := shapeProblem(s); why != "" {
		return e, why
	}
	if suffix, ok := strings.CutPrefix(s, "*."); ok {
		if strings.Contains(suffix, "*") {
			return e, "a * is only read as the whole first label (*.example.com)"
		}
		if why := hostProblem(suffix); why != "" {
			return e, why
		}
		if numericLast(suffix) {
			return e, "a wildcard on an IP address"
		}
		if !strings.Contains(suffix, ".") {
			return e, "a single-label wildcard would trust a whole top-level domain"
		}
		return TrustedEntry{Scheme: "https", Host: suffix, Port: 443, Wildcard: true}, ""
	}
	if strings.Contains(s, "*") {
		return e, "a * is only read as the whole first label (*.example.com)"
	}
	if why := hostProblem(s); why != "" {
		return e, why
	}
	return TrustedEntry{Scheme: "https", Host: s, Port: 443}, ""
}

// parseOrigin reads the part of scheme://rest after "://", trailing "/" removed.
func parseOrigin(scheme, rest string) (e TrustedEntry, why string) {
	if why := shapeProblem(rest); why != "" {
		return e, why
	}
	if strings.ContainsAny(rest, "[]") || strings.Count(rest, ":") > 1 {
		return e, "IPv6 literals are not read"
	}
	if strings.Contains(rest, "*") {
		return e, "a wildcard is written without a scheme (*.example.com) and means https"
	}
	host, portText, hasPort := strings.Cut(rest, ":")
	if why := hostProblem(host); why != "" {
		return e, why
	}
	port := defaultPort(scheme)
	if hasPort {
		n, err := strconv.Atoi(portText)
		if !allDigits(portText) || len(portText) > 5 || portText[0] == '0' || err != nil || n < 1 || n > 65535 {
			return e, "the port is not a number from 1 to 65535"
		}
		port = n
	}
	return TrustedEntry{Scheme: scheme, Host: host, Port: port}, ""
}

// shapeProblem catches what a site name never contains: a path, a query, a
// fragment, userinfo.
func shapeProblem(s string) string {
	switch {
	case s == "":
		return "no host"
	case strings.Contains(s, "@"):
		return "userinfo is not read (an entry names a site, not an account)"
	case strings.ContainsAny(s, "/?#\\"):
		return "a path, query or fragment; an entry names a whole site"
	}
	return ""
}

// hostProblem checks a host name: dot-separated labels of letters, digits,
// '-' and '_', none empty, and when the last label is a number the whole
// host a canonical dotted-quad IPv4 address.
//
// An entry is read exactly as written, in the one spelling the browser
// requests: another spelling of the same host (bücher.example for
// xn--bcher-kva.example, 127.1 or 2130706433 for 127.0.0.1) is dropped with
// a warning that names the spelling to write, rather than rewritten. The
// operator then sees, in the list itself, the exact site they trust.
func hostProblem(h string) string {
	if h == "" {
		return "no host"
	}
	if !isASCII(h) {
		if c, ok := canonicalHost(h, false); ok {
			return "the browser writes this host " + c + "; write that"
		}
		return "not a host name the browser can load"
	}
	if endsInNumber(h) {
		if c, ok := canonicalIPv4Host(h); ok && c != h {
			return "the browser reads this host as the IPv4 address " + c + "; write that"
		}
	}
	if len(h) > 253 {
		return "the host is too long"
	}
	labels := strings.Split(h, ".")
	for _, l := range labels {
		if l == "" {
			return "an empty label in the host (a leading, doubled or trailing dot)"
		}
		if len(l) > 63 {
			return "a label longer than 63 characters"
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return "a character no host name has"
			}
		}
	}
	if numericLast(h) && !canonicalIPv4(labels) {
		return "not a host name, and not an IPv4 address written a.b.c.d"
	}
	return ""
}

// numericLast reports whether the last label reads as a number, which makes
// the browser parse the host as an IPv4 address.
func numericLast(h string) bool {
	last := h[strings.LastIndexByte(h, '.')+1:]
	if allDigits(last) {
		return true
	}
	if rest, ok := strings.CutPrefix(last, "0x"); ok {
		for i := 0; i < len(rest); i++ {
			c := rest[i]
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
				return false
			}
		}
		return true
	}
	return false
}

func canonicalIPv4(labels []string) bool {
	if len(labels) != 4 {
		return false
	}
	for _, l := range labels {
		if !allDigits(l) || len(l) > 3 || (len(l) > 1 && l[0] == '0') {
			return false
		}
		if n, _ := strconv.Atoi(l); n > 255 {
			return false
		}
	}
	return true
}

// Trust is the operator's two lists.
type Trust struct {
	// Navigate (LYRA_BROWSER_TRUSTED_ORIGINS) answers NAVIGATE and the
	// INTERACT it implies.
	Navigate []TrustedEntry
	// Send (LYRA_BROWSER_TRUSTED_SEND_ORIGINS) answers SUBMIT and UPLOAD.
	Send []TrustedEntry
}

// Answers reports whether the operator's lists answer cap on scope in
// advance, and with which entry. PUBLISH and DOWNLOAD are never answered.
// Nothing is answered for an opaque scope, or when approval is off (the
// grant then stays consent_channel=off).
func (t Trust) Answers(cap Capability, scope Scope, consentOff bool) (entry string, ok bool) {
	if consentOff {
		return "", false
	}
	o, ok := scope.Origin()
	if !ok {
		return "", false
	}
	switch cap {
	case Navigate, Interact:
		return Match(t.Navigate, o)
	case Submit, Upload:
		return Match(t.Send, o)
	}
	return "", false
}
