package page

import (
	"context"
	"errors"
	"math"
	"net/url"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
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
	// PointFrameDrawn: its frame is not drawn where its box says (scaled,
	// rotated, or moving), so where the pointer would land is not known.
	PointFrameDrawn
	// PointFrameElement: it is a frame element (Covered names it): the
	// pointer would land on what the frame shows, in its document.
	PointFrameElement
)

// PointError: the element cannot take the pointer where it stands;
// Covered names what lies over it (PointCovered), at (X, Y) in the
// element's frame's viewport; Page, that nothing is drawn over it there
// (the point reaches the page itself: the element is clipped, or lets the
// pointer through). Outer: what covers it lies in a document above the
// element's frame, over the frame, at (X, Y) of that document, whose
// origin is Origin; Frame, the origin a frame that covers it shows.
// Arrival: it came over the element as the pointer arrived (Click's check
// before the press), a hover effect.
type PointError struct {
	Why     PointWhy
	Covered string
	X, Y    float64
	Page    bool
	Outer   bool
	Origin  string
	Frame   string
	Arrival bool
}

func (e *PointError) Error() string {
	switch e.Why {
	case PointHidden:
		return "the element stopped being visible as it was scrolled to"
	case PointOutside:
		return "the element lies outside the viewport"
	case PointCovered:
		return "the element is covered by " + e.Covered
	case PointFrameDrawn:
		return "the element's frame is not drawn where its box says"
	case PointFrameElement:
		return "the element is a frame"
	default:
		return "the element's frame lies outside the viewport"
	}
}

// aimed is where the pointer goes: the point in the tab's viewport (X, Y)
// and in the element's frame's (FX, FY). InList: the element is an item of
// a list, a menu, a tree or a grid, or inside one, where pages often pick
// what the pointer moves over.
type aimed struct {
	X, Y, FX, FY float64
	InList       bool
}

// aimAt prepares the element for the pointer (into view, the point to aim
// at, nothing covering it) and returns where to aim. Handles it needs are
// held in group. An element that cannot take the pointer is a *PointError.
func aimAt(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, n *Node, group string) (aimed, error) {
	x, y, fx, fy, list, err := point(ctx, conn, w, tab, n, group)
	return aimed{X: x, Y: y, FX: fx, FY: fy, InList: list}, err
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
			Frame    string  `json:"coverFrame"`
			List     bool    `json:"inList"`
			FrameEl  string  `json:"frameElement"`
		}
		if err := callNode(ctx, conn, w, n, jsPrepare, &p); err != nil {
			return 0, 0, 0, 0, false, err
		}
		switch {
		case p.Gone:
			return 0, 0, 0, 0, false, &NodeGoneError{Err: errors.New("detached")}
		case p.FrameEl != "":
			return 0, 0, 0, 0, false, &PointError{Why: PointFrameElement, Covered: p.FrameEl}
		case p.Hidden:
			return 0, 0, 0, 0, false, &PointError{Why: PointHidden}
		case p.Outside:
			return 0, 0, 0, 0, false, &PointError{Why: PointOutside}
		case p.Covered != "":
			if p.Frame == "?" {
				p.Frame = hitFrameOrigin(ctx, conn, n, p.X, p.Y)
			}
			return 0, 0, 0, 0, false, &PointError{Why: PointCovered, Covered: p.Covered, X: p.X, Y: p.Y, Page: p.Page, Frame: p.Frame}
		}
		if n.Session == tab.Session && n.Frame == tab.Main() {
			return p.X, p.Y, p.X, p.Y, p.List, nil
		}
		dx, dy, err := frameOffset(ctx, conn, tab, n, p.Left, p.Top)
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
				if err := w.CallFunction(ctx, ms, tab.Main(), jsFrames, nil); err != nil {
					return 0, 0, 0, 0, false, err
				}
			}
			if err := frameHitCheck(ctx, conn, w, tab, n, p.X, p.Y, x, y, group); err != nil {
				return 0, 0, 0, 0, false, err
			}
			return x, y, p.X, p.Y, p.List, nil
		}
		switch attempt {
		case 0:
			// Bring the iframe in: a scroll in its parent's document, done
			// where that document runs, so it has happened when it answers
			// (Chrome's own scroll-into-view crosses processes later).
			owner, err := iframeOwner(ctx, conn, tab, n.Session, group)
			if err != nil {
				return 0, 0, 0, 0, false, err
			}
			if owner != nil {
				if err := callNode(ctx, conn, w, owner, jsScrollIntoView, nil); err != nil {
					return 0, 0, 0, 0, false, err
				}
			}
		case 1:
			// An iframe taller than the viewport: scroll the page by what
			// is left.
			if err := w.CallFunction(ctx, ms, tab.Main(), jsScrollBy, nil,
				centreDelta(x, vw), centreDelta(y, vh)); err != nil {
				return 0, 0, 0, 0, false, err
			}
		default:
			return 0, 0, 0, 0, false, &PointError{Why: PointFrameOutside}
		}
	}
}

