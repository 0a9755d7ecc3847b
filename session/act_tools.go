package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/lyrad/lyrad/page"
)

// The tools that act on a page with input. Each states its own step; the
// pipeline (act.go) does the rest.

// Click clicks the element a selector names.
func (m *Manager) Click(ctx context.Context, c Caller, opts ActOptions) (*ActResult, error) {
	return m.pointer(ctx, c, opts, actClick)
}

// Hover moves the pointer over the element a selector names.
func (m *Manager) Hover(ctx context.Context, c Caller, opts ActOptions) (*ActResult, error) {
	return m.pointer(ctx, c, opts, actHover)
}

func (m *Manager) pointer(ctx context.Context, c Caller, opts ActOptions, kind actKind) (*ActResult, error) {
	spec := actSpec{verb: kind.verb(), opts: opts, usable: kind, on: onElement, watch: settleInput}
	if kind == actClick {
		spec.downloadWait, spec.downloadGrace = opts.Timeout, BlockedGrace
	}
	spec.do = func(ctx context.Context, a *act) error {
		a.res.Element = a.st.info()
		if kind == actHover {
			if _, _, _, _, err := a.pointAt(ctx, a.loc.Node); err != nil {
				return err
			}
			a.settle(ctx, lingerLight, a.loc.Node)
			return nil
		}
		if err := a.clickNode(ctx, a.loc.Node); err != nil {
			return err
		}
		a.settle(ctx, lingerPress, a.loc.Node)
		return nil
	}
	return m.act(ctx, c, spec)
}

// pointAt brings the pointer over n, into view first, and answers the
// point in the tab's viewport and in n's frame (for the hit check).
func (a *act) pointAt(ctx context.Context, n *page.Node) (x, y, fx, fy float64, err error) {
	if x, y, fx, fy, err = a.point(ctx, n); err != nil {
		return 0, 0, 0, 0, err
	}
	return x, y, fx, fy, page.MouseMove(ctx, a.b.conn.Session(a.tab.SessionID), x, y)
}

// clickNode clicks n with the real mouse: the pointer arrives, and since
// its arrival can change the page (a hover menu over the button, the
// button replaced) the hit is checked again before pressing.
func (a *act) clickNode(ctx context.Context, n *page.Node) error {
	x, y, fx, fy, err := a.pointAt(ctx, n)
	if err != nil {
		return err
	}
	var hit struct {
		Gone    bool   `json:"gone"`
		Covered string `json:"covered"`
	}
	if err := a.b.call(ctx, n, page.JSHit, &hit, fx, fy); err != nil {
		return err
	}
	if hit.Gone {
		return &page.NodeGoneError{Err: errors.New("detached")}
	}
	if hit.Covered != "" {
		return a.failure(StatusNotActionable, "when the pointer reached it, the element was covered by "+hit.Covered,
			"Moving the pointer over it opened something on top (a menu, a tooltip, an overlay): act on that first, or dismiss it, then retry.").
			with("covered_by", hit.Covered)
	}
	return page.MouseClick(ctx, a.b.conn.Session(a.tab.SessionID), x, y)
}

// TypeText replaces what a text field holds with text, as typed text
// arrives (Input.insertText: beforeinput and input fire), and with submit
// presses Enter after it. The text is never echoed in the reply.
func (m *Manager) TypeText(ctx context.Context, c Caller, opts ActOptions, text string, submit bool) (*ActResult, error) {
	return m.act(ctx, c, actSpec{verb: "type_text", opts: opts, usable: actType, on: onElement, watch: settleInput,
		do: func(ctx context.Context, a *act) error {
			n := a.loc.Node
			var focused bool
			if err := a.b.call(ctx, n, page.JSFocusText, &focused); err != nil {
				return err
			}
			if !focused {
				return a.failure(StatusNotActionable, "the field did not take the focus (the page moved it elsewhere)",
					"Click the field first, then type_text again; the page may open something in front of it.")
			}
			// Keys and text go to the focused frame through the tab's
			// session.
			s := a.b.conn.Session(a.tab.SessionID)
			var err error
			if text == "" {
				// Nothing to insert: delete the selection, which is all it
				// held.
				err = page.Press(ctx, s, page.DeleteKey)
			} else {
				err = page.InsertText(ctx, s, text)
			}
			if err != nil {
				return err
			}
			linger := lingerLight
			if submit {
				if err := page.Press(ctx, s, page.EnterKey); err != nil {
					return err
				}
				linger = lingerPress
			}
			a.res.Element, a.res.TypedChars, a.res.Submitted = a.st.info(), len([]rune(text)), submit
			a.settle(ctx, linger, n)
			return nil
		}})
}

// PressKey presses a key or chord ("Enter", "Control+a") in the focused
// element of the active tab.
func (m *Manager) PressKey(ctx context.Context, c Caller, key string, opts ActOptions) (*ActResult, error) {
	ch, err := page.ParseChord(key)
	if err != nil {
		return nil, newError(StatusError, err.Error(),
			`Name one key, with modifiers joined by "+": Enter, Escape, Tab, ArrowDown, PageDown, F5, a, Control+a, Shift+Tab, Control+Shift+ArrowLeft.`).with("argument", "key")
	}
	return m.act(ctx, c, actSpec{verb: "key press", opts: opts, on: onFocus, watch: settleInput,
		downloadWait: keyDownloadWait, downloadGrace: BlockedGrace,
		do: func(ctx context.Context, a *act) error {
			if err := page.Press(ctx, a.b.conn.Session(a.tab.SessionID), ch); err != nil {
				return err
			}
			a.res.Key = key
			a.settle(ctx, lingerPress, nil)
			return nil
		}})
}

// keyDownloadWait is how long press_key(download=true) waits for the file
// to start.
const keyDownloadWait = 10 * time.Second

