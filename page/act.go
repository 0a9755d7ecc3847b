package page

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// The operations an acting call does to an element or a tab: how it
// stands (State, WaitActionable), the pointer (Hover, Click), text
// (FocusText, SetValue, FieldValue), a list's choice (SelectOption),
// scrolling (Scroll), and letting the page run what the input queued
// (Drain). Each runs its script from js/ and answers Go values.

// ElementState is what an element is and whether it can be acted on now
// (state.js).
type ElementState struct {
	Connected bool   `json:"connected"`
	Visible   bool   `json:"visible"`
	Enabled   bool   `json:"enabled"`
	TextField bool   `json:"textField"`
	ValueType string `json:"valueType"` // date, time, datetime-local, month, week, color, range: set whole (SetValue)
	ReadOnly  bool   `json:"readOnly"`
	FileInput bool   `json:"fileInput"`
	Saves     bool   `json:"saves"` // a link with a download attribute (or inside one)
	Tag       string `json:"tag"`
	Role      string `json:"role"`
	Name      string `json:"name"`
	Focused   bool   `json:"focused"` // focused as it was found (WithFocusFirst)
}

// FocusFirst lets the look that finds a text field focus it in the same
// round trip, as FocusText does (timer and wait are FocusText's), when it
// is found usable and writable in Frame's document and that document is of
// Origin (as location.origin writes it). The caller must hold everything
// the input needs on Origin before it looks: the focus is the input's
// first step.
type FocusFirst struct {
	Frame  FrameRef
	Origin string
	Timer  string
	Wait   time.Duration
}

type focusFirstKey struct{}

// WithFocusFirst carries ff in ctx, for the looks of WaitActionable (Locate,
// ResolveRefNode).
func WithFocusFirst(ctx context.Context, ff FocusFirst) context.Context {
	return context.WithValue(ctx, focusFirstKey{}, ff)
}

// focusFirstIn is the FocusFirst of ctx as the state script takes it, for
// a look in frame f of session s; nil when there is none for that frame.
func focusFirstIn(ctx context.Context, s target.SessionID, f cdp.FrameID) any {
	ff, ok := ctx.Value(focusFirstKey{}).(FocusFirst)
	if !ok || ff.Origin == "" || ff.Frame != (FrameRef{Session: s, Frame: f}) {
		return nil
	}
	return map[string]any{"origin": ff.Origin, "timer": ff.Timer, "ms": ff.Wait.Milliseconds()}
}

// State reads how n stands now.
func State(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node) (ElementState, error) {
	var st ElementState
	err := callNode(ctx, conn, w, n, jsState, &st)
	return st, err
}

// Unready says why a target is not usable (yet).
type Unready int

const (
	Usable   Unready = iota
	Missing          // nothing matches, or the match left the document
	Hidden           // it is there but not visible
	Disabled         // it is there and visible but disabled
	NoAnswer         // the time ran out before the page answered once
	Gone             // Once: it is not there, and will not come
)

// Actionable is what WaitActionable waits for.
type Actionable struct {
	// Locate finds the target; it is called each time the wait looks. An
	// error it returns ends the wait, unless the target or its document
	// went away as it looked (NodeGoneError, a context gone).
	Locate func(ctx context.Context) (Found, error)
	// HiddenOK: a target that is not visible is usable (a file input a
	// styled picker hides).
	HiddenOK bool
	// Once: a target that is not there will not come (an aria-ref names
	// one element): Gone is answered at the first look that misses it.
	Once bool
}

