package session

import (
	"errors"
	"testing"
	"time"
)

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
		if !errors.As(err, &se) || se.Argument != "selector" || se.Hint == "" {
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
