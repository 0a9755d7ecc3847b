package session

import (
	"context"
	"errors"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
)

// WaitOptions is one wait_for condition; exactly one of Text, Selector,
// URL and LoadState is set (the tool checks).
type WaitOptions struct {
	Text      string
	Selector  string
	URL       string // a glob over the whole URL
	LoadState string // load, domcontentloaded, networkidle
	State     string // text: visible|hidden; selector: visible|hidden|attached|detached
	Timeout   time.Duration
}

// LoadStates are the states wait_for(load_state=...) accepts.
var LoadStates = []string{"load", "domcontentloaded", "networkidle"}

// WaitFor holds until the condition is met or the timeout passes. Running
// out of time is an answer: a timeout *Error with waited_ms and last_seen.
func (m *Manager) WaitFor(ctx context.Context, c Caller, o WaitOptions) (time.Duration, error) {
	b, tab, done, err := m.enterTab(ctx, c, read)
	defer done()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	var lastSeen string
	switch {
	case o.URL != "":
		lastSeen, err = b.waitURL(wctx, tab, o.URL)
	case o.LoadState != "":
		err = b.waitLoadState(wctx, tab, o.LoadState)
	default:
		kind, arg, state := "text", o.Text, o.State
		if o.Selector != "" {
			kind, arg = "selector", o.Selector
		}
		if state == "" {
			state = "visible"
		}
		lastSeen, err = b.waitInPage(wctx, tab, kind, arg, state)
	}
	waited := time.Since(start)
	if err == nil {
		return waited, nil
	}
	if ctx.Err() != nil {
		return waited, callError(ctx, ctx.Err(), "wait_for")
	}
	if wctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
		if _, ok := err.(*Error); ok {
			return waited, err
		}
		return waited, callError(ctx, err, "wait_for")
	}
	// Out of time. last_seen says why: the URL for a url wait, else a
	// short excerpt of the page's text.
	if o.URL != "" {
		lastSeen = b.currentURL(ctx, tab)
	} else if lastSeen == "" {
		lastSeen = page.Excerpt(b.conn.Session(tab.SessionID), &b.worlds, cdp.FrameID(tab.ID))
	}
	return waited, newError(StatusTimeout, "the condition was not met in time",
		"Look at last_seen: call read_page to see the page, or wait again with a longer timeout_ms (at most 30000).").
		timedOut(waited.Milliseconds(), lastSeen)
}

// waitInPage waits for text or a selector (page.WaitInPage); a selector
// the browser cannot parse is the caller's argument.
func (b *Browser) waitInPage(ctx context.Context, tab cdpguard.Target, kind, arg, state string) (string, error) {
	seen, err := page.WaitInPage(ctx, b.conn, &b.worlds, b.pageTab(tab), kind, arg, state)
	if e := readErr(ctx, err, arg); isArgError(e) {
		return "", e
	}
	return seen, err
}

func isArgError(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Status == StatusError && e.Argument != ""
}

// waitURL waits for the tab's URL to match the glob (page.WaitURL).
func (b *Browser) waitURL(ctx context.Context, tab cdpguard.Target, glob string) (string, error) {
	cur, err := page.WaitURL(ctx, b.conn, b.pageTab(tab), glob, func(ctx context.Context) string { return b.currentURL(ctx, tab) })
	if errors.Is(err, page.ErrTabGone) {
		return cur, pageGone()
	}
	return cur, err
}

func (b *Browser) currentURL(ctx context.Context, tab cdpguard.Target) string {
	u, _ := b.fresh(ctx, tab)
	return u
}

// waitLoadState waits for the main frame's document to reach a lifecycle
// state (page.WaitLoadState).
func (b *Browser) waitLoadState(ctx context.Context, tab cdpguard.Target, state string) error {
	err := page.WaitLoadState(ctx, b.conn, b.pageTab(tab), state)
	if errors.Is(err, page.ErrTabGone) {
		return pageGone()
	}
	return err
}
