package session

import (
	"fmt"
	"time"

	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/policy"
)

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

// Error is a refusal or failure: the status an agent acts on, what went
// wrong, a hint with its next move, the argument it concerns and the facts
// it carries, each a typed field. Package tools names them on the wire; a
// field at its zero value (nil, "", 0) is not told.
type Error struct {
	Status  string
	Message string
	Hint    string
	// Argument names the argument at fault.
	Argument string
	Expected string          // the form the argument's value must take (an ISO date ...)
	Choices  []string        // select_option: the options there are
	Missing  []string        // upload_file: the paths that are not readable files
	Refused  string          // the origin the guard refused
	Paths    []string        // upload_file: the paths outside what may be uploaded
	Linked   []string        // upload_file: those of Paths refused for their other hard links
	Submits  []SubmitControl // the submit controls a submit text could mean; Submits != nil: told, even empty

	// Where the call stood. nil: not told.
	URL      *string
	TabCount *int
	Selector *string
	Matches  int // the elements the selector matched

	RequestedURL string  // navigate: what was asked for, as the audit writes it
	WaitUntil    *string // the load state a navigation did not reach in time
	RedirectedTo string  // the origin a refused redirect went to
	// MessageBytes is the DevTools message a request body made, over
	// MessageLimit (body_too_large); 0 when the browser did not say.
	MessageBytes int64
	MessageLimit int
	State        []page.PublishState // the publish state a form was about to be sent with
	Reason       string              // why: a file: page refused, the user's reason for a takeover
	TakenFor     *int                // takeover_active: seconds since the user took over

	Blocked        *FileRef        // a download that was not kept
	ApprovedOrigin string          // the origin the DOWNLOAD approval names
	Failed         *FailedDownload // a download that did not complete
	Covered        *Covering       // what lies over the element
	Waited         *WaitTimeout    // wait_for out of time

	// Consent: the answer, the capability asked for and on what.
	Consent    string
	Capability string
	Origin     string

	Holder *Holder // session_conflict: the session driving
	Held   *Held   // session_conflict: the window kept for a session that ended

	// Approval, when set, is the id under which the user can answer this
	// refusal at a terminal (lyrad approve, approvals.go); asked is what
	// it answers, until the id is given.
	Approval *ApprovalRef
	asked    []ApprovalQuestion

	// Result, when set, is what the call did before it was refused (a
	// click whose navigation the guard stopped): the reply carries its
	// fields too, under the error's own.
	Result *ActResult
	// handoff marks the conflict with a driving session that the caller's
	// user may be asked to end (handoff.go).
	handoff bool
}

// ApprovalRef names a pending approval: its id, the command that answers
// it on this data directory, and how long it waits.
type ApprovalRef struct {
	ID      string
	Command string // the whole command, id included: lyrad approve 7QK2MP
	Within  time.Duration
}

// SubmitControl is a control that sends a form.
type SubmitControl = page.SubmitCandidate

// FileRef names a file a page offered.
type FileRef struct {
	Filename  string
	URLOrigin string
}

// FailedDownload is a download that did not complete, and why.
type FailedDownload struct {
	Reason    string
	Filename  string
	URLOrigin string
}

// Covering is what lies over an element at the point a person would click.
type Covering struct {
	By      string // described as hints describe elements
	Origin  string // the frame or document it is in; "" when the element's own
	Matches bool   // it is another match of the selector
}

// WaitTimeout is what wait_for saw when its time ran out.
type WaitTimeout struct {
	Waited   int64  // milliseconds
	LastSeen string // the tab's URL for a url wait, else an excerpt of its text
}

// Holder is the session that drives the browser, as a conflict tells it.
type Holder struct {
	Client      string
	IdleTimeout int // seconds, LYRA_BROWSER_OWNER_IDLE_TIMEOUT
	Idle        int // seconds since its last call
	IdleLeft    int // seconds before its window is handed on
}

// Held is a window kept for a session that ended.
type Held struct {
	Client    string
	Grace     float64 // seconds, LYRA_BROWSER_RECONNECT_GRACE
	GraceLeft float64
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

// Setters, each for one fact, so that an answer is built in one
// expression.

func (e *Error) arg(name string) *Error         { e.Argument = name; return e }
func (e *Error) expecting(form string) *Error   { e.Expected = form; return e }
func (e *Error) at(url string) *Error           { e.URL = &url; return e }
func (e *Error) tabs(n int) *Error              { e.TabCount = &n; return e }
func (e *Error) on(selector string) *Error      { e.Selector = &selector; return e }
func (e *Error) matching(n int) *Error          { e.Matches = n; return e }
func (e *Error) refusing(origin string) *Error  { e.Refused = origin; return e }
func (e *Error) because(reason string) *Error   { e.Reason = reason; return e }
func (e *Error) withHint(hint string) *Error    { e.Hint = hint; return e }
func (e *Error) answered(consent string) *Error { e.Consent = consent; return e }
func (e *Error) redirectedTo(origin string) *Error {
	e.RedirectedTo = origin
	return e
}

func (e *Error) waitingUntil(state string) *Error { e.WaitUntil = &state; return e }

func (e *Error) asking(capability, origin string) *Error {
	e.Capability, e.Origin = capability, origin
	return e
}

// askable marks a refusal the user can answer at the terminal instead:
// the question it is (grantDesk.pend gives it an id).
func (e *Error) askable(cap policy.Capability, scope policy.Scope, message, key string) *Error {
	e.asked = append(e.asked, ApprovalQuestion{Capability: string(cap), Origin: scope.Loggable(), Message: message, key: key})
	return e
}

func (e *Error) covered(by, origin string, matches bool) *Error {
	e.Covered = &Covering{By: by, Origin: origin, Matches: matches}
	return e
}

func (e *Error) blocked(filename, urlOrigin string) *Error {
	e.Blocked = &FileRef{Filename: filename, URLOrigin: urlOrigin}
	return e
}

func (e *Error) failed(reason, filename, urlOrigin string) *Error {
	e.Failed = &FailedDownload{Reason: reason, Filename: filename, URLOrigin: urlOrigin}
	return e
}

func (e *Error) from(origin string) *Error { e.ApprovedOrigin = origin; return e }

func (e *Error) offering(choices []string) *Error { e.Choices = choices; return e }

func (e *Error) sending(st []page.PublishState) *Error {
	e.State = append([]page.PublishState{}, st...)
	return e
}

func (e *Error) submits(c []SubmitControl) *Error { e.Submits = c; return e }

func (e *Error) requested(url string) *Error { e.RequestedURL = url; return e }

func (e *Error) takenFor(s int) *Error { e.TakenFor = &s; return e }

func (e *Error) missingPaths(p []string) *Error { e.Missing = p; return e }

func (e *Error) refusedPaths(p []string) *Error { e.Paths = p; return e }

func (e *Error) timedOut(waited int64, lastSeen string) *Error {
	e.Waited = &WaitTimeout{Waited: waited, LastSeen: lastSeen}
	return e
}

func (e *Error) driving(h *Holder) *Error { e.Holder = h; return e }

func (e *Error) kept(h *Held) *Error { e.Held = h; return e }