// WaitActionable waits, until ctx ends, for the target a.Locate names to
// be in the document, visible and enabled. Between looks it waits for the
// document the target is in (else the tab's page) to change, at most
// 100 ms, so a control that appears or is enabled is seen at once. It
// answers the last match, its state, and why it is not usable (Usable
// when it is); running out of time is not an error. An error of the page
// while ctx is alive ends the wait with that error.
func WaitActionable(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, a Actionable) (Found, ElementState, Unready, error) {
	var (
		found  Found
		st     ElementState
		last   = NoAnswer
		looked bool
	)
	for {
		// Each look reads the frames afresh (FrameTrees).
		lookFrameTrees(ctx, conn, tab.Session)
		var err error
		found, err = a.Locate(ctx)
		st = ElementState{}
		switch {
		case err == nil && found.Node != nil && found.State != nil:
			st = *found.State
		case err == nil && found.Node != nil:
			st, err = State(ctx, conn, w, found.Node)
		}
		var gone *NodeGoneError
		switch {
		case (errors.As(err, &gone) || (err != nil && cdpconn.IsContextGone(err))) && ctx.Err() == nil:
			// Gone as we looked (the frame navigated): look again.
			last, looked = Missing, true
		case err != nil && ctx.Err() == nil:
			return found, st, last, err
		case err != nil:
			// The time ran out mid-look: answer with what was seen last.
		default:
			looked = true
			last = unready(found, st, a.HiddenOK)
			if last == Usable {
				return found, st, Usable, nil
			}
		}
		if ctx.Err() != nil {
			if !looked {
				return found, st, NoAnswer, nil
			}
			return found, st, last, nil
		}
		if a.Once && last == Missing {
			return found, st, Gone, nil
		}
		waitChange(ctx, conn, w, tab, found.Node)
	}
}

// unready judges one look.
func unready(found Found, st ElementState, hiddenOK bool) Unready {
	switch {
	case found.Node == nil || !st.Connected:
		return Missing
	case !st.Visible && !hiddenOK:
		return Hidden
	case !st.Enabled:
		return Disabled
	}
	return Usable
}

