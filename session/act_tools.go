package session

import (
	"context"
	"errors"
	"math"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/page"
)

// Click clicks the element a selector names (see act.go for the pipeline).
// The reply carries matches, clicked {tag, role, name}, url, tab_count, and
// new_tab, navigated, dialogs when they happened.
func (m *Manager) Click(ctx context.Context, c Caller, opts ActOptions) (map[string]any, error) {
	return m.pointer(ctx, c, opts, actClick)
}

// Hover moves the pointer over the element a selector names. The reply
// carries matches and hovered.
func (m *Manager) Hover(ctx context.Context, c Caller, opts ActOptions) (map[string]any, error) {
	return m.pointer(ctx, c, opts, actHover)
}

func (m *Manager) pointer(ctx context.Context, c Caller, opts ActOptions, kind actKind) (map[string]any, error) {
	return m.onElement(ctx, c, opts, kind, func(actx context.Context, e *elementAction) (map[string]any, error) {
		ac, a, loc, st, w := e.ac, e.a, e.loc, e.st, e.w
		n := loc.Node

		x, y, fx, fy, err := ac.point(actx, n)
		if err != nil {
			return nil, ac.annotate(actx, err, kind.verb())
		}
		s := ac.b.conn.Session(ac.tab.SessionID)
		if err := page.MouseMove(actx, s, x, y); err != nil {
			return nil, ac.annotate(actx, err, kind.verb())
		}
		linger := lingerLight
		if kind == actClick {
			// The pointer's arrival can change the page (a hover menu over the
			// button, the button replaced): check again before pressing.
			var hit struct {
				Gone    bool   `json:"gone"`
				Covered string `json:"covered"`
			}
			if err := ac.b.call(actx, n, page.JSHit, &hit, fx, fy); err != nil {
				return nil, ac.annotate(actx, err, kind.verb())
			}
			if hit.Gone {
				return nil, ac.annotate(actx, &page.NodeGoneError{Err: errors.New("detached")}, kind.verb())
			}
			if hit.Covered != "" {
				return nil, ac.failure(StatusNotActionable, "when the pointer reached it, the element was covered by "+hit.Covered,
					"Moving the pointer over it opened something on top (a menu, a tooltip, an overlay): act on that first, or dismiss it, then retry.").
					with("covered_by", hit.Covered).with("matches", loc.Matches)
			}
			if err := page.MouseClick(actx, s, x, y); err != nil {
				return nil, ac.annotate(actx, err, kind.verb())
			}
			linger = lingerPress
		}
		o := w.settle(actx, a, linger, ac.drain(actx, n))
		out := map[string]any{"matches": loc.Matches}
		if kind == actClick {
			out["clicked"] = st.info()
		} else {
			out["hovered"] = st.info()
		}
		return ac.finish(ctx, a, o, out)
	})
}

// TypeText replaces what a text field holds with text, as typed text
// arrives (Input.insertText: beforeinput and input fire), and with submit
// presses Enter after it. The text is never echoed in the reply.
func (m *Manager) TypeText(ctx context.Context, c Caller, opts ActOptions, text string, submit bool) (map[string]any, error) {
	return m.onElement(ctx, c, opts, actType, func(actx context.Context, e *elementAction) (map[string]any, error) {
		ac, a, loc, st, w := e.ac, e.a, e.loc, e.st, e.w
		n := loc.Node

		var focused bool
		if err := ac.b.call(actx, n, page.JSFocusText, &focused); err != nil {
			return nil, ac.annotate(actx, err, "type_text")
		}
		if !focused {
			return nil, ac.failure(StatusNotActionable, "the field did not take the focus (the page moved it elsewhere)",
				"Click the field first, then type_text again; the page may open something in front of it.").with("matches", loc.Matches)
		}
		// Keys and text go to the focused frame through the tab's session.
		s := ac.b.conn.Session(ac.tab.SessionID)
		var err error
		if text == "" {
			// Nothing to insert: delete the selection, which is all it held.
			err = page.Press(actx, s, page.DeleteKey)
		} else {
			err = page.InsertText(actx, s, text)
		}
		if err != nil {
			return nil, ac.annotate(actx, err, "type_text")
		}
		linger := lingerLight
		if submit {
			if err := page.Press(actx, s, page.EnterKey); err != nil {
				return nil, ac.annotate(actx, err, "type_text")
			}
			linger = lingerPress
		}
		o := w.settle(actx, a, linger, ac.drain(actx, n))
		out := map[string]any{"matches": loc.Matches, "typed_into": st.info(), "typed_chars": len([]rune(text))}
		if submit {
			out["submitted"] = true
		}
		return ac.finish(ctx, a, o, out)
	})
}

// elementAction is an action on the element a call's selector names, set
// up by onElement.
type elementAction struct {
	ac  *actCall
	a   *Action
	loc *located
	st  elemState
	w   *watcher
}

