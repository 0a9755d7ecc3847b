package session

import (
	"context"
	"errors"

	"github.com/lyrad/lyrad/page"
)

// hover brings the pointer over n (page.Hover); an element that cannot
// take the pointer is the call's failure, with the next move.
func (a *act) hover(ctx context.Context, n *page.Node) error {
	_, err := page.Hover(ctx, a.b.conn, &a.b.worlds, a.b.pageTab(a.tab), n, a.group)
	return a.pointError(ctx, n, err)
}

// click clicks n with the real mouse (page.Click): nothing is pressed
// when something lies over it, also one that came over it as the pointer
// arrived.
func (a *act) click(ctx context.Context, n *page.Node) error {
	return a.pointError(ctx, n, page.Click(ctx, a.b.conn, &a.b.worlds, a.b.pageTab(a.tab), n, a.group))
}

// pointError turns why n could not take the pointer into the call's
// failure; other errors pass as they are.
func (a *act) pointError(ctx context.Context, n *page.Node, err error) error {
	var pe *page.PointError
	switch {
	case errors.As(err, &pe):
		return a.pointFailure(ctx, n, pe)
	case errors.Is(err, page.ErrNoBox):
		return noBox()
	}
	return err
}

func (a *act) pointFailure(ctx context.Context, n *page.Node, pe *page.PointError) *Error {
	switch pe.Why {
	case page.PointHidden:
		return a.failure(StatusHidden, "the element stopped being visible as it was scrolled to",
			"Read the page again (read_page) and retry.")
	case page.PointOutside:
		return a.failure(StatusNotActionable, "the element lies outside the viewport and scrolling cannot bring it in (it is placed off-screen)",
			"It is not meant to be reached from here; look for the control that shows it.")
	case page.PointCovered:
		if pe.Outer {
			return a.coveredOuter(pe, pe.Arrival)
		}
		return a.covered(ctx, n, pe.Covered, pe.Frame, pe.Page, pe.X, pe.Y, pe.Arrival)
	case page.PointFrameElement:
		return a.failure(StatusNotActionable, "the element is a frame ("+pe.Covered+"): the pointer would land on whatever the frame shows there, in its own document; nothing was dispatched",
			"Act on the element inside the frame that is meant: a selector finds it there when the page has no match, and read_page(mode=\"tree\") gives it a ref.")
	case page.PointFrameDrawn:
		return a.failure(StatusNotActionable, "the element's frame is not drawn where its box says (it is scaled, rotated or moving), so where a click would land cannot be checked; nothing was dispatched",
			"Wait for the page to settle and retry; a frame drawn transformed cannot be acted on by pointer.")
	default:
		return a.failure(StatusNotActionable, "the element's frame lies outside the viewport and scrolling cannot bring it in",
			"Scroll the page to the frame (scroll with a selector for the iframe), then retry.")
	}
}

// covered is the answer for an element something else lies over at the
// point a person would click, (x, y) in its frame: what that is, and
// whether it is itself a match of the selector (a text= that also names a
// cover, a CSS class two layers share). onArrival: it came over the
// element as the pointer arrived (a hover effect). bare: nothing is drawn
// there but the page itself (the element is clipped, or lets the pointer
// through). frame: what lies on top is a frame, showing that origin.
func (a *act) covered(ctx context.Context, n *page.Node, by, frame string, bare bool, x, y float64, onArrival bool) *Error {
	if frame != "" {
		by += " (a frame of " + frame + ")"
	}
	if bare {
		return a.failure(StatusNotActionable, "the element does not take the pointer where a person would click it, even scrolled to the middle of every panel around it: the point reaches the page itself (it is clipped by a panel, or lets the pointer through)",
			"Read the page (read_page) for the control that shows it or the one to use instead; if it sits in a panel, scroll(selector=...) on it, then retry.")
	}
	also := a.coverMatches(ctx, n, x, y)
	msg := "the element is covered by " + by
	if onArrival {
		msg = "when the pointer reached it, the element was covered by " + by
	}
	var hint string
	switch {
	case also:
		msg += ", which also matches the selector"
		hint = "What lies on top is another match of the selector: if it is the one meant, act on it with a more specific selector or its aria-ref from read_page(mode=\"tree\"); otherwise dismiss it first, then retry."
	case onArrival:
		hint = "Moving the pointer over it opened something on top (a menu, a tooltip, an overlay): act on that first, or dismiss it, then retry."
	default:
		hint = "Something lies over it at the point a person would click (a banner, a dialog, an overlay: " + by + "): act on that or dismiss it first (read_page(mode=\"tree\") lists its controls), then retry."
	}
	e := a.failure(StatusNotActionable, msg, hint).covered(by, "", also)
	if frame != "" {
		e.Covered.Origin = frame
	}
	return e
}

// coveredOuter is the answer for an element whose frame something in a
// document above it lies over at the point a person would click: a frame
// laid over another frame takes the click (clickjacking), so nothing is
// dispatched. onArrival: it came over as the pointer arrived.
func (a *act) coveredOuter(pe *page.PointError, onArrival bool) *Error {
	origin := pe.Origin
	by := pe.Covered
	if pe.Frame != "" {
		by += " (a frame of " + pe.Frame + ")"
		origin = pe.Frame
	}
	by += " in the document of " + pe.Origin
	msg := "the element is covered by " + by + ", over the frame the element is in; nothing was dispatched"
	if pe.Page {
		msg = "the point a person would click reaches the document around the element's frame (" + pe.Origin + "), not the frame: the frame is clipped there or lets the pointer through; nothing was dispatched"
	}
	if onArrival {
		msg = "when the pointer reached it, " + msg
	}
	return a.failure(StatusNotActionable, msg,
		"What lies over the element's frame would take the click. Do not work around it: read the page (read_page) for what it shows, dismiss what is on top if it is the page's own, or tell the user.").
		covered(by, origin, false)
}

// coverMatches says whether what lies at (x, y) in n's frame is one of
// the elements the call's selector names (false for an aria-ref, which
// names one element, and when the page does not say).
func (a *act) coverMatches(ctx context.Context, n *page.Node, x, y float64) bool {
	if a.sel.kind == selRef || a.sel.raw == "" || n == nil {
		return false
	}
	also, err := page.MatchesAt(ctx, a.b.conn, &a.b.worlds, page.FrameRef{Session: n.Session, Frame: n.Frame}, string(a.sel.kind), a.sel.body, x, y)
	return err == nil && also
}

func noBox() error {
	return newError(StatusHidden, "the element has no box on screen", "Read the page again (read_page) and retry.")
}
