package audit

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode"
)

// Redacted replaces secret values.
const Redacted = "[redacted]"

// The redaction rule table. A key is secret when any rule matches; its whole
// value (scalar, map or list) is then replaced by Redacted — we do not recurse
// into it, because a secret subtree like {"credentials": {"user", "pass"}}
// has keys no rule would catch.
//
//  1. secretSubstrings: the key, lowercased with every non-alphanumeric rune
//     removed ("X-Api-Key" -> "xapikey"), contains one of these. They are long
//     or specific enough that substring matches have no realistic false
//     positives, and gluing the key makes "api_key", "apiKey" and "apikey"
//     one rule. "code" is only secret with a qualifier (auth_code, otp_code,
//     ...): a bare "code" is usually a keyboard code, and "status_code" or
//     "error_code" must stay readable.
//  2. secretWords: the key split into words (on any non-alphanumeric rune and
//     on camelCase boundaries, lowercased, one trailing "s" dropped) contains
//     one of these whole words. They are short or common, so matching inside
//     other words would be wrong ("context" is not "text").
//  3. toolSecretKeys: extra exact keys per tool name, at any depth. Today
//     they are also covered by rule 2; listing them keeps those tools' inputs
//     redacted even if the general rules are narrowed later.
//
// Independently of secret keys, URLs are written as URL writes them (no
// userinfo, no query values, no fragment, cut at URLMax): every string under
// a key IsURLKey names ("url", "request_url", "redirect_from", "issuer",
// ...) whatever it looks like, and every URL found inside any other string.
// A field added later is covered without being listed.
var (
	secretSubstrings = []string{
		"password", "passwd", "passphrase", "passcode", "secret", "token",
		"authorization", "cookie", "credential", "apikey", "privatekey",
		"authcode", "otpcode", "mfacode", "2facode", "totpcode", "smscode",
		"verificationcode", "securitycode", "recoverycode", "backupcode",
	}
	secretWords = map[string]bool{
		"text": true, "value": true, "otp": true, "pwd": true,
	}
	toolSecretKeys = map[string]map[string]bool{
		"type_text":     {"text": true},
		"handle_dialog": {"text": true, "prompt_text": true},
		"set_editor":    {"content": true},
	}
)

// maxDepth stops runaway recursion (e.g. a map that contains itself), which
// would otherwise overflow the stack and kill the daemon.
const maxDepth = 64

// Redact returns a deep copy of args with secret values replaced by
// Redacted (see the rule table above). The input is never modified. Values
// that are not plain JSON types (structs, typed maps/slices) are normalised
// through a JSON round trip so their nested keys are redacted too; values
// that cannot be encoded at all become a descriptive string. The result
// therefore always marshals.
func Redact(tool string, args map[string]any) map[string]any {
	if args == nil {
		return nil
	}
	return redactMap(toolSecretKeys[tool], args, 0)
}

func isSecretKey(toolKeys map[string]bool, key string) bool {
	lower := strings.ToLower(key)
	if toolKeys[lower] {
		return true
	}
	glued := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return -1
	}, lower)
	for _, s := range secretSubstrings {
		if strings.Contains(glued, s) {
			return true
		}
	}
	for _, w := range splitWords(key) {
		if secretWords[w] || secretWords[strings.TrimSuffix(w, "s")] {
			return true
		}
	}
	return false
}

// splitWords splits "promptText", "X-Auth-Token", "APIKey" or "status_code"
// into lowercase words.
func splitWords(key string) []string {
	var words []string
	rs := []rune(key)
	start := -1
	flush := func(end int) {
		if start >= 0 && end > start {
			words = append(words, strings.ToLower(string(rs[start:end])))
		}
		start = -1
	}
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			continue
		}
		if start >= 0 && unicode.IsUpper(r) {
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush(i)
			}
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(rs))
	return words
}

func redactMap(toolKeys map[string]bool, m map[string]any, depth int) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if v != nil && isSecretKey(toolKeys, k) {
			out[k] = Redacted
			continue
		}
		out[k] = redactValue(toolKeys, v, depth+1, IsURLKey(k))
	}
	return out
}

// redactValue redacts v; urlKey says it sits under a key that names URLs
// (IsURLKey), whose strings are all written through URL.
func redactValue(toolKeys map[string]bool, v any, depth int, urlKey bool) any {
	if depth > maxDepth {
		return "[too deep]"
	}
	switch v := v.(type) {
	case nil, bool, json.Number,
		int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, uintptr:
		return v
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Sprint(v) // JSON has no NaN/Inf; keep the row writable
		}
		return v
	case float32:
		return redactValue(toolKeys, float64(v), depth, urlKey)
	case string:
		return redactString(v, urlKey)
	case map[string]any:
		return redactMap(toolKeys, v, depth)
	case Fields:
		return redactMap(toolKeys, v, depth)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redactValue(toolKeys, e, depth+1, urlKey)
		}
		return out
	case []string:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = redactString(e, urlKey)
		}
		return out
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[k] = e
		}
		return redactMap(toolKeys, m, depth)
	default:
		// Structs, typed maps, pointers...: normalise to plain JSON values
		// so nested secret keys are still seen.
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Sprintf("[unencodable %T]", v)
		}
		var plain any
		if err := json.Unmarshal(b, &plain); err != nil {
			return fmt.Sprintf("[unencodable %T]", v)
		}
		return redactValue(toolKeys, plain, depth, urlKey)
	}
}

// redactString writes a URL-keyed string through URL, and every URL found
// in any other string (an error message that quotes one) the same way.
func redactString(s string, urlKey bool) string {
	if urlKey {
		return URL(s)
	}
	return ScrubText(s)
}