// onElement runs do on the element opts.Selector names: the usability
// check for kind first (so an unusable control neither prompts nor spends
// a grant), then the action's consent and credits, its timeout (actx), and
// a watch on what it sets off, opened before any input is sent.
func (m *Manager) onElement(ctx context.Context, c Caller, opts ActOptions, kind actKind, do func(actx context.Context, e *elementAction) (map[string]any, error)) (out map[string]any, err error) {
	ac, end, err := m.beginCall(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	defer func() { end(err) }()
	loc, st, err := ac.waitUsable(ctx, kind)
	if err != nil {
		return nil, err
	}
	// The element's own frame is where the input lands: a cross-site
	// iframe's site, not the page's.
	site, err := ac.siteOfNode(ctx, loc.Node)
	if err != nil {
		return nil, err
	}
	a, err := m.beginAction(ctx, c, opts.Intent, site)
	if err != nil {
		return nil, err
	}
	defer a.End()
	actx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	w := ac.b.watch(ac.tab, loc.Node.Session)
	defer w.close()
	return do(actx, &elementAction{ac: ac, a: a, loc: loc, st: st, w: w})
}

// PressKey presses a key or chord ("Enter", "Control+a") in the focused
// element of the active tab.
func (m *Manager) PressKey(ctx context.Context, c Caller, key string, opts ActOptions) (out map[string]any, err error) {
	ch, perr := page.ParseChord(key)
	if perr != nil {
		return nil, newError(StatusError, perr.Error(),
			`Name one key, with modifiers joined by "+": Enter, Escape, Tab, ArrowDown, PageDown, F5, a, Control+a, Shift+Tab, Control+Shift+ArrowLeft.`).with("argument", "key")
	}
	ac, end, err := m.beginCall(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	defer func() { end(err) }()
	// The key reaches the focused frame's document.
	site, err := ac.focusedSite(ctx)
	if err != nil {
		return nil, err
	}
	a, err := m.beginAction(ctx, c, opts.Intent, site)
	if err != nil {
		return nil, err
	}
	defer a.End()
	actx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	w := ac.b.watch(ac.tab, ac.focusedSessions()...)
	defer w.close()
	if err := page.Press(actx, ac.b.conn.Session(ac.tab.SessionID), ch); err != nil {
		return nil, ac.annotate(actx, err, "key press")
	}
	o := w.settle(actx, a, lingerPress, ac.drain(actx, nil))
	return ac.finish(ctx, a, o, map[string]any{"key": key})
}

// focusedSessions are the sessions a key press can land in: the tab's
// out-of-process frames, any of which may hold the focus.
func (ac *actCall) focusedSessions() []target.SessionID {
	var out []target.SessionID
	for _, f := range ac.b.guard.Frames(ac.tab.ID) {
		out = append(out, f.SessionID)
	}
	return out
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
// is in view. The reply is where it settled.
func (m *Manager) Scroll(ctx context.Context, c Caller, so ScrollOptions) (out map[string]any, err error) {
	ac, end, err := m.beginCall(ctx, c, so.ActOptions)
	if err != nil {
		return nil, err
	}
	defer func() { end(err) }()
	var loc *located
	var st elemState
	var site string
	if so.Selector != "" {
		if loc, st, err = ac.waitUsable(ctx, actScroll); err != nil {
			return nil, err
		}
		site, err = ac.siteOfNode(ctx, loc.Node)
	} else {
		site, err = ac.pageSite(ctx)
	}
	if err != nil {
		return nil, err
	}
	a, err := m.beginAction(ctx, c, so.Intent, site)
	if err != nil {
		return nil, err
	}
	defer a.End()
	actx, cancel := context.WithTimeout(ctx, so.Timeout)
	defer cancel()
	b := ac.b
	s := b.conn.Session(ac.tab.SessionID)
	main := cdp.FrameID(ac.tab.ID)
	var before scrollState
	if err := b.worlds.CallFunction(actx, s, main, page.JSScrollState, &before, 0); err != nil {
		return nil, ac.annotate(actx, err, "scroll")
	}
	out = map[string]any{}
	expectMove := false
	switch {
	case loc != nil:
		if err := b.call(actx, loc.Node, page.JSScrollIntoView, nil); err != nil {
			return nil, ac.annotate(actx, err, "scroll")
		}
		out["matches"] = loc.Matches
		out["scrolled_to"] = st.info()
	case so.To != "":
		if err := b.worlds.CallFunction(actx, s, main, page.JSScrollTo, nil, so.To); err != nil {
			return nil, ac.annotate(actx, err, "scroll")
		}
	default:
		// The wheel where a person's pointer would be: the middle of the
		// viewport.
		var vp struct {
			W float64 `json:"w"`
			H float64 `json:"h"`
		}
		if err := b.worlds.CallFunction(actx, s, main, `function() { return {w: innerWidth, h: innerHeight}; }`, &vp); err != nil {
			return nil, ac.annotate(actx, err, "scroll")
		}
		if err := page.MouseWheel(actx, s, math.Floor(vp.W/2), math.Floor(vp.H/2), float64(so.ByY)); err != nil {
			return nil, ac.annotate(actx, err, "scroll")
		}
		canMove := (so.ByY > 0 && !before.AtBottom) || (so.ByY < 0 && before.Y > 0)
		expectMove = canMove
	}
	var after scrollState
	if err := b.worlds.CallFunction(actx, s, main, page.JSScrollState, &after, 1500, expectMove, before.Y); err != nil {
		return nil, ac.annotate(actx, err, "scroll")
	}
	out["scroll_y"] = int64(after.Y)
	out["scroll_height"] = int64(after.Height)
	out["viewport_height"] = int64(after.View)
	out["at_bottom"] = after.AtBottom
	moved := after.Y != before.Y
	out["moved"] = moved
	o := outcome{}
	res, err := ac.finish(ctx, a, o, out)
	if err != nil {
		return nil, err
	}
	if !moved {
		why := "The window did not move"
		switch {
		case loc != nil:
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
		res["hint"] = joinHints(res["hint"], why+". Content that scrolls inside its own panel moves with scroll(selector=...) on an element inside it.")
	} else if so.To == "bottom" || so.ByY > 0 {
		if after.AtBottom {
			res["hint"] = joinHints(res["hint"], "At the bottom. A page that loads more as you reach the end grows after a moment: scroll(to=\"bottom\") again until at_bottom stays true.")
		}
	}
	return res, nil
}

func joinHints(prev any, h string) string {
	if p, ok := prev.(string); ok && p != "" {
		return p + " " + h
	}
	return h
}
