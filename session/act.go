package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
)

// The acting tools (click, hover, type_text, press_key, scroll) share one
// pipeline:
//
//  1. resolve the target and wait, at most appearWindow, until it is usable:
//     present, visible, enabled (and a writable text field for type_text).
//     This only reads the page, so an unusable control neither prompts nor
//     spends a grant (not_found, hidden, disabled, element_not_actionable);
//  2. beginAction: INTERACT on the origin of the document the input will
//     reach (interact.go), then the credits for what the call declared;
//  3. act with real input, bounded by timeout_ms (timeout);
//  4. listen for what the action set off (act_watch.go): a navigation the
//     guard refused (blocked_by_policy), a tab it opened (new_tab), the tab
//     closing under it (page_closed), dialogs it raised.

// Acting statuses, named as the seed names them.
const (
	StatusNotFound      = "not_found"
	StatusHidden        = "hidden"
	StatusDisabled      = "disabled"
	StatusNotActionable = "element_not_actionable"
)

// appearWindow is how long a target may take to appear, show or be
// enabled (a page still building its controls) before the call says so.
const appearWindow = 3 * time.Second

// How long an action listens, once its input was delivered and the page ran
// the tasks it queued, for effects that come later from the browser's side
// (a popup's tab, a navigation started from an out-of-process frame). A
// click and a key press are what open tabs and send forms; the pointer
// arriving and typed text rarely do, so they listen less.
const (
	lingerPress = 10 * time.Millisecond
	lingerLight = 5 * time.Millisecond
)

// maxDialogsReported caps the dialogs a reply lists (a storm is counted).
const maxDialogsReported = 20

// ActOptions are what every acting call takes.
type ActOptions struct {
	Selector string
	Timeout  time.Duration // bounds the action itself; 0 is raised to 1 ms
	Intent   Intent
}

type actKind int

const (
	actClick actKind = iota
	actHover
	actType
	actScroll
	actSelect
)

func (k actKind) verb() string {
	return [...]string{"click", "hover", "type_text", "scroll", "select_option"}[k]
}

// elemState is what page.JSState reports.
type elemState struct {
	Connected bool   `json:"connected"`
	Visible   bool   `json:"visible"`
	Enabled   bool   `json:"enabled"`
	TextField bool   `json:"textField"`
	ReadOnly  bool   `json:"readOnly"`
	Tag       string `json:"tag"`
	Role      string `json:"role"`
	Name      string `json:"name"`
}

func (s elemState) info() map[string]any {
	return map[string]any{"tag": s.Tag, "role": s.Role, "name": s.Name}
}

// actCall is one acting call under way.
type actCall struct {
	m     *Manager
	b     *Browser
	c     Caller
	tab   cdpguard.Target
	sel   parsedSelector
	opts  ActOptions
	start time.Time
	group string // object group of the handles this call holds
}

// failure is an acting error envelope: status, what went wrong, the next
// move, and the selector and url it happened at.
func (ac *actCall) failure(status, msg, hint string) *Error {
	e := newError(status, msg, hint)
	if ac.sel.raw != "" {
		e.with("selector", ac.sel.raw)
	}
	e.with("url", ac.tab.URL)
	return e
}

// annotate adds selector and url to an *Error that lacks them, and turns
// other errors into envelopes.
func (ac *actCall) annotate(ctx context.Context, err error, what string) error {
	var se *Error
	if !errors.As(err, &se) {
		var gone *page.NodeGoneError
		switch {
		case errors.As(err, &gone):
			se = newError(StatusNotActionable, "the element was removed from the page (detached) during the "+what,
				"The page replaced it; read the page again (read_page) and retry with a fresh selector or ref.")
		case cdpconn.IsTargetGone(err):
			se = ac.pageClosed(ctx)
		default:
			var ok bool
			if se, ok = callError(ctx, err, what).(*Error); !ok {
				se = newError(StatusError, err.Error(), "Retry.")
			}
			if se.Status == StatusTimeout {
				se.Message = "the " + what + " did not finish within timeout_ms"
				se.Hint = "The page did not answer in time. The action may have landed: look at the page (read_page, get_url) before repeating it; a larger timeout_ms (at most 30000) gives a slow page longer."
			}
		}
	}
	if se.Fields == nil || se.Fields["selector"] == nil {
		if ac.sel.raw != "" {
			se.with("selector", ac.sel.raw)
		}
	}
	if se.Fields["url"] == nil {
		se.with("url", ac.tab.URL)
	}
	return se
}

