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
)

// What an action set off. A watcher subscribes before the input is sent, so
// nothing slips between the two, and after the input settle listens for:
//
//   - a navigation of one of the tab's frames (Page.frameRequestedNavigation
//     comes before the input's own answer for a link or a form, and before
//     the drain's for a handler's setTimeout(0)): it is followed until it is
//     judged, that is until the frame commits a document, the guard refuses
//     it (the refusal is in before the 204 ends the load, give or take a few
//     milliseconds, which refusalGrace covers), or the load ends;
//     a main-frame navigation is followed to DOMContentLoaded, so the reply's
//     url is the new page and read_page reads it;
//   - a tab the action opened (Page.windowOpen from the renderer, then
//     Target.targetCreated): followed until the guard holds it and its
//     first navigation is judged and, when allowed, its document reaches
//     DOMContentLoaded; the session is on it by then;
//   - the tab closing under the action.
//
// With nothing under way the watcher returns after the linger the caller
// gives, counted from when the page ran the tasks the input queued.

// refusalGrace is how long a load that ended without committing waits for
// the guard's refusal to be recorded (it is recorded just after the 204 is
// answered, and the load's end can be reported first).
const refusalGrace = 60 * time.Millisecond

// popupGrace bounds the wait for a tab a page asked to open (window.open)
// that the browser never creates (a blocked popup).
const popupGrace = time.Second

// popupLoadWait bounds the wait for a tab the action opened to load its
// first document: past it the reply says the tab opened and is loading.
const popupLoadWait = 3 * time.Second

type navState struct {
	committed bool
	loader    cdp.LoaderID
	endedAt   time.Time // the load ended without a commit
	done      bool
}

type popupState struct {
	session  target.SessionID
	url      string
	navs     bool // its first navigation was requested
	done     bool
	endedAt  time.Time
	attached time.Time
	refused  bool         // its first navigation was refused: it opens no tab
	loader   cdp.LoaderID // its first document, once committed
	created  time.Time
	slow     bool // still loading when the wait for it ended
}

type watcher struct {
	b        *Browser
	tab      cdpguard.Target
	sessions map[target.SessionID]bool
	events   <-chan cdpconn.Event
	stop     func()
	pushback *pendingEvent // an event taken early, handled next
}

type pendingEvent struct {
	ev cdpconn.Event
	ok bool
}

// lastCallWait is how long settle waits for an event already queued for it
// before it ends: only the queue's own goroutine stands between.
const lastCallWait = 2 * time.Millisecond

// lastCall says whether an event arrives within lastCallWait; it is kept
// in pushback for settle to handle next.
func (w *watcher) lastCall(t **time.Timer) bool {
	if *t == nil {
		*t = time.NewTimer(lastCallWait)
	} else {
		(*t).Reset(lastCallWait)
	}
	select {
	case ev, ok := <-w.events:
		(*t).Stop()
		w.pushback = &pendingEvent{ev, ok}
		return true
	case <-(*t).C:
		return false
	}
}

// outcome is what settle found.
type outcome struct {
	navigated  bool        // the tab's main frame committed a new document
	navPending bool        // a navigation was still loading when time ran out
	newTabs    []target.ID // tabs the action opened (the session follows the last)
	refusedOn  []target.ID // tabs to look for refusals on besides the action's own
	tabClosed  bool
}

func (b *Browser) watch(tab cdpguard.Target, extra ...target.SessionID) *watcher {
	w := &watcher{b: b, tab: tab, sessions: map[target.SessionID]bool{tab.SessionID: true}}
	for _, s := range extra {
		w.sessions[s] = true
	}
	w.events, w.stop = b.conn.Subscribe(
		cdppage.FrameRequestedNavigation.Method,
		cdppage.FrameNavigated.Method,
		cdppage.NavigatedWithinDocument.Method,
		cdppage.FrameStoppedLoading.Method,
		cdppage.LifecycleEvent.Method,
		cdppage.WindowOpen.Method,
		target.TargetCreated.Method,
		target.AttachedToTarget.Method,
		target.TargetDestroyed.Method,
		target.DetachedFromTarget.Method,
	)
	return w
}

func (w *watcher) close() { w.stop() }

