// Package cdpguard holds every document request the browser is about to send
// until it has been judged.
//
// It stands on the one CDP connection lyrad owns. Browser-level auto-attach
// with waitForDebuggerOnStart pauses every new page (popups included) before
// its first request; the same auto-attach on each page session does it for
// out-of-process iframes. While a target is paused the guard enables Fetch for
// document requests and turns service workers off for it, and only then lets
// it run. Each Fetch.requestPaused goes through one Decider and is answered
// Fetch.continueRequest or a 204 Fetch.fulfillRequest, never a failure, so the
// page stays standing.
//
// The guard fails closed: a target it cannot set up is reported through
// Options.OnFailure, and the owner of the browser must kill it. A lost
// connection is the owner's to notice (cdpconn's OnClose).
package cdpguard

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/cdpconn"
)

// Request is a paused request as the Decider sees it. A document request
// carries its body, as the browser handed it over, for the Decider only:
// it is dropped once the request is answered, and never recorded.
type Request struct {
	TargetID     target.ID
	TabID        target.ID // the page (tab or popup) the request belongs to
	TargetType   string    // "page" or "iframe"
	SessionID    target.SessionID
	RequestID    fetch.RequestID
	FrameID      cdp.FrameID
	URL          string
	Method       string
	HasBody      bool
	ResourceType network.ResourceType
	// RedirectFrom is the URL of the hop whose redirect response produced
	// this request; empty for a first request.
	RedirectFrom string
	// NetworkID is the request's Network id; for a navigation it is the
	// loader id Page.navigate answers, and it stays the same over redirects.
	NetworkID string
	// InSubframe: the request loads a document into an iframe (an
	// out-of-process iframe's own navigations included).
	InSubframe bool
	// Issuer is the URL of the document the request comes from: the
	// frame's current document, or for a frame with no document of its own
	// (a first load, about:blank, about:srcdoc, data:) its creator's (the
	// parent frame, a popup's opener). "" when no creator is known (a tab
	// the browser or lyrad opened).
	Issuer string
	// Sender is the origin of the document that started the request, as the
	// browser stated it in the Origin header of the first hop ("null" for an
	// opaque origin: a data: or sandboxed frame, a file: page). It is kept
	// over redirect hops, where the browser may rewrite the header. "" when
	// the browser sent none (GET navigations).
	Sender string
	// SenderTab is the tab the request was started from: TabID, or for a
	// popup that has no document yet (its first load, a target=_blank form
	// post), its opener.
	SenderTab target.ID
	// NoAccept: a document request with no Accept header. Chrome's
	// navigations always send one; its download manager (an <a download>
	// click) does not, so this one will be a download.
	NoAccept bool
	// UserActivated: the browser says a user's act started this navigation
	// (Network.requestWillBeSent's hasUserGesture: a real click, Enter in a
	// form, a typed URL, back from the browser's UI). A page's own timer,
	// meta refresh or script submit has none, and an <a download> request
	// (the download manager's) has none either. It is the chain's first
	// hop's, kept over redirect hops. (Chrome also sends Sec-Fetch-User: ?1
	// on the same navigations, but the network service adds that header
	// after the Fetch domain has seen the request: a paused request never
	// carries it.)
	UserActivated bool
	// ActivatedAt is when the browser told of that first hop
	// (requestWillBeSent, read on the connection's reader), for
	// UserActivated requests: whose input the gesture was is for the
	// Decider to tell (a takeover counts only a person's).
	ActivatedAt time.Time
	// Subresource marks a send that is not a document (fetch, XHR, beacon,
	// a report), held because Options.HoldSends asked for it. Only sends
	// with a method other than GET and HEAD reach the Decider.
	Subresource bool
	// ContentType is a document request's Content-Type header.
	ContentType string
	// Body is a document request's body, in the pieces the browser handed
	// over (Fetch.requestPaused's postDataEntries); nil once answered.
	Body [][]byte
	// BodyUnread: the request has a body that was not handed over, whole
	// or in part (an entry with no bytes: a file or a stream).
	BodyUnread bool
}

// Send is a request a guarded page (or a worker) sent that is not a
// document and not a GET: fetch and XHR with a body or a mutating method,
// beacons, reports, and WebSocket handshakes. It is read from the Network
// events, with no pause and no cost to the page.
type Send struct {
	TabID      target.ID // "" for a worker that outlives its pages
	TargetID   target.ID
	TargetType string
	FrameID    cdp.FrameID
	Method     string // WEBSOCKET for a WebSocket handshake
	URL        string
	Type       network.ResourceType
	// Sender is the origin of the document that sent it: the Origin header
	// when the browser put one, else the frame's document (its creator's
	// for one with none of its own).
	Sender string
}

// Verdict is the Decider's answer. Fields are added to the audit row.
type Verdict struct {
	Allow  bool
	Reason string
	Fields map[string]any
}

// Decider judges one paused request. It is called on the guard's event
// loop, in the order the requests paused, so it must not block: no call
// into the browser (the page whose request is paused does not answer while
// it waits), no wait on anything the guard delivers.
type Decider func(ctx context.Context, r Request) Verdict

// AllowAll is the Decider used until grants are configured: every request is
// judged, recorded and let through.
func AllowAll(context.Context, Request) Verdict { return Verdict{Allow: true, Reason: "allow_all"} }

