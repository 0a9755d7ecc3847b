package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
)

// The tabs tool: list the tabs, make one the active tab (the one calls read
// and act on) and bring it to the front, or close one. Tabs a page opens
// are followed by the session on their own (manager.onTarget, and
// act_watch.go for a click's popup); this is for choosing.
//
// Indexes are the tabs in the order they were opened. Titles and URLs come
// from the browser process (Target.getTargets), which answers even for a
// tab whose page is stuck in a script loop.

// tabList is the tabs, and which is active.
func (b *Browser) tabList(ctx context.Context) *TabList {
	pages := b.pages()
	lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	info, _ := page.TabInfos(lctx, b.conn) // nil: the registry's URLs and titles
	cur := b.activeID()
	list := &TabList{Active: -1, Tabs: []TabInfo{}}
	for i, p := range pages {
		url, title := p.URL, p.Title
		if t, ok := info[p.ID]; ok {
			url, title = t.URL, t.Title
		}
		list.Tabs = append(list.Tabs, TabInfo{Index: i, URL: url, Title: title, Active: p.ID == cur})
		if p.ID == cur {
			list.Active = i
		}
	}
	return list
}

// Tabs lists the tabs. A read: it asks nothing and claims nothing.
func (m *Manager) Tabs(ctx context.Context, c Caller) (*TabList, error) {
	b, _, done, err := m.enterTab(ctx, c, read)
	defer done()
	if err != nil {
		return nil, err
	}
	return b.tabList(ctx), nil
}

// SwitchTab makes tab index the active one and brings it to the front, so
// the user sees what the agent sees. INTERACT on that tab's own site (not
// the active page's) is asked for first.
func (m *Manager) SwitchTab(ctx context.Context, c Caller, index int, in Intent) (*ActResult, error) {
	return m.act(ctx, c, actSpec{verb: "switch", opts: ActOptions{Timeout: tabActTimeout, Intent: in}, on: onTab, index: index,
		do: func(ctx context.Context, a *act) error {
			b := a.b
			if err := page.ActivateTab(ctx, b.conn, a.on.ID); err != nil {
				return err
			}
			b.setActive(a.on.ID)
			a.res.Tabs = b.tabList(ctx)
			return nil
		}})
}

// CloseTab closes tab index. Closing the active tab moves the session to
// the tab that opened it, else the newest; closing the last tab leaves a
// blank one (a window with no tab would quit a headful browser).
func (m *Manager) CloseTab(ctx context.Context, c Caller, index int, in Intent) (*ActResult, error) {
	return m.act(ctx, c, actSpec{verb: "close", opts: ActOptions{Timeout: tabActTimeout, Intent: in}, on: onTab, index: index,
		do: func(ctx context.Context, a *act) error {
			b, t := a.b, a.on
			events, stop := page.TargetEvents(b.conn)
			defer stop()
			if len(b.pages()) == 1 {
				id, err := page.OpenTab(ctx, b.conn, "about:blank")
				if err != nil {
					return err
				}
				if err := b.waitTarget(ctx, events, id, true); err != nil {
					return err
				}
				if b.activeID() == t.ID {
					b.setActive(id)
				}
			}
			if err := page.CloseTab(ctx, b.conn, t.ID); err != nil {
				return err
			}
			if err := b.waitTarget(ctx, events, t.ID, false); err != nil {
				return err
			}
			// The active tab closed: manager.onTarget moved the session to
			// its opener when it is open; activePage takes the newest
			// otherwise.
			if _, err := b.activePage(ctx); err != nil {
				return err
			}
			a.res.Tabs = b.tabList(ctx)
			a.res.Closed = &TabInfo{Index: index, URL: t.URL, Title: t.Title}
			return nil
		}})
}

// tabAt is the tab at index, or not_found naming how many there are.
func (b *Browser) tabAt(index int) (cdpguard.Target, error) {
	pages := b.pages()
	if index < 0 || index >= len(pages) {
		return cdpguard.Target{}, newError(StatusNotFound, fmt.Sprintf("there is no tab %d: %d tab(s) are open, indexed from 0", index, len(pages)),
			"Indexes shift when a tab opens or closes: call tabs (action=\"list\") and use an index from it.").
			tabs(len(pages)).arg("index")
	}
	return pages[index], nil
}

// waitTarget waits until the guard holds (open) or has let go of (closed)
// a page target. Target events say when to look; the guard hears of the
// same events on its own and may be a moment behind, so each look checks
// the guard itself.
func (b *Browser) waitTarget(ctx context.Context, events <-chan target.ID, id target.ID, open bool) error {
	there := func() bool { _, ok := b.guard.Page(id); return ok == open }
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	seen := false
	for !there() {
		var c <-chan time.Time
		if seen {
			// The event came; the guard is catching up.
			c = tick.C
		}
		select {
		case <-ctx.Done():
			return errors.New("the tab did not " + map[bool]string{true: "open", false: "close"}[open] + " in time")
		case named, ok := <-events:
			if !ok {
				return errors.New("the browser connection ended")
			}
			if named == id {
				seen = true
			}
		case <-c:
		}
	}
	return nil
}