// SelectBy says how select_option names the option: exactly one of Value,
// Label or Index (Index is used when By is "index").
type SelectBy struct {
	By    string // "value", "label" or "index"
	Value string // the value or the label
	Index int64
}

// SelectOption chooses an option of a <select> by value, label or index.
// A choice whose change listener sends a form is judged like any other
// send (declare it with submits=true).
func (m *Manager) SelectOption(ctx context.Context, c Caller, opts ActOptions, by SelectBy) (*ActResult, error) {
	return m.act(ctx, c, actSpec{verb: "select_option", opts: opts, usable: actSelect, on: onElement, watch: settleInput,
		do: func(ctx context.Context, a *act) error {
			var res struct {
				Missing        bool     `json:"missing"`
				Choices        []string `json:"choices"`
				Count          int      `json:"count"`
				DisabledOption bool     `json:"disabledOption"`
				Value          string   `json:"value"`
				Label          string   `json:"label"`
				Index          int      `json:"index"`
			}
			if err := a.b.call(ctx, a.loc.Node, page.JSSelect, &res, by.By, by.Value, by.Index); err != nil {
				return err
			}
			want := by.Value
			if by.By == "index" {
				want = fmt.Sprint(by.Index)
			}
			switch {
			case res.Missing:
				return a.failure(StatusNotFound, fmt.Sprintf("no option with %s %q among the %d of %s %q", by.By, want, res.Count, a.st.Role, a.st.Name),
					"Pick one of the options listed in choices (read_page shows the list too).").with("choices", res.Choices)
			case res.DisabledOption:
				return a.failure(StatusDisabled, fmt.Sprintf("the option %q is disabled", res.Label),
					"The page does not offer it now; another choice may enable it.")
			}
			a.res.Element = a.st.info()
			a.res.Selected = &SelectedOption{Value: res.Value, Label: res.Label, Index: res.Index}
			a.settle(ctx, lingerPress, a.loc.Node)
			return nil
		}})
}

// ScrollOptions: exactly one of To ("top", "bottom"), ByY (pixels, with the
// mouse wheel) or Selector.
type ScrollOptions struct {
	ActOptions
	To  string
	ByY int64 // pixels with the wheel, positive down; 0 when not given
}

// scrollState is what page.JSScrollState reports.
type scrollState struct {
	Y        float64 `json:"y"`
	Height   float64 `json:"height"`
	View     float64 `json:"view"`
	AtBottom bool    `json:"atBottom"`
}

// Scroll moves the window: to an end, by a wheel turn, or until an element
// is in view. The answer is where it settled.
func (m *Manager) Scroll(ctx context.Context, c Caller, so ScrollOptions) (*ActResult, error) {
	on := onPage
	if so.Selector != "" {
		on = onElement
	}
	return m.act(ctx, c, actSpec{verb: "scroll", opts: so.ActOptions, usable: actScroll, on: on, watch: settleInput,
		do: func(ctx context.Context, a *act) error {
			b := a.b
			s := b.conn.Session(a.tab.SessionID)
			main := cdp.FrameID(a.tab.ID)
			var before scrollState
			if err := b.worlds.CallFunction(ctx, s, main, page.JSScrollState, &before, 0); err != nil {
				return err
			}
			expectMove := false
			switch {
			case a.loc != nil:
				if err := b.call(ctx, a.loc.Node, page.JSScrollIntoView, nil); err != nil {
					return err
				}
				a.res.Element = a.st.info()
			case so.To != "":
				if err := b.worlds.CallFunction(ctx, s, main, page.JSScrollTo, nil, so.To); err != nil {
					return err
				}
			default:
				// The wheel where a person's pointer would be: the middle
				// of the viewport.
				var vp struct {
					W float64 `json:"w"`
					H float64 `json:"h"`
				}
				if err := b.worlds.CallFunction(ctx, s, main, `function() { return {w: innerWidth, h: innerHeight}; }`, &vp); err != nil {
					return err
				}
				if err := page.MouseWheel(ctx, s, math.Floor(vp.W/2), math.Floor(vp.H/2), float64(so.ByY)); err != nil {
					return err
				}
				expectMove = (so.ByY > 0 && !before.AtBottom) || (so.ByY < 0 && before.Y > 0)
			}
			var after scrollState
			if err := b.worlds.CallFunction(ctx, s, main, page.JSScrollState, &after, 1500, expectMove, before.Y); err != nil {
				return err
			}
			moved := after.Y != before.Y
			a.res.Scroll = &ScrollPosition{Y: int64(after.Y), Height: int64(after.Height), ViewportHeight: int64(after.View), AtBottom: after.AtBottom, Moved: moved}
			a.res.Hints = append(a.res.Hints, scrollHint(so, a.loc != nil, before, after, moved)...)
			return nil
		}})
}

// scrollHint says why the window did not move, or that the bottom was
// reached.
func scrollHint(so ScrollOptions, toElement bool, before, after scrollState, moved bool) []string {
	if !moved {
		why := "The window did not move"
		switch {
		case toElement:
			why += ": the element was already in view, or it sits in a panel that scrolls by itself"
		case so.To == "bottom" || so.ByY > 0:
			if before.AtBottom {
				why += ": it is already at the bottom"
			}
		case so.To == "top" || so.ByY < 0:
			if before.Y == 0 {
				why += ": it is already at the top"
			}
		}
		return []string{why + ". Content that scrolls inside its own panel moves with scroll(selector=...) on an element inside it."}
	}
	if (so.To == "bottom" || so.ByY > 0) && after.AtBottom {
		return []string{"At the bottom. A page that loads more as you reach the end grows after a moment: scroll(to=\"bottom\") again until at_bottom stays true."}
	}
	return nil
}
