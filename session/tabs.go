package session

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
)

// The tabs tool: list the tabs, make one the active tab (the one calls read
// and act on) and bring it to the front, or close one. Tabs a page opens
// are followed by the session on their own (manager.onTarget, and
// act_watch.go for a click's popup); this is for choosing.
//
// Indexes are the tabs in the order they were opened. Titles and URLs come
// from the browser process (Target.getTargets), which answers even for a
// tab whose page is stuck in a script loop.

// tabList is the tabs as a reply lists them, and which is active.
func (b *Browser) tabList(ctx context.Context) (list []map[string]any, active int) {
	pages := b.pages()
	info := map[target.ID]*target.Info{}
	lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if res, err := cdp.Call(lctx, b.conn.Browser(), target.GetTargets, target.GetTargetsParams{}); err == nil {
		for _, t := range res.TargetInfos {
			info[t.TargetID] = t
		}
	}
	cur := b.activeID()
	active = -1
	for i, p := range pages {
		url, title := p.URL, p.Title
		if t := info[p.ID]; t != nil {
			url, title = t.URL, t.Title
		}
		list = append(list, map[string]any{"index": i, "url": url, "title": title, "active": p.ID == cur})
		if p.ID == cur {
			active = i
		}
	}
	return list, active
}

// Tabs lists the tabs. A read: it asks nothing and claims nothing.
func (m *Manager) Tabs(ctx context.Context, c Caller) (map[string]any, error) {
	b, _, done, err := m.enterTab(ctx, c, read)
	defer done()
	if err != nil {
		return nil, err
	}
	list, active := b.tabList(ctx)
	return map[string]any{"tabs": list, "tab_count": len(list), "active_index": active}, nil
}

// SwitchTab makes tab index the active one and brings it to the front, so
// the user sees what the agent sees.
func (m *Manager) SwitchTab(ctx context.Context, c Caller, index int, in Intent) (map[string]any, error) {
	return m.onTab(ctx, c, index, in, func(ac *actCall, t cdpguard.Target) (map[string]any, error) {
		b := ac.b
		if _, err := cdp.Call(ctx, b.conn.Browser(), target.ActivateTarget, target.ActivateTargetParams{TargetID: t.ID}); err != nil {
			return nil, ac.annotate(ctx, err, "switch")
		}
		b.setActive(t.ID)
		return b.tabReply(ctx, ac.start), nil
	})
}

// onTab runs do on tab index, which the call acts on: INTERACT on the tab's
// own site (not the active page's) is asked for first, then the action's
// bookkeeping.
func (m *Manager) onTab(ctx context.Context, c Caller, index int, in Intent, do func(ac *actCall, t cdpguard.Target) (map[string]any, error)) (out map[string]any, err error) {
	ac, end, err := m.beginCall(ctx, c, ActOptions{})
	if err != nil {
		return nil, err
	}
	defer func() { end(err) }()
	t, err := ac.b.tabAt(index)
	if err != nil {
		return nil, err
	}
	// The call acts on tab index, not the active tab: an armed answer is
	// for its dialogs (a beforeunload as it closes).
	ac.b.dialogs.retarget(ac.tab.ID, t.ID)
	a, err := m.beginAction(ctx, c, in, t.URL)
	if err != nil {
		return nil, err
	}
	defer a.End()
	return do(ac, t)
}

// CloseTab closes tab index. Closing the active tab moves the session to
// the tab that opened it, else the newest; closing the last tab leaves a
// blank one (a window with no tab would quit a headful browser).
func (m *Manager) CloseTab(ctx context.Context, c Caller, index int, in Intent) (map[string]any, error) {
	return m.onTab(ctx, c, index, in, func(ac *actCall, t cdpguard.Target) (map[string]any, error) {
		b := ac.b
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		events, stop := b.conn.Subscribe(target.DetachedFromTarget.Method, target.TargetDestroyed.Method, target.AttachedToTarget.Method)
		defer stop()
		if len(b.pages()) == 1 {
			res, err := cdp.Call(cctx, b.conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
			if err != nil {
				return nil, ac.annotate(cctx, err, "close")
			}
			if err := b.waitTarget(cctx, events, res.TargetID, true); err != nil {
				return nil, ac.annotate(cctx, err, "close")
			}
			if b.activeID() == t.ID {
				b.setActive(res.TargetID)
			}
		}
		if _, err := cdp.Call(cctx, b.conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: t.ID}); err != nil {
			return nil, ac.annotate(cctx, err, "close")
		}
		if err := b.waitTarget(cctx, events, t.ID, false); err != nil {
			return nil, ac.annotate(cctx, err, "close")
		}
		// The active tab closed: manager.onTarget moved the session to its
		// opener when it is open; activePage takes the newest otherwise.
		if _, err := b.activePage(cctx); err != nil {
			return nil, ac.annotate(cctx, err, "close")
		}
		out := b.tabReply(ctx, ac.start)
		out["closed"] = map[string]any{"url": t.URL, "title": t.Title}
		return out, nil
	})
}

// tabAt is the tab at index, or not_found naming how many there are.
func (b *Browser) tabAt(index int) (cdpguard.Target, error) {
	pages := b.pages()
	if index < 0 || index >= len(pages) {
		return cdpguard.Target{}, newError(StatusNotFound, fmt.Sprintf("there is no tab %d: %d tab(s) are open, indexed from 0", index, len(pages)),
			"Indexes shift when a tab opens or closes: call tabs (action=\"list\") and use an index from it.").
			with("tab_count", len(pages)).with("argument", "index")
	}
	return pages[index], nil
}

// waitTarget waits until the guard holds (open) or has let go of (closed)
// a page target. Target events say when to look; the guard hears of the
// same events on its own and may be a moment behind, so each look checks
// the guard itself.
func (b *Browser) waitTarget(ctx context.Context, events <-chan cdpconn.Event, id target.ID, open bool) error {
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
		case ev, ok := <-events:
			if !ok {
				return errors.New("the browser connection ended")
			}
			var e struct {
				TargetID   target.ID    `json:"targetId"`
				TargetInfo *target.Info `json:"targetInfo"`
			}
			if jsonv2.Unmarshal(ev.Params, &e) == nil {
				if e.TargetInfo != nil {
					e.TargetID = e.TargetInfo.TargetID
				}
				if e.TargetID == id {
					seen = true
				}
			}
		case <-c:
		}
	}
	return nil
}

// tabReply is what switch and close answer: the tabs, the active one, and
// where the session now stands.
func (b *Browser) tabReply(ctx context.Context, since time.Time) map[string]any {
	list, active := b.tabList(ctx)
	out := map[string]any{"tabs": list, "tab_count": len(list), "active_index": active}
	if active >= 0 {
		out["url"], out["title"] = list[active]["url"], list[active]["title"]
	}
	if ds := b.dialogs.since(since); len(ds) > 0 {
		out["dialogs"], _ = dialogReplies(ds, maxDialogsReported)
	}
	return out
}
