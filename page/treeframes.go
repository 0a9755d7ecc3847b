package page

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// treeFrames lists the documents of a tab (TabFrames). The tab's frame
// tree is asked for first and then, before its reply is awaited, then runs
// (a tree read asks for its own work there): Chrome answers a target's
// commands in order, so the listing is not queued in the renderer behind
// that work. The out-of-process iframes' trees are asked for side by side;
// one gone meanwhile is left out.
func treeFrames(ctx context.Context, conn *cdpconn.Conn, tab Tab, then func()) (map[cdp.FrameID]*Frame, error) {
	p, err := conn.Session(tab.Session).Send(cdppage.CommandGetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	then()
	oopifs := tab.oopifs()
	trees := make([]*cdppage.FrameTree, len(oopifs))
	var wg sync.WaitGroup
	for i, o := range oopifs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			trees[i], _ = readFrameTree(ctx, conn, o.Session) // gone meanwhile: nil, left out
		}()
	}
	var main cdppage.GetFrameTreeResult
	err = p.Wait(ctx, &main)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	frames := map[cdp.FrameID]*Frame{}
	addFrameTree(frames, tab.Session, main.FrameTree)
	// Parents first, so a nested one finds its parent's entry.
	for i, o := range oopifs {
		addFrameTree(frames, o.Session, trees[i])
	}
	return frames, nil
}

// addFrameTree adds the frames of one target's frame tree: a root whose own target does not name its parent keeps the parent an
// earlier tree gave it.
func addFrameTree(frames map[cdp.FrameID]*Frame, sid target.SessionID, t *cdppage.FrameTree) {
	var walk func(t *cdppage.FrameTree, parent cdp.FrameID)
	walk = func(t *cdppage.FrameTree, parent cdp.FrameID) {
		if t == nil || t.Frame == nil {
			return
		}
		p := parent
		if t.Frame.ParentID != "" {
			p = t.Frame.ParentID
		}
		if old := frames[t.Frame.ID]; old != nil && p == "" {
			p = old.Parent
		}
		frames[t.Frame.ID] = &Frame{ID: t.Frame.ID, Session: sid, Loader: t.Frame.LoaderID, Parent: p}
		for _, c := range t.ChildFrames {
			walk(c, t.Frame.ID)
		}
	}
	walk(t, "")
}
