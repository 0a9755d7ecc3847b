package session

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/policy"
)

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
	m.mu.Lock()
	b := m.browser
	m.mu.Unlock()
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
	b, done, err := m.enter(c, a)
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
	info, err := cdp.Call(ctx, b.conn.Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: t.ID})
	if err != nil || info.TargetInfo == nil {
		return t.URL, t.Title
	}
	return info.TargetInfo.URL, info.TargetInfo.Title
}

func notOpen() *Error {
	return newError(StatusNotOpen, "the browser is not open", "Call open_browser first.")
}

// NavResult is what navigate answers.
type NavResult struct {
	URL         string
	Title       string
	HTTPStatus  *int64
	ContentType *string
	TabCount    int
}

// Navigate loads rawURL in the active tab and waits for waitUntil. It asks
// for NAVIGATE on the destination first (reason is shown to the user); a
// browser that is not open yet is opened after that.
func (m *Manager) Navigate(ctx context.Context, c Caller, rawURL, waitUntil string, in Intent) (*NavResult, error) {
	b, done, err := m.enter(c, mutate)
	defer done()
	if err != nil {
		return nil, err
	}
	if err := m.grantNavigate(ctx, c, rawURL, in.Reason); err != nil {
		return nil, err
	}
	if b == nil {
		if _, err := m.Open(ctx, c); err != nil {
			return nil, err
		}
	}
	// The destination is what is judged (NAVIGATE, above), not the page
	// being left.
	a, err := m.beginAction(ctx, c, Intent{Reason: in.Reason, Confirm: in.Confirm}, "")
	if err != nil {
		return nil, err
	}
	defer a.End()
	nctx, cancel := context.WithTimeout(ctx, m.cfg.NavigationTimeout)
	defer cancel()
	s := a.b.conn.Session(a.Tab.SessionID)
	w := newLoadWaiter(s, cdp.FrameID(a.Tab.ID))
	defer w.close()
	before := a.Tab.URL // the committed document, as the guard's registry has it
	w.check = func() error { return a.blockedAnswer(nctx, a.refusedNavigation(string(w.loader), before)) }
	res, err := w.navigate(nctx, s, rawURL, waitUntil)
	if err == nil {
		// A refusal that landed with the load (a page moving itself on as
		// it loads) is still this navigation's answer.
		err = w.checkNow()
	}
	if err != nil {
		return nil, err
	}
	res.URL, res.Title = a.b.fresh(ctx, a.Tab)
	res.TabCount = len(a.b.pages())
	return res, nil
}

// blocked answers blocked_by_policy when the guard refused a navigation on
// the action's tab (or an iframe of it) since the action began: what an
// action such as click answers.
func (a *Action) blocked(ctx context.Context) error {
	return a.blockedAnswer(ctx, a.Refused())
}

// blockedAnswer is the blocked_by_policy answer for refusal r (nil: none):
// where the tab stands, and for a refused redirect the origin it was sent
// to (never its path or query).
func (a *Action) blockedAnswer(ctx context.Context, r *Refusal) error {
	if r == nil {
		return nil
	}
	url, _ := a.b.fresh(ctx, a.Tab)
	if r.Reason == cdpguard.ReasonBodyTooLarge || r.Reason == cdpguard.ReasonBodyNotHandedOver {
		return bodyTooLarge(r).with("url", url)
	}
	e := newError(StatusBlocked, "the guard refused a navigation: nothing approved covers "+policy.ScopeOf(r.URL).Loggable(),
		"The tab has not moved. To go there, call navigate with that site's URL (the user is asked); to send a form, repeat the action with submits=true.").
		with("url", url)
	if r.RedirectFrom != "" {
		e.with("redirected_to", policy.ScopeOf(r.URL).Loggable())
	} else {
		e.with("refused", policy.ScopeOf(r.URL).Loggable())
	}
	return e
}

// bodyTooLarge answers for a request whose body the browser could not hand
// to the guard (cdpguard's bodies.go): it was stopped, unsent.
func bodyTooLarge(r *Refusal) *Error {
	var msg string
	if r.MessageBytes > 0 {
		msg = fmt.Sprintf("the browser could not hand the body of a request to %s to the guard: it makes a %.1f MB DevTools message, over Chrome's %d MiB limit, so the request was stopped and nothing was sent",
			policy.ScopeOf(r.URL).Loggable(), float64(r.MessageBytes)/1e6, cdpguard.DevToolsMessageLimit>>20)
	} else {
		msg = fmt.Sprintf("the browser did not hand the body of a request to %s to the guard, so the request was stopped and nothing was sent",
			policy.ScopeOf(r.URL).Loggable())
	}
	e := newError(StatusBodyTooLarge, msg,
		"The tab has not moved. Send a smaller body: compress the file (zip) or split it, then repeat the action. Chrome hands over bodies up to about 35 MB of zero bytes or 110 MB of other data.").
		with("refused", policy.ScopeOf(r.URL).Loggable())
	if r.MessageBytes > 0 {
		e.with("message_bytes", r.MessageBytes).with("message_limit_bytes", cdpguard.DevToolsMessageLimit)
	}
	return e
}

