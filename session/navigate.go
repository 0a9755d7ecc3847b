package session

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/download"
	"github.com/lyrad/lyrad/page"
)

// navigate, go_back and reload_page: a navigation of the active tab,
// followed to wait_until by the call's watcher (page.Watcher.Load), with
// the document's http_status and content_type. A history step or a reload
// can end in ways a load never reports, which the watcher sees too:
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
// A navigation the guard refuses answers blocked_by_policy.

// PageInfo is where the active tab stands.
type PageInfo struct {
	URL      string
	Title    string
	TabCount int
}

// WaitUntil values navigate accepts.
var WaitUntil = []string{"domcontentloaded", "load", "commit", "networkidle"}

// CurrentURL is the active tab's URL, or "" with no browser. It asks the
// browser nothing: the guard keeps each target's URL up to date.
func (m *Manager) CurrentURL() string {
	b := m.own.current()
	if b == nil {
		return ""
	}
	if t, ok := b.guard.Page(b.activeID()); ok {
		return t.URL
	}
	return ""
}

// enterTab admits a call (see enter) and resolves the active tab: the
// browser must be open and a tab alive. done must be called, also on error.
func (m *Manager) enterTab(ctx context.Context, c Caller, a access) (*Browser, cdpguard.Target, func(), error) {
	b, done, err := m.own.enter(ctx, c, a)
	if err == nil && b == nil {
		err = notOpen()
	}
	if err != nil {
		return nil, cdpguard.Target{}, done, err
	}
	t, err := b.activePage(ctx)
	if err != nil {
		return nil, cdpguard.Target{}, done, newError(StatusPageClosed, err.Error(), "Call open_browser again.")
	}
	return b, t, done, nil
}

// URL answers get_url.
func (m *Manager) URL(ctx context.Context, c Caller) (*PageInfo, error) {
	b, t, done, err := m.enterTab(ctx, c, read)
	defer done()
	if err != nil {
		return nil, err
	}
	url, title := b.fresh(ctx, t)
	return &PageInfo{URL: url, Title: title, TabCount: len(b.pages())}, nil
}

// fresh asks the browser for the tab's URL and title: a title set while the
// page loads reaches the guard's registry a moment after the load event.
func (b *Browser) fresh(ctx context.Context, t cdpguard.Target) (url, title string) {
	info, err := page.TabInfoOf(ctx, b.conn, t.ID)
	if err != nil {
		return t.URL, t.Title
	}
	return info.URL, info.Title
}

func notOpen() *Error {
	return newError(StatusNotOpen, "the browser is not open", "Call open_browser first.")
}

// Navigate loads rawURL in the active tab and waits for waitUntil. It asks
// for NAVIGATE on the destination first (reason is shown to the user); a
// browser that is not open yet is opened after that. The destination is
// what is judged, not the page being left.
func (m *Manager) Navigate(ctx context.Context, c Caller, rawURL, waitUntil string, in Intent) (*ActResult, error) {
	opts := ActOptions{Timeout: m.cfg.NavigationTimeout, Intent: in}
	return m.act(ctx, c, actSpec{verb: "navigate", opts: opts, on: onDestination, url: rawURL, watch: settleLoaded,
		downloadWait: navigateDownloadWait,
		do: func(ctx context.Context, a *act) error {
			before := a.tab.URL // the committed document, as the guard's registry has it
			var loader cdp.LoaderID
			check := func() error {
				if r := a.refusedNavigation(string(loader), before); r != nil {
					return a.blockedAnswer(ctx, r)
				}
				return a.blockedNow()
			}
			err := a.navigate(ctx, rawURL, waitUntil, &loader, check)
			if errors.Is(err, errDownloadStarted) {
				return nil // what it loads is the declared file: downloadAnswer waits for it
			}
			return err
		}})
}

// navigateDownloadWait is how long navigate(download=true) waits for the
// file to start.
const navigateDownloadWait = 2 * time.Second

// navigate sends the navigation and waits for its load.
func (a *act) navigate(ctx context.Context, rawURL, waitUntil string, loader *cdp.LoaderID, check func() error) error {
	a.stopLoading(ctx, rawURL)
	nav, err := page.Navigate(ctx, a.b.conn, a.b.pageTab(a.tab), rawURL)
	if err != nil {
		return callError(ctx, err, "navigate")
	}
	*loader = nav.Loader
	if err := check(); err != nil {
		return err
	}
	if nav.ErrorText != "" {
		// A navigation that turned into a download is aborted.
		if a.exp != nil {
			return nil
		}
		if bd := a.b.downloads.AwaitAborted(ctx, []target.ID{a.tab.ID}, a.start, download.BlockedGrace); bd != nil {
			if bd.Observed {
				return nil // observe mode saves it: downloadAnswer waits for the file
			}
			return downloadBlocked(bd)
		}
		return newError(StatusNavigationFailed, nav.ErrorText,
			"The browser could not load the page; check the URL, or whether the site is reachable.").requested(audit.URL(rawURL))
	}
	a.res.Load = &LoadInfo{}
	if nav.Loader == "" {
		// A same-document navigation (a fragment): nothing to load.
		return nil
	}
	if err := a.load(ctx, page.LoadSpec{Loader: nav.Loader, WaitUntil: waitUntil, Check: check}); err != nil {
		return err
	}
	if !isHTTP(rawURL) {
		a.res.Load.HTTPStatus, a.res.Load.ContentType = nil, nil
	}
	// A refusal that landed with the load (a page moving itself on
	// as it loads) is still this navigation's answer.
	return check()
}

