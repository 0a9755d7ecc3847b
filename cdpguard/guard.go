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
	"strings"
	"sync"
	"sync/atomic"
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

// Request is a paused request as the Decider sees it. It never carries the
// body: the guard only needs to know whether there is one.
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
	// Issuer is the URL of the document that issues the request: the
	// frame's current document, its parent's while it has none of its own,
	// "" for a tab's first load (a popup, a new tab).
	Issuer string
}

// Verdict is the Decider's answer. Fields are added to the audit row.
type Verdict struct {
	Allow  bool
	Reason string
	Fields map[string]any
}

// Decider judges one paused request. It must not call into the page whose
// request is paused (its renderer does not answer while it waits).
type Decider func(ctx context.Context, r Request) Verdict

// AllowAll is the Decider used until grants are configured: every request is
// judged, recorded and let through.
func AllowAll(context.Context, Request) Verdict { return Verdict{Allow: true, Reason: "allow_all"} }

// Options configure a Guard.
type Options struct {
	Decide Decider
	// OnDecision is told of every judged request, after it was answered.
	OnDecision func(r Request, v Verdict, took time.Duration)
	// OnRefuse is told of a refusal before the request is answered, so
	// whoever started the navigation knows by the time the browser does.
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
	Logger   *zap.Logger
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
	URL       string
	Title     string
	Seq       int64 // attach order; higher is newer
	// ParentFrame is the frame an out-of-process iframe sits in.
	ParentFrame cdp.FrameID
	// ready: Fetch and the worker bypass are in place. Until then the
	// target is not handed out: a navigation started on it could leave
	// unjudged.
	ready bool
}

// frame is what the guard knows of a frame: its document and its parent.
type frame struct {
	url    string
	parent cdp.FrameID
}

