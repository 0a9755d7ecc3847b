package session

import (
	"errors"
	"testing"
	"time"
)

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
		ch, err := parseChord(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if ch.bits != c.mods || ch.key.Key != c.key || ch.key.Code != c.code {
			t.Errorf("%q: mods %d key %q code %q, want %d %q %q", c.in, ch.bits, ch.key.Key, ch.key.Code, c.mods, c.key, c.code)
		}
	}
	for _, bad := range []string{"", "Hyperspace", "Banana+a", "Control+Nope"} {
		if _, err := parseChord(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseSelector(t *testing.T) {
	cases := map[string]selectorKind{
		"button.save":        selCSS,
		"css=#a":             selCSS,
		"text=Save":          selText,
		`text="Save"`:        selText,
		"xpath=//a":          selXPath,
		"//a[@href]":         selXPath,
		"(//a)[2]":           selXPath,
		"aria-ref=e12":       selRef,
		"  aria-ref=e3  ":    selRef,
		"div > span:first-c": selCSS,
	}
	for in, want := range cases {
		p, err := parseSelector(in)
		if err != nil || p.kind != want {
			t.Errorf("%q: %v %v, want %s", in, p.kind, err, want)
		}
	}
	for _, bad := range []string{"", "   ", "text=", "role=button[name=x]", "css="} {
		_, err := parseSelector(bad)
		var se *Error
		if !errors.As(err, &se) || se.Fields["argument"] != "selector" || se.Hint == "" {
			t.Errorf("%q: %v, want an error naming the selector argument", bad, err)
		}
	}
}

func TestClampTimeout(t *testing.T) {
	for _, c := range []struct {
		ms    int64
		given bool
		want  time.Duration
	}{
		{0, false, 10 * time.Second},
		{0, true, time.Millisecond},
		{-5, true, time.Millisecond},
		{250, true, 250 * time.Millisecond},
		{30000, true, 30 * time.Second},
		{99999, true, 30 * time.Second},
	} {
		if got := clampTimeout(c.ms, c.given); got != c.want {
			t.Errorf("clampTimeout(%d, %v) = %v, want %v", c.ms, c.given, got, c.want)
		}
	}
}
