package page

import (
	"context"
	"errors"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/snapshot"
)

// ErrRegionGone: the region a tree read was limited to has no layout
// (its frame went away, or it is not rendered).
var ErrRegionGone = errors.New("the region has no layout")

// treeFrame is one document of the tab as a tree read fetches it.
type treeFrame struct {
	Frame
	ax     []snapshot.AXNode
	layout *DocLayout
	out    *snapshot.Frame
}

// TreeRead is a tree read under way: the tab's frames are listed; the
// caller may find the region to limit it to, then Read.
type TreeRead struct {
	conn   *cdpconn.Conn
	w      *Worlds
	tab    Tab
	frames map[cdp.FrameID]*treeFrame
	main   *treeFrame
	listed time.Duration // listing the frames
	fetch  *treeFetch
}

// StartTree lists the tab's frames for a tree read. A tab whose main frame
// is not among them (it closed) is ErrTabGone. With early set, what every
// read of the whole tab needs (the viewport, the main frame's
// accessibility tree, the tab's layout snapshot, in that order, so that the
// tree, the longest to compute, is decoded while Chrome takes the layout)
// is asked for at once, while the frames are listed; a read limited to a region leaves it unset, so that finding
// the region is not queued behind them in the renderer.
func StartTree(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, early bool) (*TreeRead, error) {
	start := time.Now()
	tf := newTreeFetch(conn)
	pf, err := treeFrames(ctx, conn, tab, func() {
		if early {
			tf.metrics(ctx, tab.Session)
			tf.axTree(ctx, tab.Session, tab.Main())
			tf.layout(ctx, tab.Session)
		}
	})
	if err != nil {
		return nil, err
	}
	t := &TreeRead{conn: conn, w: w, tab: tab, frames: make(map[cdp.FrameID]*treeFrame, len(pf)), listed: time.Since(start), fetch: tf}
	for id, f := range pf {
		t.frames[id] = &treeFrame{Frame: *f}
	}
	if t.main = t.frames[tab.Main()]; t.main == nil {
		return nil, ErrTabGone
	}
	return t, nil
}

// FindRegion finds the element a CSS or text= selector names in the main
// frame (snapshot.JSFind); 0 when nothing matches.
func (t *TreeRead) FindRegion(ctx context.Context, sel string) (cdp.BackendNodeID, error) {
	return FindNode(ctx, t.conn, t.w, t.main.Session, t.main.ID, snapshot.JSFind, sel)
}

// Tree is what a tree read saw: the visible items in reading order
// (on-screen first), how many are on screen, and where it spent its time.
type Tree struct {
	Items      []snapshot.Item
	InView     int
	MainLoader cdp.LoaderID
	Fetch      time.Duration // asking Chrome
	Build      time.Duration // building the map
	Steps      TreeSteps
	frames     map[cdp.FrameID]*treeFrame
	tab        target.ID
}

// TreeSteps is where a tree read spent its time, for the debug log: the
// wall time of each step, and for the steps that run side by side the
// longest call and the decoding summed over all of them.
type TreeSteps struct {
	Frames       time.Duration // listing the tab's frames
	Layout       time.Duration // longest DOMSnapshot call, JSON decoding included
	LayoutDecode time.Duration // turning the DOMSnapshots into boxes, summed
	AX           time.Duration // longest getFullAXTree call, JSON decoding included
	Metrics      time.Duration // getLayoutMetrics
	Owners       time.Duration // finding out-of-process frames' iframes
	Assemble     time.Duration // walking the trees into items, ordering them
	AXNodes      int           // accessibility nodes, all frames
}

// Ref is the handle of one of the tree's items.
func (tr *Tree) Ref(it snapshot.Item) ElementRef {
	f := tr.frames[cdp.FrameID(it.Frame.ID)]
	return ElementRef{TabID: tr.tab, SessionID: f.Session, FrameID: f.ID, Backend: cdp.BackendNodeID(it.Backend), Role: it.Role, Name: it.Name, Loader: f.Loader}
}