// Guard holds requests on one connection.
type Guard struct {
	conn *cdpconn.Conn
	opts Options
	log  *zap.Logger

	mu      sync.Mutex
	targets map[target.SessionID]*Target // page and iframe targets by session
	frames  map[cdp.FrameID]frame        // every frame of every guarded target
	hops    map[string]string            // request id -> URL, for redirect_from
	seq     int64

	paused, allowed, refused atomic.Int64
	handover                 time.Duration // bodyHandover when the guard started

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
		hops:     map[string]string{},
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
	go g.loop(gctx, events, unsubscribe)
	bodies, unsubscribeBodies := conn.Subscribe(bodyEvents...)
	go g.watchBodies(gctx, bodies, unsubscribeBodies)

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

// Stop ends the guard's event loop. The connection stays open.
func (g *Guard) Stop() {
	g.cancel()
}

// Stats reports how many requests were paused, let through and refused.
func (g *Guard) Stats() (paused, allowed, refused int64) {
	return g.paused.Load(), g.allowed.Load(), g.refused.Load()
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

func sortTargets(ts []Target) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Seq < ts[j-1].Seq; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

func (g *Guard) loop(ctx context.Context, events <-chan cdpconn.Event, unsubscribe func()) {
	defer close(g.done)
	defer unsubscribe()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			g.handle(ctx, ev)
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
		delete(g.targets, d.SessionID)
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
				t.URL, t.Title = c.TargetInfo.URL, c.TargetInfo.Title
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
			fr := g.frames[f.FrameID]
			fr.parent = f.ParentFrameID
			g.frames[f.FrameID] = fr
			g.mu.Unlock()
		}
	case page.FrameNavigated.Method:
		var f page.EventFrameNavigated
		if jsonv2.Unmarshal(ev.Params, &f) == nil && f.Frame != nil {
			g.mu.Lock()
			g.frames[f.Frame.ID] = frame{url: f.Frame.URL, parent: f.Frame.ParentID}
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
		g.paused.Add(1)
		go g.judge(ctx, ev.SessionID, &p)
	}
}

// attached sets up a newly attached target while Chrome holds it, then lets
// it run. Setup for each target runs on its own goroutine so that one slow
// target does not hold the others.
func (g *Guard) attached(ctx context.Context, parent target.SessionID, a *target.EventAttachedToTarget) {
	info := a.TargetInfo
	guarded := info.Type == "page" || info.Type == "iframe"
	if guarded {
		g.mu.Lock()
		g.seq++
		tab := info.TargetID
		if p := g.targets[parent]; info.Type != "page" && p != nil {
			tab = p.TabID
		}
		t := &Target{ID: info.TargetID, TabID: tab, SessionID: a.SessionID, Type: info.Type, OpenerID: info.OpenerID, URL: info.URL, Title: info.Title, Seq: g.seq, ParentFrame: info.ParentFrameID}
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
		} else if (info.Type == "service_worker" || info.Type == "shared_worker") && g.opts.Prepare != nil {
			// Workers that outlive a page are not guarded, but they answer
			// a page's scripts too.
			g.opts.Prepare(q, info)
		}
		if a.WaitingForDebugger && q.err == nil {
			q.Send(runtime.RunIfWaitingForDebugger.Method, nil)
		}
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		err := q.wait(cctx)
		if !guarded {
			if err != nil && !targetGone(err) {
				g.log.Debug("run target", zap.String("type", info.Type), zap.Error(err))
			}
			return
		}
		if err != nil {
			if targetGone(err) || ctx.Err() != nil {
				return // the target, or the guard, is gone
			}
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

// Sender sends commands to a held target without waiting for their
// replies; they are read together once the target was let run.
type Sender struct {
	s     *cdpconn.Session
	calls []*cdpconn.Pending
	err   error
}

// Send sends one command. After a failed send it does nothing more.
func (q *Sender) Send(method string, params any) {
	if q.err != nil {
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

func (g *Guard) setup(q *Sender, info *target.Info) {
	// Documents only: navigations, form posts, iframe loads and every
	// redirect hop of them. Subresources are not judged, and pausing them
	// would add a round trip to each.
	q.Send(fetch.Enable.Method, fetch.EnableParams{
		Patterns: []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageRequest}},
	})
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

func (g *Guard) judge(ctx context.Context, sid target.SessionID, p *fetch.EventRequestPaused) {
	start := time.Now()
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
	}
	g.placeLocked(&r, t)
	if p.RedirectedRequestID != "" {
		r.RedirectFrom = g.hops[string(p.RedirectedRequestID)]
	}
	g.hops[string(p.RequestID)] = r.URL
	if len(g.hops) > 4096 {
		// Redirect chains are short; forget old hops rather than grow.
		clear(g.hops)
		g.hops[string(p.RequestID)] = r.URL
	}
	g.mu.Unlock()

	v := g.opts.Decide(ctx, r)
	s := g.conn.Session(sid)
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var err error
	if v.Allow {
		g.allowed.Add(1)
		_, err = cdp.Call(cctx, s, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: p.RequestID})
	} else {
		g.refused.Add(1)
		if g.opts.OnRefuse != nil {
			g.opts.OnRefuse(r, v)
		}
		// 204 commits nothing: the tab stays on the document it had.
		_, err = cdp.Call(cctx, s, fetch.FulfillRequest, fetch.FulfillRequestParams{
			RequestID:       p.RequestID,
			ResponseCode:    204,
			ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Length", Value: "0"}},
		})
	}
	if err != nil && !targetGone(err) && ctx.Err() == nil {
		g.log.Warn("answer paused request", zap.Bool("allow", v.Allow), zap.Error(err))
	}
	if g.opts.OnDecision != nil {
		g.opts.OnDecision(r, v, time.Since(start))
	}
}

// placeLocked fills in where request r comes from: its target t (nil when
// unknown), tab, frame and issuer.
func (g *Guard) placeLocked(r *Request, t *Target) {
	if t != nil {
		r.TargetID, r.TabID, r.TargetType = t.ID, t.TabID, t.Type
		r.InSubframe, r.Issuer = g.issuerLocked(t, r.FrameID)
	}
}

// issuerLocked finds the document that issues a request of frame f in
// target t, and whether f is an iframe of the tab.
func (g *Guard) issuerLocked(t *Target, f cdp.FrameID) (inSubframe bool, issuer string) {
	main := cdp.FrameID(t.ID)
	inSubframe = f != main || t.Type == "iframe"
	for i, id := 0, f; i < 32 && id != ""; i++ {
		fr, ok := g.frames[id]
		if ok && fr.url != "" && fr.url != "about:blank" {
			return inSubframe, fr.url
		}
		switch {
		case ok && fr.parent != "":
			id = fr.parent
		case id == main && t.Type == "iframe":
			id = t.ParentFrame
		case id == main && t.URL != "" && t.URL != "about:blank":
			return inSubframe, t.URL
		default:
			id = ""
		}
	}
	return inSubframe, ""
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
	if err == nil {
		return false
	}
	if errors.Is(err, cdpconn.ErrClosed) {
		return true
	}
	msg := err.Error()
	for _, s := range []string{"detached", "No session with given id", "No target with given id", "Target closed", "Session with given id not found", "Invalid InterceptionId", "Inspected target navigated or closed"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
