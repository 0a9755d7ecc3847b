package session

import (
	"context"

	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/page"
)

// NewTab opens a tab and makes it the active one; with rawURL, it then
// loads it there as navigate does (NAVIGATE asked on the destination, the
// load judged by the guard like any other). The destination is asked for
// before the tab opens, so a refused or declined one opens nothing; a load
// the guard refuses closes the tab again and the session goes back to the
// tab it was on. With no browser open, the browser opens, and its first
// tab is the new one.
func (m *Manager) NewTab(ctx context.Context, c Caller, rawURL string, in Intent) (*ActResult, error) {
	if rawURL != "" {
		if err := m.desk.navigate(ctx, c, rawURL, in.Reason); err != nil {
			return nil, err
		}
	}
	if m.own.current() == nil {
		if rawURL != "" {
			return m.Navigate(ctx, c, rawURL, "load", in)
		}
		info, err := m.Open(ctx, c)
		if err != nil {
			return nil, err
		}
		return &ActResult{URL: info.URL, Title: info.Title, TabCount: info.TabCount}, nil
	}
	b, prev, err := m.openBlankTab(ctx, c)
	if err != nil {
		return nil, err
	}
	if rawURL == "" {
		res := &ActResult{URL: "about:blank", TabCount: len(b.pages())}
		return res, nil
	}
	res, err := m.Navigate(ctx, c, rawURL, "load", in)
	if err != nil {
		// The tab was opened for this load only: it goes with it.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), tabActTimeout)
		defer cancel()
		id := b.activeID()
		if t, ok := b.guard.Page(id); ok && id != prev && t.OpenerID == "" {
			events, stop := page.TargetEvents(b.conn)
			if page.CloseTab(cctx, b.conn, id) == nil {
				_ = b.waitTarget(cctx, events, id, false)
			}
			stop()
			if _, ok := b.guard.Page(prev); ok {
				b.setActive(prev)
				_ = page.ActivateTab(cctx, b.conn, prev)
			}
		}
		return nil, err
	}
	return res, nil
}

// openBlankTab opens an about:blank tab in the open browser, waits until
// the guard holds it and makes it active; it answers the tab the session
// was on before.
func (m *Manager) openBlankTab(ctx context.Context, c Caller) (*Browser, target.ID, error) {
	b, done, err := m.own.enter(ctx, c, mutate)
	defer done()
	if err == nil && b == nil {
		err = notOpen()
	}
	if err != nil {
		return nil, "", err
	}
	if t := m.takeover.active(b); t != nil {
		return nil, "", takeoverError(t)
	}
	tctx, cancel := context.WithTimeout(ctx, tabActTimeout)
	defer cancel()
	prev := b.activeID()
	events, stop := page.TargetEvents(b.conn)
	defer stop()
	id, err := page.OpenTab(tctx, b.conn, "about:blank")
	if err != nil {
		return nil, "", newError(StatusError, "the browser did not open a tab: "+err.Error(), "Retry.")
	}
	if err := b.waitTarget(tctx, events, id, true); err != nil {
		return nil, "", newError(StatusError, err.Error(), "Retry.")
	}
	b.setActive(id)
	_ = page.ActivateTab(tctx, b.conn, id)
	return b, prev, nil
}
