package page

import (
	"context"
	"errors"
	"math"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// ErrNoBox: the element has no box on screen.
var ErrNoBox = errors.New("the element has no box on screen")

// PointWhy is why an element cannot take the pointer.
type PointWhy int

const (
	// PointHidden: it stopped being visible as it was scrolled to.
	PointHidden PointWhy = iota + 1
	// PointOutside: it lies outside the viewport and scrolling cannot
	// bring it in.
	PointOutside
	// PointCovered: something else is at the point a person would click.
	PointCovered
	// PointFrameOutside: its frame lies outside the tab's viewport and
	// scrolling cannot bring it in.
	PointFrameOutside
)

// PointError: the element cannot take the pointer where it stands;
// Covered names what lies over it (PointCovered), at (X, Y) in the
// element's frame's viewport; Page, that nothing is drawn over it there
// (the point reaches the page itself: the element is clipped, or lets the
// pointer through).
type PointError struct {
	Why     PointWhy
	Covered string
	X, Y    float64
	Page    bool
}

func (e *PointError) Error() string {
	switch e.Why {
	case PointHidden:
		return "the element stopped being visible as it was scrolled to"
	case PointOutside:
		return "the element lies outside the viewport"
	case PointCovered:
		return "the element is covered by " + e.Covered
	default:
		return "the element's frame lies outside the viewport"
	}
}

// Aim is where the pointer goes: the point in the tab's viewport (X, Y)
// and in the element's frame's (FX, FY). InList: the element is an item of
// a list, a menu, a tree or a grid, or inside one, where pages often pick
// what the pointer moves over.
type Aim struct {
	X, Y, FX, FY float64
	InList       bool
}

// Point prepares the element for the pointer (into view, the point to aim
// at, nothing covering it) and returns where to aim. Handles it needs are
// held in group. An element that cannot take the pointer is a *PointError.
func Point(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, n *Node, group string) (Aim, error) {
	x, y, fx, fy, list, err := point(ctx, conn, w, tab, n, group)
	return Aim{X: x, Y: y, FX: fx, FY: fy, InList: list}, err
}

func point(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, n *Node, group string) (x, y, fx, fy float64, list bool, err error) {
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
			Page     bool    `json:"coverPage"`
			List     bool    `json:"inList"`
		}
		if err := Call(ctx, conn, w, n, JSPrepare, &p); err != nil {
			return 0, 0, 0, 0, false, err
		}
		switch {
		case p.Gone:
			return 0, 0, 0, 0, false, &NodeGoneError{Err: errors.New("detached")}
		case p.Hidden:
			return 0, 0, 0, 0, false, &PointError{Why: PointHidden}
		case p.Outside:
			return 0, 0, 0, 0, false, &PointError{Why: PointOutside}
		case p.Covered != "":
			return 0, 0, 0, 0, false, &PointError{Why: PointCovered, Covered: p.Covered, X: p.X, Y: p.Y, Page: p.Page}
		}
		if n.Session == tab.Session && n.Frame == tab.Main() {
			return p.X, p.Y, p.X, p.Y, p.List, nil
		}
		dx, dy, err := FrameOffset(ctx, conn, tab, n, p.Left, p.Top)
		if err != nil {
			return 0, 0, 0, 0, false, err
		}
		x, y = p.X+dx, p.Y+dy
		// The frame's own view can be in order while the frame itself lies
		// outside the tab's viewport: check in the tab's terms.
		ms := conn.Session(tab.Session)
		lm, err := cdp.Call(ctx, ms, cdppage.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return 0, 0, 0, 0, false, err
		}
		vw, vh := float64(lm.CSSLayoutViewport.ClientWidth), float64(lm.CSSLayoutViewport.ClientHeight)
		if x >= 0 && y >= 0 && x < vw && y < vh {
			if (p.Scrolled || attempt > 0) && n.Session != tab.Session {
				if err := w.CallFunction(ctx, ms, tab.Main(), JSFrames, nil); err != nil {
					return 0, 0, 0, 0, false, err
				}
			}
			return x, y, p.X, p.Y, p.List, nil
		}
		switch attempt {
		case 0:
			// Bring the iframe in: a scroll in its parent's document, done
			// where that document runs, so it has happened when it answers
			// (Chrome's own scroll-into-view crosses processes later).
			owner, err := IframeOwner(ctx, conn, tab, n.Session, group)
			if err != nil {
				return 0, 0, 0, 0, false, err
			}
			if owner != nil {
				if err := Call(ctx, conn, w, owner, JSScrollIntoView, nil); err != nil {
					return 0, 0, 0, 0, false, err
				}
			}
		case 1:
			// An iframe taller than the viewport: scroll the page by what
			// is left.
			if err := w.CallFunction(ctx, ms, tab.Main(), `function(dx, dy) { scrollBy({left: dx, top: dy, behavior: 'instant'}); }`, nil,
				centreDelta(x, vw), centreDelta(y, vh)); err != nil {
				return 0, 0, 0, 0, false, err
			}
		default:
			return 0, 0, 0, 0, false, &PointError{Why: PointFrameOutside}
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

// IframeOwner is the iframe element of the out-of-process frame whose
// session is sid, in its parent's session; nil for the tab's own session.
func IframeOwner(ctx context.Context, conn *cdpconn.Conn, tab Tab, sid target.SessionID, group string) (*Node, error) {
	if sid == tab.Session {
		return nil, nil
	}
	for _, f := range tab.oopifs() {
		if f.Session != sid {
			continue
		}
		parents := []OOPIF{{Frame: tab.Main(), Session: tab.Session}}
		parents = append(parents, tab.oopifs()...)
		for _, p := range parents {
			if p.Session == sid {
				continue
			}
			owner, err := cdp.Call(ctx, conn.Session(p.Session), dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: f.Frame})
			if err != nil || owner.BackendNodeID == 0 {
				continue
			}
			frame := f.ParentFrame
			if frame == "" {
				frame = p.Frame
			}
			return NewNode(p.Session, frame, owner.BackendNodeID, group), nil
		}
	}
	return nil, &NodeGoneError{Err: errors.New("its frame's iframe element is gone")}
}

// FrameOffset is where the viewport of the element's frame sits in the
// tab's viewport. Within one session Chrome's own geometry (content quads)
// is in that session's root viewport, so a same-process frame's offset is
// the quad's corner less the frame-local one; an out-of-process frame adds
// where its iframe element's content box sits, recursively.
func FrameOffset(ctx context.Context, conn *cdpconn.Conn, tab Tab, n *Node, left, top float64) (dx, dy float64, err error) {
	root := tab.Main()
	var oopif *OOPIF
	if n.Session != tab.Session {
		for _, f := range tab.oopifs() {
			if f.Session == n.Session {
				f := f
				oopif = &f
				root = f.Frame
			}
		}
		if oopif == nil {
			return 0, 0, &NodeGoneError{Err: errors.New("its frame is gone")}
		}
	}
	if n.Frame != root {
		q, err := cdp.Call(ctx, conn.Session(n.Session), dom.GetContentQuads, dom.GetContentQuadsParams{BackendNodeID: n.Backend})
		if err != nil {
			return 0, 0, err
		}
		if len(q.Quads) == 0 || len(q.Quads[0]) < 8 {
			return 0, 0, ErrNoBox
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
		ox, oy, err := ownerOffset(ctx, conn, tab, *oopif, 0)
		if err != nil {
			return 0, 0, err
		}
		dx, dy = dx+ox, dy+oy
	}
	return dx, dy, nil
}

// ownerOffset is where an out-of-process frame's content box sits in the
// tab's viewport: its iframe element lives in the tab's session or in
// another out-of-process frame's.
func ownerOffset(ctx context.Context, conn *cdpconn.Conn, tab Tab, f OOPIF, depth int) (float64, float64, error) {
	if depth > 8 {
		return 0, 0, errors.New("frames nested too deep")
	}
	parents := []OOPIF{{Frame: tab.Main(), Session: tab.Session}}
	for _, o := range tab.oopifs() {
		if o.Session != f.Session {
			parents = append(parents, o)
		}
	}
	for i, p := range parents {
		s := conn.Session(p.Session)
		owner, err := cdp.Call(ctx, s, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: f.Frame})
		if err != nil || owner.BackendNodeID == 0 {
			continue
		}
		box, err := cdp.Call(ctx, s, dom.GetBoxModel, dom.GetBoxModelParams{BackendNodeID: owner.BackendNodeID})
		if err != nil || box.Model == nil || len(box.Model.Content) < 8 {
			return 0, 0, ErrNoBox
		}
		x, y := quadMin(box.Model.Content)
		if i == 0 {
			return x, y, nil // the tab's own document
		}
		px, py, err := ownerOffset(ctx, conn, tab, p, depth+1)
		return x + px, y + py, err
	}
	return 0, 0, &NodeGoneError{Err: errors.New("its frame's iframe element is gone")}
}

func quadMin(q dom.Quad) (float64, float64) {
	x, y := math.Inf(1), math.Inf(1)
	for i := 0; i+1 < len(q); i += 2 {
		x, y = math.Min(x, q[i]), math.Min(y, q[i+1])
	}
	return x, y
}
