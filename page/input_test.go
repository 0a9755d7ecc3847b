package page

import "testing"

func TestParseChord(t *testing.T) {
	cases := []struct {
		in   string
		mods int64
		key  string // DOM key value
		code string
	}{
		{"Enter", 0, "Enter", "Enter"},
		{"enter", 0, "Enter", "Enter"},
		{"Escape", 0, "Escape", "Escape"},
		{"Esc", 0, "Escape", "Escape"},
		{"a", 0, "a", "KeyA"},
		{"A", 0, "A", "KeyA"},
		{"Control+a", modCtrl, "a", "KeyA"},
		{"Ctrl+Shift+ArrowLeft", modCtrl | modShift, "ArrowLeft", "ArrowLeft"},
		{"Shift+Tab", modShift, "Tab", "Tab"},
		{"Meta+k", modMeta, "k", "KeyK"},
		{"Control++", modCtrl, "+", "Equal"},
		{"+", 0, "+", "Equal"},
		{"Space", 0, " ", "Space"},
		{" ", 0, " ", "Space"},
		{"PageDown", 0, "PageDown", "PageDown"},
		{"F5", 0, "F5", "F5"},
		{"Backspace", 0, "Backspace", "Backspace"},
		{"Shift", 0, "Shift", "ShiftLeft"},
		{"ArrowDown", 0, "ArrowDown", "ArrowDown"},
		{"down", 0, "ArrowDown", "ArrowDown"},
	}
	for _, c := range cases {
		ch, err := ParseChord(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if ch.bits != c.mods || ch.key.Key != c.key || ch.key.Code != c.code {
			t.Errorf("%q: mods %d key %q code %q, want %d %q %q", c.in, ch.bits, ch.key.Key, ch.key.Code, c.mods, c.key, c.code)
		}
	}
	for _, bad := range []string{"", "Hyperspace", "Banana+a", "Control+Nope"} {
		if _, err := ParseChord(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
