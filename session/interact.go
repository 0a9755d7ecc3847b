package session

import (
	"context"
	"errors"

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
// with no target, a history step and a dialog answer. the acting pipeline (act.go) asks for
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
func (a *act) focusedFrame(ctx context.Context) (page.FrameRef, error) {
	b := a.b
	oopif := map[cdp.FrameID]target.SessionID{}
	for _, f := range b.guard.Frames(a.tab.ID) {
		oopif[cdp.FrameID(f.ID)] = f.SessionID
	}
	f := page.FrameRef{Session: a.tab.SessionID, Frame: cdp.FrameID(a.tab.ID)}
	for depth := 0; depth < 8; depth++ {
		child, err := a.focusedChild(ctx, f)
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
func (a *act) focusedChild(ctx context.Context, f page.FrameRef) (cdp.FrameID, error) {
	b := a.b
	s := b.conn.Session(f.Session)
	for attempt := 0; ; attempt++ {
		id, err := b.worlds.Get(ctx, s, f.Frame, attempt > 0)
		if err != nil {
			return "", err
		}
		t := true
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: page.JSFocusedFrame, ExecutionContextID: id, ObjectGroup: a.group, Silent: &t,
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