// pageClosed is the answer for a tab that died under the call: where the
// session stands now.
func (ac *actCall) pageClosed(ctx context.Context) *Error {
	e := newError(StatusPageClosed, "the tab closed during the "+ac.verb(),
		"The session moved to another tab (the one that opened it, else the newest); call get_url or tabs to see where it stands.")
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	// The call saw the tab die before the guard's registry did: let the
	// registry catch up (a moment), so where the session stands is read
	// after it moved, not from the dying tab.
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, alive := ac.b.guard.Page(ac.tab.ID); !alive {
			break
		}
	}
	if t, err := ac.b.activePage(ctx); err == nil {
		url, _ := ac.b.fresh(ctx, t)
		e.with("url", url)
	}
	e.with("tab_count", len(ac.b.pages()))
	return e
}

func (ac *actCall) verb() string { return "action" }

// clampTimeout applies timeout_ms's rules: default 10 s, at most 30 s, and
// 0 (or less) raised to 1 ms, never "no limit".
func clampTimeout(ms int64, given bool) time.Duration {
	if !given {
		return 10 * time.Second
	}
	if ms < 1 {
		ms = 1
	}
	if ms > 30000 {
		ms = 30000
	}
	return time.Duration(ms) * time.Millisecond
}

// ClampTimeout is clampTimeout for the tools layer.
func ClampTimeout(ms int64, given bool) time.Duration { return clampTimeout(ms, given) }

// begin admits the call and resolves the tab it acts on. The returned end
// must be called with the call's final error.
func (m *Manager) beginCall(ctx context.Context, c Caller, opts ActOptions) (*actCall, func(err error), error) {
	ac := &actCall{m: m, c: c, opts: opts, start: time.Now(), group: page.NewActGroup()}
	if opts.Selector != "" {
		sel, err := parseSelector(opts.Selector)
		if err != nil {
			return nil, nil, err
		}
		ac.sel = sel
	}
	b, done, err := m.enter(c, mutate)
	if err != nil {
		done()
		return nil, nil, err
	}
	if b == nil {
		done()
		return nil, nil, notOpen()
	}
	ac.b = b
	tab, err := b.activePage(ctx)
	if err != nil {
		b.dialogs.use("")(true) // an acting call uses the armed answer up, also when it fails
		done()
		return nil, nil, newError(StatusPageClosed, err.Error(), "Call open_browser again.")
	}
	ac.tab = tab
	// The armed answer is for the dialogs of the tab this call acts on.
	endDialogs := b.dialogs.use(tab.ID)
	end := func(err error) {
		var need *ConsentNeeded
		// A call that asked for consent did nothing and will be repeated
		// with the answer: the dialog answer stays armed for it.
		endDialogs(!errors.As(err, &need))
		sessions := []target.SessionID{tab.SessionID}
		for _, f := range b.guard.Frames(tab.ID) {
			sessions = append(sessions, f.SessionID)
		}
		page.ReleaseHandles(b.conn, ac.group, sessions...)
		done()
	}
	return ac, end, nil
}

