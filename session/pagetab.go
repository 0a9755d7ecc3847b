package session

import (
	"github.com/chromedp/cdproto/cdp"

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
