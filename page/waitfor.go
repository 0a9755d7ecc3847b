package page

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/snapshot"
)

// waitSlice bounds one in-page wait: a navigation that destroys our world
// ends only one slice, and the next one runs in the new document.
const waitSlice = 2 * time.Second

// IsBadSelector reports whether err is our page-side code rejecting a
// selector the browser cannot parse.
func IsBadSelector(err error) bool {
	var se *ScriptError
	return errors.As(err, &se) && strings.Contains(se.Text, "lyrad:badselector")
}

// WaitInPage waits in the tab's main frame for text or a selector (kind
// "text" or "selector") to reach state, with our page-side code, one slice
// at a time, until ctx ends; it returns the last excerpt it saw. A
// selector the browser cannot parse ends it at once (IsBadSelector).
func WaitInPage(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, kind, arg, state string) (string, error) {
	s := conn.Session(tab.Session)
	excerpt := ""
	for looked := false; ; looked = true {
		slice := waitSlice
		if d, ok := ctx.Deadline(); ok {
			slice = min(slice, time.Until(d))
		}
		if slice <= 0 {
			if looked {
				// Past the deadline, whether or not ctx's timer has
				// fired yet (a nil error here would read as met).
				return excerpt, context.DeadlineExceeded
			}
			// The page is looked at once, however short the wait: a
			// condition that holds already is met (on a loaded machine
			// a 1 ms timeout_ms is gone before the first look).
			slice = 0
		}
		// The call itself may outlive the slice by a little: it answers
		// when the page's timer fires.
		cctx, cancel := context.WithTimeout(context.Background(), slice+2*time.Second)
		var r struct {
			Met     bool   `json:"met"`
			Excerpt string `json:"excerpt"`
		}
		err := w.CallFunction(cctx, s, tab.Main(), snapshot.JSWait, &r, kind, arg, state, slice.Milliseconds())
		cancel()
		if err != nil {
			if IsBadSelector(err) {
				return "", err
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

// WaitURL waits for the tab's URL to match the glob (urlGlob) and returns
// the URL it last saw. Each Target.targetInfoChanged of the tab is looked
// at, and current (the browser asked directly) now and then, in case an
// update came before we subscribed. The event stream ending is ErrTabGone.
func WaitURL(ctx context.Context, conn *cdpconn.Conn, tab Tab, glob string, current func(context.Context) string) (string, error) {
	re := urlGlob(glob)
	events, stop := conn.Subscribe(target.TargetInfoChanged.Method)
	defer stop()
	// The first look is had however short the wait (as WaitInPage's).
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	cur := current(fctx)
	cancel()
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
				return cur, ErrTabGone
			}
			var c target.EventTargetInfoChanged
			if jsonv2.Unmarshal(ev.Params, &c) == nil && c.TargetInfo != nil && c.TargetInfo.TargetID == tab.ID {
				cur = c.TargetInfo.URL
			}
		case <-tick.C:
			cur = current(ctx)
		}
	}
}

// WaitLoadState waits for the main frame's current document to reach a
// lifecycle state (load, domcontentloaded, networkidle). Turning lifecycle
// events on again makes Chrome replay the ones the document already
// passed, so a state reached before the call counts at once. The event
// stream ending is ErrTabGone.
func WaitLoadState(ctx context.Context, conn *cdpconn.Conn, tab Tab, state string) error {
	want := map[string]string{"domcontentloaded": "DOMContentLoaded", "load": "load", "networkidle": "networkIdle"}[state]
	s := conn.Session(tab.Session)
	events, stop := s.Subscribe(cdppage.LifecycleEvent.Method)
	defer stop()
	loaders, err := FrameLoaders(ctx, conn, tab.Session)
	if err != nil {
		return err
	}
	loader := loaders[tab.Main()]
	if _, err := cdp.Call(ctx, s, cdppage.SetLifecycleEventsEnabled, cdppage.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-events:
			if !ok {
				return ErrTabGone
			}
			var lc cdppage.EventLifecycleEvent
			if jsonv2.Unmarshal(ev, &lc) != nil || lc.FrameID != tab.Main() {
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