// navigate drives one navigation on a page session and waits for the
// lifecycle event waitUntil names.
func (w *loadWaiter) navigate(ctx context.Context, s *cdpconn.Session, rawURL, waitUntil string) (*NavResult, error) {
	nav, err := cdp.Call(ctx, s, cdppage.Navigate, cdppage.NavigateParams{URL: rawURL})
	if err != nil {
		return nil, callError(ctx, err, "navigate")
	}
	w.loader = nav.LoaderID
	if err := w.checkNow(); err != nil {
		return nil, err
	}
	if nav.ErrorText != "" {
		return nil, newError(StatusNavigationFailed, nav.ErrorText,
			"The browser could not load the page; check the URL, or whether the site is reachable.").with("requested_url", audit.URL(rawURL))
	}
	if nav.LoaderID == "" {
		// A same-document navigation (a fragment): nothing to load.
		return &NavResult{}, nil
	}
	res, err := w.wait(ctx, nav.LoaderID, waitUntil)
	if err != nil {
		return nil, err
	}
	if !isHTTP(rawURL) {
		res.HTTPStatus, res.ContentType = nil, nil
	}
	return res, nil
}

// loadWaiter follows a tab's main-frame load. Make it before starting the
// navigation, so no event slips between the command and the wait.
type loadWaiter struct {
	// check, when set, is asked every few milliseconds while waiting; an
	// error ends the wait (a guard refusal: a 204 commits nothing, so the
	// load would never come).
	check     func() error
	loader    cdp.LoaderID // the navigation's, once known
	frame     cdp.FrameID
	lifecycle <-chan jsonv2.Value
	responses <-chan jsonv2.Value
	stops     []func()
}

func newLoadWaiter(s *cdpconn.Session, frame cdp.FrameID) *loadWaiter {
	w := &loadWaiter{frame: frame}
	var stop func()
	w.lifecycle, stop = s.Subscribe(cdppage.LifecycleEvent.Method)
	w.stops = append(w.stops, stop)
	w.responses, stop = s.Subscribe(network.ResponseReceived.Method)
	w.stops = append(w.stops, stop)
	return w
}

func (w *loadWaiter) checkNow() error {
	if w.check == nil {
		return nil
	}
	return w.check()
}

func (w *loadWaiter) close() {
	for _, stop := range w.stops {
		stop()
	}
}

// wait waits until the main frame's document of loader reaches waitUntil
// (domcontentloaded, load, networkidle or commit) and reports its response.
// An empty loader adopts the next document the main frame commits (history
// navigations and reloads name none up front). The result has no URL or
// title; http_status and content_type are nil when no HTTP response came.
func (w *loadWaiter) wait(ctx context.Context, loader cdp.LoaderID, waitUntil string) (*NavResult, error) {
	res := &NavResult{}
	want := map[string]string{"domcontentloaded": "DOMContentLoaded", "load": "load", "networkidle": "networkIdle"}[waitUntil]
	record := func(ev jsonv2.Value) {
		var rr network.EventResponseReceived
		if jsonv2.Unmarshal(ev, &rr) != nil || rr.Type != network.ResourceTypeDocument || rr.Response == nil {
			return
		}
		if loader == "" && rr.FrameID == w.frame {
			loader = rr.LoaderID
		}
		if rr.LoaderID == loader {
			st := rr.Response.Status
			res.HTTPStatus = &st
			ct := mediaType(rr.Response.MimeType, rr.Response.Headers)
			res.ContentType = &ct
		}
	}
	// Page.navigate answers once the navigation committed, but the
	// renderer reports the response on its own; "commit" waits for the
	// renderer's first word about the new document (its "init" lifecycle
	// event comes after the response).
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-tick.C:
			if err := w.checkNow(); err != nil {
				return nil, err
			}
		case <-ctx.Done():
			return nil, newError(StatusTimeout, "the page did not reach "+waitUntil+" in time",
				"The page may still be loading; call wait_for or read_page, or retry with wait_until=\"commit\".").with("wait_until", waitUntil)
		case ev, ok := <-w.lifecycle:
			if !ok {
				return nil, pageGone()
			}
			var lc cdppage.EventLifecycleEvent
			if jsonv2.Unmarshal(ev, &lc) != nil {
				continue
			}
			if loader == "" && lc.FrameID == w.frame && lc.Name == "init" {
				loader = lc.LoaderID
			}
			if loader != "" && lc.LoaderID == loader && (lc.Name == want || waitUntil == "commit") {
				done = true
			}
		case ev, ok := <-w.responses:
			if !ok {
				return nil, pageGone()
			}
			record(ev)
		}
	}
	// The document's response event comes before its lifecycle events;
	// take what is already queued.
	for {
		select {
		case ev, ok := <-w.responses:
			if !ok {
				return res, nil
			}
			record(ev)
		default:
			return res, nil
		}
	}
}

func isHTTP(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https")
}

// mediaType is the media type alone, lower-cased: "application/pdf".
func mediaType(mimeType string, h network.Headers) string {
	ct := mimeType
	for k, v := range h {
		if strings.EqualFold(k, "content-type") {
			if s, ok := v.(string); ok && s != "" {
				ct = s
			}
		}
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil {
		return strings.ToLower(mt)
	}
	return strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0]))
}

func pageGone() *Error {
	return newError(StatusPageClosed, "the tab closed during the call", "Call get_url or tabs to see where the session stands.")
}

func callError(ctx context.Context, err error, what string) error {
	if errors.Is(err, cdpconn.ErrClosed) {
		return newError(StatusGuardLost, "the browser connection ended during "+what, "Call close_browser, then open_browser.")
	}
	if ctx.Err() != nil {
		return newError(StatusTimeout, what+" did not finish in time", "Retry, or call get_url to see where the tab stands.")
	}
	if errors.Is(err, cdpconn.ErrDetached) {
		return pageGone()
	}
	return newError(StatusError, what+": "+err.Error(), "Retry; if it persists, call close_browser and open_browser.")
}
