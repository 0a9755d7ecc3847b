package session

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
)

// pageTab is tab as package page reaches it: its out-of-process iframes
// are read from the guard's registry each time page asks.
func (b *Browser) pageTab(tab cdpguard.Target) page.Tab {
	return page.Tab{ID: tab.ID, Session: tab.SessionID, OOPIFs: func() []page.OOPIF {
		fs := b.guard.Frames(tab.ID)
		out := make([]page.OOPIF, len(fs))
		for i, f := range fs {
			out[i] = page.OOPIF{Frame: cdp.FrameID(f.ID), Session: f.SessionID, ParentFrame: f.ParentFrame}
		}
		return out
	}}
}

// treeFrame is one document of the tab, as form reads walk them.
type treeFrame struct {
	id     cdp.FrameID
	sid    target.SessionID
	loader cdp.LoaderID
	parent cdp.FrameID
}

// tabFrames lists the documents of a tab (page.TabFrames), each as a
// treeFrame.
func (b *Browser) tabFrames(ctx context.Context, tab cdpguard.Target) (map[cdp.FrameID]*treeFrame, error) {
	pf, err := page.TabFrames(ctx, b.conn, b.pageTab(tab))
	if err != nil {
		return nil, err
	}
	frames := make(map[cdp.FrameID]*treeFrame, len(pf))
	for id, f := range pf {
		frames[id] = &treeFrame{id: f.ID, sid: f.Session, loader: f.Loader, parent: f.Parent}
	}
	return frames, nil
}
