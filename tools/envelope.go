package tools

import (
	"encoding/json"
	"errors"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/session"
)

// Envelopes: every reply is a JSON object with a status and, when something
// is wrong, an error and a hint with the next move. An ok reply is the
// tool's typed reply; an error's is errorReply, built from session's typed
// error. These are the only places the wire's keys are written.

// errorReply is the envelope of a refusal or failure. The keys are the
// seed's and lyrad's own, as agents know them: none is renamed.
type errorReply struct {
	Status   string `json:"status"`
	Error    string `json:"error,omitempty"`
	Hint     string `json:"hint,omitempty"`
	Argument string `json:"argument,omitempty"`
	Expected string `json:"expected,omitempty"`

	URL      *string `json:"url,omitempty"`
	TabCount *int    `json:"tab_count,omitempty"`
	Selector *string `json:"selector,omitempty"`
	Matches  int     `json:"matches,omitempty"`

	Choices    []string         `json:"choices,omitempty"`
	Candidates *[]submitControl `json:"candidates,omitempty"`
	Missing    []string         `json:"missing,omitempty"`
	// Refused is an origin, or upload_file's refused paths.
	Refused    any      `json:"refused,omitempty"`
	HardLinked []string `json:"hard_linked,omitempty"`

	RequestedURL      string          `json:"requested_url,omitempty"`
	WaitUntil         *string         `json:"wait_until,omitempty"`
	RedirectedTo      string          `json:"redirected_to,omitempty"`
	MessageBytes      int64           `json:"message_bytes,omitempty"`
	MessageLimitBytes int             `json:"message_limit_bytes,omitempty"`
	State             *[]publishEntry `json:"state,omitempty"`
	Reason            *string         `json:"reason,omitempty"`
	SinceS            *int            `json:"since_s,omitempty"`
	BlockedDownload   *fileReply      `json:"blocked_download,omitempty"`
	ApprovedOrigin    string          `json:"approved_origin,omitempty"`
	Filename          *string         `json:"filename,omitempty"`
	URLOrigin         *string         `json:"url_origin,omitempty"`
	CoveredBy         *string         `json:"covered_by,omitempty"`
	CoveredOrigin     string          `json:"covered_origin,omitempty"`
	CoveredMatches    *bool           `json:"covered_matches,omitempty"`
	WaitedMS          *int64          `json:"waited_ms,omitempty"`
	LastSeen          *string         `json:"last_seen,omitempty"`
	Consent           string          `json:"consent,omitempty"`
	Capability        string          `json:"capability,omitempty"`
	Origin            string          `json:"origin,omitempty"`
	ApprovalID        string          `json:"approval_id,omitempty"` // lyrad approve answers it; the hint says how
	HolderClient      *string         `json:"holder_client,omitempty"`
	IdleTimeoutS      *int            `json:"idle_timeout_s,omitempty"`
	HolderIdleS       *int            `json:"holder_idle_s,omitempty"`
	IdleLeftS         *int            `json:"idle_left_s,omitempty"`
	ReconnectGraceS   *float64        `json:"reconnect_grace_s,omitempty"`
	GraceLeftS        *float64        `json:"grace_left_s,omitempty"`
}

// submitControl is a control that sends a form, as read_form lists it.
type submitControl struct {
	Text     string `json:"text"`
	Selector string `json:"selector"`
	Usable   bool   `json:"usable"`
	Form     string `json:"form"`
}

// publishEntry is one field of a form's publish state.
type publishEntry struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Label string `json:"label"`
}

// fileReply names a file a page offered.
type fileReply struct {
	Filename  string `json:"filename"`
	URLOrigin string `json:"url_origin"`
}

func ptr[T any](v T) *T { return &v }

