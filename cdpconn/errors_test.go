package cdpconn

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/chromedp/cdproto"

	"github.com/lyrad/lyrad/internal/cdptest"
)

// chromeErr is a reply error as Call returns it.
func chromeErr(method string, code int64, msg string) error {
	return fmt.Errorf("cdp %s: %w", method, &cdproto.Error{Code: code, Message: msg})
}

// Every message Chrome gives for each class, as it gives it (Chrome 156),
// and the errors that must not be read as any class.
func TestClassify(t *testing.T) {
	type class int
	const (
		none class = iota
		target
		navigated
		context_
		request
		closed
	)
	cases := []struct {
		name string
		err  error
		want class
	}{
		// The target or its session is gone.
		{"detached before the reply", fmt.Errorf("cdp Runtime.evaluate: %w (session S1)", ErrDetached), target},
		{"sendMessageToTarget", chromeErr("Target.sendMessageToTarget", -32602, "No session with given id"), target},
		{"flattened session", chromeErr("Runtime.evaluate", -32001, "Session with given id not found."), target},
		{"getTargetInfo", chromeErr("Target.getTargetInfo", -32602, "No target with given id found"), target},
		{"target closed", chromeErr("Page.navigate", -32000, "Target closed"), target},
		// The renderer went away: closed or swapped by a navigation.
		{"renderer gone", chromeErr("Runtime.callFunctionOn", -32000, "Inspected target navigated or closed"), navigated},
		// The execution context or its frame is gone.
		{"stale context id", chromeErr("Runtime.callFunctionOn", -32000, "Cannot find context with specified id"), context_},
		{"context destroyed", chromeErr("Runtime.callFunctionOn", -32000, "Execution context was destroyed."), context_},
		{"no default context", chromeErr("Runtime.evaluate", -32000, "Cannot find default execution context"), context_},
		{"createIsolatedWorld", chromeErr("Page.createIsolatedWorld", -32000, "No frame for given id found"), context_},
		{"page frame", chromeErr("Page.getResourceContent", -32000, "No frame with given id found"), context_},
		{"getFullAXTree", chromeErr("Accessibility.getFullAXTree", -32602, "Frame with the given frameId is not found."), context_},
		{"getFrameOwner", chromeErr("DOM.getFrameOwner", -32000, "Frame with the given id was not found."), context_},
		// The paused request is no longer held.
		{"interception", chromeErr("Fetch.continueRequest", -32602, "Invalid InterceptionId."), request},
		// The connection ended.
		{"closed", fmt.Errorf("cdp Page.enable: %w", ErrClosed), closed},
		{"aborted", fmt.Errorf("cdp Page.enable: %w", fmt.Errorf("%w: aborted", ErrClosed)), closed},
		// None of these.
		{"nil", nil, none},
		{"method unknown", chromeErr("Foo.bar", -32601, "'Foo.bar' wasn't found"), none},
		{"object gone", chromeErr("Runtime.callFunctionOn", -32000, "Could not find object with given id"), none},
		{"node detached", chromeErr("DOM.getContentQuads", -32000, "Node is detached from document"), none},
		{"timeout", fmt.Errorf("cdp Runtime.evaluate: %w", context.DeadlineExceeded), none},
		// The text alone is not Chrome's answer.
		{"not a reply", errors.New("No session with given id"), none},
	}
	for _, c := range cases {
		got := map[class]bool{
			target:    IsTargetGone(c.err),
			navigated: IsNavigatedOrClosed(c.err),
			context_:  IsContextGone(c.err),
			request:   IsRequestGone(c.err),
			closed:    errors.Is(c.err, ErrClosed),
		}
		for k, v := range got {
			if v != (k == c.want) {
				t.Errorf("%s (%v): class %d is %v", c.name, c.err, k, v)
			}
		}
	}
}

// A reply error from the socket classifies like the one built above.
func TestClassifyReply(t *testing.T) {
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		fc.Send(map[string]any{"id": msg.ID, "sessionId": msg.SessionID, "error": map[string]any{"code": -32001, "message": "Session with given id not found."}})
	})
	c, _ := dial(t, f, Options{})
	err := c.Session("S9").Call(ctxT(t), "Runtime.evaluate", nil, nil)
	if !IsTargetGone(err) || IsContextGone(err) {
		t.Fatalf("IsTargetGone(%v) = false", err)
	}
}
