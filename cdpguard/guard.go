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
	"context"
	"errors"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/cdpconn"
)

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
