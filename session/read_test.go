package session

import (
	"context"
	"errors"
	"testing"

	"github.com/lyrad/lyrad/page"
)

// readErr turns what the page answered into the envelope the caller acts
// on: a rejected selector is the caller's argument, a vanished node is
// not_found, any other script exception an error to retry.
func TestReadErr(t *testing.T) {
	ctx := context.Background()
	if readErr(ctx, nil, "a") != nil {
		t.Fatal("no error must stay no error")
	}
	cases := []struct {
		err    error
		status string
		arg    bool
	}{
		{&page.ScriptError{Text: "Error: lyrad:badselector div["}, StatusError, true},
		{&page.NodeGoneError{Err: errors.New("detached")}, "not_found", false},
		{&page.ScriptError{Text: "TypeError: boom"}, StatusError, false},
	}
	for _, c := range cases {
		var e *Error
		if !errors.As(readErr(ctx, c.err, "div["), &e) {
			t.Fatalf("%v: not an envelope", c.err)
		}
		if e.Status != c.status || (e.Argument != "") != c.arg {
			t.Errorf("%v: status %q argument %v, want %q %v", c.err, e.Status, e.Argument, c.status, c.arg)
		}
	}
}