// Options configure a Guard.
type Options struct {
	Decide Decider
	// OnDecision is told of every judged request after its answer was
	// sent (took: from its pause to then), in order, on a goroutine of its
	// own: the event loop never waits on it.
	OnDecision func(r Request, v Verdict, took time.Duration)
	// OnRefuse is told of a refusal before the request is answered, so
	// whoever started the navigation knows by the time the browser does.
	// Like Decide, it runs on the event loop and must not block.
	OnRefuse func(r Request, v Verdict)
	// OnFailure is told when a target could not be guarded. The browser
	// must then be closed: the target may be running unguarded.
	OnFailure func(err error)
	// Prepare sends a target's own setup (lifecycle events, ...) while it
	// is still held, after the guard's: for pages and out-of-process
	// iframes, and for service and shared workers, which are not guarded
	// (t.Type tells which). It must only Send.
	Prepare func(q *Sender, t *target.Info)
	// OnTarget is told when a page target appears, changes or goes away.
	OnTarget func(ev TargetEvent)
	// OnSend is told of every send a guarded page or worker makes that the
	// guard does not hold (all of them unless HoldSends).
	OnSend func(s Send)
	// HoldSends holds fetch, XHR, beacon, report and other subresource
	// requests too: GETs and HEADs are let go at once, every other method
	// is judged by the Decider (Request.Subresource) and refused with a
	// network error.
	HoldSends bool
	// RefuseResponse, when set, is shown every document response before
	// its body reaches the browser (one more round trip per document);
	// true answers it with an empty 204 instead. It runs on the event loop
	// and must not block, save for a browser-level command whose effect
	// must be in place before the response goes on (the session opens the
	// browser to a download the user started during a takeover): every
	// other pause waits meanwhile.
	RefuseResponse func(r Response) bool
	// Slow says whether Decide must ask the page before it can judge a
	// document request (a send whose check runs in the page that sends it).
	// It runs on the event loop and must not block. Decide is then called
	// off the event loop and may call into the browser (the page is not
	// held: only its request is); the request stays paused meanwhile.
	Slow   func(r Request) bool
	Logger *zap.Logger
}

// TargetEvent reports a change to the set of page targets.
type TargetEvent struct {
	Kind   string // "attached", "changed", "detached"
	Target Target
}

// Target is a page (tab or popup) the guard holds.
type Target struct {
	ID        target.ID
	TabID     target.ID // the page this target belongs to: itself for a page
	SessionID target.SessionID
	Type      string
	OpenerID  target.ID
	// OpenerFrame is the frame that opened this page, when it has an opener.
	OpenerFrame cdp.FrameID
	URL         string
	Title       string
	Seq         int64 // attach order; higher is newer
	// ParentFrame is the frame an out-of-process iframe sits in.
	ParentFrame cdp.FrameID
	// ready: Fetch and the worker bypass are in place. Until then the
	// target is not handed out: a navigation started on it could leave
	// unjudged.
	ready bool
}

// frame is what the guard knows of a frame: its document, its parent, and
// the target session that reported it (the frame is forgotten with it).
type frame struct {
	url     string
	parent  cdp.FrameID
	session target.SessionID
}

// worker is a worker target: its sends are recorded, their sender is the
// origin of its script.
type worker struct {
	id     target.ID
	typ    string
	origin string
}

// hop is a judged request, kept so that its redirect hops know where they
// came from and who sent the chain.
type hop struct {
	url       string
	sender    string
	activated time.Time // when the chain's first hop was seen with a gesture; zero for none
	session   target.SessionID
	at        time.Time
}

// setupTimeout bounds the wait for a new target's setup replies. Chrome
// answers them in order behind everything it is sending, and a hostile page
// can keep it busy for many seconds (iframes at 2 MB URLs: each costs Chrome
// some 20 MB of events); a target still held costs nothing, so the guard
// waits long before it gives up on one and fails closed.
const setupTimeout = 30 * time.Second

// maxHops bounds the redirect registry; hops older than hopTTL are dropped
// first when it is full. Redirect chains are short and fast.
const (
	maxHops = 512
	hopTTL  = time.Minute
)

// Guard holds requests on one connection.
type Guard struct {
	conn *cdpconn.Conn
	opts Options
	log  *zap.Logger

	mu      sync.Mutex
	targets map[target.SessionID]*Target // page and iframe targets by session
	frames  map[cdp.FrameID]frame        // every frame of every guarded target
	hops    map[fetch.RequestID]hop      // judged requests, for their redirect hops
	seq     int64

	workers  map[target.SessionID]worker // worker targets, for their sends
	handover time.Duration               // bodyHandover when the guard started
	// own: browser contexts lyrad made for a page of its own (Own).
	own map[cdp.BrowserContextID]bool

	gestures  gestures       // the user's gestures on document requests, read on the reader
	decisions *decisionQueue // what OnDecision is still to hear of
	bodies    bodyCounts     // what the body watcher may be waiting on

	cancel context.CancelFunc
	done   chan struct{}
}

