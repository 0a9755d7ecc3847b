package download

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitizeName(t *testing.T) {
	long := strings.Repeat("a", 300)
	for _, c := range []struct{ in, want string }{
		{"report.csv", "report.csv"},
		{"../../evil.txt", "evil.txt"},
		{`..\..\evil.txt`, "evil.txt"},
		{"/etc/passwd", "passwd"},
		{"CON.txt", "_CON.txt"},
		{"con", "_con"},
		{"lpt9.log", "_lpt9.log"},
		{"COM10.txt", "COM10.txt"},
		{"console.txt", "console.txt"},
		{"a\x00b\x1fc\x7f.txt", "abc.txt"},
		{"invoice\u202egpj.exe", "invoicegpj.exe"},
		{"x\u2066y\u2069.pdf", "xy.pdf"},
		{`a<b>c:d"e|f?g*h.txt`, "abcdefgh.txt"},
		{"...hidden", "hidden"},
		{" spaced . ", "spaced"},
		{"name.", "name"},
		{"", "download"},
		{".", "download"},
		{"..", "download"},
		{"/", "download"},
		{"\u202e", "download"},
		{"\xff\xfe.bin", "bin"},
		{"CON", "_CON"},
		{long + ".csv", strings.Repeat("a", MaxName-4) + ".csv"},
		{long + ".averyveryverylongextension", strings.Repeat("a", MaxName)},
		{"résumé.pdf", "résumé.pdf"},
	} {
		if got := SanitizeName(c.in); got != c.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSanitizeNameCutsOnRuneBoundary(t *testing.T) {
	in := strings.Repeat("é", 200) + "\u202e.txt"
	got := SanitizeName(in)
	if len(got) > MaxName || !utf8.ValidString(got) || !strings.HasSuffix(got, ".txt") {
		t.Fatalf("SanitizeName(300-byte bidi name) = %q (%d bytes)", got, len(got))
	}
}

func TestNumbered(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"report.csv", 1, "report (1).csv"},
		{"report", 2, "report (2)"},
		{"archive.tar.gz", 1, "archive.tar (1).gz"},
	} {
		if got := numbered(c.in, c.n); got != c.want {
			t.Errorf("numbered(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
	if got := numbered(strings.Repeat("b", MaxName-4)+".csv", 12); len(got) > MaxName || !strings.HasSuffix(got, " (12).csv") {
		t.Errorf("numbered(long) = %q", got)
	}
}

func FuzzSanitizeName(f *testing.F) {
	for _, s := range []string{"", ".", "..", "../x", `a\b`, "CON.txt", "\u202eexe.txt", strings.Repeat("x", 400) + ".pdf", " . ", "a/..", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := SanitizeName(in)
		if out == "" || out == "." || out == ".." {
			t.Fatalf("SanitizeName(%q) = %q", in, out)
		}
		if strings.ContainsAny(out, `/\`+"\x00") {
			t.Fatalf("SanitizeName(%q) = %q holds a separator", in, out)
		}
		if len(out) > MaxName || !utf8.ValidString(out) {
			t.Fatalf("SanitizeName(%q) = %q (%d bytes)", in, out, len(out))
		}
		if strings.HasPrefix(out, ".") || strings.HasSuffix(out, ".") || strings.HasPrefix(out, " ") {
			t.Fatalf("SanitizeName(%q) = %q keeps a leading or trailing dot or space", in, out)
		}
		if isReserved(out) {
			t.Fatalf("SanitizeName(%q) = %q is a device name", in, out)
		}
		if n := numbered(out, 9999); len(n) > MaxName || strings.ContainsAny(n, `/\`) {
			t.Fatalf("numbered(%q) = %q", out, n)
		}
	})
}
