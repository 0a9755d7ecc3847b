package session

import "testing"

func TestSameDocument(t *testing.T) {
	for _, c := range []struct {
		from, to string
		same     bool
	}{
		{"http://a.test/p", "http://a.test/p#x", true},
		{"http://a.test/p#y", "http://a.test/p#x", true},
		{"http://a.test/p?q=1", "http://a.test/p?q=1#", true},
		{"http://a.test/p", "http://a.test/p", false}, // a reload of the document
		{"http://a.test/p#x", "http://a.test/p", false},
		{"http://a.test/p", "http://a.test/q#x", false},
		{"http://a.test/p?q=1", "http://a.test/p?q=2#x", false},
		{"http://a.test/p", "http://b.test/p#x", false},
		{"", "http://a.test/#x", false},
	} {
		if got := sameDocument(c.from, c.to); got != c.same {
			t.Errorf("sameDocument(%q, %q) = %v, want %v", c.from, c.to, got, c.same)
		}
	}
}