// waitChange waits for the document n is in (the tab's page when n is
// nil) to change, at most 100 ms and never past ctx (wait_change.js).
func waitChange(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, n *Node) {
	f := FrameRef{Session: tab.Session, Frame: tab.Main()}
	if n != nil {
		f = FrameRef{Session: n.Session, Frame: n.Frame}
	}
	left := 100 * time.Millisecond
	if d, ok := ctx.Deadline(); ok && time.Until(d) < left {
		left = time.Until(d)
	}
	if left < time.Millisecond {
		left = time.Millisecond
	}
	if err := w.CallFunction(ctx, conn.Session(f.Session), f.Frame, jsWaitChange, nil, left.Milliseconds()); err != nil && ctx.Err() == nil {
		// The frame navigated away under the wait: look again.
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// approach is how far short of its point, in CSS pixels, the pointer
// enters a list's item.
const approach = 2

// Hover brings the pointer over n, into view first (aimAt), and answers
// where it aimed. Over an item of a list, a menu, a tree or a grid the
// pointer arrives as a person's passes over: it enters a little short of
// the point, then moves on to it, a frame later, so the page sees it
// enter and then move within (a list that ignores the pointer's first
// arrival, which may be the list opening under a resting pointer, and
// picks the item it then moves over, has picked it). Elsewhere it moves
// once, a frame sooner.
func Hover(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, n *Node, group string) (aimed, error) {
	aim, err := aimAt(ctx, conn, w, tab, n, group)
	if err != nil {
		return aim, err
	}
	s := conn.Session(tab.Session)
	if aim.InList {
		if err := mouseMove(ctx, s, math.Max(aim.X-approach, 0), aim.Y); err != nil {
			return aim, err
		}
	}
	return aim, mouseMove(ctx, s, aim.X, aim.Y)
}

// Click clicks n with the real mouse: the pointer arrives (Hover), and
// since its arrival can change the page (a hover menu over the button,
// the button replaced) the hit is checked again before pressing, in n's
// frame and through the documents above it. Something that came over it
// is a *PointError with Arrival set; nothing is pressed then.
func Click(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, n *Node, group string) error {
	aim, err := Hover(ctx, conn, w, tab, n, group)
	if err != nil {
		return err
	}
	x, y, fx, fy := aim.X, aim.Y, aim.FX, aim.FY
	// hit.js runs once the pointer's move was handled: what the page did
	// on its arrival (a list that picks the item under the pointer) is
	// done before the press.
	var hit struct {
		Gone    bool   `json:"gone"`
		Covered string `json:"covered"`
		Page    bool   `json:"coverPage"`
		Frame   string `json:"coverFrame"`
	}
	if err := callNode(ctx, conn, w, n, jsHit, &hit, fx, fy); err != nil {
		return err
	}
	if hit.Gone {
		return &NodeGoneError{Err: errors.New("detached")}
	}
	if hit.Covered != "" {
		if hit.Frame == "?" {
			hit.Frame = hitFrameOrigin(ctx, conn, n, fx, fy)
		}
		return &PointError{Why: PointCovered, Covered: hit.Covered, Frame: hit.Frame, Page: hit.Page, X: fx, Y: fy, Arrival: true}
	}
	// And through the documents above its frame, which can lay something
	// over the frame as the pointer arrives.
	if err := frameHitCheck(ctx, conn, w, tab, n, fx, fy, x, y, group); err != nil {
		var pe *PointError
		if errors.As(err, &pe) && pe.Why == PointCovered {
			pe.Arrival = true
		}
		return err
	}
	return mouseClick(ctx, conn.Session(tab.Session), x, y)
}

// MatchesAt says whether what lies at (x, y) in frame f is, or lies
// inside, one of the elements a selector of kind (css, text, xpath) and
// body names: a cover that is itself a match.
func MatchesAt(ctx context.Context, conn *cdpconn.Conn, w *Worlds, f FrameRef, kind, body string, x, y float64) (bool, error) {
	var also bool
	err := w.CallFunction(ctx, conn.Session(f.Session), f.Frame, jsMatchesAt, &also, kind, body, x, y)
	return also, err
}

// FocusText focuses a text field and selects what it holds, so that the
// text typed next replaces it; it reports whether the focus arrived.
//
// With a timer (TypingTimer), the input event of the text typed next
// starts a wait of wait in the field's world, which a StartDrain given the
// same timer takes for its own: the drain is then timed from when the
// page saw the text, not from when lyrad heard it arrived.
func FocusText(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node, timer string, wait time.Duration) (bool, error) {
	var focused bool
	err := callNode(ctx, conn, w, n, jsFocusText, &focused, timer, wait.Milliseconds())
	return focused, err
}

// TypeInto sends text as typed text arrives (Input.insertText: beforeinput
// and input fire) to the focused element of tab; "" deletes the
// selection, which is all the field held.
func TypeInto(ctx context.Context, conn *cdpconn.Conn, tab Tab, text string) error {
	s := conn.Session(tab.Session)
	if text == "" {
		return Press(ctx, s, deleteKey)
	}
	return insertText(ctx, s, text)
}

// SetValue gives an input whose value is set whole (date, time, color,
// range, ...) the value v, in its ISO form, as a choice in its picker
// does. refused: the input did not take it (not a valid value).
func SetValue(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node, v string) (refused bool, err error) {
	var res struct {
		Value   string `json:"value"`
		Refused bool   `json:"refused"`
	}
	err = callNode(ctx, conn, w, n, jsSetValue, &res, v)
	return res.Refused, err
}

// Field is what a field holds, for an acting call's reply (field_value.js).
// IsField is false for an element that is no field.
type Field struct {
	IsField   bool   `json:"field"`
	Value     string `json:"value"`
	Checkable bool   `json:"checkable"`
	Checked   bool   `json:"checked"`
	Password  bool   `json:"password"` // only whether it is Filled, never its value
	Filled    bool   `json:"filled"`
}

// FieldValue reads what the field n holds now (a label stands for its
// control).
func FieldValue(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node) (Field, error) {
	var f Field
	err := callNode(ctx, conn, w, n, jsFieldValue, &f)
	return f, err
}

// Selection is what SelectOption did: the option chosen, or why none was.
type Selection struct {
	Missing        bool     `json:"missing"` // no such option; Choices and Count list what there is
	Choices        []string `json:"choices"` // the first 30 options' labels
	Count          int      `json:"count"`   // how many options there are
	DisabledOption bool     `json:"disabledOption"`
	Value          string   `json:"value"`
	Label          string   `json:"label"`
	Index          int      `json:"index"`
}

// SelectOption chooses an option of the <select> n by "value", "label" or
// "index" (want, or index), and fires input and change as a person's
// choice does.
func SelectOption(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node, by, want string, index int64) (Selection, error) {
	var res Selection
	err := callNode(ctx, conn, w, n, jsSelect, &res, by, want, index)
	return res, err
}

// Drain resolves after the tasks the page queued in frame f so far (a
// click handler's setTimeout(0), a form submission) have run, so the
// events they raise reach lyrad first; closing: the window is closing.
func Drain(ctx context.Context, conn *cdpconn.Conn, w *Worlds, f FrameRef) (closing bool, err error) {
	return DrainAfter(ctx, conn, w, f, 0)
}

// DrainAfter is Drain timed wait after the call (whole milliseconds): the
// tasks the page timed to run within wait have run too, in the page's own
// clock (its timers run in the order they are due).
func DrainAfter(ctx context.Context, conn *cdpconn.Conn, w *Worlds, f FrameRef, wait time.Duration) (closing bool, err error) {
	err = w.CallFunction(ctx, conn.Session(f.Session), f.Frame, jsDrain, &closing, wait.Milliseconds())
	return closing, err
}

// ScrollPos is where a window or a panel stands.
type ScrollPos struct {
	Y        float64 `json:"y"`
	Height   float64 `json:"height"`
	View     float64 `json:"view"`
	AtBottom bool    `json:"atBottom"`
}

// PanelPos is a panel that scrolled (described as hints describe
// elements) and where it stands.
type PanelPos struct {
	Panel    string  `json:"panel"`
	Y        float64 `json:"y"`
	Height   float64 `json:"height"`
	View     float64 `json:"view"`
	AtBottom bool    `json:"atBottom"`
}

// ScrollSpec says how to scroll: to Node (into the middle of the window
// and of every panel around it that scrolls), else To ("top", "bottom"),
// else ByY pixels with the mouse wheel (positive down) at the middle of
// the viewport, where a person's pointer would be.
type ScrollSpec struct {
	Node *Node
	To   string
	ByY  float64
}

// Scrolled is what Scroll did: the window before and once it settled, and
// the innermost panel that moved (nil when none did).
type Scrolled struct {
	Before, After ScrollPos
	Panel         *PanelPos
}

// Scroll scrolls the tab as sp says and waits for the window to settle (a
// wheel scroll is animated).
func Scroll(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, sp ScrollSpec) (Scrolled, error) {
	var r Scrolled
	s := conn.Session(tab.Session)
	main := tab.Main()
	if err := w.CallFunction(ctx, s, main, jsScrollState, &r.Before, 0); err != nil {
		return r, err
	}
	expectMove := false
	switch {
	case sp.Node != nil:
		if err := callNode(ctx, conn, w, sp.Node, jsScrollPanels, &r.Panel); err != nil {
			return r, err
		}
	case sp.To != "":
		if err := w.CallFunction(ctx, s, main, jsScrollTo, nil, sp.To); err != nil {
			return r, err
		}
	default:
		var vp struct {
			W float64 `json:"w"`
			H float64 `json:"h"`
		}
		if err := w.CallFunction(ctx, s, main, jsViewport, &vp); err != nil {
			return r, err
		}
		if err := mouseWheel(ctx, s, math.Floor(vp.W/2), math.Floor(vp.H/2), sp.ByY); err != nil {
			return r, err
		}
		expectMove = (sp.ByY > 0 && !r.Before.AtBottom) || (sp.ByY < 0 && r.Before.Y > 0)
	}
	err := w.CallFunction(ctx, s, main, jsScrollState, &r.After, 1500, expectMove, r.Before.Y)
	return r, err
}

// Checked says whether the checkbox or radio n is checked.
func Checked(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node) (bool, error) {
	var checked bool
	err := callNode(ctx, conn, w, n, jsChecked, &checked)
	return checked, err
}
