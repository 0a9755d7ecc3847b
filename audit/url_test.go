package audit

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestURL(t *testing.T) {
	for in, want := range map[string]string{
		"":                          "",
		"about:blank":               "about:blank",
		"about:srcdoc#x":            "about:srcdoc#[redacted]",
		"http://127.0.0.1:8080/a/b": "http://127.0.0.1:8080/a/b",
		"https://example.com/p?token=SECRET&page=2#frag": "https://example.com/p?token=[redacted]&page=[redacted]#[redacted]",
		"https://alice:pw@example.com:8443/x?y":          "https://example.com:8443/x?[redacted]",
		"https://h/p?empty=&&=v&k=a=b":                   "https://h/p?empty=&&=[redacted]&k=[redacted]",
		"https://h/p?#":                                  "https://h/p?#",
		"https://medium.com/@someone?x=1":                "https://medium.com/@someone?x=[redacted]",
		"http:\\\\u:p@h\\p?x=1":                          "http://h\\p?x=[redacted]",
		"https:u:p@h/p":                                  "https://h/p",
		" ht\ttps://u:p@h/\n?a=b ":                       "https://h/?a=[redacted]",
		"HTTPS://H/P?Q=1":                                "https://H/P?Q=[redacted]",
		"ws://u@h/socket?sid=1":                          "ws://h/socket?sid=[redacted]",
		"chrome-extension://id/page.html?x=1":            "chrome-extension://id/page.html?x=[redacted]",
		"file:///home/me/a.html?q=1#f":                   "file:///home/me/a.html?q=[redacted]#[redacted]",
		"file:/etc/hosts":                                "file:/etc/hosts",
		"file://server/share/x":                          "file://server/share/x",
		"data:text/html,<b>SECRET</b>":                   "data:text/html,[redacted]",
		"data:text/html;base64,AAAA#f":                   "data:text/html;base64,[redacted]#[redacted]",
		"data:<weird>,x":                                 "data:,[redacted]",
		"blob:https://a.test/uuid?x=1#y":                 "blob:https://a.test/uuid?x=[redacted]#[redacted]",
		"javascript:fetch('/?k='+document.cookie)":       "javascript:[redacted]",
		"mailto:alice@example.com?subject=hi":            "mailto:[redacted]",
		"//u:p@h/p?q=1":                                  "//h/p?q=[redacted]",
		"/search?q=cats":                                 "/search?q=[redacted]",
		"**/checkout**":                                  "**/checkout**",
		"?SECRET":                                        "?[redacted]",
		"example.com/?token=x":                           "example.com/?token=[redacted]",
		"localhost:3000/?token=x":                        "localhost:[redacted]",
	} {
		if got := URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}

// The marker keeps a URL a URL: net/url parses it back to the same scheme,
// host, path and query keys.
func TestURLStaysAURL(t *testing.T) {
	in := "https://u:p@example.com:8443/a/b%20c?token=SECRET&q=x#frag"
	out := URL(in)
	u, err := url.Parse(out)
	if err != nil {
		t.Fatalf("URL(%q) = %q does not parse: %v", in, out, err)
	}
	q := u.Query()
	if u.Scheme != "https" || u.Host != "example.com:8443" || u.EscapedPath() != "/a/b%20c" || u.User != nil ||
		q.Get("token") != Redacted || q.Get("q") != Redacted || u.Fragment != Redacted {
		t.Errorf("URL(%q) = %q parses to %#v", in, out, u)
	}
}

func TestURLCut(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("é", 2<<20) + "?k=v"
	out := URL(long)
	if len(out) > URLMax || !strings.HasSuffix(out, CutMark) || !utf8.ValidString(out) || !strings.HasPrefix(out, "https://example.com/é") {
		t.Errorf("a 4 MB URL is written as %d bytes ending %q", len(out), out[max(0, len(out)-20):])
	}
	if got := URL("https://h/?" + strings.Repeat("a=SECRET&", 1<<18)); len(got) > URLMax || strings.Contains(got, "SECRET") {
		t.Errorf("a long query is written as %d bytes", len(got))
	}
	exact := "https://h/" + strings.Repeat("x", URLMax-len("https://h/"))
	if URL(exact) != exact || CutURL(exact) != exact {
		t.Error("a URL of exactly URLMax bytes was cut")
	}
	if c := CutURL(exact + "?a=1"); len(c) != URLMax || !strings.HasSuffix(c, CutMark) {
		t.Errorf("CutURL of %d bytes: %d bytes", len(exact)+4, len(c))
	}
}

func TestScrubText(t *testing.T) {
	in := `navigate: Get "https://u:p@a.test/x?token=1#f": refused; then blob:http://b.test/u?z=2 and about:blank, data:text/plain,SECRET. No URL: a:b`
	want := `navigate: Get "https://a.test/x?token=[redacted]#[redacted]": refused; then blob:http://b.test/u?z=[redacted] and about:blank, data:text/plain,[redacted] No URL: a:b`
	if got := ScrubText(in); got != want {
		t.Errorf("ScrubText:\n got %s\nwant %s", got, want)
	}
}

func TestIsURLKey(t *testing.T) {
	for key, want := range map[string]bool{
		"url": true, "request_url": true, "url_before": true, "requestedUrl": true, "urls": true,
		"redirect_from": true, "redirected_to": true, "issuer": true, "href": true, "src": true,
		"referrer": true, "location": true, "frame_url": true,
		"origin": false, "reason": false, "to": false, "from": false, "selector": false,
		"allocation": false, "status": false, "curl_opts": false,
	} {
		if got := IsURLKey(key); got != want {
			t.Errorf("IsURLKey(%q) = %v", key, got)
		}
	}
}

// Every URL field of a row, known today or added later, is written
// redacted; free text quoting a URL too.
func TestEncodeRedactsURLs(t *testing.T) {
	line, err := encode(Row{
		Kind: "tool", Tool: "navigate",
		Args:      map[string]any{"url": "https://h/p?token=SEC01#SEC02", "wait_until": "load"},
		URLBefore: "https://h/a?q=SEC03", URLAfter: "https://u:SEC04@h/b#SEC05",
		Extra: map[string]any{
			"request_url": "https://h/p?code=SEC06", "redirect_from": "https://h/r?x=SEC07",
			"issuer": "/rel?x=SEC08", "new_field_url": "x?SEC09", "error": `Get "https://h/?t=SEC10": refused`,
			"hops": []any{map[string]any{"to": "https://h/?q=SEC11", "redirected_to": []any{"//h/?q=SEC12"}}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(line), "SEC") {
		t.Errorf("a secret written: %s", line)
	}
	var row map[string]any
	if err := json.Unmarshal(line, &row); err != nil {
		t.Fatal(err)
	}
	if row["url_after"] != "https://h/b#[redacted]" || row["request_url"] != "https://h/p?code=[redacted]" ||
		row["args"].(map[string]any)["url"] != "https://h/p?token=[redacted]#[redacted]" {
		t.Errorf("row: %s", line)
	}
}

// FuzzURL: whatever the input, URL never panics, never writes more than
// URLMax bytes, never writes a query value, a fragment or userinfo placed
// in it, and leaves only markers after '?' values and '#'.
func FuzzURL(f *testing.F) {
	for _, s := range []string{
		"https://example.com/p", "http://u:p@h:1/a?b=c&d#e", "data:text/html,x", "blob:https://a/b",
		"javascript:x", "file:///p", "//h/p?x", "about:blank#x", "h\tttp://x", "?", "#", "a=b&c",
		"http:\\\\h\\p", "blob:blob:blob:http://h/?q=1",
	} {
		f.Add(s, "k", "", "")
	}
	const sentinel = "Zq7Xk9"
	f.Fuzz(func(t *testing.T, a, key, b, c string) {
		check := func(in string) string {
			out := URL(in)
			if len(out) > URLMax {
				t.Fatalf("URL(%q) is %d bytes", in, len(out))
			}
			checkShape(t, in, out)
			return out
		}
		check(a)
		if strings.Contains(cleanURL(a+key+b+c), sentinel) {
			return // the sentinel must be only where it is put
		}
		ins := []string{
			a + "?" + key + "=" + sentinel + b, // a query value
			a + "#" + sentinel + c,             // a fragment
			a + "?" + sentinel + "&" + b,       // a bare query part
		}
		if !strings.ContainsAny(key, `/\?#@`) {
			ins = append(ins, "https://"+key+":"+sentinel+"@"+b+"/"+c) // userinfo
		}
		for _, in := range ins {
			if out := check(in); strings.Contains(out, sentinel) {
				t.Fatalf("URL(%q) = %q keeps the secret", in, out)
			}
		}
	})
}

// checkShape: after the first '#' only the marker, after the first '?' only
// keys and markers.
func checkShape(t *testing.T, in, out string) {
	t.Helper()
	body, cut := strings.CutSuffix(out, CutMark)
	body, frag, hasFrag := strings.Cut(body, "#")
	if hasFrag && frag != "" && !strings.HasPrefix(Redacted, frag) {
		t.Fatalf("URL(%q) = %q writes fragment %q", in, out, frag)
	}
	_, query, ok := strings.Cut(body, "?")
	if !ok {
		return
	}
	parts := strings.Split(query, "&")
	if cut && !hasFrag {
		parts = parts[:len(parts)-1] // may end inside a key
	}
	for _, part := range parts {
		if _, v, ok := strings.Cut(part, "="); ok {
			part = v
		}
		if part != "" && !strings.HasPrefix(Redacted, part) {
			t.Fatalf("URL(%q) = %q writes query value %q", in, out, part)
		}
	}
}

func TestURLPathSecrets(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"https://a.test/reset/s3cr3t", "https://a.test/reset/[redacted]"},
		{"https://a.test/reset/abc/next", "https://a.test/reset/[redacted]/next"},
		{"https://a.test/password-reset/plainword", "https://a.test/password-reset/[redacted]"},
		{"https://a.test/auth/magic-link/x?y=1", "https://a.test/auth/magic-link/[redacted]?y=[redacted]"},
		{"https://a.test/Verify/123456", "https://a.test/Verify/[redacted]"},
		{"https://a.test/invitations/joinme", "https://a.test/invitations/[redacted]"},
		{"https://a.test/api/tokens/abc", "https://a.test/api/tokens/[redacted]"},
		{"https://a.test/login/", "https://a.test/login/"},
		{"https://a.test/reset//x", "https://a.test/reset//[redacted]"},
		{"https://a.test/f/3f2a9c0d-1b2c-4d5e-8f90-a1b2c3d4e5f6/view", "https://a.test/f/[redacted]/view"},
		{"https://a.test/d/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOjF9.abc", "https://a.test/d/[redacted]"},
		{"https://a.test/s/AbXkQpLrTzVwMnBcDfGhJk", "https://a.test/s/[redacted]"},
		{"https://a.test/o/1234567890123456", "https://a.test/o/[redacted]"},
		{"https://a.test/p;jsessionid=ABC", "https://a.test/p;jsessionid=[redacted]"},
		{`https://a.test\reset\s3cr3t`, `https://a.test\reset\[redacted]`},
		{"/reset/s3cr3t?x", "/reset/[redacted]?[redacted]"},
		// Names a person chose stay readable.
		{"https://a.test/blog/2026-12-01-release-notes", "https://a.test/blog/2026-12-01-release-notes"},
		{"https://a.test/users/ada/settings/profile", "https://a.test/users/ada/settings/profile"},
		{"https://a.test/docs/GettingStartedWithTheApi", "https://a.test/docs/GettingStartedWithTheApi"},
		{"https://a.test/v2/items/42", "https://a.test/v2/items/42"},
		{"file:///home/me/.ssh/id_test", "file:///home/me/.ssh/id_test"},
	} {
		if got := URL(c.in); got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := ScrubText(`GET "https://a.test/reset/hunter2" failed`); strings.Contains(got, "hunter2") {
		t.Errorf("ScrubText kept the path secret: %q", got)
	}
}

// FuzzURLPathSecret: a secret after a reset-like segment, or a generated
// token in any segment, never comes out, whatever comes before it.
func FuzzURLPathSecret(f *testing.F) {
	f.Add("a/b", "x", uint8(0))
	f.Add("", "Zz", uint8(3))
	f.Add("%2F..//;", "-._~", uint8(200))
	words := []string{"reset", "token", "magic", "login", "verify", "invite", "password-reset", "magic-link", "verify_email", "Invitations", "RESET"}
	f.Fuzz(func(t *testing.T, before, extra string, w uint8) {
		keep := func(r rune) rune {
			if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~", r)) {
				return r
			}
			return -1
		}
		before = strings.Map(func(r rune) rune {
			if r == '\\' {
				return -1
			}
			return r
		}, before)
		secret := "Sq7Xk9" + strings.Map(keep, extra)
		sum := sha256.Sum256([]byte(before + extra))
		tok := base64.RawURLEncoding.EncodeToString(sum[:])
		for _, in := range []string{
			"https://h.test/" + before + "/" + words[int(w)%len(words)] + "/" + secret + "/" + extra,
			"https://h.test/" + before + "/" + tok,
			"https://h.test/" + before + "/" + tok + "/" + extra,
			"http://h.test/" + before + "/" + tok + ";" + extra,
		} {
			out := URL(in)
			if strings.Contains(out, secret) || strings.Contains(out, tok) {
				t.Fatalf("URL(%q) = %q keeps the secret", in, out)
			}
		}
	})
}

func TestTitle(t *testing.T) {
	for _, c := range []struct{ title, url, want string }{
		{"Account", "https://a.test/reset/SECRET", "Account"},
		{"a.test/reset/SECRET", "https://a.test/reset/SECRET", "a.test/reset/[redacted]"},
		{"a.test/?token=SECRET", "https://a.test/?token=SECRET", "a.test/?token=[redacted]"},
		{"", "https://a.test/reset/SECRET", ""},
		{"Reset/your password", "https://a.test/reset/SECRET", "Reset/your password"},
	} {
		if got := Title(c.title, c.url); got != c.want {
			t.Errorf("Title(%q, %q) = %q, want %q", c.title, c.url, got, c.want)
		}
	}
}
