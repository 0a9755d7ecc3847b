package session

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/snapshot"
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

// waitSlice bounds one in-page wait: a navigation that destroys our world
// ends only one slice, and the next one runs in the new document.
const waitSlice = 2 * time.Second

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
	if wctx.Err() == nil {
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
		with("waited_ms", waited.Milliseconds()).with("last_seen", lastSeen)
}

// waitInPage waits for text or a selector with our page-side code, one
// slice at a time, and returns the last excerpt it saw.
func (b *Browser) waitInPage(ctx context.Context, tab cdpguard.Target, kind, arg, state string) (string, error) {
	s := b.conn.Session(tab.SessionID)
	excerpt := ""
	for {
		slice := waitSlice
		if d, ok := ctx.Deadline(); ok {
			slice = min(slice, time.Until(d))
		}
		if slice <= 0 {
			return excerpt, ctx.Err()
		}
		// The call itself may outlive the slice by a little: it answers
		// when the page's timer fires.
		cctx, cancel := context.WithTimeout(context.Background(), slice+2*time.Second)
		var r struct {
			Met     bool   `json:"met"`
			Excerpt string `json:"excerpt"`
		}
		err := b.worlds.CallFunction(cctx, s, cdp.FrameID(tab.ID), snapshot.JSWait, &r, kind, arg, state, slice.Milliseconds())
		cancel()
		if err != nil {
			if e := readErr(ctx, err, arg); isArgError(e) {
				return "", e
			}
			if ctx.Err() != nil {
				return excerpt, ctx.Err()
			}
			if cdpconn.IsContextGone(err) || cdpconn.IsTargetGone(err) || cdpconn.IsNavigatedOrClosed(err) {
				// The document changed under the wait; look again in the
				// new one, without spinning.
				select {
				case <-ctx.Done():
					return excerpt, ctx.Err()
				case <-time.After(50 * time.Millisecond):
				}
				continue
			}
			return "", err
		}
		if r.Met {
			return "", nil
		}
		excerpt = r.Excerpt
		if ctx.Err() != nil {
			return excerpt, ctx.Err()
		}
	}
}

func isArgError(err error) bool {
	e, ok := err.(*Error)
	return ok && e.Status == StatusError && e.Fields["argument"] != nil
}

// waitURL waits for the tab's URL to match the glob. The guard's registry
// follows the tab's URL (Target.targetInfoChanged); each change is looked
// at, and the browser is asked directly now and then in case an update
// came before we subscribed.
func (b *Browser) waitURL(ctx context.Context, tab cdpguard.Target, glob string) (string, error) {
	re := page.URLGlob(glob)
	events, stop := b.conn.Subscribe(target.TargetInfoChanged.Method)
	defer stop()
	cur := b.currentURL(ctx, tab)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		if re.MatchString(cur) {
			return cur, nil
		}
		select {
		case <-ctx.Done():
			return cur, ctx.Err()
		case ev, ok := <-events:
			if !ok {
				return cur, pageGone()
			}
			var c target.EventTargetInfoChanged
			if jsonv2.Unmarshal(ev.Params, &c) == nil && c.TargetInfo != nil && c.TargetInfo.TargetID == tab.ID {
				cur = c.TargetInfo.URL
			}
		case <-tick.C:
			cur = b.currentURL(ctx, tab)
		}
	}
}

func (b *Browser) currentURL(ctx context.Context, tab cdpguard.Target) string {
	u, _ := b.fresh(ctx, tab)
	return u
}

// waitLoadState waits for the main frame's current document to reach a
// lifecycle state. Turning lifecycle events on again makes Chrome replay
// the ones the document already passed, so a state reached before the
// call counts at once.
func (b *Browser) waitLoadState(ctx context.Context, tab cdpguard.Target, state string) error {
	want := map[string]string{"domcontentloaded": "DOMContentLoaded", "load": "load", "networkidle": "networkIdle"}[state]
	s := b.conn.Session(tab.SessionID)
	events, stop := s.Subscribe(cdppage.LifecycleEvent.Method)
	defer stop()
	loaders, err := page.FrameLoaders(ctx, b.conn, tab.SessionID)
	if err != nil {
		return err
	}
	loader := loaders[cdp.FrameID(tab.ID)]
	if _, err := cdp.Call(ctx, s, cdppage.SetLifecycleEventsEnabled, cdppage.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-events:
			if !ok {
				return pageGone()
			}
			var lc cdppage.EventLifecycleEvent
			if jsonv2.Unmarshal(ev, &lc) != nil || lc.FrameID != cdp.FrameID(tab.ID) {
				continue
			}
			if lc.Name == "init" && lc.LoaderID != loader {
				loader = lc.LoaderID // a new document: its states count now
			}
			if lc.LoaderID == loader && lc.Name == want {
				return nil
			}
		}
	}
}