// waitUsable resolves the selector and waits, at most appearWindow (and
// the call's own time), until its target is present, visible and enabled,
// and for type_text a writable text field. A page that changes wakes the
// wait at once (page.JSWaitChange).
func (ac *actCall) waitUsable(ctx context.Context, kind actKind) (*located, elemState, error) {
	b := ac.b
	window := appearWindow
	if ac.opts.Timeout < window {
		window = ac.opts.Timeout
	}
	wctx, cancel := context.WithTimeout(ctx, window)
	defer cancel()
	var last string
	looked := false // the page answered at least once
	var loc *located
	var st elemState
	for {
		var err error
		loc, err = b.locate(wctx, ac.tab, ac.sel, ac.group)
		if err == nil && loc.Node != nil {
			st = elemState{}
			err = b.call(wctx, loc.Node, page.JSState, &st)
		}
		var se *Error
		var gone *page.NodeGoneError
		switch {
		case errors.As(err, &se):
			// A bad selector or a stale ref: no waiting makes it good.
			return nil, st, ac.annotate(ctx, se, kind.verb())
		case errors.As(err, &gone), err != nil && cdpconn.IsContextGone(err):
			// Gone as we looked (the frame navigated): look again.
			last, looked = StatusNotFound, true
		case err != nil && wctx.Err() == nil:
			return nil, st, ac.annotate(ctx, err, kind.verb())
		case err != nil:
			// The window ran out mid-look: answer with what was seen last.
		default:
			last = ""
			looked = true
			switch {
			case loc.Node == nil || !st.Connected:
				last = StatusNotFound
			case !st.Visible:
				last = StatusHidden
			case !st.Enabled:
				last = StatusDisabled
			}
			if last == "" {
				if kind == actType && !st.TextField {
					return nil, st, ac.failure(StatusNotActionable, fmt.Sprintf("the %s is not a text field (%s %q)", st.Tag, st.Role, st.Name),
						"type_text needs an input, a textarea or an editable element; click or press_key act on other controls, and select lists take select_option.").with("matches", loc.Matches)
				}
				if kind == actSelect && st.Tag != "select" {
					return nil, st, ac.failure(StatusNotActionable, fmt.Sprintf("the %s is not a select list (%s %q)", st.Tag, st.Role, st.Name),
						"select_option needs a <select>; a custom dropdown is clicked open, then its option clicked.").with("matches", loc.Matches)
				}
				if kind == actType && st.ReadOnly {
					return nil, st, ac.failure(StatusNotActionable, fmt.Sprintf("the field is read-only (%s %q)", st.Role, st.Name),
						"The page does not let this field be typed into; look for the control that edits it.").with("matches", loc.Matches)
				}
				return loc, st, nil
			}
		}
		if wctx.Err() != nil {
			if !looked {
				// The time ran out before the page answered once.
				return nil, st, ac.failure(StatusTimeout, fmt.Sprintf("the page did not answer within timeout_ms (%v)", ac.opts.Timeout),
					"The page is busy or the limit is too small: retry with a larger timeout_ms (at most 30000).")
			}
			return nil, st, ac.notReady(last, loc, st, window)
		}
		if ac.sel.kind == selRef && last == StatusNotFound {
			return nil, st, ac.failure(StatusNotFound, "the element of "+ac.sel.raw+" is gone", RefHint)
		}
		// Wait for the page to change, in the frame the target is in.
		f := page.FrameRef{Session: ac.tab.SessionID, Frame: cdp.FrameID(ac.tab.ID)}
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
func (ac *actCall) notReady(status string, loc *located, st elemState, window time.Duration) *Error {
	w := window.Round(100 * time.Millisecond).String()
	var e *Error
	switch status {
	case StatusHidden:
		e = ac.failure(StatusHidden, fmt.Sprintf("the %s %q is in the page but was not visible for %s", st.Role, st.Name, w),
			"It may open from a menu, a tab or a section that is collapsed: hover or click what reveals it, then retry; scroll(selector=...) if it is lazily shown.")
	case StatusDisabled:
		e = ac.failure(StatusDisabled, fmt.Sprintf("the %s %q stayed disabled for %s", st.Role, st.Name, w),
			"The page enables it once something else is done (a required field, a checkbox); read_page shows what, then retry.")
	default:
		e = ac.failure(StatusNotFound, "nothing matches the selector (waited "+w+")",
			`Check the selector against the page: read_page(mode="tree") lists what can be acted on with a ref for each; wait_for waits for a page that is still loading.`)
	}
	if loc != nil && loc.Matches > 0 {
		e.with("matches", loc.Matches)
	}
	return e
}

// point prepares the element for the pointer (into view, the point to aim
// at, nothing covering it) and returns that point in the tab's viewport.
func (ac *actCall) point(ctx context.Context, n *page.Node) (x, y, fx, fy float64, err error) {
	b := ac.b
	for attempt := 0; ; attempt++ {
		var p struct {
			Gone     bool    `json:"gone"`
			Hidden   bool    `json:"hidden"`
			Outside  bool    `json:"outside"`
			X        float64 `json:"x"`
			Y        float64 `json:"y"`
			Left     float64 `json:"left"`
			Top      float64 `json:"top"`
			Scrolled bool    `json:"scrolled"`
			Covered  string  `json:"covered"`
		}
		if err := b.call(ctx, n, page.JSPrepare, &p); err != nil {
			return 0, 0, 0, 0, err
		}
		switch {
		case p.Gone:
			return 0, 0, 0, 0, &page.NodeGoneError{Err: errors.New("detached")}
		case p.Hidden:
			return 0, 0, 0, 0, ac.failure(StatusHidden, "the element stopped being visible as it was scrolled to",
				"Read the page again (read_page) and retry.")
		case p.Outside:
			return 0, 0, 0, 0, ac.failure(StatusNotActionable, "the element lies outside the viewport and scrolling cannot bring it in (it is placed off-screen)",
				"It is not meant to be reached from here; look for the control that shows it.")
		case p.Covered != "":
			return 0, 0, 0, 0, ac.failure(StatusNotActionable, "the element is covered by "+p.Covered,
				"Something lies over it at the point a person would click (a banner, a dialog, an overlay): close or dismiss "+p.Covered+" first, then retry.").
				with("covered_by", p.Covered)
		}
		if n.Session == ac.tab.SessionID && n.Frame == cdp.FrameID(ac.tab.ID) {
			return p.X, p.Y, p.X, p.Y, nil
		}
		dx, dy, err := b.frameOffset(ctx, ac.tab, n, p.Left, p.Top)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		x, y = p.X+dx, p.Y+dy
		// The frame's own view can be in order while the frame itself lies
		// outside the tab's viewport: check in the tab's terms.
		ms := b.conn.Session(ac.tab.SessionID)
		lm, err := cdp.Call(ctx, ms, cdppage.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return 0, 0, 0, 0, err
		}
		vw, vh := float64(lm.CSSLayoutViewport.ClientWidth), float64(lm.CSSLayoutViewport.ClientHeight)
		if x >= 0 && y >= 0 && x < vw && y < vh {
			if (p.Scrolled || attempt > 0) && n.Session != ac.tab.SessionID {
				if err := b.worlds.CallFunction(ctx, ms, cdp.FrameID(ac.tab.ID), page.JSFrames, nil); err != nil {
					return 0, 0, 0, 0, err
				}
			}
			return x, y, p.X, p.Y, nil
		}
		switch attempt {
		case 0:
			// Bring the iframe in: a scroll in its parent's document, done
			// where that document runs, so it has happened when it answers
			// (Chrome's own scroll-into-view crosses processes later).
			owner, err := b.iframeOwner(ctx, ac.tab, n.Session, ac.group)
			if err != nil {
				return 0, 0, 0, 0, err
			}
			if owner != nil {
				if err := b.call(ctx, owner, page.JSScrollIntoView, nil); err != nil {
					return 0, 0, 0, 0, err
				}
			}
		case 1:
			// An iframe taller than the viewport: scroll the page by what
			// is left.
			if err := b.worlds.CallFunction(ctx, ms, cdp.FrameID(ac.tab.ID), `function(dx, dy) { scrollBy({left: dx, top: dy, behavior: 'instant'}); }`, nil,
				centreDelta(x, vw), centreDelta(y, vh)); err != nil {
				return 0, 0, 0, 0, err
			}
		default:
			return 0, 0, 0, 0, ac.failure(StatusNotActionable, "the element's frame lies outside the viewport and scrolling cannot bring it in",
				"Scroll the page to the frame (scroll with a selector for the iframe), then retry.")
		}
	}
}

// centreDelta is how far to scroll to bring v to the middle of a viewport
// of size size, or 0 when it is inside already.
func centreDelta(v, size float64) float64 {
	if v >= 0 && v < size {
		return 0
	}
	return math.Round(v - size/2)
}

// iframeOwner is the iframe element of the out-of-process frame whose
// session is sid, in its parent's session; nil for the tab's own session.
func (b *Browser) iframeOwner(ctx context.Context, tab cdpguard.Target, sid target.SessionID, group string) (*page.Node, error) {
	if sid == tab.SessionID {
		return nil, nil
	}
	for _, f := range b.guard.Frames(tab.ID) {
		if f.SessionID != sid {
			continue
		}
		parents := []cdpguard.Target{tab}
		parents = append(parents, b.guard.Frames(tab.ID)...)
		for _, p := range parents {
			if p.SessionID == sid {
				continue
			}
			owner, err := cdp.Call(ctx, b.conn.Session(p.SessionID), dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: cdp.FrameID(f.ID)})
			if err != nil || owner.BackendNodeID == 0 {
				continue
			}
			frame := f.ParentFrame
			if frame == "" {
				frame = cdp.FrameID(p.ID)
			}
			return page.NewNode(p.SessionID, frame, owner.BackendNodeID, group), nil
		}
	}
	return nil, &page.NodeGoneError{Err: errors.New("its frame's iframe element is gone")}
}

// frameOffset is where the viewport of the element's frame sits in the
// tab's viewport. Within one session Chrome's own geometry (content quads)
// is in that session's root viewport, so a same-process frame's offset is
// the quad's corner less the frame-local one; an out-of-process frame adds
// where its iframe element's content box sits, recursively.
func (b *Browser) frameOffset(ctx context.Context, tab cdpguard.Target, n *page.Node, left, top float64) (dx, dy float64, err error) {
	root := cdp.FrameID(tab.ID)
	var oopif *cdpguard.Target
	if n.Session != tab.SessionID {
		for _, f := range b.guard.Frames(tab.ID) {
			if f.SessionID == n.Session {
				f := f
				oopif = &f
				root = cdp.FrameID(f.ID)
			}
		}
		if oopif == nil {
			return 0, 0, &page.NodeGoneError{Err: errors.New("its frame is gone")}
		}
	}
	if n.Frame != root {
		q, err := cdp.Call(ctx, b.conn.Session(n.Session), dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: n.Backend})
		if err != nil {
			return 0, 0, err
		}
		if len(q.Quads) == 0 || len(q.Quads[0]) < 8 {
			return 0, 0, noBox()
		}
		// The quads' corner is the bounding box's, as left and top are.
		qx, qy := math.Inf(1), math.Inf(1)
		for _, quad := range q.Quads {
			x, y := quadMin(quad)
			qx, qy = math.Min(qx, x), math.Min(qy, y)
		}
		dx, dy = qx-left, qy-top
	}
	if oopif != nil {
		ox, oy, err := b.ownerOffset(ctx, tab, *oopif, 0)
		if err != nil {
			return 0, 0, err
		}
		dx, dy = dx+ox, dy+oy
	}
	return dx, dy, nil
}