// errorOf is se's envelope.
func errorOf(se *session.Error) errorReply {
	r := errorReply{
		Status: se.Status, Error: se.Message, Hint: se.Hint,
		Argument: se.Argument, Expected: se.Expected,
		URL: se.URL, TabCount: se.TabCount, Selector: se.Selector, Matches: se.Matches,
		Choices: se.Choices, Missing: se.Missing, HardLinked: se.Linked,
		RequestedURL: se.RequestedURL, WaitUntil: se.WaitUntil, RedirectedTo: se.RedirectedTo,
		ApprovedOrigin: se.ApprovedOrigin,
		Consent:        se.Consent, Capability: se.Capability, Origin: se.Origin,
	}
	if se.Approval != nil {
		r.ApprovalID = se.Approval.ID
	}
	if se.Submits != nil {
		list := make([]submitControl, 0, len(se.Submits))
		for _, c := range se.Submits {
			list = append(list, submitControl{Text: c.Text, Selector: c.Selector, Usable: c.Usable, Form: c.Form})
		}
		r.Candidates = &list
	}
	switch {
	case se.Paths != nil:
		r.Refused = se.Paths
	case se.Refused != "":
		r.Refused = se.Refused
	}
	if se.MessageBytes > 0 {
		r.MessageBytes, r.MessageLimitBytes = se.MessageBytes, se.MessageLimit
	}
	if se.State != nil {
		list := make([]publishEntry, 0, len(se.State))
		for _, p := range se.State {
			list = append(list, publishEntry{Name: p.Name, Value: p.Value, Label: p.Label})
		}
		r.State = &list
	}
	if se.Reason != "" {
		r.Reason = ptr(se.Reason)
	}
	r.SinceS = se.TakenFor
	if b := se.Blocked; b != nil {
		r.BlockedDownload = &fileReply{Filename: b.Filename, URLOrigin: b.URLOrigin}
	}
	if f := se.Failed; f != nil {
		r.Reason, r.Filename, r.URLOrigin = ptr(f.Reason), ptr(f.Filename), ptr(f.URLOrigin)
	}
	if c := se.Covered; c != nil {
		r.CoveredBy, r.CoveredOrigin, r.CoveredMatches = ptr(c.By), c.Origin, ptr(c.Matches)
	}
	if w := se.Waited; w != nil {
		r.WaitedMS, r.LastSeen = ptr(w.Waited), ptr(w.LastSeen)
	}
	if h := se.Holder; h != nil {
		r.HolderClient, r.IdleTimeoutS, r.HolderIdleS, r.IdleLeftS = ptr(h.Client), ptr(h.IdleTimeout), ptr(h.Idle), ptr(h.IdleLeft)
	}
	if h := se.Held; h != nil {
		r.HolderClient, r.ReconnectGraceS, r.GraceLeftS = ptr(h.Client), ptr(h.Grace), ptr(h.GraceLeft)
	}
	return r
}

// object is v as the JSON object the wire carries: what a client decodes
// is what the handlers' tests and the schema test see.
func object(v any) map[string]any {
	out := map[string]any{}
	if b, err := json.Marshal(v); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out
}

// envelope turns an answer or an error into the reply object.
func envelope(out any, err error) map[string]any {
	var env map[string]any
	var se *session.Error
	var ae *ArgError
	var rf *refusal
	switch {
	case err == nil:
		env = object(out)
		if _, ok := env["status"]; !ok {
			env["status"] = session.StatusOK
		}
	case errors.As(err, &ae):
		env = object(errorReply{Status: session.StatusError, Error: ae.Msg, Argument: ae.Arg, Hint: ae.Hint})
		// An argument error names its argument even when it is the
		// arguments as a whole ("").
		env["argument"] = ae.Arg
	case errors.As(err, &se):
		env = object(errorOf(se))
		if errors.As(err, &rf) {
			// What the call did before it was refused, under the
			// refusal's own fields; its hint is not the refusal's.
			for k, v := range object(rf.did) {
				if _, ok := env[k]; !ok && k != "hint" {
					env[k] = v
				}
			}
		}
	default:
		env = object(errorReply{Status: session.StatusError, Error: err.Error(),
			Hint: "Retry; if it persists, call close_browser and open_browser."})
	}
	// An error may quote a URL (Chrome's, Go's): it is answered as the
	// audit writes it. Where the tab stands is answered in fields of its
	// own ("url"), which stay whole.
	for _, k := range []string{"error", "hint"} {
		if s, ok := env[k].(string); ok {
			env[k] = audit.ScrubText(s)
		}
	}
	return env
}
