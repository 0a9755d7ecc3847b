package session

import (
	"context"
	"errors"
	"math"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
)

// point prepares the element for the pointer (into view, the point to aim
// at, nothing covering it) and returns that point in the tab's viewport.
func (a *act) point(ctx context.Context, n *page.Node) (x, y, fx, fy float64, err error) {
	b := a.b
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
			return 0, 0, 0, 0, a.failure(StatusHidden, "the element stopped being visible as it was scrolled to",
				"Read the page again (read_page) and retry.")
		case p.Outside:
			return 0, 0, 0, 0, a.failure(StatusNotActionable, "the element lies outside the viewport and scrolling cannot bring it in (it is placed off-screen)",
				"It is not meant to be reached from here; look for the control that shows it.")
		case p.Covered != "":
			return 0, 0, 0, 0, a.failure(StatusNotActionable, "the element is covered by "+p.Covered,
				"Something lies over it at the point a person would click (a banner, a dialog, an overlay): close or dismiss "+p.Covered+" first, then retry.").
				with("covered_by", p.Covered)
		}
		if n.Session == a.tab.SessionID && n.Frame == cdp.FrameID(a.tab.ID) {
			return p.X, p.Y, p.X, p.Y, nil
		}
		dx, dy, err := b.frameOffset(ctx, a.tab, n, p.Left, p.Top)
		if err != nil {
			return 0, 0, 0, 0, err
		}
		x, y = p.X+dx, p.Y+dy
		// The frame's own view can be in order while the frame itself lies
		// outside the tab's viewport: check in the tab's terms.
		ms := b.conn.Session(a.tab.SessionID)
		lm, err := cdp.Call(ctx, ms, cdppage.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return 0, 0, 0, 0, err
		}
		vw, vh := float64(lm.CSSLayoutViewport.ClientWidth), float64(lm.CSSLayoutViewport.ClientHeight)
		if x >= 0 && y >= 0 && x < vw && y < vh {
			if (p.Scrolled || attempt > 0) && n.Session != a.tab.SessionID {
				if err := b.worlds.CallFunction(ctx, ms, cdp.FrameID(a.tab.ID), page.JSFrames, nil); err != nil {
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
			owner, err := b.iframeOwner(ctx, a.tab, n.Session, a.group)
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
			if err := b.worlds.CallFunction(ctx, ms, cdp.FrameID(a.tab.ID), `function(dx, dy) { scrollBy({left: dx, top: dy, behavior: 'instant'}); }`, nil,
				centreDelta(x, vw), centreDelta(y, vh)); err != nil {
				return 0, 0, 0, 0, err
			}
		default:
			return 0, 0, 0, 0, a.failure(StatusNotActionable, "the element's frame lies outside the viewport and scrolling cannot bring it in",
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
