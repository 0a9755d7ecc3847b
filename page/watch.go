package page

import (
	"context"
	"errors"
	"mime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// A Watcher follows what an action set off in a tab. It subscribes before
// the action's input or command is sent, so nothing slips between the two,
// and then answers one of two questions:
//
// Settle (after input: click, keys, typing, a choice) listens for
//
//   - a navigation of one of the tab's frames (Page.frameRequestedNavigation
//     comes before the input's own answer for a link or a form, and before
//     the drain's for a handler's setTimeout(0)): it is followed until it is
//     judged, that is until the frame commits a document, the guard refuses
//     it (the refusal is in before the 204 ends the load, give or take a few
//     milliseconds, which refusalGrace covers), or the load ends; a
//     main-frame navigation is followed to DOMContentLoaded, so the reply's
//     url is the new page and a read reads it;
//   - a tab the action opened (Page.windowOpen from the renderer, then
//     Target.targetCreated): followed until the guard holds it and its
//     first navigation is judged and, when allowed, its document reaches
//     DOMContentLoaded;
//   - the tab closing under the action.
//
// With nothing under way it returns after the linger the caller gives,
// counted from when the page ran the tasks the input queued.
//
// Load (after a navigation command: navigate, a history step, a reload)
// waits until the main frame's new document reaches a lifecycle event and
// reports its response, or until the step ends another way: a page
// restored from the back/forward cache, a step within one document, a
// beforeunload answered "stay", or a refusal the caller's check reports.
//
// The guard's view (what it refused, which tabs it holds, which frames are
// the tab's) comes from a WatchEnv, so a Watcher can be replayed from
// recorded events in a test.
type Watcher struct {
	env        WatchEnv
	tab        target.ID
	tabSession target.SessionID
	sessions   map[target.SessionID]bool
	events     <-chan cdpconn.Event
	stop       func()
	pushback   *pendingEvent // an event taken early, handled next
	lastTimer  *time.Timer
	// mark puts a marker behind every event Chrome has sent
	// (cdpconn.Conn.Mark); nil when replayed. markWant is the token
	// Settle waits for, markSeen says it came.
	mark     func(token string) error
	markWant string
	markSeen bool

	// Settle's state.
	navs      map[cdp.FrameID]*navState
	popups    map[target.ID]*popupState
	opens     []string // URLs of window.open seen whose tab is not created yet
	openSeen  time.Time
	refusedAt time.Time
	closingAt time.Time // the drain saw the page close itself
	out       Outcome

	// Load's state.
	load         *loadState
	dialogClosed bool // a dialog of the tab closed (Page.javascriptDialogClosed)
}

// WatchEnv is what a Watcher asks of the guard.
type WatchEnv interface {
	// Refused: the guard refused a navigation on tab since the action
	// began.
	Refused(tab target.ID) bool
	// Open: the guard holds page target id.
	Open(id target.ID) bool
	// FrameOf: id is one of tab's out-of-process frames.
	FrameOf(tab, id target.ID) bool
}

// Outcome is what Settle found.
type Outcome struct {
	Navigated  bool // the tab's main frame committed a new document
	NavPending bool // a navigation was still loading when time ran out
	TabClosed  bool
	// Popups are the tabs the action opened, in the order they were
	// created, and whether each one's first navigation was refused (it
	// opens no tab: the guard's owner closes it).
	Popups []Popup
}

// Popup is a tab an action opened.
type Popup struct {
	ID      target.ID
	Refused bool
}

// Timings of Settle.
const (
	// refusalGrace is how long a load that ended without committing waits
	// for the guard's refusal to be recorded (it is recorded just after the
	// 204 is answered, and the load's end can be reported first).
	refusalGrace = 60 * time.Millisecond
	// popupGrace bounds the wait for a tab a page asked to open
	// (window.open) that the browser never creates (a blocked popup).
	popupGrace = time.Second
	// popupLoadWait bounds the wait for a tab the action opened to load its
	// first document: past it the reply says the tab opened and is loading.
	popupLoadWait = 3 * time.Second
	// lastCallWait is how long Settle waits for an event already queued
	// for it before it ends: only the queue's own goroutine stands between.
	lastCallWait = 2 * time.Millisecond
	// markWait bounds the wait for the marker Settle puts behind the
	// drain's answer (a round trip to the browser's own session), after
	// which it waits lastCallWait as without one.
	markWait = time.Second
	// refusedPopupClose bounds the wait for the guard's owner to close a
	// popup whose first navigation was refused, so the tab count is right.
	refusedPopupClose = time.Second
	// closeWait bounds the wait for a tab whose page closed itself
	// (window.close(), seen by the drain) to go: the browser closes it
	// a moment later, longer on a loaded machine.
	closeWait = 5 * time.Second
)

type navState struct {
	committed bool
	loader    cdp.LoaderID
	endedAt   time.Time // the load ended without a commit
	done      bool
}

type popupState struct {
	id       target.ID
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

type pendingEvent struct {
	ev cdpconn.Event
	ok bool
}

// watchedMethods are the events every Watcher takes.
var watchedMethods = []string{
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
}

// loadMethods are the events a Watcher made for Load takes besides.
var loadMethods = []string{network.ResponseReceived.Method, cdppage.JavascriptDialogClosed.Method}

// Watch opens a Watcher on the tab whose page session is tabSession, from
// now. extra are sessions of the tab's out-of-process frames whose events
// count as the tab's (the frame an element is in); forLoad adds what Load
// needs. Close it when the call ends.
func Watch(conn *cdpconn.Conn, env WatchEnv, tab target.ID, tabSession target.SessionID, forLoad bool, extra ...target.SessionID) *Watcher {
	methods := watchedMethods
	if forLoad {
		methods = append(append([]string(nil), watchedMethods...), loadMethods...)
	}
	events, stop := conn.Subscribe(append(methods, cdpconn.MethodMark)...)
	w := newWatcher(events, stop, env, tab, tabSession, extra...)
	w.mark = conn.Mark
	return w
}

// settleMarks numbers the markers Settle puts behind the drain. A token
// is not a number: the guard reads numbered ones as its own.
var settleMarks atomic.Int64

func newWatcher(events <-chan cdpconn.Event, stop func(), env WatchEnv, tab target.ID, tabSession target.SessionID, extra ...target.SessionID) *Watcher {
	w := &Watcher{env: env, tab: tab, tabSession: tabSession, events: events, stop: stop,
		sessions: map[target.SessionID]bool{tabSession: true},
		navs:     map[cdp.FrameID]*navState{}, popups: map[target.ID]*popupState{}}
	for _, s := range extra {
		w.sessions[s] = true
	}
	return w
}

// Close ends the subscription.
func (w *Watcher) Close() {
	w.stop()
	if w.lastTimer != nil {
		w.lastTimer.Stop()
	}
}

// Settle waits for what the action set off, as the type's comment says,
// bounded by ctx. With nothing under way it returns once linger has passed
// and drained is closed (the page ran the tasks the input queued). A true
// on drained says the page closed itself: Settle then waits for the tab
// to go (closeWait at most).
func (w *Watcher) Settle(ctx context.Context, linger time.Duration, drained <-chan bool) Outcome {
	quiet := time.Now().Add(linger)
	timer := time.NewTimer(linger)
	defer timer.Stop()
	var markBy time.Time // when the marker put behind the drain is given up
	for {
		if p := w.pushback; p != nil {
			w.pushback = nil
			w.handle(p.ev, p.ok)
		}
		if w.refused() {
			break
		}
		busy, next := w.pending()
		if w.out.TabClosed {
			break
		}
		if !busy {
			if time.Now().Before(quiet) {
				next = quiet
			} else if drained == nil && w.markSeen {
				// Every event Chrome sent before the drain's answer came
				// before the marker sent after it: all taken.
				break
			} else if drained == nil && (w.markWant == "" || time.Now().After(markBy)) {
				// Done, unless an event is still on its way: everything
				// Chrome sent before the drain's answer is already queued
				// for us (one reader, in order), so a moment's wait on the
				// channel is enough to take it.
				if !w.lastCall() {
					break
				}
				continue
			} else if drained == nil {
				next = markBy
			}
		}
		if !next.IsZero() {
			timer.Reset(time.Until(next))
		} else {
			timer.Reset(time.Hour)
		}
		select {
		case <-ctx.Done():
			busy, _ := w.pending()
			w.out.NavPending = busy
			return w.outcome()
		case <-timer.C:
		case closing, ok := <-drained:
			if closing && w.closingAt.IsZero() {
				w.closingAt = time.Now()
			}
			if !ok {
				drained = nil // done; a nil channel is never selected again
				// A marker behind what Chrome has sent so far: once it
				// is taken, so is every event sent before the drain's
				// answer, with no wait on a clock (lastCall). Lost only
				// with the connection; markWait bounds the wait anyway.
				if w.mark != nil && w.markWant == "" {
					token := "settle-" + strconv.FormatInt(settleMarks.Add(1), 10)
					if w.mark(token) == nil {
						w.markWant, markBy = token, time.Now().Add(markWait)
					}
				}
			}
		case ev, ok := <-w.events:
			w.handle(ev, ok)
		}
	}
	return w.outcome()
}

// lastCall says whether an event arrives within lastCallWait; it is kept
// in pushback for Settle to handle next.
func (w *Watcher) lastCall() bool {
	if w.lastTimer == nil {
		w.lastTimer = time.NewTimer(lastCallWait)
	} else {
		w.lastTimer.Reset(lastCallWait)
	}
	select {
	case ev, ok := <-w.events:
		w.lastTimer.Stop()
		w.pushback = &pendingEvent{ev, ok}
		return true
	case <-w.lastTimer.C:
		return false
	}
}

// outcome lists the popups into the result.
func (w *Watcher) outcome() Outcome {
	o := w.out
	o.Popups = nil
	for _, p := range w.popupsInOrder() {
		if p.slow {
			o.NavPending = true
		}
		o.Popups = append(o.Popups, Popup{ID: p.id, Refused: p.refused})
	}
	return o
}

func (w *Watcher) popupsInOrder() []*popupState {
	out := make([]*popupState, 0, len(w.popups))
	for _, p := range w.popups {
		out = append(out, p)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].created.Before(out[j-1].created); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// refused says whether the guard refused a navigation the action set off.
// A popup whose first navigation was refused is closed by the guard's
// owner: that is waited for, briefly, so the reply's tab count is right.
func (w *Watcher) refused() bool {
	if w.env.Refused(w.tab) {
		return true
	}
	for id, p := range w.popups {
		if !w.env.Refused(id) {
			continue
		}
		p.refused = true
		if w.refusedAt.IsZero() {
			w.refusedAt = time.Now()
		}
		if w.env.Open(id) && time.Since(w.refusedAt) < refusedPopupClose {
			return false
		}
		return true
	}
	return false
}

// pending says whether something is still under way, and the earliest
// moment it must be looked at again without an event (a grace running
// out).
func (w *Watcher) pending() (busy bool, next time.Time) {
	soon := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	for _, n := range w.navs {
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
		busy = true
	}
	for _, p := range w.popups {
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
		busy = true
	}
	if !w.closingAt.IsZero() && !w.out.TabClosed && time.Since(w.closingAt) < closeWait {
		busy = true
		soon(w.closingAt.Add(closeWait))
	}
	if len(w.opens) > 0 {
		if time.Since(w.openSeen) >= popupGrace {
			w.opens = nil
		} else {
			busy = true
			soon(w.openSeen.Add(popupGrace))
		}
	}
	return busy, next
}

func (w *Watcher) popupBySession(sid target.SessionID) *popupState {
	if sid == "" {
		return nil
	}
	for _, p := range w.popups {
		if p.session == sid {
			return p
		}
	}
	return nil
}

// handle takes one event into Settle's state (and Load's, when loading).
func (w *Watcher) handle(ev cdpconn.Event, ok bool) {
	if !ok {
		w.out.TabClosed = true
		return
	}
	if w.load != nil && ev.SessionID == w.tabSession {
		w.load.handle(w, ev)
	}
	switch ev.Method {
	case cdpconn.MethodMark:
		var token string
		if w.markWant != "" && jsonv2.Unmarshal(ev.Params, &token) == nil && token == w.markWant {
			w.markSeen = true
		}
	case cdppage.FrameRequestedNavigation.Method:
		w.onRequested(ev)
	case cdppage.WindowOpen.Method:
		var e cdppage.EventWindowOpen
		if w.sessions[ev.SessionID] && jsonv2.Unmarshal(ev.Params, &e) == nil {
			w.opens = append(w.opens, e.URL)
			w.openSeen = time.Now()
		}
	case target.TargetCreated.Method:
		w.onCreated(ev)
	case target.AttachedToTarget.Method:
		w.onAttached(ev)
	case cdppage.FrameNavigated.Method:
		w.onNavigated(ev)
	case cdppage.NavigatedWithinDocument.Method:
		var e cdppage.EventNavigatedWithinDocument
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			if n := w.navs[e.FrameID]; n != nil {
				n.done = true
			}
		}
	case cdppage.LifecycleEvent.Method:
		w.onLifecycle(ev)
	case cdppage.FrameStoppedLoading.Method:
		var e cdppage.EventFrameStoppedLoading
		if jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		if p := w.popupBySession(ev.SessionID); p != nil {
			if p.navs && !p.done && p.endedAt.IsZero() {
				p.endedAt = time.Now()
			}
			return
		}
		if n := w.navs[e.FrameID]; n != nil && !n.committed && n.endedAt.IsZero() {
			n.endedAt = time.Now()
		}
	case target.TargetDestroyed.Method, target.DetachedFromTarget.Method:
		w.onGone(ev)
	case cdppage.JavascriptDialogClosed.Method:
		if ev.SessionID == w.tabSession {
			w.dialogClosed = true
		}
	}
}

func (w *Watcher) onRequested(ev cdpconn.Event) {
	var e cdppage.EventFrameRequestedNavigation
	if jsonv2.Unmarshal(ev.Params, &e) != nil {
		return
	}
	if p := w.popupBySession(ev.SessionID); p != nil {
		p.navs = true
		return
	}
	if !w.sessions[ev.SessionID] && e.FrameID != cdp.FrameID(w.tab) {
		return
	}
	if e.Disposition != cdppage.ClientNavigationDispositionCurrentTab {
		// A new tab or window: Target.targetCreated follows.
		return
	}
	w.navs[e.FrameID] = &navState{}
}

func (w *Watcher) onCreated(ev cdpconn.Event) {
	var e target.EventTargetCreated
	if jsonv2.Unmarshal(ev.Params, &e) != nil || e.TargetInfo == nil || e.TargetInfo.Type != "page" {
		return
	}
	opener := e.TargetInfo.OpenerID
	if opener == "" || (opener != w.tab && !w.env.FrameOf(w.tab, opener)) {
		return
	}
	p := &popupState{id: e.TargetInfo.TargetID, url: e.TargetInfo.URL, created: time.Now()}
	if len(w.opens) > 0 {
		// The renderer said where it is going.
		p.url, w.opens = w.opens[0], w.opens[1:]
	}
	w.popups[p.id] = p
}

func (w *Watcher) onAttached(ev cdpconn.Event) {
	var e target.EventAttachedToTarget
	if jsonv2.Unmarshal(ev.Params, &e) != nil || e.TargetInfo == nil {
		return
	}
	if p, ok := w.popups[e.TargetInfo.TargetID]; ok {
		p.session = e.SessionID
		p.attached = time.Now()
		if p.url == "" {
			p.url = e.TargetInfo.URL
		}
	} else if e.TargetInfo.Type == "iframe" && w.sessions[ev.SessionID] {
		// An out-of-process frame of the tab appearing now (the action
		// loaded it): its events are ours too.
		w.sessions[e.SessionID] = true
	}
}

func (w *Watcher) onNavigated(ev cdpconn.Event) {
	var e cdppage.EventFrameNavigated
	if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Frame == nil {
		return
	}
	if p := w.popupBySession(ev.SessionID); p != nil {
		if e.Frame.ParentID == "" && p.loader == "" {
			// Its first document: followed to DOMContentLoaded, so the
			// next call reads a page that is there.
			p.loader = e.Frame.LoaderID
		}
		return
	}
	if n := w.navs[e.Frame.ID]; n != nil && !n.committed {
		n.committed = true
		n.loader = e.Frame.LoaderID
		if e.Frame.ID == cdp.FrameID(w.tab) {
			w.out.Navigated = true
		} else {
			n.done = true
		}
	}
}

func (w *Watcher) onLifecycle(ev cdpconn.Event) {
	var e cdppage.EventLifecycleEvent
	if jsonv2.Unmarshal(ev.Params, &e) != nil {
		return
	}
	if p := w.popupBySession(ev.SessionID); p != nil {
		if p.loader != "" && e.LoaderID == p.loader && e.Name == "DOMContentLoaded" {
			p.done = true
		}
		return
	}
	if n := w.navs[e.FrameID]; n != nil && n.committed && e.LoaderID == n.loader && e.Name == "DOMContentLoaded" {
		n.done = true
	}
}

func (w *Watcher) onGone(ev cdpconn.Event) {
	var e struct {
		TargetID  target.ID        `json:"targetId"`
		SessionID target.SessionID `json:"sessionId"`
	}
	if jsonv2.Unmarshal(ev.Params, &e) != nil {
		return
	}
	if e.TargetID == w.tab || (e.SessionID != "" && e.SessionID == w.tabSession) {
		w.out.TabClosed = true
	}
	for id, p := range w.popups {
		if id == e.TargetID || (e.SessionID != "" && p.session == e.SessionID) {
			// Closed (by itself, or by the guard's owner because its first
			// navigation was refused).
			p.done = true
			p.endedAt = time.Now()
		}
	}
}

// LoadSpec says what Load waits for.
type LoadSpec struct {
	// Loader is the navigation's loader id; "" adopts the next document
	// the main frame commits (history steps and reloads name none).
	Loader cdp.LoaderID
	// WaitUntil is domcontentloaded, load, networkidle or commit.
	WaitUntil string
	// Check is asked every loadTick; an error ends the wait with it (a
	// guard refusal: a 204 commits nothing, so the load would never come).
	Check func() error
	// Stayed is asked every loadTick: a beforeunload was answered "stay",
	// so the step will not happen. Load then waits for the page to have
	// the answer (the dialog closed) and reports Stayed.
	Stayed func() bool
	// History: a restore from the back/forward cache and a step within
	// one document end the wait too.
	History bool
}

// LoadResult is what Load found.
type LoadResult struct {
	// HTTPStatus and ContentType describe the document's response; nil
	// when no HTTP response came (about:blank, data:, a cache restore).
	HTTPStatus   *int64
	ContentType  *string
	FromCache    bool // restored from the back/forward cache
	SameDocument bool // a step within the document: nothing loaded
	Stayed       bool // the page asked to stay and the answer kept it
}

// ErrLoadTimeout: the document did not reach the lifecycle event in time.
var ErrLoadTimeout = errors.New("the page did not reach the awaited load state in time")

// ErrTabGone: the tab went away during the wait.
var ErrTabGone = errors.New("the tab closed during the call")

const loadTick = 25 * time.Millisecond

type loadState struct {
	spec     LoadSpec
	want     string
	loader   cdp.LoaderID
	res      LoadResult
	done     bool
	stayWait bool // Stayed said so: waiting for the dialog to close
}

// handle takes one of the tab session's events into the load.
func (l *loadState) handle(w *Watcher, ev cdpconn.Event) {
	main := cdp.FrameID(w.tab)
	switch ev.Method {
	case network.ResponseReceived.Method:
		var rr network.EventResponseReceived
		if jsonv2.Unmarshal(ev.Params, &rr) != nil || rr.Type != network.ResourceTypeDocument || rr.Response == nil {
			return
		}
		if l.loader == "" && rr.FrameID == main {
			l.loader = rr.LoaderID
		}
		if rr.LoaderID == l.loader {
			st := rr.Response.Status
			l.res.HTTPStatus = &st
			ct := mediaType(rr.Response.MimeType, rr.Response.Headers)
			l.res.ContentType = &ct
		}
	case cdppage.LifecycleEvent.Method:
		var lc cdppage.EventLifecycleEvent
		if jsonv2.Unmarshal(ev.Params, &lc) != nil {
			return
		}
		// Page.navigate answers once the navigation committed, but the
		// renderer reports the response on its own; "commit" waits for
		// the renderer's first word about the new document (its "init"
		// lifecycle event comes after the response).
		if l.loader == "" && lc.FrameID == main && lc.Name == "init" {
			l.loader = lc.LoaderID
		}
		if l.loader != "" && lc.LoaderID == l.loader && (lc.Name == l.want || l.spec.WaitUntil == "commit") {
			l.done = true
		}
	case cdppage.FrameNavigated.Method:
		var e cdppage.EventFrameNavigated
		if l.spec.History && jsonv2.Unmarshal(ev.Params, &e) == nil && e.Frame != nil && e.Frame.ID == main &&
			e.Type == cdppage.NavigationTypeBackForwardCacheRestore {
			l.res.FromCache, l.done = true, true
		}
	case cdppage.NavigatedWithinDocument.Method:
		var e cdppage.EventNavigatedWithinDocument
		if l.spec.History && jsonv2.Unmarshal(ev.Params, &e) == nil && e.FrameID == main {
			l.res.SameDocument, l.done = true, true
		}
	}
}

// Load waits, bounded by ctx, for the tab's main frame to load as spec
// says (see the type's comment). A restore from the cache reports no
// response.
func (w *Watcher) Load(ctx context.Context, spec LoadSpec) (LoadResult, error) {
	l := &loadState{spec: spec, loader: spec.Loader,
		want: map[string]string{"domcontentloaded": "DOMContentLoaded", "load": "load", "networkidle": "networkIdle"}[spec.WaitUntil]}
	w.load = l
	defer func() { w.load = nil }()
	if p := w.pushback; p != nil {
		w.pushback = nil
		w.handle(p.ev, p.ok)
	}
	tick := time.NewTicker(loadTick)
	defer tick.Stop()
	for !l.done {
		if l.stayWait && w.dialogClosed {
			l.res.Stayed = true
			break
		}
		select {
		case <-ctx.Done():
			if l.stayWait {
				l.res.Stayed = true
				return l.result(), nil
			}
			return LoadResult{}, ErrLoadTimeout
		case <-tick.C:
			if spec.Check != nil {
				if err := spec.Check(); err != nil {
					return LoadResult{}, err
				}
			}
			if spec.Stayed != nil && !l.stayWait && spec.Stayed() {
				l.stayWait = true
			}
		case ev, ok := <-w.events:
			if !ok {
				return LoadResult{}, ErrTabGone
			}
			w.handle(ev, ok)
			if w.out.TabClosed {
				return LoadResult{}, ErrTabGone
			}
		}
	}
	// What is already queued (a document's response, a cache restore
	// announced with the load) belongs to this step.
	for drained := false; !drained; {
		select {
		case ev, ok := <-w.events:
			if !ok {
				drained = true
				break
			}
			w.handle(ev, ok)
		default:
			drained = true
		}
	}
	return l.result(), nil
}

func (l *loadState) result() LoadResult {
	r := l.res
	if r.FromCache || r.SameDocument || r.Stayed {
		r.HTTPStatus, r.ContentType = nil, nil
	}
	return r
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
