package page

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// OOPIF is an out-of-process iframe of a tab: the frame it renders (its
// target's id), the session that reaches it, and the frame its iframe
// element sits in (when known).
type OOPIF struct {
	Frame       cdp.FrameID
	Session     target.SessionID
	ParentFrame cdp.FrameID
}

// Tab is a tab as page code reaches it: its target (whose id is its main
// frame's), the session that reaches it, and its out-of-process iframes as
// they are now. The caller keeps that registry: page only asks it, each
// time, since frames come and go while a call runs.
type Tab struct {
	ID      target.ID
	Session target.SessionID
	OOPIFs  func() []OOPIF
}

// Main is the tab's main frame.
func (t Tab) Main() cdp.FrameID { return cdp.FrameID(t.ID) }

func (t Tab) oopifs() []OOPIF {
	if t.OOPIFs == nil {
		return nil
	}
	return t.OOPIFs()
}

// Frame is one document of a tab: its frame, the session that renders it,
// its loader, and its parent frame ("" for the main frame, and for an
// out-of-process root whose own target does not name its parent).
type Frame struct {
	ID      cdp.FrameID
	Session target.SessionID
	Loader  cdp.LoaderID
	Parent  cdp.FrameID
}

// TabFrames lists the documents of a tab: its own frames, and those of its
// out-of-process iframes, each with the session that renders it (the
// out-of-process trees asked for side by side: treeFrames).
func TabFrames(ctx context.Context, conn *cdpconn.Conn, tab Tab) (map[cdp.FrameID]*Frame, error) {
	return treeFrames(ctx, conn, tab, func() {})
}

// ChildFrames lists the tab's iframes in document order, depth first,
// each with the session that reaches it: the tab's for a same-process
// frame, its own for an out-of-process one.
func ChildFrames(ctx context.Context, conn *cdpconn.Conn, tab Tab) ([]FrameRef, error) {
	oopif := map[cdp.FrameID]target.SessionID{}
	for _, f := range tab.oopifs() {
		oopif[f.Frame] = f.Session
	}
	var out []FrameRef
	seen := map[cdp.FrameID]bool{}
	var walk func(sid target.SessionID, depth int) error
	walk = func(sid target.SessionID, depth int) error {
		res, err := cdp.Call(ctx, conn.Session(sid), cdppage.GetFrameTree, cdp.Empty{})
		if err != nil {
			return err
		}
		var kids func(t *cdppage.FrameTree)
		kids = func(t *cdppage.FrameTree) {
			for _, c := range t.ChildFrames {
				if c.Frame == nil || seen[c.Frame.ID] {
					continue
				}
				seen[c.Frame.ID] = true
				if s, ok := oopif[c.Frame.ID]; ok {
					out = append(out, FrameRef{Session: s, Frame: c.Frame.ID})
					if depth < 8 {
						_ = walk(s, depth+1)
					}
					continue
				}
				out = append(out, FrameRef{Session: sid, Frame: c.Frame.ID})
				kids(c)
			}
		}
		kids(res.FrameTree)
		return nil
	}
	if err := walk(tab.Session, 0); err != nil {
		return nil, err
	}
	// An out-of-process frame the tree did not show (it is attached but its
	// parent's tree has not caught up yet, or its parent's tree does not
	// list frames of other processes) is still searched, and the frames of
	// its own process inside it.
	for _, f := range tab.oopifs() {
		if !seen[f.Frame] {
			seen[f.Frame] = true
			out = append(out, FrameRef{Session: f.Session, Frame: f.Frame})
			_ = walk(f.Session, 1)
		}
	}
	return out, nil
}
