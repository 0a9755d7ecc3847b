package snapshot

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	text := "aria-ref=e1 link \"A\"\naria-ref=e2 button \"B\"\naria-ref=e3 link \"Ü\""
	whole := Cut(text, 0, 1000)
	if whole.Text != text || whole.Truncated || whole.Total != utf8.RuneCountInString(text) || whole.Next != 0 {
		t.Fatalf("whole: %+v", whole)
	}
	// Pages end on whole lines and add up to the whole.
	for max := 1; max <= len(text)+1; max++ {
		var pages []string
		for off := 0; ; {
			p := Cut(text, off, max)
			if p.Characters > max || utf8.RuneCountInString(p.Text) != p.Characters {
				t.Fatalf("max %d: page %q holds %d", max, p.Text, p.Characters)
			}
			pages = append(pages, p.Text)
			if !p.Truncated {
				break
			}
			if p.Next <= off {
				t.Fatalf("max %d: no progress at %d", max, off)
			}
			off = p.Next
		}
		got := strings.Join(pages, "\n")
		if max >= 24 && got != text {
			t.Errorf("max %d: pages %q", max, pages)
		}
		if max >= 24 {
			for _, p := range pages {
				if !strings.HasPrefix(p, "aria-ref=") {
					t.Errorf("max %d: a page starts mid-line: %q", max, p)
				}
			}
		}
	}
	if p := Cut(text, 500, 10); p.Text != "" || p.Truncated {
		t.Errorf("past the end: %+v", p)
	}
}

func TestClean(t *testing.T) {
	long := strings.Repeat("x", 400)
	if c := Clean(long); utf8.RuneCountInString(c) != maxName || !strings.HasSuffix(c, "…") {
		t.Errorf("long name kept %d runes", utf8.RuneCountInString(c))
	}
	if c := Clean(" a\n\tb  "); c != "a b" {
		t.Errorf("clean %q", c)
	}
}