// Start attaches the guard to every present and future target. When it
// returns, every target that exists is guarded and every new one will be
// held until it is.
func Start(ctx context.Context, conn *cdpconn.Conn, opts Options) (*Guard, error) {
	if opts.Decide == nil {
		opts.Decide = AllowAll
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	gctx, cancel := context.WithCancel(context.Background())
	g := &Guard{
		conn:     conn,
		opts:     opts,
		log:      opts.Logger,
		targets:  map[target.SessionID]*Target{},
		frames:   map[cdp.FrameID]frame{},
		hops:     map[fetch.RequestID]hop{},
		workers:  map[target.SessionID]worker{},
		handover: bodyHandover,
		cancel:   cancel,
		done:     make(chan struct{}),
	}
	events, unsubscribe := conn.Subscribe(
		target.AttachedToTarget.Method,
		target.DetachedFromTarget.Method,
		target.TargetInfoChanged.Method,
		fetch.RequestPaused.Method,
		page.FrameAttached.Method,
		page.FrameNavigated.Method,
		page.FrameDetached.Method,
	)
	if opts.OnDecision != nil {
		g.decisions = newDecisionQueue()
		go g.decisions.run(gctx, opts.OnDecision)
	}
	go func() {
		defer close(g.done)
		each(gctx, events, unsubscribe, func(ev cdpconn.Event) { g.handle(gctx, ev) })
	}()
	if opts.OnSend != nil {
		// Network events come for every request a page makes: they are read
		// apart, so that a flood of them never delays a paused request.
		sends, unsub := conn.SubscribeWhere(maybeSend, network.RequestWillBeSent.Method, network.WebSocketCreated.Method)
		go each(gctx, sends, unsub, func(ev cdpconn.Event) {
			if s, ok := g.send(ev); ok {
				opts.OnSend(s)
			}
		})
	}
	bodies, unsubscribeBodies := conn.SubscribeWhere(g.bodies.keep, bodyEvents...)
	go g.watchBodies(gctx, bodies, unsubscribeBodies)
	// Read on the connection's reader: a navigation's requestWillBeSent
	// comes before its requestPaused, so its gesture is known when the
	// request is judged.
	stopGestures := conn.Observe(g.gestures.observe, network.RequestWillBeSent.Method)
	go func() { <-gctx.Done(); stopGestures() }()

	b := conn.Browser()
	if _, err := cdp.Call(ctx, b, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		g.Stop()
		return nil, err
	}
	if _, err := cdp.Call(ctx, b, target.SetAutoAttach, autoAttach()); err != nil {
		g.Stop()
		return nil, err
	}
	return g, nil
}

func autoAttach() target.SetAutoAttachParams {
	flatten := true
	return target.SetAutoAttachParams{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: &flatten}
}

// Own exempts a browser context lyrad has just made for a page of its own
// from the guard until release is called: its targets run unguarded and
// are not reported. Register it before any target is made in it. Only the
// DevTools client makes targets in another context than its opener's, so
// no page can open one there; whatever lyrad loads in it must never
// commit a document (a 204 from a server of its own), or a script would
// run unguarded.
func (g *Guard) Own(id cdp.BrowserContextID) (release func()) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.own == nil {
		g.own = map[cdp.BrowserContextID]bool{}
	}
	g.own[id] = true
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		delete(g.own, id)
	}
}

// Stop ends the guard's event loop. The connection stays open.
func (g *Guard) Stop() {
	g.cancel()
}

// Pages lists the page targets (tabs and popups) in attach order.
func (g *Guard) Pages() []Target {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Target
	for _, t := range g.targets {
		if t.Type == "page" && t.ready {
			out = append(out, *t)
		}
	}
	sortTargets(out)
	return out
}

// Page returns the page target with this id.
func (g *Guard) Page(id target.ID) (Target, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, t := range g.targets {
		if t.ID == id && t.Type == "page" && t.ready {
			return *t, true
		}
	}
	return Target{}, false
}

// Held returns the page target with this id, ready or still being set up:
// a popup's first load can be judged before its setup replies are read.
func (g *Guard) Held(id target.ID) (Target, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t := g.pageLocked(id); t != nil && t.Type == "page" {
		return *t, true
	}
	return Target{}, false
}

// Frames lists the out-of-process iframe targets of a tab, in attach order.
// Each has its own session; its ID is the id of the frame it renders.
func (g *Guard) Frames(tab target.ID) []Target {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Target
	for _, t := range g.targets {
		if t.Type == "iframe" && t.TabID == tab {
			out = append(out, *t)
		}
	}
	sortTargets(out)
	return out
}

// HasFrame says whether frame, reached over the target session sid, is
// still there as far as the guard knows: the session's target is held and
// the frame is its main frame or one the guard has seen attach or navigate
// and not detach.
func (g *Guard) HasFrame(sid target.SessionID, f cdp.FrameID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.targets[sid]
	if t == nil {
		return false
	}
	if string(t.ID) == string(f) {
		return true
	}
	_, ok := g.frames[f]
	return ok
}

// FrameOf names the tab a frame belongs to and the URL of its document as
// last seen (a tab's main frame has the tab's id; an out-of-process
// iframe's frame has its target's). ok is false for a frame the guard
// never saw.
func (g *Guard) FrameOf(f cdp.FrameID) (tab target.ID, url string, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, t := range g.targets {
		if string(t.ID) == string(f) && (t.Type == "page" || t.Type == "iframe") {
			url = t.URL
			if fr, seen := g.frames[f]; seen && fr.url != "" {
				url = fr.url
			}
			return t.TabID, url, true
		}
	}
	if fr, seen := g.frames[f]; seen {
		if t := g.targets[fr.session]; t != nil {
			return t.TabID, fr.url, true
		}
	}
	return "", "", false
}

func sortTargets(ts []Target) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Seq < ts[j-1].Seq; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// each hands every event to handle until ctx ends or the events do.
func each(ctx context.Context, events <-chan cdpconn.Event, unsubscribe func(), handle func(cdpconn.Event)) {
	defer unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			handle(ev)
		}
	}
}