// settle waits for what the action set off, as described above, bounded
// by ctx. With nothing under way it returns once linger has passed and
// drained is closed (the page ran the tasks the input queued: see
// actCall.drain, which runs meanwhile).
func (w *watcher) settle(ctx context.Context, a *Action, linger time.Duration, drained <-chan struct{}) outcome {
	var o outcome
	main := cdp.FrameID(w.tab.ID)
	navs := map[cdp.FrameID]*navState{}
	popups := map[target.ID]*popupState{}
	var opens []string // URLs of window.open seen whose tab is not created yet
	var openSeen time.Time
	quiet := time.Now().Add(linger)
	var lastCallTimer *time.Timer
	timer := time.NewTimer(linger)
	defer timer.Stop()

	ours := func(sid target.SessionID) bool { return w.sessions[sid] }
	popupBySession := func(sid target.SessionID) (target.ID, *popupState) {
		for id, p := range popups {
			if p.session == sid && sid != "" {
				return id, p
			}
		}
		return "", nil
	}
	// refused says whether the guard refused a navigation the action set
	// off. A popup whose first navigation was refused is closed by the
	// guard's owner (the session): that is waited for, briefly, so the
	// reply's tab count is right.
	var refusedAt time.Time
	refused := func() bool {
		if a.Refused() != nil {
			return true
		}
		for id, p := range popups {
			if a.Refused(id) == nil {
				continue
			}
			p.refused = true
			if refusedAt.IsZero() {
				refusedAt = time.Now()
			}
			if _, open := w.b.guard.Page(id); open && time.Since(refusedAt) < time.Second {
				return false
			}
			return true
		}
		return false
	}
	pending := func() (bool, time.Time) {
		// The earliest moment something pending must be looked at again
		// without an event (a grace running out).
		next := time.Time{}
		soon := func(t time.Time) {
			if next.IsZero() || t.Before(next) {
				next = t
			}
		}
		any := false
		for _, n := range navs {
			if n.done {
				continue
			}
			if !n.endedAt.IsZero() {
				if time.Since(n.endedAt) >= refusalGrace {
					n.done = true
					continue
				}
				soon(n.endedAt.Add(refusalGrace))
			}
			any = true
		}
		for _, p := range popups {
			if p.done {
				continue
			}
			if time.Since(p.created) >= popupLoadWait {
				p.done, p.slow = true, true
				continue
			}
			soon(p.created.Add(popupLoadWait))
			if !p.endedAt.IsZero() {
				if time.Since(p.endedAt) >= refusalGrace {
					p.done = true
					continue
				}
				soon(p.endedAt.Add(refusalGrace))
			}
			if !p.attached.IsZero() && !p.navs && (p.url == "" || p.url == "about:blank") {
				// A blank popup: nothing will load in it.
				p.done = true
				continue
			}
			any = true
		}
		if len(opens) > 0 {
			if time.Since(openSeen) >= popupGrace {
				opens = nil
			} else {
				any = true
				soon(openSeen.Add(popupGrace))
			}
		}
		return any, next
	}

	// handle takes one event into the state above.
	handle := func(ev cdpconn.Event, ok bool) {
		if !ok {
			o.tabClosed = true
			return
		}
		switch ev.Method {
		case cdppage.FrameRequestedNavigation.Method:
			var e cdppage.EventFrameRequestedNavigation
			if jsonv2.Unmarshal(ev.Params, &e) != nil {
				return
			}
			if _, p := popupBySession(ev.SessionID); p != nil {
				p.navs = true
				return
			}
			if !ours(ev.SessionID) && e.FrameID != main {
				return
			}
			if e.Disposition != cdppage.ClientNavigationDispositionCurrentTab {
				// A new tab or window: Target.targetCreated follows.
				return
			}
			navs[e.FrameID] = &navState{}
		case cdppage.WindowOpen.Method:
			var e cdppage.EventWindowOpen
			if ours(ev.SessionID) && jsonv2.Unmarshal(ev.Params, &e) == nil {
				opens = append(opens, e.URL)
				openSeen = time.Now()
			}
		case target.TargetCreated.Method:
			var e target.EventTargetCreated
			if jsonv2.Unmarshal(ev.Params, &e) != nil || e.TargetInfo == nil || e.TargetInfo.Type != "page" {
				return
			}
			if e.TargetInfo.OpenerID == w.tab.ID || w.openedByFrame(e.TargetInfo.OpenerID) {
				p := &popupState{url: e.TargetInfo.URL, created: time.Now()}
				if len(opens) > 0 {
					// The renderer said where it is going.
					p.url, opens = opens[0], opens[1:]
				}
				popups[e.TargetInfo.TargetID] = p
			}
		case target.AttachedToTarget.Method:
			var e target.EventAttachedToTarget
			if jsonv2.Unmarshal(ev.Params, &e) != nil || e.TargetInfo == nil {
				return
			}
			if p, ok := popups[e.TargetInfo.TargetID]; ok {
				p.session = e.SessionID
				p.attached = time.Now()
				if p.url == "" {
					p.url = e.TargetInfo.URL
				}
			} else if e.TargetInfo.Type == "iframe" && ours(ev.SessionID) {
				// An out-of-process frame of the tab appearing now
				// (the action loaded it): its events are ours too.
				w.sessions[e.SessionID] = true
			}
		case cdppage.FrameNavigated.Method:
			var e cdppage.EventFrameNavigated
			if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Frame == nil {
				return
			}
			if _, p := popupBySession(ev.SessionID); p != nil {
				if e.Frame.ParentID == "" && p.loader == "" {
					// Its first document: followed to DOMContentLoaded, so
					// the next call reads a page that is there.
					p.loader = e.Frame.LoaderID
				}
				return
			}
			if n := navs[e.Frame.ID]; n != nil && !n.committed {
				n.committed = true
				n.loader = e.Frame.LoaderID
				if e.Frame.ID == main {
					o.navigated = true
				} else {
					n.done = true
				}
			}
		case cdppage.NavigatedWithinDocument.Method:
			var e cdppage.EventNavigatedWithinDocument
			if jsonv2.Unmarshal(ev.Params, &e) == nil {
				if n := navs[e.FrameID]; n != nil {
					n.done = true
				}
			}
		case cdppage.LifecycleEvent.Method:
			var e cdppage.EventLifecycleEvent
			if jsonv2.Unmarshal(ev.Params, &e) != nil {
				return
			}
			if _, p := popupBySession(ev.SessionID); p != nil {
				if p.loader != "" && e.LoaderID == p.loader && e.Name == "DOMContentLoaded" {
					p.done = true
				}
				return
			}
			if n := navs[e.FrameID]; n != nil && n.committed && e.LoaderID == n.loader && e.Name == "DOMContentLoaded" {
				n.done = true
			}
		case cdppage.FrameStoppedLoading.Method:
			var e cdppage.EventFrameStoppedLoading
			if jsonv2.Unmarshal(ev.Params, &e) != nil {
				return
			}
			if _, p := popupBySession(ev.SessionID); p != nil {
				if p.navs && !p.done && p.endedAt.IsZero() {
					p.endedAt = time.Now()
				}
				return
			}
			if n := navs[e.FrameID]; n != nil && !n.committed && n.endedAt.IsZero() {
				n.endedAt = time.Now()
			}
		case target.TargetDestroyed.Method, target.DetachedFromTarget.Method:
			var e struct {
				TargetID  target.ID        `json:"targetId"`
				SessionID target.SessionID `json:"sessionId"`
			}
			if jsonv2.Unmarshal(ev.Params, &e) != nil {
				return
			}
			if e.TargetID == w.tab.ID || (e.SessionID != "" && e.SessionID == w.tab.SessionID) {
				o.tabClosed = true
			}
			for id, p := range popups {
				if id == e.TargetID || (e.SessionID != "" && p.session == e.SessionID) {
					// Closed (by itself, or by the guard because its
					// first navigation was refused).
					p.done = true
					p.endedAt = time.Now()
				}
			}
		}
	}

	for {
		if p := w.pushback; p != nil {
			w.pushback = nil
			handle(p.ev, p.ok)
		}
		if refused() {
			break
		}
		busy, next := pending()
		if o.tabClosed {
			break
		}
		if !busy {
			if time.Now().Before(quiet) {
				next = quiet
			} else if drained == nil {
				// Done, unless an event is still on its way: everything
				// Chrome sent before the drain's answer is already queued
				// for us (one reader, in order), so a moment's wait on the
				// channel is enough to take it.
				if !w.lastCall(&lastCallTimer) {
					break
				}
				continue
			}
		}
		if !next.IsZero() {
			timer.Reset(time.Until(next))
		} else {
			timer.Reset(time.Hour)
		}
		select {
		case <-ctx.Done():
			busy, _ := pending()
			o.navPending = busy
			o.finish(w, popups)
			return o
		case <-timer.C:
			continue
		case <-drained:
			drained = nil // done; a nil channel is never selected again
			continue
		case ev, ok := <-w.events:
			handle(ev, ok)
		}
	}
	o.finish(w, popups)
	return o
}

// openedByFrame: the opener is one of the tab's out-of-process frames.
func (w *watcher) openedByFrame(opener target.ID) bool {
	if opener == "" {
		return false
	}
	for _, f := range w.b.guard.Frames(w.tab.ID) {
		if f.ID == opener {
			return true
		}
	}
	return false
}

// finish records the tabs the action opened that are still open, and
// makes the session follow onto the newest (manager.onTarget does it for a
// tab the active page opened; a popup from an out-of-process frame names
// that frame as its opener).
func (o *outcome) finish(w *watcher, popups map[target.ID]*popupState) {
	var newest cdpguard.Target
	for id, p := range popups {
		o.refusedOn = append(o.refusedOn, id)
		if p.slow {
			o.navPending = true
		}
		if t, ok := w.b.guard.Page(id); ok && !p.refused {
			o.newTabs = append(o.newTabs, id)
			if t.Seq > newest.Seq {
				newest = t
			}
		}
	}
	if newest.ID != "" && !o.tabClosed && w.b.activeID() == w.tab.ID {
		w.b.setActive(newest.ID)
	}
}
