package tools

import (
	"errors"
	"strings"

	"github.com/lyrad/lyrad/session"
)

// Replies: the wire form of what package session answers, as typed
// structs. A tool's output schema is generated from its reply type
// (schemas.go), so a key a reply writes is a key its schema lists. The
// keys are the lyra tools' published ones, so agents written against
// them keep working.

// actBase is what every acting call answers: where the tab stands, what the
// call set off, and the next moves.
type actBase struct {
	URL         string        `json:"url"`
	Title       string        `json:"title"`
	TabCount    int           `json:"tab_count"`
	NewTab      bool          `json:"new_tab,omitempty"`
	Navigated   bool          `json:"navigated,omitempty"`
	Navigating  bool          `json:"navigating,omitempty"`
	Dialogs     []dialogReply `json:"dialogs,omitempty"`
	DialogsMore int           `json:"dialogs_more,omitempty" desc:"dialogs beyond those listed"`
	// Changes is what the call changed in the page's tree, and ReadID the
	// read it was told from (click, type_text, press_key, select_option).
	Changes  string         `json:"changes,omitempty"`
	ReadID   string         `json:"read_id,omitempty"`
	Download *downloadReply `json:"download,omitempty"`
	Hint     string         `json:"hint,omitempty"`
}

func (b *actBase) base() *actBase { return b }

// acting is a reply type built on actBase.
type acting interface{ base() *actBase }

// targetBase is what a call that names an element answers: the selector
// as given (a submit control's, for save_draft and publish), and how many
// elements it matched.
type targetBase struct {
	Selector string `json:"selector,omitempty"`
	Matches  *int   `json:"matches,omitempty"`
}

func (t *targetBase) target(r *session.ActResult) {
	if r.Selector != "" {
		t.Selector, t.Matches = r.Selector, ptr(r.Matches)
	}
}

// fieldBase is what a call that changes a field answers about it after:
// one of value, checked or filled.
type fieldBase struct {
	Value   *string `json:"value,omitempty"`
	Checked *bool   `json:"checked,omitempty"`
	Filled  *bool   `json:"filled,omitempty" desc:"password"`
}

func (f *fieldBase) field(r *session.ActResult) {
	v := r.Field
	switch {
	case v == nil:
	case v.Checkable:
		f.Checked = ptr(v.Checked)
	case v.Password:
		f.Filled = ptr(v.Filled)
	default:
		f.Value = ptr(v.Value)
	}
}

// actReply is an acting call's reply of type T: the fields every acting
// call has (actBase), then the tool's own (own). A refusal that carries
// what the call did (a click whose navigation the guard stopped) answers
// those fields too, under the error's own.
func actReply[T any, P interface {
	*T
	acting
}](res *session.ActResult, err error, own func(r *session.ActResult, out P)) (any, error) {
	render := func(r *session.ActResult) P {
		out := P(new(T))
		out.base().fill(r)
		if t, ok := any(out).(interface{ target(*session.ActResult) }); ok {
			t.target(r)
		}
		if own != nil {
			own(r, out)
		}
		return out
	}
	if err != nil {
		var se *session.Error
		if errors.As(err, &se) && se.Result != nil {
			// What the call did not get to know is left out.
			did := object(render(se.Result))
			if se.Result.URL == "" {
				delete(did, "url")
				delete(did, "title")
			}
			if se.Result.TabCount == 0 {
				delete(did, "tab_count")
			}
			return nil, &refusal{se: se, did: did}
		}
		return nil, err
	}
	return render(res), nil
}

// refusal is a session error with what the call did before it was
// refused, as the reply shows it.
type refusal struct {
	se  *session.Error
	did map[string]any
}

func (r *refusal) Error() string { return r.se.Error() }
func (r *refusal) Unwrap() error { return r.se }

// fill renders the part of r every acting call answers.
func (b *actBase) fill(r *session.ActResult) {
	b.URL, b.Title, b.TabCount = r.URL, r.Title, r.TabCount
	b.NewTab, b.Navigated, b.Navigating = r.NewTab, r.Navigated, r.Navigating
	for _, d := range r.Dialogs {
		answer := "dismissed"
		if d.Accepted {
			answer = "accepted"
		}
		// A prompt's text is not echoed: it is the user's.
		b.Dialogs = append(b.Dialogs, dialogReply{Type: d.Type, Message: d.Message, Answer: answer, By: d.By})
	}
	b.DialogsMore = r.DialogsMore
	if d := r.Download; d != nil {
		b.Download = &downloadReply{Filename: d.Filename, Path: d.Path, Bytes: d.Bytes, URLOrigin: d.URLOrigin, Observed: d.Observed}
	}
	if r.Changes != "" {
		b.Changes, b.ReadID = r.Changes, r.ReadID
	}
	b.Hint = strings.Join(r.Hints, " ")
}

// element names an element as replies do.
func element(e *session.ElementInfo) *elementReply {
	if e == nil {
		return nil
	}
	return &elementReply{Tag: e.Tag, Role: e.Role, Name: e.Name}
}

// The objects replies nest.

// elementReply names an element.
type elementReply struct {
	Tag  string `json:"tag"`
	Role string `json:"role"`
	Name string `json:"name"`
}

// dialogReply is a native dialog the call met, and how it was answered.
type dialogReply struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Answer  string `json:"answer"`
	By      string `json:"by"`
}

// downloadReply is the file a call kept.
type downloadReply struct {
	Filename  string `json:"filename"`
	Path      string `json:"path"`
	Bytes     int64  `json:"bytes"`
	URLOrigin string `json:"url_origin"`
	Observed  bool   `json:"observed,omitempty"`
}

// tabReply is one open tab.
type tabReply struct {
	Index  int    `json:"index"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Active bool   `json:"active"`
}

// panelReply is where a panel that scrolls by itself settled.
type panelReply struct {
	Element      string `json:"element"`
	ScrollY      int64  `json:"scroll_y"`
	ScrollHeight int64  `json:"scroll_height"`
	Height       int64  `json:"height"`
	AtBottom     bool   `json:"at_bottom"`
}

// selectedReply is the option select_option chose.
type selectedReply struct {
	Value string `json:"value"`
	Label string `json:"label"`
	Index int    `json:"index"`
}

// closedReply is the tab tabs(action=close) closed.
type closedReply struct {
	URL   string `json:"url"`
	Title string `json:"title"`
}

// fileAttached is a file upload_file handed to the page.
type fileAttached struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}
