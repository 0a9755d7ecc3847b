package session

import (
	"context"

	"github.com/chromedp/cdproto/cdp"

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
	url, securityOrigin, err := page.FrameDocument(ctx, b.conn, f)
	if err != nil {
		return "", err
	}
	return siteOf(url, securityOrigin), nil
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

// focusedFrame is the frame a key press reaches (page.FocusedFrame).
func (a *act) focusedFrame(ctx context.Context) (page.FrameRef, error) {
	return page.FocusedFrame(ctx, a.b.conn, &a.b.worlds, a.b.pageTab(a.tab), a.group)
}
