package session

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCutJSON(t *testing.T) {
	if got := cutJSON(`"short"`, 100); got != `"short"` {
		t.Errorf("short: %q", got)
	}
	long := `"` + strings.Repeat("é", 50) + `"`
	got := cutJSON(long, 20)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "(cut at 19 of 102 bytes)") {
		t.Errorf("long: %q", got)
	}
}