// Read reads the tab's action map, limited to the subtree of regionNode in
// regionFrame when regionNode is not 0 (ErrRegionGone when that region has
// no layout).
func (t *TreeRead) Read(ctx context.Context, regionFrame cdp.FrameID, regionNode cdp.BackendNodeID) (*Tree, error) {
	frames, main := t.frames, t.main
	startFetch := time.Now()
	tf := t.fetch
	// The accessibility trees first: they take Chrome longest, and we
	// decode each while Chrome still works on what was asked after it.
	tf.metrics(ctx, t.tab.Session)
	for _, f := range frames {
		tf.axTree(ctx, f.Session, f.ID)
	}
	for _, f := range frames {
		tf.layout(ctx, f.Session)
	}
	err := tf.wait()
	fetched := time.Now()
	if err != nil {
		return nil, err
	}
	steps, vp := tf.steps, tf.vp
	steps.Frames = t.listed
	for _, f := range frames {
		f.ax = tf.ax[f.ID]
		if l := tf.layouts[f.Session]; l != nil {
			f.layout = l.Docs[f.ID]
		}
	}

	ownersStart := time.Now()
	// A frame whose parent its own target does not name (an out-of-process
	// root) is found through its owner element.
	for _, f := range frames {
		if f == main || (f.Parent != "" && frames[f.Parent] != nil) {
			continue
		}
		f.Parent = t.adoptFrame(ctx, f)
	}
	// Where each frame stands in the tab: its iframe element's box.
	for _, f := range frames {
		f.out = &snapshot.Frame{ID: string(f.ID), Session: string(f.Session), Loader: string(f.Loader), AX: f.ax, Children: map[int64]*snapshot.Frame{}}
		if f.layout != nil && f.layout.HasWordBreaks() {
			f.out.WordBreakText = f.layout.WordBreakText
		}
	}
	var place func(f *treeFrame, dx, dy float64, clip *snapshot.Rect)
	place = func(f *treeFrame, dx, dy float64, clip *snapshot.Rect) {
		l := f.layout
		f.out.Clip = clip
		f.out.Box = func(backend int64) (snapshot.Rect, bool) {
			if l == nil {
				return snapshot.Rect{}, false
			}
			r, ok := l.Boxes[cdp.BackendNodeID(backend)]
			r.X += dx
			r.Y += dy
			return r, ok
		}
		for _, c := range frames {
			if c.Parent != f.ID || c == f {
				continue
			}
			owner := t.frameOwner(ctx, f, c)
			if owner == 0 {
				continue
			}
			f.out.Children[int64(owner)] = c.out
			box, _ := f.out.Box(int64(owner))
			cclip := box
			if clip != nil {
				cclip = intersect(box, *clip)
			}
			sx, sy := 0.0, 0.0
			if c.layout != nil {
				sx, sy = c.layout.ScrollX, c.layout.ScrollY
			}
			place(c, box.X-sx, box.Y-sy, &cclip)
		}
	}
	place(main, 0, 0, nil)
	steps.Owners = time.Since(ownersStart)

	if regionNode != 0 {
		rf := frames[regionFrame]
		if rf == nil || rf.layout == nil {
			return nil, ErrRegionGone
		}
		in := rf.layout.Subtree(regionNode)
		rf.out.InRegion = func(backend int64) bool { return in[cdp.BackendNodeID(backend)] }
	}
	view := snapshot.Rect{}
	if vp != nil {
		view = snapshot.Rect{X: float64(vp.PageX), Y: float64(vp.PageY), W: float64(vp.ClientWidth), H: float64(vp.ClientHeight)}
	}
	assembleStart := time.Now()
	items := snapshot.Collect(main.out, view, regionNode != 0)
	items, inView := snapshot.Order(items)
	steps.Assemble = time.Since(assembleStart)
	return &Tree{Items: items, InView: inView, MainLoader: main.Loader, Fetch: fetched.Sub(startFetch), Build: time.Since(fetched),
		Steps: steps, frames: frames, tab: t.tab.ID}, nil
}

func intersect(a, b snapshot.Rect) snapshot.Rect {
	x0, y0 := max(a.X, b.X), max(a.Y, b.Y)
	x1, y1 := min(a.X+a.W, b.X+b.W), min(a.Y+a.H, b.Y+b.H)
	if x1 <= x0 || y1 <= y0 {
		return snapshot.Rect{}
	}
	return snapshot.Rect{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// frameOwner finds the iframe element of child in its parent's document.
// A frame in the parent's process is in the parent's layout snapshot; an
// out-of-process one is asked of the parent's target.
func (t *TreeRead) frameOwner(ctx context.Context, parent, child *treeFrame) cdp.BackendNodeID {
	if parent.layout != nil {
		if n, ok := parent.layout.Owners[child.ID]; ok {
			return n
		}
	}
	r, err := cdp.Call(ctx, t.conn.Session(parent.Session), dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: child.ID})
	if err != nil {
		return 0
	}
	return r.BackendNodeID
}

// adoptFrame finds the frame whose document holds f's iframe element.
func (t *TreeRead) adoptFrame(ctx context.Context, f *treeFrame) cdp.FrameID {
	tried := map[target.SessionID]bool{f.Session: true}
	for _, g := range t.frames {
		if tried[g.Session] {
			continue
		}
		tried[g.Session] = true
		r, err := cdp.Call(ctx, t.conn.Session(g.Session), dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: f.ID})
		if err != nil || r.BackendNodeID == 0 {
			continue
		}
		for _, h := range t.frames {
			if h.Session != g.Session || h.layout == nil {
				continue
			}
			for _, be := range h.layout.Backend {
				if be == r.BackendNodeID {
					h.layout.Owners[f.ID] = be
					return h.ID
				}
			}
		}
	}
	return ""
}