// frameHitCheck checks that the point (fx, fy) in the viewport of n's frame,
// (x, y) in the tab's, reaches that frame through every document above
// it: in each, what is at the point is the frame element that holds the
// frame below (through shadow roots), the point carried up by where each
// frame's content box sits. The top document is tested at (x, y), where
// input goes; a point carried up to somewhere else (a frame scaled,
// rotated or moving) is PointFrameDrawn. Anything else at the point is
// PointCovered, Outer. A target in the tab's main frame has nothing above.
func frameHitCheck(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, n *Node, fx, fy, x, y float64, group string) error {
	sid, frame := n.Session, n.Frame
	px, py := fx, fy
	for depth := 0; sid != tab.Session || frame != tab.Main(); depth++ {
		if depth > 16 {
			return errors.New("frames nested too deep")
		}
		owner, err := frameOwner(ctx, conn, tab, sid, frame, group)
		if err != nil {
			return err
		}
		top := owner.Session == tab.Session && owner.Frame == tab.Main()
		var r struct {
			Gone    bool    `json:"gone"`
			X       float64 `json:"x"`
			Y       float64 `json:"y"`
			HX      float64 `json:"hx"`
			HY      float64 `json:"hy"`
			Origin  string  `json:"origin"`
			Covered string  `json:"covered"`
			Page    bool    `json:"coverPage"`
			Frame   string  `json:"frame"`
		}
		if err := callNode(ctx, conn, w, owner, jsFrameHit, &r, px, py, top, x, y); err != nil {
			return err
		}
		if r.Gone {
			return &NodeGoneError{Err: errors.New("its frame's element is gone")}
		}
		if r.Covered != "" {
			if r.Frame == "?" {
				r.Frame = hitFrameOrigin(ctx, conn, owner, r.HX, r.HY)
			}
			return &PointError{Why: PointCovered, Covered: r.Covered, X: r.HX, Y: r.HY, Page: r.Page, Outer: true, Origin: r.Origin, Frame: r.Frame}
		}
		if top && (math.Abs(r.X-x) > 2 || math.Abs(r.Y-y) > 2) {
			return &PointError{Why: PointFrameDrawn, X: x, Y: y}
		}
		px, py, sid, frame = r.X, r.Y, owner.Session, owner.Frame
	}
	return nil
}