func (g *Guard) handle(ctx context.Context, ev cdpconn.Event) {
	switch ev.Method {
	case target.AttachedToTarget.Method:
		var a target.EventAttachedToTarget
		if err := jsonv2.Unmarshal(ev.Params, &a); err != nil || a.TargetInfo == nil {
			g.fail(errors.New("cdpguard: unreadable attachedToTarget event"))
			return
		}
		g.attached(ctx, ev.SessionID, &a)
	case target.DetachedFromTarget.Method:
		var d target.EventDetachedFromTarget
		if jsonv2.Unmarshal(ev.Params, &d) != nil {
			return
		}
		g.mu.Lock()
		t := g.targets[d.SessionID]
		g.forgetLocked(d.SessionID)
		g.mu.Unlock()
		if t != nil && t.Type == "page" && g.opts.OnTarget != nil {
			g.opts.OnTarget(TargetEvent{Kind: "detached", Target: *t})
		}
	case target.TargetInfoChanged.Method:
		var c target.EventTargetInfoChanged
		if jsonv2.Unmarshal(ev.Params, &c) != nil || c.TargetInfo == nil {
			return
		}
		var changed *Target
		g.mu.Lock()
		for _, t := range g.targets {
			if t.ID == c.TargetInfo.TargetID {
				t.URL, t.Title = clip(c.TargetInfo.URL), clipTitle(c.TargetInfo.Title)
				if t.Type == "page" {
					cp := *t
					changed = &cp
				}
			}
		}
		g.mu.Unlock()
		if changed != nil && g.opts.OnTarget != nil {
			g.opts.OnTarget(TargetEvent{Kind: "changed", Target: *changed})
		}
	case page.FrameAttached.Method:
		var f page.EventFrameAttached
		if jsonv2.Unmarshal(ev.Params, &f) == nil {
			g.mu.Lock()
			if g.targets[ev.SessionID] != nil {
				fr := g.frames[f.FrameID]
				fr.parent, fr.session = f.ParentFrameID, ev.SessionID
				g.frames[f.FrameID] = fr
			}
			g.mu.Unlock()
		}
	case page.FrameNavigated.Method:
		var f page.EventFrameNavigated
		if jsonv2.Unmarshal(ev.Params, &f) == nil && f.Frame != nil {
			g.mu.Lock()
			if g.targets[ev.SessionID] != nil {
				g.frames[f.Frame.ID] = frame{url: clip(f.Frame.URL), parent: f.Frame.ParentID, session: ev.SessionID}
			}
			g.mu.Unlock()
		}
	case page.FrameDetached.Method:
		var f page.EventFrameDetached
		if jsonv2.Unmarshal(ev.Params, &f) == nil && f.Reason != page.FrameDetachedReasonSwap {
			g.mu.Lock()
			delete(g.frames, f.FrameID)
			g.mu.Unlock()
		}
	case fetch.RequestPaused.Method:
		var p fetch.EventRequestPaused
		if err := jsonv2.Unmarshal(ev.Params, &p); err != nil || p.Request == nil {
			// A paused request we cannot read would stay paused forever or
			// leave unjudged; neither is acceptable.
			g.fail(errors.New("cdpguard: unreadable requestPaused event"))
			return
		}
		// Judged and answered here, on the loop, with no goroutine of
		// its own: the registries are read as they stood when the
		// request paused (every earlier event was handled, no later one
		// yet), and the answer leaves with the least work.
		if isResponse(&p) {
			g.judgeResponse(ctx, ev.SessionID, &p)
			return
		}
		g.judge(ctx, ev.SessionID, &p)
	}
}

// attached sets up a newly attached target while Chrome holds it, then lets
// it run. Setup for each target runs on its own goroutine so that one slow
// target does not hold the others.
func (g *Guard) attached(ctx context.Context, parent target.SessionID, a *target.EventAttachedToTarget) {
	info := a.TargetInfo
	g.mu.Lock()
	own := g.own[info.BrowserContextID]
	g.mu.Unlock()
	if own {
		// Let run as it is, unguarded and unreported (Own).
		if a.WaitingForDebugger {
			_ = g.conn.Session(a.SessionID).SendAsync(runtime.RunIfWaitingForDebugger.Method, nil, nil)
		}
		return
	}
	guarded := info.Type == "page" || info.Type == "iframe"
	if guarded {
		g.mu.Lock()
		g.seq++
		tab := info.TargetID
		if p := g.targets[parent]; info.Type != "page" && p != nil {
			tab = p.TabID
		}
		t := &Target{ID: info.TargetID, TabID: tab, SessionID: a.SessionID, Type: info.Type, OpenerID: info.OpenerID, OpenerFrame: info.OpenerFrameID,
			URL: clip(info.URL), Title: clipTitle(info.Title), Seq: g.seq, ParentFrame: info.ParentFrameID}
		g.targets[a.SessionID] = t
		g.mu.Unlock()
	}
	go func() {
		// Everything is sent before the target may run, and only then are
		// the replies read: a tab in a new process (a noopener link) answers
		// Network and Page commands only once it runs, and Chrome applies a
		// session's commands in the order they arrive, so Fetch and the
		// worker bypass are in place before the first request either way.
		q := &Sender{s: g.conn.Session(a.SessionID)}
		if guarded {
			g.setup(q, info)
		} else if isWorker(info.Type) {
			g.setupWorker(q, a.SessionID, info)
		}
		if a.WaitingForDebugger && q.err == nil {
			q.Send(runtime.RunIfWaitingForDebugger.Method, nil)
		}
		cctx, cancel := context.WithTimeout(ctx, setupTimeout)
		defer cancel()
		err := q.wait(cctx)
		if !guarded {
			if err != nil && !targetGone(err) {
				g.log.Debug("run target", zap.String("type", info.Type), zap.Error(err))
			}
			return
		}
		if err != nil {
			if ctx.Err() != nil || (targetGone(err) && g.gone(ctx, info.TargetID)) {
				return // the guard, or the target, is gone
			}
			// A reply that only reads like "gone" while the target lives
			// means it runs without its setup: fail closed.
			g.fail(err)
			return
		}
		g.mu.Lock()
		if t := g.targets[a.SessionID]; t != nil {
			t.ready = true
		}
		g.mu.Unlock()
		if info.Type == "page" && g.opts.OnTarget != nil {
			if t, ok := g.Page(info.TargetID); ok {
				g.opts.OnTarget(TargetEvent{Kind: "attached", Target: t})
			}
		}
	}()
}

