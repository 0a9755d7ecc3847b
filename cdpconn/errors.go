package cdpconn

import (
	"errors"
	"strings"

	"github.com/chromedp/cdproto"
)

// What a failed call means, for every caller: the connection ended
// (errors.Is(err, ErrClosed)), the target went away (IsTargetGone), the
// renderer the call was sent to went away (IsNavigatedOrClosed), the
// execution context or frame went away (IsContextGone), or the paused
// request Chrome held was dropped (IsRequestGone). Chrome says which in the
// message of its *cdproto.Error reply; the code is the same -32000 or
// -32602 for many unrelated failures, so the message decides.

// targetGone are Chrome's messages for a target or its session that no
// longer exists.
var targetGone = []string{
	"No session with given id",        // Target.sendMessageToTarget, Target.detachFromTarget (-32602)
	"Session with given id not found", // a flattened command to a session that detached (-32001)
	"No target with given id found",   // Target.* on a closed target (-32602)
	"Target closed",
}

// navigatedOrClosed is Chrome's message for a command whose renderer went
// away before it answered: the target closed, or its document moved to
// another process (DevToolsSession's kTargetClosedMessage, -32000).
const navigatedOrClosed = "Inspected target navigated or closed"

// contextGone are Chrome's messages for an execution context, or the frame
// that held it, that no longer exists.
var contextGone = []string{
	"Cannot find context with specified id",     // Runtime.* with a stale executionContextId (-32000)
	"Execution context was destroyed",           // Runtime.* whose context died before it answered (-32000)
	"Cannot find default execution context",     // Runtime.evaluate with no context left (-32000)
	"No frame for given id found",               // Page.createIsolatedWorld on a removed frame (-32000)
	"No frame with given id found",              // Page.* on a removed frame (-32000)
	"Frame with the given frameId is not found", // Accessibility.getFullAXTree on a removed frame (-32602)
	"Frame with the given id was not found",     // DOM.getFrameOwner on a removed frame (-32000)
}

// requestGone is Chrome's message for a Fetch command on a paused request it
// no longer holds: its target went away, or it was already answered
// (-32602).
const requestGone = "Invalid InterceptionId"

// IsTargetGone reports whether err says the call's target or its session no
// longer exists: the session detached before the reply (ErrDetached), or
// Chrome answered that the session or target is unknown. A closed
// connection is not reported; test it with errors.Is(err, ErrClosed).
func IsTargetGone(err error) bool {
	return errors.Is(err, ErrDetached) || chromeSays(err, targetGone...)
}

// IsNavigatedOrClosed reports whether Chrome dropped the call because the
// renderer it was sent to went away: the target closed, or it navigated to
// a document in another process. Which of the two, the caller must find
// out.
func IsNavigatedOrClosed(err error) bool {
	return chromeSays(err, navigatedOrClosed)
}

// IsContextGone reports whether err says the execution context the call ran
// in, or the frame it named, no longer exists: the document navigated or the
// frame was removed.
func IsContextGone(err error) bool {
	return chromeSays(err, contextGone...)
}

// IsRequestGone reports whether err says Chrome no longer holds the paused
// request a Fetch command named.
func IsRequestGone(err error) bool {
	return chromeSays(err, requestGone)
}

// chromeSays reports whether err wraps a *cdproto.Error whose message holds
// one of msgs.
func chromeSays(err error, msgs ...string) bool {
	var ce *cdproto.Error
	if !errors.As(err, &ce) {
		return false
	}
	for _, m := range msgs {
		if strings.Contains(ce.Message, m) {
			return true
		}
	}
	return false
}
