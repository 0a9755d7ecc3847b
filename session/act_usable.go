package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/page"
)

// appearWindow is how long a target may take to appear, show or be
// enabled (a page still building its controls) before the call says so.
const appearWindow = 3 * time.Second

type actKind int

const (
	actClick actKind = iota
	actHover
	actType
	actScroll
	actSelect
	actUpload // a file input, hidden or not (a styled picker hides it)
	actEditor // an editor: visible and enabled, of any kind
)

func (k actKind) verb() string {
	return [...]string{"click", "hover", "type_text", "scroll", "select_option", "upload_file", "set_editor"}[k]
}

// elemState is what page.JSState reports.
type elemState struct {
	Connected bool   `json:"connected"`
	Visible   bool   `json:"visible"`
	Enabled   bool   `json:"enabled"`
	TextField bool   `json:"textField"`
	ValueType string `json:"valueType"` // date, time, datetime-local, month, week, color, range: set whole (JSSetValue)
	ReadOnly  bool   `json:"readOnly"`
	Tag       string `json:"tag"`
	Role      string `json:"role"`
	Name      string `json:"name"`
}

// checkable: a click on it may check or uncheck a field (a checkbox, a
// radio, a switch, or a label, which stands for its control).
func (s elemState) checkable() bool {
	switch s.Role {
	case "checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio", "label":
		return true
	}
	return s.Tag == "label"
}

func (s elemState) info() *ElementInfo {
	return &ElementInfo{Tag: s.Tag, Role: s.Role, Name: s.Name}
}

// waitUsable resolves the selector and waits, at most appearWindow (and
// the call's own time), until its target is present, visible and enabled,
// and for type_text a writable text field. A page that changes wakes the
// wait at once (page.JSWaitChange).
func (a *act) waitUsable(ctx context.Context) error {
	loc, st, err := a.usable(ctx, a.sel, a.spec.usable)
	a.loc, a.st = loc, st
	return err
}

