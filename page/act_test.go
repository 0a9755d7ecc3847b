package page

import "testing"

// One look at a target: what keeps it from being usable, in the order a
// person would find out (not there, not shown, not enabled).
func TestUnready(t *testing.T) {
	n := &Node{}
	on := ElementState{Connected: true, Visible: true, Enabled: true}
	for _, c := range []struct {
		name     string
		found    Found
		st       ElementState
		hiddenOK bool
		want     Unready
	}{
		{"usable", Found{Count: 1, Node: n}, on, false, Usable},
		{"no match", Found{}, ElementState{}, false, Missing},
		{"left the document", Found{Count: 1, Node: n}, ElementState{Visible: true, Enabled: true}, false, Missing},
		{"hidden", Found{Count: 1, Node: n}, ElementState{Connected: true, Enabled: true}, false, Hidden},
		{"hidden file input", Found{Count: 1, Node: n}, ElementState{Connected: true, Enabled: true}, true, Usable},
		{"hidden and disabled", Found{Count: 1, Node: n}, ElementState{Connected: true}, false, Hidden},
		{"disabled", Found{Count: 1, Node: n}, ElementState{Connected: true, Visible: true}, false, Disabled},
	} {
		if got := unready(c.found, c.st, c.hiddenOK); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
