package session

import (
	"context"
	"errors"

	"github.com/lyrad/lyrad/page"
)

// point prepares the element for the pointer (page.Point) and returns
// that point in the tab's viewport and in its frame's; an element that
// cannot take the pointer is the call's failure, with the next move.
func (a *act) point(ctx context.Context, n *page.Node) (x, y, fx, fy float64, err error) {
	x, y, fx, fy, err = page.Point(ctx, a.b.conn, &a.b.worlds, a.b.pageTab(a.tab), n, a.group)
	var pe *page.PointError
	switch {
	case errors.As(err, &pe):
		return 0, 0, 0, 0, a.pointFailure(pe)
	case errors.Is(err, page.ErrNoBox):
		return 0, 0, 0, 0, noBox()
	}
	return x, y, fx, fy, err
}

func (a *act) pointFailure(pe *page.PointError) *Error {
	switch pe.Why {
	case page.PointHidden:
		return a.failure(StatusHidden, "the element stopped being visible as it was scrolled to",
			"Read the page again (read_page) and retry.")
	case page.PointOutside:
		return a.failure(StatusNotActionable, "the element lies outside the viewport and scrolling cannot bring it in (it is placed off-screen)",
			"It is not meant to be reached from here; look for the control that shows it.")
	case page.PointCovered:
		return a.failure(StatusNotActionable, "the element is covered by "+pe.Covered,
			"Something lies over it at the point a person would click (a banner, a dialog, an overlay): close or dismiss "+pe.Covered+" first, then retry.").
			with("covered_by", pe.Covered)
	default:
		return a.failure(StatusNotActionable, "the element's frame lies outside the viewport and scrolling cannot bring it in",
			"Scroll the page to the frame (scroll with a selector for the iframe), then retry.")
	}
}

func noBox() error {
	return newError(StatusHidden, "the element has no box on screen", "Read the page again (read_page) and retry.")
}
