package page

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/overlay"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// The browser's own overlay: what it draws over a page (a message, an
// element's outline) the page can neither see, remove nor draw over, and
// nothing is written into its DOM. The overlay needs the DOM domain, which
// the page cannot see either.

// Banner draws msg over the tab session sid reaches, or takes the banner
// away for "" (and the overlay with it).
func Banner(ctx context.Context, conn *cdpconn.Conn, sid target.SessionID, msg string) {
	s := conn.Session(sid)
	_ = overlayOn(ctx, s)
	_, _ = cdp.Call(ctx, s, overlay.SetPausedInDebuggerMessage, overlay.SetPausedInDebuggerMessageParams{Message: msg})
	if msg == "" {
		overlayOff(ctx, s)
	}
}

// Highlight scrolls n to the middle of the view and outlines it.
func Highlight(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node) error {
	if err := callNode(ctx, conn, w, n, jsScrollToCentre, nil); err != nil {
		return err
	}
	s := conn.Session(n.Session)
	if err := overlayOn(ctx, s); err != nil {
		return err
	}
	cfg := &overlay.HighlightConfig{
		BorderColor:  &cdp.RGBA{R: 232, G: 113, B: 10, A: 1},
		ContentColor: &cdp.RGBA{R: 232, G: 113, B: 10, A: 0.12},
	}
	p := overlay.HighlightNodeParams{HighlightConfig: cfg}
	if err := n.domParams(ctx, conn, &p.ObjectID, &p.BackendNodeID); err != nil {
		return err
	}
	_, err := cdp.Call(ctx, s, overlay.HighlightNode, p)
	return err
}

// Unhighlight takes the outline away from the tab session sid reaches;
// off: the overlay too (keep it while a banner is drawn).
func Unhighlight(ctx context.Context, conn *cdpconn.Conn, sid target.SessionID, off bool) {
	s := conn.Session(sid)
	_, _ = cdp.Call(ctx, s, overlay.HideHighlight, cdp.Empty{})
	if off {
		overlayOff(ctx, s)
	}
}

func overlayOn(ctx context.Context, s *cdpconn.Session) error {
	if _, err := cdp.Call(ctx, s, dom.Enable, dom.EnableParams{}); err != nil {
		return err
	}
	_, err := cdp.Call(ctx, s, overlay.Enable, cdp.Empty{})
	return err
}

func overlayOff(ctx context.Context, s *cdpconn.Session) {
	_, _ = cdp.Call(ctx, s, overlay.Disable, cdp.Empty{})
	_, _ = cdp.Call(ctx, s, dom.Disable, cdp.Empty{})
}
