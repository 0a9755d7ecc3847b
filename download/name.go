package download

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Name limits: a whole name fits in MaxName bytes (ext4 and most file
// systems stop at 255), and an extension of up to MaxExt bytes survives the
// cut, so report.csv stays a .csv however long the site made it.
const (
	MaxName = 180
	MaxExt  = 16
)

// fallbackName is what a name becomes when nothing of it survives.
const fallbackName = "download"

// SanitizeName turns the name a site suggested into one that is safe to
// create in the download directory. The site picks it, so it is hostile:
//
//   - only the last path component survives (both / and \ end a
//     component, whatever the host system);
//   - control characters, bidi overrides and isolates (a name that reads
//     "exe.txt" but ends in .exe), characters Windows forbids and invalid
//     UTF-8 are dropped;
//   - leading and trailing dots and spaces are trimmed (no hidden file, no
//     "." or "..");
//   - a reserved device name (CON, NUL, COM1, ...) is prefixed with "_";
//   - the name is cut to MaxName bytes on a character boundary, keeping an
//     extension of up to MaxExt bytes;
//   - an empty result is "download".
//
// The result is never empty, never "." or "..", and never holds a path
// separator.
func SanitizeName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	for len(name) > 0 {
		r, size := utf8.DecodeRuneInString(name)
		name = name[size:]
		if r == utf8.RuneError && size <= 1 {
			continue
		}
		if dropped(r) {
			continue
		}
		b.WriteRune(r)
	}
	out := trimEnds(b.String())
	out = cut(out)
	if isReserved(out) {
		out = "_" + out
		out = cut(out)
	}
	if out == "" {
		return fallbackName
	}
	return out
}

// dropped are the characters no kept name holds.
func dropped(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case strings.ContainsRune(`<>:"/\|?*`, r):
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true // bidi marks, embeddings, overrides and isolates
	case r == 0xfeff, r == 0x2028, r == 0x2029:
		return true
	case unicode.Is(unicode.Cc, r):
		return true
	}
	return false
}

func trimEnds(s string) string { return strings.Trim(s, ". ") }

// cut shortens s to MaxName bytes, keeping its extension when that is at
// most MaxExt bytes and there is a stem to cut instead.
func cut(s string) string {
	if len(s) <= MaxName {
		return s
	}
	stem, ext := s, ""
	if i := strings.LastIndexByte(s, '.'); i > 0 && len(s)-i <= MaxExt {
		stem, ext = s[:i], s[i:]
	}
	stem = trimEnds(truncate(stem, MaxName-len(ext)))
	if stem == "" {
		return trimEnds(truncate(s, MaxName))
	}
	return stem + ext
}

// truncate cuts s to at most n bytes on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// reserved are Windows' device names: "CON.txt" opens the console there.
var reserved = map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true}

func isReserved(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.ToUpper(strings.TrimRight(base, " "))
	if reserved[base] {
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		c := base[3]
		return c >= '0' && c <= '9'
	}
	// COM¹ and friends, which Windows also reserves.
	if strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT") {
		switch base[3:] {
		case "¹", "²", "³":
			return true
		}
	}
	return false
}

// numbered is name with " (n)" before its extension: report (1).csv.
func numbered(name string, n int) string {
	stem, ext := name, ""
	if i := strings.LastIndexByte(name, '.'); i > 0 && len(name)-i <= MaxExt {
		stem, ext = name[:i], name[i:]
	}
	suffix := " (" + strconv.Itoa(n) + ")"
	stem = trimEnds(truncate(stem, MaxName-len(ext)-len(suffix)))
	if stem == "" {
		stem = fallbackName
	}
	return stem + suffix + ext
}
