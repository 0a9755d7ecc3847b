package session

import (
	"context"
	"errors"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	cdppage "github.com/chromedp/cdproto/page"
)

// go_back and reload_page: a history step or a reload of the active tab,
// followed with navigate's loadWaiter to wait_until, with what navigate
// reports (http_status, content_type). Three ways a step ends that a load
// never reports are watched besides:
//
//   - a page restored from the back/forward cache commits no new load:
//     Page.frameNavigated says BackForwardCacheRestore, and http_status and
//     content_type are null (no HTTP response was involved). lyrad launches
//     with that cache off, so every step is a request the guard judges; this
//     is for a browser that restores a page anyway;
//   - a step within one document (a fragment, pushState) loads nothing;
//   - a beforeunload the answer kept on the page (handle_dialog
//     accept=false) cancels the step: the reply says the tab stayed.
//
// A step the guard refuses (back to a site no approval covers) answers
// blocked_by_policy, like navigate.

// GoBack goes one entry back in the active tab's history.
func (m *Manager) GoBack(ctx context.Context, c Caller, waitUntil string, in Intent) (map[string]any, error) {
	return m.historyStep(ctx, c, waitUntil, in, true)
}

// Reload reloads the active tab.
func (m *Manager) Reload(ctx context.Context, c Caller, waitUntil string, in Intent) (map[string]any, error) {
	return m.historyStep(ctx, c, waitUntil, in, false)
}

func (m *Manager) historyStep(ctx context.Context, c Caller, waitUntil string, in Intent, back bool) (out map[string]any, err error) {
	what := "reload"
	if back {
		what = "go_back"
	}
	ac, end, err := m.beginCall(ctx, c, ActOptions{})
	if err != nil {
		return nil, err
	}
	defer func() { end(err) }()
	b := ac.b
	s := b.conn.Session(ac.tab.SessionID)
	var entry int64
	if back {
		h, err := cdp.Call(ctx, s, cdppage.GetNavigationHistory, cdp.Empty{})
		if err != nil {
			return nil, ac.annotate(ctx, err, what)
		}
		if h.CurrentIndex <= 0 || int(h.CurrentIndex) > len(h.Entries) {
			return nil, newError(StatusNotFound, "there is no earlier page in this tab's history",
				"Use navigate to go to a page; tabs lists the other tabs.").with("url", ac.tab.URL)
		}
		entry = h.Entries[h.CurrentIndex-1].ID
	}
	// The step acts on the tab's page (INTERACT there); where it leads is
	// judged by the guard as a navigation.
	ac.opts.Timeout = m.cfg.NavigationTimeout
	site, err := ac.pageSite(ctx)
	if err != nil {
		return nil, err
	}
	a, err := m.beginAction(ctx, c, in, site)
	if err != nil {
		return nil, err
	}
	defer a.End()
	nctx, cancel := context.WithTimeout(ctx, m.cfg.NavigationTimeout)
	defer cancel()
	frame := cdp.FrameID(ac.tab.ID)
	w := newLoadWaiter(s, frame)
	defer w.close()
	w.check = func() error { return a.blocked(nctx) }
	navigated, stopNav := s.Subscribe(cdppage.FrameNavigated.Method)
	defer stopNav()
	sameDoc, stopSame := s.Subscribe(cdppage.NavigatedWithinDocument.Method)
	defer stopSame()
	closed, stopClosed := s.Subscribe(cdppage.JavascriptDialogClosed.Method)
	defer stopClosed()

	if back {
		_, err = cdp.Call(nctx, s, cdppage.NavigateToHistoryEntry, cdppage.NavigateToHistoryEntryParams{EntryID: entry})
	} else {
		_, err = cdp.Call(nctx, s, cdppage.Reload, cdppage.ReloadParams{})
	}
	if err != nil {
		return nil, ac.annotate(nctx, err, what)
	}

	type result struct {
		res *NavResult
		err error
	}
	wctx, stopWait := context.WithCancel(nctx)
	defer stopWait()
	loaded := make(chan result, 1)
	go func() {
		r, err := w.wait(wctx, "", waitUntil)
		loaded <- result{r, err}
	}()
	res := &NavResult{}
	stayed, fromCache := false, false
wait:
	for {
		wake := b.dialogs.wake()
		select {
		case r := <-loaded:
			if r.err != nil {
				return nil, ac.withDialogs(r.err)
			}
			res = r.res
			break wait
		case ev, ok := <-navigated:
			var e cdppage.EventFrameNavigated
			if ok && jsonv2.Unmarshal(ev, &e) == nil && e.Frame != nil && e.Frame.ID == frame && e.Type == cdppage.NavigationTypeBackForwardCacheRestore {
				fromCache = true
				break wait
			}
		case ev, ok := <-sameDoc:
			var e cdppage.EventNavigatedWithinDocument
			if ok && jsonv2.Unmarshal(ev, &e) == nil && e.FrameID == frame {
				break wait
			}
		case <-wake:
			for _, d := range b.dialogs.since(ac.start, ac.tab.ID) {
				if d.Type == string(cdppage.DialogTypeBeforeunload) && !d.Accepted {
					// The answer is decided; answer only once the page has
					// it, or the next call would find the dialog open.
					select {
					case <-closed:
					case <-nctx.Done():
					}
					stayed = true
					break wait
				}
			}
		}
	}
	stopWait()
	// The restore is announced before the load it reports: look at what
	// is queued too, as the load may have been taken first.
	for drained := false; !drained && !fromCache; {
		select {
		case ev, ok := <-navigated:
			var e cdppage.EventFrameNavigated
			if ok && jsonv2.Unmarshal(ev, &e) == nil && e.Frame != nil && e.Frame.ID == frame && e.Type == cdppage.NavigationTypeBackForwardCacheRestore {
				fromCache = true
			}
			drained = !ok
		default:
			drained = true
		}
	}
	if err := a.blocked(nctx); err != nil {
		return nil, ac.withDialogs(err)
	}
	out = map[string]any{"http_status": nil, "content_type": nil}
	if res.HTTPStatus != nil && !fromCache {
		out["http_status"] = *res.HTTPStatus
	}
	if res.ContentType != nil && !fromCache {
		out["content_type"] = *res.ContentType
	}
	if fromCache {
		out["from_cache"] = true
	}
	if stayed {
		out["stayed"] = true
		out["hint"] = "The page asked to stay (beforeunload) and handle_dialog answered no, so the tab did not move."
	}
	url, title := b.fresh(ctx, ac.tab)
	out["url"], out["title"], out["tab_count"] = url, title, len(b.pages())
	if ds := b.dialogs.since(ac.start); len(ds) > 0 {
		out["dialogs"], _ = dialogReplies(ds, maxDialogsReported)
	}
	return out, nil
}

// withDialogs adds the dialogs the call raised to an error envelope.
func (ac *actCall) withDialogs(err error) error {
	var se *Error
	if !errors.As(err, &se) {
		return err
	}
	if ds := ac.b.dialogs.since(ac.start); len(ds) > 0 {
		list, _ := dialogReplies(ds, maxDialogsReported)
		se.with("dialogs", list)
	}
	return se
}