func noBox() error {
	return newError(StatusHidden, "the element has no box on screen", "Read the page again (read_page) and retry.")
}

// ownerOffset is where an out-of-process frame's content box sits in the
// tab's viewport: its iframe element lives in the tab's session or in
// another out-of-process frame's.
func (b *Browser) ownerOffset(ctx context.Context, tab cdpguard.Target, f cdpguard.Target, depth int) (float64, float64, error) {
	if depth > 8 {
		return 0, 0, errors.New("frames nested too deep")
	}
	parents := []cdpguard.Target{tab}
	for _, o := range b.guard.Frames(tab.ID) {
		if o.SessionID != f.SessionID {
			parents = append(parents, o)
		}
	}
	for _, p := range parents {
		s := b.conn.Session(p.SessionID)
		owner, err := cdp.Call(ctx, s, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: cdp.FrameID(f.ID)})
		if err != nil || owner.BackendNodeID == 0 {
			continue
		}
		box, err := cdp.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: owner.BackendNodeID})
		if err != nil || box.Model == nil || len(box.Model.Content) < 8 {
			return 0, 0, noBox()
		}
		x, y := quadMin(box.Model.Content)
		if p.ID == tab.ID {
			return x, y, nil
		}
		px, py, err := b.ownerOffset(ctx, tab, p, depth+1)
		return x + px, y + py, err
	}
	return 0, 0, &page.NodeGoneError{Err: errors.New("its frame's iframe element is gone")}
}

