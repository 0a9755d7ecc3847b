package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/policy"
)

// Where an action acts. INTERACT is held per origin, and an acting call is
// judged on the document its input reaches, which is not always the tab's
// page: an element's own frame (an element in a cross-site iframe belongs
// to that site), the focused frame for a key, the tab's page for a scroll
// with no target, a history step and a dialog answer. beginAction asks for
// INTERACT on what these name, after the target is found and before any
// input is sent.
//
// A document with no origin in its URL (about:blank, about:srcdoc) acts
// for the origin that made it, its security origin; one with none at all (a
// new tab's about:blank, a data: page) holds nothing to protect.

// siteOf is the URL a document is judged on: its own when it has an
// origin, else its security origin when that has one, else its own (which
// names no site).
func siteOf(url, securityOrigin string) string {
	if _, ok := policy.OriginOf(url); ok {
		return url
	}
	if _, ok := policy.OriginOf(securityOrigin); ok {
		return securityOrigin
	}
	return url
}

// frameSite is the site of the document in frame f, as the frame's renderer
// has it committed.
func (b *Browser) frameSite(ctx context.Context, f page.FrameRef) (string, error) {
	res, err := cdp.Call(ctx, b.conn.Session(f.Session), cdppage.GetFrameTree, cdp.Empty{})
	if err != nil {
		return "", err
	}
	fr := findFrame(res.FrameTree, f.Frame, 0)
	if fr == nil {
		return "", &page.NodeGoneError{Err: errors.New("its frame went away")}
	}
	return siteOf(fr.URL, fr.SecurityOrigin), nil
}

func findFrame(t *cdppage.FrameTree, id cdp.FrameID, depth int) *cdp.Frame {
	if t == nil || depth > 32 {
		return nil
	}
	if t.Frame != nil && t.Frame.ID == id {
		return t.Frame
	}
	for _, c := range t.ChildFrames {
		if f := findFrame(c, id, depth+1); f != nil {
			return f
		}
	}
	return nil
}

// pageSite is the site of the tab's own document. The browser's side
// answers its URL even while the page is stuck in a script; only a page
// with no origin in its URL is asked for its security origin.
func (b *Browser) pageSite(ctx context.Context, tab cdpguard.Target) (string, error) {
	url, _ := b.fresh(ctx, tab)
	if _, ok := policy.OriginOf(url); ok {
		return url, nil
	}
	return b.frameSite(ctx, page.FrameRef{Session: tab.SessionID, Frame: cdp.FrameID(tab.ID)})
}

// focusedFrame is the frame a key press reaches: from the tab's main
// frame, down through each document whose focused element is a frame,
// same-process or not.
func (ac *actCall) focusedFrame(ctx context.Context) (page.FrameRef, error) {
	b := ac.b
	oopif := map[cdp.FrameID]target.SessionID{}
	for _, f := range b.guard.Frames(ac.tab.ID) {
		oopif[cdp.FrameID(f.ID)] = f.SessionID
	}
	f := page.FrameRef{Session: ac.tab.SessionID, Frame: cdp.FrameID(ac.tab.ID)}
	for depth := 0; depth < 8; depth++ {
		child, err := ac.focusedChild(ctx, f)
		if err != nil || child == "" {
			return f, err
		}
		if sid, ok := oopif[child]; ok {
			f = page.FrameRef{Session: sid, Frame: child}
		} else {
			f = page.FrameRef{Session: f.Session, Frame: child}
		}
	}
	return f, nil
}

// focusedChild is the frame inside frame f that holds the focus, or "".
func (ac *actCall) focusedChild(ctx context.Context, f page.FrameRef) (cdp.FrameID, error) {
	b := ac.b
	s := b.conn.Session(f.Session)
	for attempt := 0; ; attempt++ {
		id, err := b.worlds.Get(ctx, s, f.Frame, attempt > 0)
		if err != nil {
			return "", err
		}
		t := true
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: page.JSFocusedFrame, ExecutionContextID: id, ObjectGroup: ac.group, Silent: &t,
		})
		if cdpconn.IsContextGone(err) && attempt == 0 {
			b.worlds.Forget(f.Frame)
			continue
		}
		if err != nil {
			return "", err
		}
		if res.ExceptionDetails != nil || res.Result == nil || res.Result.ObjectID == "" {
			return "", nil
		}
		d, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID})
		if err != nil || d.Node == nil {
			return "", err
		}
		if d.Node.FrameID == f.Frame {
			return "", nil
		}
		return d.Node.FrameID, nil
	}
}

// siteOfNode is the site of the document an element found by this call
// lives in, within the call's timeout.
func (ac *actCall) siteOfNode(ctx context.Context, n *page.Node) (string, error) {
	sctx, cancel := context.WithTimeout(ctx, ac.opts.Timeout)
	defer cancel()
	site, err := ac.b.frameSite(sctx, page.FrameRef{Session: n.Session, Frame: n.Frame})
	return site, ac.siteError(ctx, sctx, err)
}

// pageSite is the site of the tab's own document, within the call's
// timeout.
func (ac *actCall) pageSite(ctx context.Context) (string, error) {
	sctx, cancel := context.WithTimeout(ctx, ac.opts.Timeout)
	defer cancel()
	site, err := ac.b.pageSite(sctx, ac.tab)
	return site, ac.siteError(ctx, sctx, err)
}

// focusedSite is the site of the document a key press reaches, within the
// call's timeout.
func (ac *actCall) focusedSite(ctx context.Context) (string, error) {
	sctx, cancel := context.WithTimeout(ctx, ac.opts.Timeout)
	defer cancel()
	f, err := ac.focusedFrame(sctx)
	var site string
	if err == nil {
		site, err = ac.b.frameSite(sctx, f)
	}
	return site, ac.siteError(ctx, sctx, err)
}

// siteError answers a failure to learn where the call would act: nothing
// was done yet, and nothing is done without knowing.
func (ac *actCall) siteError(ctx, sctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case sctx.Err() != nil && ctx.Err() == nil:
		return ac.failure(StatusTimeout, fmt.Sprintf("the page did not say which site it belongs to within %v; nothing was done", ac.opts.Timeout),
			"The page is busy: retry; where the tool takes timeout_ms, a larger one (at most 30000) gives a slow page longer.")
	}
	return ac.annotate(ctx, err, "action")
}
