package session

import "fmt"

// Statuses a call can answer with: the names agents see on the wire, kept
// so that agents written against them keep working.
const (
	StatusOK                 = "ok"
	StatusError              = "error"
	StatusBrowserUnavailable = "browser_unavailable"
	StatusGuardLost          = "guard_lost"
	StatusSessionConflict    = "session_conflict"
	StatusNotOpen            = "browser_not_open"
	StatusTimeout            = "timeout"
	StatusBlocked            = "blocked_by_policy"
	StatusNavigationFailed   = "navigation_failed"
	StatusPageClosed         = "page_closed"
	// StatusBodyTooLarge: a request body the browser could not hand to the
	// guard; it was stopped unsent.
	StatusBodyTooLarge = "body_too_large"
)

// Error is a refusal or failure with the status an agent acts on and a hint
// with its next move. Fields are added to the reply as they are.
type Error struct {
	Status  string
	Message string
	Hint    string
	Fields  map[string]any
	// Result, when set, is what the call did before it was refused (a
	// click whose navigation the guard stopped): the reply carries its
	// fields too, under the error's own.
	Result *ActResult
	// handoff marks the conflict with a driving session that the caller's
	// user may be asked to end (handoff.go).
	handoff bool
}

func (e *Error) Error() string {
	if e.Message == "" {
		return e.Status
	}
	return fmt.Sprintf("%s: %s", e.Status, e.Message)
}

func newError(status, msg, hint string) *Error {
	return &Error{Status: status, Message: msg, Hint: hint}
}

func (e *Error) with(k string, v any) *Error {
	if e.Fields == nil {
		e.Fields = map[string]any{}
	}
	e.Fields[k] = v
	return e
}