// frameOwner is the element that holds frame (reached over session sid)
// in the document around it: an out-of-process frame's iframe element in
// its parent's session (iframeOwner), a same-process frame's in its
// parent frame.
func frameOwner(ctx context.Context, conn *cdpconn.Conn, tab Tab, sid target.SessionID, frame cdp.FrameID, group string) (*Node, error) {
	if sid != tab.Session {
		for _, f := range tab.oopifs() {
			if f.Session == sid && f.Frame == frame {
				return iframeOwner(ctx, conn, tab, sid, group)
			}
		}
	}
	s := conn.Session(sid)
	owner, err := cdp.Call(ctx, s, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: frame})
	if err != nil || owner.BackendNodeID == 0 {
		return nil, &NodeGoneError{Err: errors.New("its frame's element is gone")}
	}
	tree, err := cdp.Call(ctx, s, cdppage.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	parent := parentIn(tree.FrameTree, frame)
	if parent == "" {
		return nil, &NodeGoneError{Err: errors.New("its frame is gone")}
	}
	return NewNode(sid, parent, owner.BackendNodeID, group), nil
}

// parentIn is the frame that holds frame in the tree t, "" when none does.
func parentIn(t *cdppage.FrameTree, frame cdp.FrameID) cdp.FrameID {
	if t == nil || t.Frame == nil {
		return ""
	}
	for _, c := range t.ChildFrames {
		if c.Frame != nil && c.Frame.ID == frame {
			return t.Frame.ID
		}
		if p := parentIn(c, frame); p != "" {
			return p
		}
	}
	return ""
}

// hitFrameOrigin is the origin of the frame that lies at (hx, hy) in the
// document of owner (an element already called on), when that document
// cannot read it (another origin's frame): by the frame CDP names for the
// element, from its session's frame tree or its own target; "another
// origin" when neither says.
func hitFrameOrigin(ctx context.Context, conn *cdpconn.Conn, owner *Node, hx, hy float64) string {
	const unknown = "another origin"
	s := conn.Session(owner.Session)
	args, err := scriptArgs([]any{hx, hy})
	if err != nil || owner.object == "" {
		return unknown
	}
	t := true
	res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: jsFrameHitAt, ObjectID: owner.object, Arguments: args, ObjectGroup: owner.group, Silent: &t,
	})
	if err != nil || res.ExceptionDetails != nil || res.Result == nil || res.Result.ObjectID == "" {
		return unknown
	}
	d, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID})
	if err != nil || d.Node == nil || d.Node.FrameID == "" {
		return unknown
	}
	if tree, err := cdp.Call(ctx, s, cdppage.GetFrameTree, cdp.Empty{}); err == nil {
		if f := findFrame(tree.FrameTree, d.Node.FrameID); f != nil && f.SecurityOrigin != "" && f.SecurityOrigin != "://" {
			return f.SecurityOrigin
		}
	}
	info, err := cdp.Call(ctx, conn.Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: target.ID(d.Node.FrameID)})
	if err == nil && info.TargetInfo != nil {
		if u, err := url.Parse(info.TargetInfo.URL); err == nil && u.Host != "" {
			return u.Scheme + "://" + u.Host
		}
	}
	return unknown
}

func findFrame(t *cdppage.FrameTree, id cdp.FrameID) *cdp.Frame {
	if t == nil || t.Frame == nil {
		return nil
	}
	if t.Frame.ID == id {
		return t.Frame
	}
	for _, c := range t.ChildFrames {
		if f := findFrame(c, id); f != nil {
			return f
		}
	}
	return nil
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
func iframeOwner(ctx context.Context, conn *cdpconn.Conn, tab Tab, sid target.SessionID, group string) (*Node, error) {
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

// frameOffset is where the viewport of the element's frame sits in the
// tab's viewport. Within one session Chrome's own geometry (content quads)
// is in that session's root viewport, so a same-process frame's offset is
// the quad's corner less the frame-local one; an out-of-process frame adds
// where its iframe element's content box sits, recursively.
func frameOffset(ctx context.Context, conn *cdpconn.Conn, tab Tab, n *Node, left, top float64) (dx, dy float64, err error) {
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
		var p dom.GetContentQuadsParams
		if err := n.domParams(ctx, conn, &p.ObjectID, &p.BackendNodeID); err != nil {
			return 0, 0, err
		}
		q, err := cdp.Call(ctx, conn.Session(n.Session), dom.GetContentQuads, p)
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
