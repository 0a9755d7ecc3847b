package policy

import (
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// A grant is held on the host as the browser will request it, whatever
// spelling the agent or the operator used: Chrome requests
// http://xn--bcher-kva.example/ for http://bücher.example/ and
// http://127.0.0.1/ for http://2130706433/, http://0x7f.1/ or
// http://0177.0.0.1/. canonicalHost writes a host the way the WHATWG URL
// standard's host parser does for http and https (which is what Chrome
// does), so that a grant given in any spelling and a request in Chrome's
// spelling name one Scope.
//
// Two rules keep it from ever widening a grant:
//   - An ASCII host is only lower-cased (plus the IPv4 reading below). That
//     is all Chrome does to one, and it makes every host Chrome requests a
//     fixed point: no request is ever read as a host other than its own.
//   - A host that cannot be read the browser's way has no origin at all
//     (ok=false), so it is never the same site as anything.

// idnaProfile is UTS #46 as the URL standard calls it ("domain to ASCII"
// with beStrict false): non-transitional (ß stays ß), bidi and joiner rules
// checked, hyphen placement, STD3 rules and DNS lengths not checked.
var idnaProfile = idna.New(
	idna.MapForLookup(),
	idna.BidiRule(),
	idna.Transitional(false),
	idna.StrictDomainName(false),
	idna.CheckHyphens(false),
	idna.CheckJoiners(true),
	idna.VerifyDNSLength(false),
)

// canonicalHost is host (percent-decoding already done, IPv6 brackets
// removed and bracketed telling they were there) as the browser writes it
// in a URL, without brackets. ok is false for a host the browser would
// refuse, and for one this reading is not sure to spell as the browser does.
func canonicalHost(host string, bracketed bool) (string, bool) {
	if bracketed {
		return canonicalIPv6(host)
	}
	if host == "" {
		return "", false
	}
	if !isASCII(host) {
		a, err := idnaProfile.ToASCII(host)
		if err != nil || a == "" || !isASCII(a) {
			return "", false
		}
		host = a
	}
	host = asciiLower(host)
	if forbiddenInDomain(host) {
		return "", false
	}
	if endsInNumber(host) {
		return canonicalIPv4Host(host)
	}
	return host, true
}

// forbiddenInDomain: the URL standard's forbidden domain code points, which
// no host the browser loads contains, and '*', which Chrome writes escaped
// (a*b is requested as a%2Ab): a host it would spell otherwise is refused.
func forbiddenInDomain(h string) bool {
	for i := 0; i < len(h); i++ {
		c := h[i]
		if c <= ' ' || c == 0x7f {
			return true
		}
		switch c {
		case '#', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|', '%', '*':
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// endsInNumber is the URL standard's "ends in a number" check: the last
// label (one trailing dot ignored) is decimal digits or reads as an IPv4
// number (0x.. or 0..). Such a host is an IPv4 address or nothing.
func endsInNumber(h string) bool {
	parts := strings.Split(h, ".")
	if parts[len(parts)-1] == "" {
		if len(parts) == 1 {
			return false
		}
		parts = parts[:len(parts)-1]
	}
	last := parts[len(parts)-1]
	if last != "" && allDigits(last) {
		return true
	}
	_, ok := ipv4Number(last)
	return ok
}

// canonicalIPv4Host reads h with the URL standard's IPv4 parser: one to
// four parts, each decimal, 0x-hex or 0-octal, the last filling the bytes
// the others leave, one trailing dot allowed. It answers dotted decimal.
func canonicalIPv4Host(h string) (string, bool) {
	parts := strings.Split(h, ".")
	if parts[len(parts)-1] == "" && len(parts) > 1 {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return "", false
	}
	var nums []uint64
	for _, p := range parts {
		n, ok := ipv4Number(p)
		if !ok {
			return "", false
		}
		nums = append(nums, n)
	}
	last := len(nums) - 1
	for _, n := range nums[:last] {
		if n > 255 {
			return "", false
		}
	}
	if nums[last] >= uint64(1)<<(8*(5-len(nums))) {
		return "", false
	}
	addr := nums[last]
	for i, n := range nums[:last] {
		addr += n << (8 * (3 - i))
	}
	var b [4]byte
	for i := range b {
		b[i] = byte(addr >> (8 * (3 - i)))
	}
	return netip.AddrFrom4(b).String(), true
}

// ipv4Number is the URL standard's IPv4 number parser. Values past 2^32
// are refused here already: no part of an address can be that large.
func ipv4Number(s string) (uint64, bool) {
	if s == "" {
		return 0, false
	}
	base := 10
	switch {
	case len(s) >= 2 && (s[:2] == "0x" || s[:2] == "0X"):
		base, s = 16, s[2:]
	case len(s) >= 2 && s[0] == '0':
		base, s = 8, s[1:]
	}
	if s == "" {
		return 0, true
	}
	var n uint64
	for i := 0; i < len(s); i++ {
		d, ok := digitValue(s[i])
		if !ok || d >= base {
			return 0, false
		}
		n = n*uint64(base) + uint64(d)
		if n > 1<<32 {
			return 0, false
		}
	}
	return n, true
}

func digitValue(c byte) (int, bool) {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0'), true
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10, true
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10, true
	}
	return 0, false
}

// canonicalIPv6 writes an IPv6 literal as the URL standard serialises it:
// lower-case hex, the first longest run of two or more zero pieces
// compressed, and no dotted tail (::ffff:1.2.3.4 is ::ffff:102:304).
// Zones are refused, as the browser refuses them.
func canonicalIPv6(h string) (string, bool) {
	if strings.Contains(h, "%") {
		return "", false
	}
	a, err := netip.ParseAddr(h)
	if err != nil || !a.Is6() || a.Zone() != "" {
		return "", false
	}
	b := a.As16()
	var pieces [8]uint16
	for i := range pieces {
		pieces[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
	}
	start, length := -1, 1
	for i := 0; i < 8; {
		if pieces[i] != 0 {
			i++
			continue
		}
		j := i
		for j < 8 && pieces[j] == 0 {
			j++
		}
		if j-i > length {
			start, length = i, j-i
		}
		i = j
	}
	var sb strings.Builder
	for i := 0; i < 8; i++ {
		if i == start {
			if i == 0 {
				sb.WriteString("::")
			} else {
				sb.WriteString(":")
			}
			i += length - 1
			continue
		}
		sb.WriteString(strconv.FormatUint(uint64(pieces[i]), 16))
		if i < 7 {
			sb.WriteString(":")
		}
	}
	return sb.String(), true
}