// gone confirms with the browser that a target whose setup failed with a
// "gone" error is really gone. The error text alone is not trusted: a target
// that still runs would run unguarded.
func (g *Guard) gone(ctx context.Context, id target.ID) bool {
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := cdp.Call(cctx, g.conn.Browser(), target.GetTargetInfo, target.GetTargetInfoParams{TargetID: id})
	return err != nil
}

// Sender sends commands to a held target without waiting for their
// replies; they are read together once the target was let run. A Sender
// of PrepareAll reads none: done hears of each reply's error.
type Sender struct {
	s     *cdpconn.Session
	calls []*cdpconn.Pending
	err   error
	done  func(error)
}

// Send sends one command. After a failed send it does nothing more.
func (q *Sender) Send(method string, params any) {
	if q.err != nil {
		return
	}
	if q.done != nil {
		if err := q.s.SendAsync(method, params, q.done); err != nil {
			q.err = wrap(method, err)
			q.done(q.err)
		}
		return
	}
	p, err := q.s.Send(method, params)
	if err != nil {
		q.err = wrap(method, err)
		return
	}
	q.calls = append(q.calls, p)
}

// wait reads every reply and returns the first error.
func (q *Sender) wait(ctx context.Context) error {
	err := q.err
	for _, p := range q.calls {
		if werr := p.Wait(ctx, nil); werr != nil && err == nil {
			err = wrap("setup", werr)
		}
	}
	return err
}

// PrepareAll sends prepare's commands, without waiting for a reply, to
// every target the guard knows that Options.Prepare is given (pages,
// out-of-process iframes, service and shared workers), running or held:
// a setup that changed after targets started. A target that attaches
// meanwhile may be given them both here and by its own Prepare. A document
// already committing may miss them in its renderer. Errors other than a
// target going away are logged.
func (g *Guard) PrepareAll(prepare func(q *Sender, t *target.Info)) {
	type held struct {
		sid  target.SessionID
		info target.Info
	}
	var all []held
	g.mu.Lock()
	for sid, t := range g.targets {
		all = append(all, held{sid, target.Info{TargetID: t.ID, Type: t.Type}})
	}
	for sid, w := range g.workers {
		if w.typ != "worker" {
			all = append(all, held{sid, target.Info{TargetID: w.id, Type: w.typ}})
		}
	}
	g.mu.Unlock()
	done := func(err error) {
		if err != nil && !targetGone(err) {
			g.log.Warn("late target setup", zap.Error(err))
		}
	}
	for _, h := range all {
		prepare(&Sender{s: g.conn.Session(h.sid), done: done}, &h.info)
	}
}

func isWorker(typ string) bool {
	return typ == "worker" || typ == "service_worker" || typ == "shared_worker"
}

// setupWorker: a worker loads no documents, but it sends as its page does
// (fetch, XHR, beacons, WebSockets), so its sends are recorded, and held
// with HoldSends. Workers that outlive a page answer its scripts too, and
// get the page's own setup.
func (g *Guard) setupWorker(q *Sender, sid target.SessionID, info *target.Info) {
	g.mu.Lock()
	g.workers[sid] = worker{id: info.TargetID, typ: info.Type, origin: originOf(info.URL)}
	g.mu.Unlock()
	if g.opts.OnSend != nil || g.opts.HoldSends {
		q.Send(network.Enable.Method, network.EnableParams{})
	}
	if g.opts.HoldSends {
		q.Send(fetch.Enable.Method, fetch.EnableParams{Patterns: g.patterns()})
	}
	if info.Type != "worker" && g.opts.Prepare != nil {
		g.opts.Prepare(q, info)
	}
}

func (g *Guard) setup(q *Sender, info *target.Info) {
	// Documents only: navigations, form posts, iframe loads and every
	// redirect hop of them. Subresources are not judged, and pausing them
	// would add a round trip to each.
	q.Send(fetch.Enable.Method, fetch.EnableParams{Patterns: append(g.patterns(network.ResourceTypeDocument), g.responsePatterns()...)})
	// A service worker would answer a navigation without a request the
	// guard could see; the bypass needs the Network domain on.
	q.Send(network.Enable.Method, network.EnableParams{})
	q.Send(network.SetBypassServiceWorker.Method, network.SetBypassServiceWorkerParams{Bypass: true})
	// Page events keep the frame registry (which document issues a
	// request); lifecycle events are the session's business.
	q.Send(page.Enable.Method, page.EnableParams{})
	// Out-of-process iframes and popups-of-popups are held the same way.
	q.Send(target.SetAutoAttach.Method, autoAttach())
	if g.opts.Prepare != nil {
		g.opts.Prepare(q, info)
	}
}

