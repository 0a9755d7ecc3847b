package session

import (
	"context"
	"errors"
	"fmt"
	"time"

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

// elemState is how the target stood when it was found usable
// (page.State).
type elemState struct{ page.ElementState }

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
// and for type_text a writable text field (page.WaitActionable: a page
// that changes wakes the wait at once).
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
	var loc *located
	var bad *Error // a bad selector or a stale ref: no waiting makes it good
	found, ps, why, err := page.WaitActionable(wctx, b.conn, &b.worlds, b.pageTab(a.tab), page.Actionable{
		Locate: func(ctx context.Context) (page.Found, error) {
			var err error
			if loc, err = b.locate(ctx, a.tab, sel, a.group); err != nil {
				if errors.As(err, &bad) {
					return page.Found{}, bad
				}
				return page.Found{}, err
			}
			return page.Found{Count: loc.Matches, Node: loc.Node, Why: loc.Why, State: loc.state}, nil
		},
		HiddenOK: kind == actUpload,
		Once:     sel.kind == selRef,
	})
	st := elemState{ps}
	if loc == nil {
		loc = &located{Matches: found.Count, Node: found.Node, Why: found.Why}
	}
	switch {
	case bad != nil:
		return nil, st, a.annotate(ctx, bad)
	case err != nil:
		return nil, st, a.annotate(ctx, err)
	case why == page.Usable:
		if err := a.fits(kind, loc, st); err != nil {
			return nil, st, err
		}
		return loc, st, nil
	case why == page.NoAnswer:
		// The time ran out before the page answered once.
		return nil, st, a.failure(StatusTimeout, fmt.Sprintf("the page did not answer within timeout_ms (%v)", a.spec.opts.Timeout),
			"The page is busy or the limit is too small: retry with a larger timeout_ms (at most 30000).")
	case why == page.Gone:
		return nil, st, a.failure(StatusNotFound, "the element of "+sel.raw+" is gone", RefHint)
	}
	return nil, st, a.notReady(why, loc, st, window)
}

// fits checks a usable target against what the call does to it: type_text
// needs a writable text field, select_option a <select>, upload_file a
// file input.
func (a *act) fits(kind actKind, loc *located, st elemState) error {
	switch {
	case kind == actType && !st.TextField && st.ValueType == "":
		return a.failure(StatusNotActionable, fmt.Sprintf("the %s is not a text field (%s %q)", st.Tag, st.Role, st.Name),
			"type_text needs an input (text kinds, and date, time, color or range in ISO form), a textarea or an editable element; click or press_key act on other controls, and select lists take select_option.").matching(loc.Matches)
	case kind == actSelect && st.Tag != "select":
		return a.failure(StatusNotActionable, fmt.Sprintf("the %s is not a select list (%s %q)", st.Tag, st.Role, st.Name),
			"select_option needs a <select>; a custom dropdown is clicked open, then its option clicked.").matching(loc.Matches)
	case kind == actUpload && !st.FileInput:
		return a.failure(StatusNotActionable, fmt.Sprintf("the %s is not a file input (%s %q)", st.Tag, st.Role, st.Name),
			"upload_file needs an input[type=file]; read_form lists them (type file), hidden ones included.").matching(loc.Matches)
	case kind == actType && st.ReadOnly:
		return a.failure(StatusNotActionable, fmt.Sprintf("the field is read-only (%s %q)", st.Role, st.Name),
			"The page does not let this field be typed into; look for the control that edits it.").matching(loc.Matches)
	}
	return nil
}

// notReady is the answer for a target that did not become usable in time.
func (a *act) notReady(why page.Unready, loc *located, st elemState, window time.Duration) *Error {
	w := window.Round(100 * time.Millisecond).String()
	var e *Error
	switch why {
	case page.Hidden:
		e = a.failure(StatusHidden, fmt.Sprintf("the %s %q is in the page but was not visible for %s", st.Role, st.Name, w),
			"It may open from a menu, a tab or a section that is collapsed: hover or click what reveals it, then retry; scroll(selector=...) if it is lazily shown.")
	case page.Disabled:
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
