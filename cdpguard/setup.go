package cdpguard

// Setting up a newly attached target while the browser holds it: Fetch,
// the service-worker bypass and the owner's own commands, then let run.

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/cdpconn"
)

// setupTimeout bounds the wait for a new target's setup replies. Chrome
// answers them in order behind everything it is sending, and a hostile page
// can keep it busy for many seconds (iframes at 2 MB URLs: each costs Chrome
// some 20 MB of events); a target still held costs nothing, so the guard
// waits long before it gives up on one and fails closed.
const setupTimeout = 30 * time.Second

func autoAttach() target.SetAutoAttachParams {
	flatten := true
	return target.SetAutoAttachParams{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: &flatten}
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