// methodGET and methodHEAD are how Chrome writes a request's method.
var (
	methodGET  = []byte(`"method":"GET"`)
	methodHEAD = []byte(`"method":"HEAD"`)
)

// wireSend is the part of Network.requestWillBeSent and webSocketCreated a
// send is told by; the rest (initiator stacks, timings) is never decoded.
type wireSend struct {
	Type    network.ResourceType `json:"type"`
	FrameID cdp.FrameID          `json:"frameId"`
	URL     string               `json:"url"` // webSocketCreated
	Request *struct {
		URL     string          `json:"url"`
		Method  string          `json:"method"`
		Headers network.Headers `json:"headers"`
	} `json:"request"`
	Initiator *struct {
		Type network.InitiatorType `json:"type"`
	} `json:"initiator"`
}

// maybeSend keeps, on the connection's reader, the Network events that may
// be sends. Most requests a page makes are body-less GETs; they are told by
// a byte search, never decoded nor queued (this runs for every request of
// every page).
func maybeSend(ev cdpconn.Event) bool {
	return ev.Method != network.RequestWillBeSent.Method || bytes.Contains(ev.Params, hasBody) ||
		!(bytes.Contains(ev.Params, methodGET) || bytes.Contains(ev.Params, methodHEAD))
}

// send reads one Network event and says whether it is a send to report:
// not a document (those are judged), not a GET or HEAD, not a CORS
// preflight, and not one HoldSends holds (those are reported when judged).
func (g *Guard) send(ev cdpconn.Event) (Send, bool) {
	if !maybeSend(ev) {
		return Send{}, false
	}
	var w wireSend
	if jsonv2.Unmarshal(ev.Params, &w) != nil {
		return Send{}, false
	}
	s := Send{FrameID: w.FrameID, Type: w.Type}
	var origin string
	if ev.Method == network.WebSocketCreated.Method {
		s.Method, s.URL, s.Type = "WEBSOCKET", w.URL, network.ResourceTypeWebSocket
	} else {
		if w.Request == nil || w.Type == network.ResourceTypeDocument {
			return Send{}, false
		}
		s.Method, s.URL = strings.ToUpper(w.Request.Method), w.Request.URL
		if s.Method == "GET" || s.Method == "HEAD" || (w.Initiator != nil && w.Initiator.Type == network.InitiatorTypePreflight) {
			return Send{}, false
		}
		if g.opts.HoldSends && slices.Contains(heldSends, w.Type) {
			return Send{}, false
		}
		origin = header(w.Request.Headers, "Origin")
	}
	g.mu.Lock()
	issuer := ""
	if t := g.targets[ev.SessionID]; t != nil {
		s.TabID, s.TargetID, s.TargetType = t.TabID, t.ID, t.Type
		frame := w.FrameID
		if frame == "" { // a WebSocket names no frame: the target's own
			frame = cdp.FrameID(t.ID)
		}
		_, issuer, _ = g.issuerLocked(t, frame)
	} else if wk, ok := g.workers[ev.SessionID]; ok {
		s.TargetID, s.TargetType, issuer = wk.id, "worker", wk.origin
	} else {
		g.mu.Unlock()
		return Send{}, false // not a target the guard set up
	}
	g.mu.Unlock()
	s.URL = clip(s.URL)
	// The browser's word first ("null" for an opaque sender stays so);
	// without one, the document's.
	s.Sender = origin
	if s.Sender == "" {
		s.Sender = originOf(issuer)
	}
	return s, true
}