// usable is waitUsable for any selector of the call (publish names two
// controls).
func (a *act) usable(ctx context.Context, sel parsedSelector, kind actKind) (*located, elemState, error) {
	b := a.b
	window := appearWindow
	if a.spec.opts.Timeout < window {
		window = a.spec.opts.Timeout
	}
	wctx, cancel := context.WithTimeout(ctx, window)
	defer cancel()
	var last string
	looked := false // the page answered at least once
	var loc *located
	var st elemState
	for {
		var err error
		loc, err = b.locate(wctx, a.tab, sel, a.group)
		if err == nil && loc.Node != nil {
			st = elemState{}
			err = b.call(wctx, loc.Node, page.JSState, &st)
		}
		var se *Error
		var gone *page.NodeGoneError
		switch {
		case errors.As(err, &se):
			// A bad selector or a stale ref: no waiting makes it good.
			return nil, st, a.annotate(ctx, se)
		case (errors.As(err, &gone) || (err != nil && cdpconn.IsContextGone(err))) && wctx.Err() == nil:
			// Gone as we looked (the frame navigated): look again.
			last, looked = StatusNotFound, true
		case err != nil && wctx.Err() == nil:
			return nil, st, a.annotate(ctx, err)
		case err != nil:
			// The window ran out mid-look: answer with what was seen last.
		default:
			last = ""
			looked = true
			switch {
			case loc.Node == nil || !st.Connected:
				last = StatusNotFound
			case !st.Visible && kind != actUpload:
				last = StatusHidden
			case !st.Enabled:
				last = StatusDisabled
			}
			if last == "" {
				if kind == actType && !st.TextField && st.ValueType == "" {
					return nil, st, a.failure(StatusNotActionable, fmt.Sprintf("the %s is not a text field (%s %q)", st.Tag, st.Role, st.Name),
						"type_text needs an input (text kinds, and date, time, color or range in ISO form), a textarea or an editable element; click or press_key act on other controls, and select lists take select_option.").matching(loc.Matches)
				}
				if kind == actSelect && st.Tag != "select" {
					return nil, st, a.failure(StatusNotActionable, fmt.Sprintf("the %s is not a select list (%s %q)", st.Tag, st.Role, st.Name),
						"select_option needs a <select>; a custom dropdown is clicked open, then its option clicked.").matching(loc.Matches)
				}
				if kind == actUpload {
					var file bool
					if err := b.call(wctx, loc.Node, `function() { return this.localName === 'input' && this.type === 'file'; }`, &file); err != nil {
						return nil, st, a.annotate(ctx, err)
					}
					if !file {
						return nil, st, a.failure(StatusNotActionable, fmt.Sprintf("the %s is not a file input (%s %q)", st.Tag, st.Role, st.Name),
							"upload_file needs an input[type=file]; read_form lists them (type file), hidden ones included.").matching(loc.Matches)
					}
				}
				if kind == actType && st.ReadOnly {
					return nil, st, a.failure(StatusNotActionable, fmt.Sprintf("the field is read-only (%s %q)", st.Role, st.Name),
						"The page does not let this field be typed into; look for the control that edits it.").matching(loc.Matches)
				}
				return loc, st, nil
			}
		}
		if wctx.Err() != nil {
			if !looked {
				// The time ran out before the page answered once.
				return nil, st, a.failure(StatusTimeout, fmt.Sprintf("the page did not answer within timeout_ms (%v)", a.spec.opts.Timeout),
					"The page is busy or the limit is too small: retry with a larger timeout_ms (at most 30000).")
			}
			return nil, st, a.notReady(last, loc, st, window)
		}
		if sel.kind == selRef && last == StatusNotFound {
			return nil, st, a.failure(StatusNotFound, "the element of "+sel.raw+" is gone", RefHint)
		}
		// Wait for the page to change, in the frame the target is in.
		f := page.FrameRef{Session: a.tab.SessionID, Frame: cdp.FrameID(a.tab.ID)}
		if loc != nil && loc.Node != nil {
			f = page.FrameRef{Session: loc.Node.Session, Frame: loc.Node.Frame}
		}
		left := time.Until(deadlineOf(wctx))
		if left > 100*time.Millisecond {
			left = 100 * time.Millisecond
		}
		if left < time.Millisecond {
			left = time.Millisecond
		}
		if err := b.worlds.CallFunction(wctx, b.conn.Session(f.Session), f.Frame, page.JSWaitChange, nil, left.Milliseconds()); err != nil && wctx.Err() == nil {
			// The frame navigated away under the wait: look again.
			select {
			case <-wctx.Done():
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

func deadlineOf(ctx context.Context) time.Time {
	d, ok := ctx.Deadline()
	if !ok {
		return time.Now().Add(time.Hour)
	}
	return d
}

// notReady is the answer for a target that did not become usable in time.
func (a *act) notReady(status string, loc *located, st elemState, window time.Duration) *Error {
	w := window.Round(100 * time.Millisecond).String()
	var e *Error
	switch status {
	case StatusHidden:
		e = a.failure(StatusHidden, fmt.Sprintf("the %s %q is in the page but was not visible for %s", st.Role, st.Name, w),
			"It may open from a menu, a tab or a section that is collapsed: hover or click what reveals it, then retry; scroll(selector=...) if it is lazily shown.")
	case StatusDisabled:
		e = a.failure(StatusDisabled, fmt.Sprintf("the %s %q stayed disabled for %s", st.Role, st.Name, w),
			"The page enables it once something else is done (a required field, a checkbox); read_page shows what, then retry.")
	default:
		e = a.failure(StatusNotFound, "nothing matches the selector (waited "+w+")",
			`Check the selector against the page: read_page(mode="tree") lists what can be acted on with a ref for each; wait_for waits for a page that is still loading.`)
	}
	if loc != nil && loc.Matches > 0 {
		e.matching(loc.Matches)
	}
	return e
}