// stopLoading stops what the tab is still loading before it is sent
// elsewhere: a page that keeps adding frames (150 iframes at 2 MB URLs,
// each some 10 MB of DevTools events and a request the guard must judge)
// would otherwise go on feeding the browser and the guard until the new
// document commits, and the navigation waited behind it. A move within
// the document (a fragment) leaves the page loading.
func (a *act) stopLoading(ctx context.Context, rawURL string) {
	if sameDocument(a.tab.URL, rawURL) {
		return
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := page.StopLoading(sctx, a.b.conn, a.b.pageTab(a.tab)); err != nil {
		a.m.log.Debug("stop loading before navigate", zap.Error(err))
	}
}

// sameDocument: to differs from from only in its fragment.
func sameDocument(from, to string) bool {
	f, err1 := url.Parse(from)
	t, err2 := url.Parse(to)
	if err1 != nil || err2 != nil || t.Fragment == "" && !strings.HasSuffix(to, "#") {
		return false
	}
	f.Fragment, t.Fragment, f.RawFragment, t.RawFragment = "", "", "", ""
	return f.String() == t.String()
}

// load waits with the call's watcher and records what it found.
func (a *act) load(ctx context.Context, spec page.LoadSpec) error {
	r, err := a.w.Load(ctx, spec)
	switch {
	case errors.Is(err, page.ErrLoadTimeout):
		return newError(StatusTimeout, "the page did not reach "+spec.WaitUntil+" in time",
			"The page may still be loading; call wait_for or read_page, or retry with wait_until=\"commit\".").waitingUntil(spec.WaitUntil)
	case errors.Is(err, page.ErrTabGone):
		return pageGone()
	case err != nil:
		return err
	}
	a.res.Load = &LoadInfo{HTTPStatus: r.HTTPStatus, ContentType: r.ContentType, FromCache: r.FromCache, Stayed: r.Stayed}
	if r.Stayed {
		a.res.Hints = append(a.res.Hints, "The page asked to stay (beforeunload) and handle_dialog answered no, so the tab did not move.")
	}
	return nil
}

// GoBack goes one entry back in the active tab's history.
func (m *Manager) GoBack(ctx context.Context, c Caller, waitUntil string, in Intent) (*ActResult, error) {
	return m.act(ctx, c, historySpec(m.cfg.NavigationTimeout, waitUntil, in, true))
}

// Reload reloads the active tab.
func (m *Manager) Reload(ctx context.Context, c Caller, waitUntil string, in Intent) (*ActResult, error) {
	return m.act(ctx, c, historySpec(m.cfg.NavigationTimeout, waitUntil, in, false))
}

// historySpec is go_back's and reload_page's step, bounded by timeout. It
// acts on the tab's page (INTERACT there); where it leads is judged by the
// guard as a navigation.
func historySpec(timeout time.Duration, waitUntil string, in Intent, back bool) actSpec {
	what := "reload"
	if back {
		what = "go_back"
	}
	var entry int64
	opts := ActOptions{Timeout: timeout, Intent: in}
	spec := actSpec{verb: what, opts: opts, on: onPage, watch: settleLoaded,
		do: func(ctx context.Context, a *act) error {
			tab := a.b.pageTab(a.tab)
			var err error
			if back {
				err = page.GoToEntry(ctx, a.b.conn, tab, entry)
			} else {
				err = page.Reload(ctx, a.b.conn, tab)
			}
			if err != nil {
				return err
			}
			check := func() error {
				if r := a.refused(); r != nil {
					return a.blockedAnswer(ctx, r)
				}
				// A step that aborts into a download is answered as it.
				return a.blockedNow()
			}
			stayed := func() bool {
				for _, d := range a.b.dialogs.since(a.start, a.tab.ID) {
					if d.Type == page.DialogBeforeunload && !d.Accepted {
						return true
					}
				}
				return false
			}
			err = a.load(ctx, page.LoadSpec{WaitUntil: waitUntil, Check: check, Stayed: stayed, History: true})
			if err == nil {
				err = check()
			}
			if errors.Is(err, errDownloadStarted) {
				return nil // observe mode saves the file it turned into: downloadAnswer waits for it
			}
			return err
		}}
	if back {
		// No earlier page is answered before anyone is asked.
		spec.prepare = func(ctx context.Context, a *act) error {
			h, err := page.TabHistory(ctx, a.b.conn, a.b.pageTab(a.tab))
			if err != nil {
				return err
			}
			prev, ok := h.Back()
			if !ok {
				return newError(StatusNotFound, "there is no earlier page in this tab's history",
					"Use navigate to go to a page; tabs lists the other tabs.").at(a.tab.URL)
			}
			entry = prev.ID
			return nil
		}
	}
	return spec
}

func isHTTP(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https")
}