// originOf gives the origin of a URL as scheme://host[:port], "" when it
// has none. It is a label for the record, never a judgement.
func originOf(raw string) string {
	raw = strings.TrimPrefix(raw, "blob:")
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// heldSends are the subresource types HoldSends holds: what a page sends
// data with. WebSockets cannot be held by Fetch; they are recorded only.
var heldSends = []network.ResourceType{
	network.ResourceTypeXHR, network.ResourceTypeFetch, network.ResourceTypePing,
	network.ResourceTypeCSPViolationReport, network.ResourceTypeOther,
}

// patterns are the Fetch patterns of a target: documents when it renders
// pages, and the send types when HoldSends.
func (g *Guard) patterns(types ...network.ResourceType) []*fetch.RequestPattern {
	if g.opts.HoldSends {
		types = append(types, heldSends...)
	}
	// Every request for a file: URL, of any type: a file: page's images,
	// scripts, fetches and frames reach the disk, not the network, and are
	// judged all the same.
	out := []*fetch.RequestPattern{{URLPattern: "file:*", RequestStage: fetch.RequestStageRequest}}
	for _, t := range types {
		out = append(out, &fetch.RequestPattern{URLPattern: "*", ResourceType: t, RequestStage: fetch.RequestStageRequest})
	}
	return out
}

func (g *Guard) judge(ctx context.Context, sid target.SessionID, p *fetch.EventRequestPaused) {
	start := time.Now()
	if p.ResourceType != network.ResourceTypeDocument {
		g.judgeSend(ctx, sid, p, start)
		return
	}
	g.mu.Lock()
	t := g.targets[sid]
	r := Request{
		SessionID:    sid,
		RequestID:    p.RequestID,
		FrameID:      p.FrameID,
		URL:          p.Request.URL + p.Request.URLFragment,
		NetworkID:    string(p.NetworkID),
		Method:       p.Request.Method,
		HasBody:      p.Request.HasPostData,
		ResourceType: p.ResourceType,
		Sender:       header(p.Request.Headers, "Origin"),
		NoAccept:     header(p.Request.Headers, "Accept") == "",
		ContentType:  header(p.Request.Headers, "Content-Type"),
	}
	r.Body, r.BodyUnread = bodyOf(p.Request)
	r.ActivatedAt = g.gestures.take(p.NetworkID)
	g.placeLocked(&r, t)
	if p.RedirectedRequestID != "" {
		if prev, ok := g.hops[p.RedirectedRequestID]; ok {
			// The browser rewrites Origin on a hop; the chain's sender is
			// the one who started it, and so is its activation.
			r.RedirectFrom, r.Sender, r.ActivatedAt = prev.url, prev.sender, prev.activated
		}
	}
	r.UserActivated = !r.ActivatedAt.IsZero()
	g.rememberLocked(p.RequestID, hop{url: clip(r.URL), sender: r.Sender, activated: r.ActivatedAt, session: sid, at: start})
	g.mu.Unlock()

	if g.opts.Slow != nil && g.opts.Slow(r) {
		go func() { g.answer(ctx, r, g.opts.Decide(ctx, r), start) }()
		return
	}
	g.answer(ctx, r, g.opts.Decide(ctx, r), start)
}

// bodyOf is a request's body as the browser handed it over, and whether
// some of it was not: Chrome writes one entry per element of the body, and
// an element it does not hand over (a file, a stream) has no bytes.
func bodyOf(r *network.Request) (parts [][]byte, unread bool) {
	if !r.HasPostData {
		return nil, false
	}
	for _, e := range r.PostDataEntries {
		if e == nil || len(e.Bytes) == 0 {
			unread = true
			continue
		}
		parts = append(parts, e.Bytes)
	}
	return parts, unread || len(parts) == 0
}

// isFile: a file: URL, whose every request is judged.
func isFile(raw string) bool {
	return len(raw) > 5 && strings.EqualFold(raw[:5], "file:")
}

// judgeSend answers a held subresource request: a GET or HEAD goes at once
// and unrecorded (a page loads hundreds), anything else is judged.
func (g *Guard) judgeSend(ctx context.Context, sid target.SessionID, p *fetch.EventRequestPaused, start time.Time) {
	r := Request{
		SessionID: sid, RequestID: p.RequestID, FrameID: p.FrameID,
		URL: p.Request.URL + p.Request.URLFragment, NetworkID: string(p.NetworkID),
		Method: p.Request.Method, HasBody: p.Request.HasPostData, ResourceType: p.ResourceType,
		Subresource: true,
	}
	if m := strings.ToUpper(r.Method); (m == "GET" || m == "HEAD") && !isFile(r.URL) {
		g.answer(ctx, r, Verdict{Allow: true}, start)
		return
	}
	g.mu.Lock()
	if t := g.targets[sid]; t != nil {
		r.TargetID, r.TabID, r.TargetType, r.SenderTab = t.ID, t.TabID, t.Type, t.TabID
		_, r.Issuer, _ = g.issuerLocked(t, p.FrameID)
	} else if w, ok := g.workers[sid]; ok {
		r.TargetID, r.TargetType, r.Issuer = w.id, "worker", w.origin
	}
	g.mu.Unlock()
	r.Sender = header(p.Request.Headers, "Origin")
	if r.Sender == "" {
		r.Sender = originOf(r.Issuer)
	}
	g.answer(ctx, r, g.opts.Decide(ctx, r), start)
}

// answer lets a paused request go or refuses it, and reports the decision.
// A refused document gets an empty 204 (the tab stays where it was); a
// refused send fails as the network would, blocked by the client. The
// answer is written at once; its reply is only looked at for an error.
func (g *Guard) answer(ctx context.Context, r Request, v Verdict, start time.Time) {
	r.Body = nil                             // judged: nothing after keeps it
	quiet := r.Subresource && v.Reason == "" // a GET let go unjudged
	var method string
	var params any
	switch {
	case v.Allow:
		method, params = fetch.ContinueRequest.Method, fetch.ContinueRequestParams{RequestID: r.RequestID}
	case r.Subresource:
		if g.opts.OnRefuse != nil {
			g.opts.OnRefuse(r, v)
		}
		method, params = fetch.FailRequest.Method, fetch.FailRequestParams{RequestID: r.RequestID, ErrorReason: network.ErrorReasonBlockedByClient}
	default:
		if g.opts.OnRefuse != nil {
			g.opts.OnRefuse(r, v)
		}
		// 204 commits nothing: the tab stays on the document it had.
		method, params = fetch.FulfillRequest.Method, fetch.FulfillRequestParams{
			RequestID:       r.RequestID,
			ResponseCode:    204,
			ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Length", Value: "0"}},
		}
	}
	allow := v.Allow
	g.respond(ctx, r.SessionID, method, params, func(err error) {
		g.log.Warn("answer paused request", zap.Bool("allow", allow), zap.Error(err))
	})
	if g.decisions != nil && !quiet {
		g.decisions.add(decision{r, v, time.Since(start)})
	}
}

// respond writes an answer to a paused request without waiting for its
// reply; failed is told of an error that is not the target's going away
// (then the request went with it) while the guard runs. An answer that
// never arrives leaves the request held, never let through.
func (g *Guard) respond(ctx context.Context, sid target.SessionID, method string, params any, failed func(error)) {
	report := func(err error) {
		if err != nil && !targetGone(err) && ctx.Err() == nil {
			failed(err)
		}
	}
	if err := g.conn.Session(sid).SendAsync(method, params, report); err != nil {
		report(err)
	}
}

// placeLocked fills in where request r comes from: its target t (nil when
// unknown), tab, frame and issuer.
func (g *Guard) placeLocked(r *Request, t *Target) {
	if t == nil {
		return
	}
	r.TargetID, r.TabID, r.TargetType = t.ID, t.TabID, t.Type
	r.SenderTab = t.TabID
	var creator bool
	r.InSubframe, r.Issuer, creator = g.issuerLocked(t, r.FrameID)
	if creator && t.Type == "page" && t.OpenerID != "" && !r.InSubframe {
		// A popup with no document yet: its opener sends this.
		r.SenderTab = t.OpenerID
	}
}

// issuerLocked finds the document that issues a request of frame f in
// target t, and whether f is an iframe of the tab. A frame with no document
// of its own (none yet, about:blank, about:srcdoc, data:) is its creator's:
// the parent frame, or for a popup's main frame the frame that opened it.
// creator reports that f itself had no document.
func (g *Guard) issuerLocked(t *Target, f cdp.FrameID) (inSubframe bool, issuer string, creator bool) {
	main := cdp.FrameID(t.ID)
	inSubframe = f != main || t.Type == "iframe"
	cur := t // the target whose main frame id is being walked
	for i, id := 0, f; i < 32 && id != ""; i++ {
		fr, ok := g.frames[id]
		if ok && ownDocument(fr.url) {
			return inSubframe, fr.url, i > 0
		}
		if !ok && id == cdp.FrameID(cur.ID) && ownDocument(cur.URL) {
			return inSubframe, cur.URL, i > 0
		}
		switch {
		case ok && fr.parent != "":
			id = fr.parent
		case id == cdp.FrameID(cur.ID) && cur.Type == "iframe":
			id = cur.ParentFrame
		case id == cdp.FrameID(cur.ID) && cur.OpenerFrame != "":
			id = cur.OpenerFrame
		case id == cdp.FrameID(cur.ID) && cur.OpenerID != "":
			id = cdp.FrameID(cur.OpenerID)
		default:
			return inSubframe, "", true
		}
		if next := g.pageLocked(target.ID(id)); next != nil {
			cur = next
		}
	}
	return inSubframe, "", true
}

// ownDocument reports whether a frame at url has a document of its own
// rather than one its creator made: about:blank, about:srcdoc and data:
// documents are written by whoever created the frame.
func ownDocument(url string) bool {
	if url == "" || strings.HasPrefix(url, "about:") {
		return false
	}
	return !strings.HasPrefix(strings.ToLower(url), "data:")
}

// pageLocked returns the page or iframe target whose main frame is id.
func (g *Guard) pageLocked(id target.ID) *Target {
	for _, t := range g.targets {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// rememberLocked keeps a judged request for its redirect hops, within
// bounds: a page can start requests faster than they finish.
func (g *Guard) rememberLocked(id fetch.RequestID, h hop) {
	if len(g.hops) >= maxHops {
		for k, old := range g.hops {
			if h.at.Sub(old.at) > hopTTL {
				delete(g.hops, k)
			}
		}
		for k := range g.hops {
			if len(g.hops) < maxHops {
				break
			}
			delete(g.hops, k) // still full of fresh hops: forget any
		}
	}
	g.hops[id] = h
}

// forgetLocked drops a target and everything known of its frames and
// requests.
func (g *Guard) forgetLocked(sid target.SessionID) {
	delete(g.targets, sid)
	delete(g.workers, sid)
	for id, fr := range g.frames {
		if fr.session == sid {
			delete(g.frames, id)
		}
	}
	for id, h := range g.hops {
		if h.session == sid {
			delete(g.hops, id)
		}
	}
}

// maxURL is how much of a URL the guard keeps in its registries. A page
// can make URLs of megabytes; what is kept is only ever read for its origin
// and its path.
const maxURL = 2048

// clip bounds a URL kept in memory: query, fragment and userinfo go first,
// then the path is cut. The origin is kept whole.
func clip(raw string) string {
	if len(raw) <= maxURL {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return raw[:maxURL]
	}
	u.User, u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = nil, "", "", "", false
	out := u.String()
	if len(out) > maxURL {
		out = out[:maxURL]
	}
	return out
}

func clipTitle(s string) string {
	if len(s) > 1024 {
		return s[:1024]
	}
	return s
}

func (g *Guard) fail(err error) {
	g.log.Error("target cannot be guarded", zap.Error(err))
	if g.opts.OnFailure != nil {
		g.opts.OnFailure(err)
	}
}

func wrap(step string, err error) error {
	return &setupError{step: step, err: err}
}

type setupError struct {
	step string
	err  error
}

func (e *setupError) Error() string { return "cdpguard: " + e.step + ": " + e.err.Error() }
func (e *setupError) Unwrap() error { return e.err }

// targetGone reports whether err says the target went away: a page that
// closed while it was being set up is not a failure to guard it.
func targetGone(err error) bool {
	return errors.Is(err, cdpconn.ErrClosed) || cdpconn.IsTargetGone(err) ||
		cdpconn.IsNavigatedOrClosed(err) || cdpconn.IsRequestGone(err)
}

// header returns the value of a request header, matched case-insensitively.
func header(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			s, _ := v.(string)
			return s
		}
	}
	return ""
}