func quadMin(q dom.Quad) (float64, float64) {
	x, y := math.Inf(1), math.Inf(1)
	for i := 0; i+1 < len(q); i += 2 {
		x, y = math.Min(x, q[i]), math.Min(y, q[i+1])
	}
	return x, y
}

// drain lets the page run what the input queued (see page.JSDrain), in the
// frame that received it and in the tab's main frame, and closes the
// returned channel when it has. It runs while settle listens: after input
// the page often renders a frame before it runs a timer, and the two waits
// need not add up.
func (ac *actCall) drain(ctx context.Context, n *page.Node) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		b := ac.b
		if n != nil && (n.Session != ac.tab.SessionID || n.Frame != cdp.FrameID(ac.tab.ID)) {
			_ = b.worlds.CallFunction(dctx, b.conn.Session(n.Session), n.Frame, page.JSDrain, nil)
		}
		_ = b.worlds.CallFunction(dctx, b.conn.Session(ac.tab.SessionID), cdp.FrameID(ac.tab.ID), page.JSDrain, nil)
	}()
	return done
}

// finish turns what the action set off into its reply: ok with what is
// known, or blocked_by_policy / page_closed carrying the same fields.
func (ac *actCall) finish(ctx context.Context, a *Action, o outcome, out map[string]any) (map[string]any, error) {
	b := ac.b
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if ds := b.dialogs.since(ac.start); len(ds) > 0 {
		list, more := dialogReplies(ds, maxDialogsReported)
		out["dialogs"] = list
		if more > 0 {
			out["dialogs_more"] = more
		}
	}
	var hints []string
	if m, ok := out["matches"].(int); ok && m > 1 {
		hints = append(hints, fmt.Sprintf("%d elements matched; the first visible one was used. If it was the wrong one, use a more specific selector or an aria-ref from read_page(mode=\"tree\").", m))
	}
	if o.tabClosed {
		e := ac.pageClosed(qctx)
		for k, v := range out {
			if _, ok := e.Fields[k]; !ok {
				e.with(k, v)
			}
		}
		return nil, e
	}
	out["tab_count"] = len(b.pages())
	if len(o.newTabs) > 0 {
		out["new_tab"] = true
		hints = append(hints, "The action opened a new tab, and the session is now on it: read_page reads it. tabs lists the tabs and tabs(action=\"switch\") goes back.")
	}
	if o.navigated {
		out["navigated"] = true
	}
	if o.navPending {
		out["navigating"] = true
		hints = append(hints, "The page is still loading what the action started; wait_for(load_state=\"load\") waits for it.")
	}
	url, title := b.fresh(qctx, ac.tab)
	out["url"], out["title"] = url, title
	if ac.sel.raw != "" {
		out["selector"] = ac.sel.raw
	}
	if err := a.blockedWith(qctx, o.refusedOn...); err != nil {
		for k, v := range out {
			if _, ok := err.Fields[k]; !ok && k != "hint" {
				err.with(k, v)
			}
		}
		return nil, err
	}
	if len(hints) > 0 {
		out["hint"] = strings.Join(hints, " ")
	}
	return out, nil
}

// blockedWith is Action.blocked looking at the popups the action opened
// too, as an *Error.
func (a *Action) blockedWith(ctx context.Context, extra ...target.ID) *Error {
	r := a.Refused(extra...)
	if r == nil {
		return nil
	}
	err := a.blocked(ctx)
	var se *Error
	if errors.As(err, &se) {
		return se
	}
	// The refusal was on a tab the action opened (its first navigation):
	// the lead's blocked only looks at the action's own tab.
	url, _ := a.b.fresh(ctx, a.Tab)
	return newError(StatusBlocked, "the guard refused the navigation of the tab the action opened, so no tab was opened",
		"Nothing approved covers where the new tab was going; navigate there to be asked for it.").with("url", url)
}
