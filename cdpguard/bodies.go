package cdpguard

// Upload bodies Chrome cannot hand over.
//
// Chrome puts a request's whole body into its Fetch.requestPaused event,
// twice: as postData, a JSON string in which a zero byte takes six bytes
// ("\u0000"), and as postDataEntries in base64. Its DevTools server drops,
// without a word on the protocol, any message that does not fit the
// connection's 256 MiB send buffer (it only logs "Too large write data is
// pending"). The request then stays paused for ever: nothing is sent, but
// the page hangs, the call that set it off waits out its timeout, and
// nothing is recorded. On Chromium 156 the message is 7.3 bytes per body
// byte for zero bytes and 2.3 for random ones: a 34 MiB zero-filled file
// arrives and 35 MiB does not; 110 MiB of random bytes arrives, 113 not.
//
// The guard therefore follows each document request with a body from its
// Network.requestWillBeSent (sent as the navigation starts, before Chrome
// reads the body) to its requestPaused, or to the end of its loading. When
// Chrome logs a dropped message (Guard.MessageDropped), the guard puts a
// mark behind every event Chrome has sent (cdpconn.Conn.Mark); the requests
// still waiting when the mark comes are the ones whose event was lost. Their
// navigation is stopped (Page.stopLoading cancels the paused request: the
// server sees nothing) and they are refused like any refusal, with reason
// ReasonBodyTooLarge. A request still waiting after bodyHandover is stopped
// the same way (ReasonBodyNotHandedOver), for a browser that logs nothing.
//
// Two requests waiting at once when a message is dropped are both stopped:
// the log does not say whose message it was. Nothing is let through
// unjudged either way.

import (
	"bytes"
	"context"
	"strconv"
	"sync/atomic"
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

// Reasons of the refusals of requests whose body never reached the guard.
const (
	ReasonBodyTooLarge      = "body_too_large"
	ReasonBodyNotHandedOver = "body_not_handed_over"
)

// DevToolsMessageLimit is the send buffer of Chrome's DevTools server
// (kSendBufferSizeForDevTools): no message to lyrad can be larger.
const DevToolsMessageLimit = 256 << 20

// bodyHandover bounds the wait for a body's requestPaused when Chrome never
// says it dropped it. Chrome took 17 s to hand over 96 MiB of random bytes
// on a loaded 2-core machine; this leaves a wide margin. A var for tests.
var bodyHandover = 2 * time.Minute

var bodyEvents = []string{
	network.RequestWillBeSent.Method,
	fetch.RequestPaused.Method,
	network.LoadingFailed.Method,
	network.LoadingFinished.Method,
	network.ResponseReceived.Method,
	target.DetachedFromTarget.Method,
	cdpconn.MethodMark,
}

// bodyCounts let the connection's reader drop, before they are queued, the
// events the body watcher has no use for: it waits on nothing (no request
// with a body is pending, none is on its way to it). Nearly every event of
// a page is then dropped, which spares the watcher a wake-up for each.
//
// An event that matters concerns a request whose requestWillBeSent (with a
// body) came before it. When the reader looks at it, that requestWillBeSent
// is either still queued or being handled (inFlight counts it from the
// moment the reader kept it until the watcher has updated pending), or
// handled (pending counts the request until it is no longer waited on).
// Either way the event is kept.
type bodyCounts struct {
	inFlight atomic.Int64 // requestWillBeSent with a body, kept, not yet handled
	pending  atomic.Int64 // len of the watcher's pending
}

// keep runs on the reader for every event of bodyEvents.
func (c *bodyCounts) keep(ev cdpconn.Event) bool {
	switch ev.Method {
	case network.RequestWillBeSent.Method:
		if !bytes.Contains(ev.Params, hasBody) {
			return false
		}
		c.inFlight.Add(1)
		return true
	case cdpconn.MethodMark:
		return true
	}
	return c.inFlight.Load() > 0 || c.pending.Load() > 0
}

// bodyWatch is a document request with a body whose requestPaused has not
// come yet.
type bodyWatch struct {
	sid    target.SessionID
	frame  cdp.FrameID
	url    string
	method string
	id     string // network id
	since  time.Time
}

// MessageDropped tells the guard that Chrome dropped a DevTools message of
// size bytes (-1: unknown), as its log said. It returns at once; the
// requests whose event was lost are refused once every event Chrome sent
// before has been taken.
func (g *Guard) MessageDropped(size int64) {
	g.log.Warn("the browser dropped a DevTools message that did not fit its send buffer", zap.Int64("bytes", size))
	go func() {
		if err := g.conn.Mark(strconv.FormatInt(size, 10)); err != nil {
			g.log.Warn("cannot mark the dropped message", zap.Error(err))
		}
	}()
}

// watchBodies follows document requests with a body, as described above.
// It has its own subscription, so the guard's own loop never waits on it.
func (g *Guard) watchBodies(ctx context.Context, events <-chan cdpconn.Event, unsubscribe func()) {
	defer unsubscribe()
	pending := map[string]*bodyWatch{}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			g.bodyEvent(ctx, pending, ev)
			g.bodies.pending.Store(int64(len(pending)))
			if ev.Method == network.RequestWillBeSent.Method {
				g.bodies.inFlight.Add(-1) // keep counted every one it queued
			}
		case <-timer.C:
		}
		next := time.Hour
		for id, w := range pending {
			wait := time.Until(w.since.Add(g.handover))
			if wait <= 0 {
				delete(pending, id)
				g.stopBody(ctx, w, ReasonBodyNotHandedOver, map[string]any{"waited_ms": time.Since(w.since).Milliseconds()})
				continue
			}
			next = min(next, wait)
		}
		g.bodies.pending.Store(int64(len(pending)))
		timer.Reset(next)
	}
}

// hasBody is how Chrome writes the flag; a request without it is not
// decoded at all, which keeps the cost of the many subresource events to a
// byte search.
var hasBody = []byte(`"hasPostData":true`)

func (g *Guard) bodyEvent(ctx context.Context, pending map[string]*bodyWatch, ev cdpconn.Event) {
	switch ev.Method {
	case network.RequestWillBeSent.Method:
		if !bytes.Contains(ev.Params, hasBody) {
			return
		}
		var e struct {
			RequestID string               `json:"requestId"`
			Type      network.ResourceType `json:"type"`
			FrameID   cdp.FrameID          `json:"frameId"`
			Request   struct {
				URL         string `json:"url"`
				URLFragment string `json:"urlFragment"`
				Method      string `json:"method"`
				HasPostData bool   `json:"hasPostData"`
			} `json:"request"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) != nil || e.Type != network.ResourceTypeDocument || !e.Request.HasPostData {
			return
		}
		// A redirect hop that keeps the body (307, 308) comes with the same
		// id and starts the wait again.
		pending[e.RequestID] = &bodyWatch{sid: ev.SessionID, frame: e.FrameID, url: e.Request.URL + e.Request.URLFragment,
			method: e.Request.Method, id: e.RequestID, since: time.Now()}
	case fetch.RequestPaused.Method:
		if len(pending) == 0 {
			return
		}
		var e struct {
			NetworkID string `json:"networkId"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			delete(pending, e.NetworkID)
		}
	case network.LoadingFailed.Method, network.LoadingFinished.Method, network.ResponseReceived.Method:
		// The request ended (cancelled, or replaced by another navigation)
		// or was sent: there is nothing left to wait for.
		if len(pending) == 0 {
			return
		}
		var e struct {
			RequestID string `json:"requestId"`
		}
		if jsonv2.Unmarshal(ev.Params, &e) == nil {
			delete(pending, e.RequestID)
		}
	case target.DetachedFromTarget.Method:
		var e struct {
			SessionID target.SessionID `json:"sessionId"`
		}
		if len(pending) == 0 || jsonv2.Unmarshal(ev.Params, &e) != nil {
			return
		}
		for id, w := range pending {
			if w.sid == e.SessionID {
				delete(pending, id)
			}
		}
	case cdpconn.MethodMark:
		var token string
		if jsonv2.Unmarshal(ev.Params, &token) != nil {
			return
		}
		size, err := strconv.ParseInt(token, 10, 64)
		if err != nil {
			return
		}
		for id, w := range pending {
			delete(pending, id)
			g.stopBody(ctx, w, ReasonBodyTooLarge, map[string]any{"message_bytes": size, "message_limit_bytes": DevToolsMessageLimit})
		}
	}
}

// stopBody refuses a request whose body never reached the guard: the
// refusal is told first, as for any refusal, then the navigation is stopped
// and the decision recorded.
func (g *Guard) stopBody(ctx context.Context, w *bodyWatch, reason string, fields map[string]any) {
	start := time.Now()
	r := Request{SessionID: w.sid, FrameID: w.frame, URL: w.url, Method: w.method, HasBody: true,
		ResourceType: network.ResourceTypeDocument, NetworkID: w.id}
	g.mu.Lock()
	g.placeLocked(&r, g.targets[w.sid])
	g.mu.Unlock()
	v := Verdict{Allow: false, Reason: reason, Fields: fields}
	if g.opts.OnRefuse != nil {
		g.opts.OnRefuse(r, v)
	}
	go func() {
		// Stopping the tab's loading cancels the navigation, and with it
		// the paused request; the page stays on the document it had.
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, err := cdp.Call(cctx, g.conn.Session(w.sid), page.StopLoading, cdp.Empty{})
		if err != nil && !targetGone(err) && ctx.Err() == nil {
			g.log.Warn("stop a navigation whose body never arrived", zap.Error(err))
		}
		if g.opts.OnDecision != nil {
			g.opts.OnDecision(r, v, time.Since(start))
		}
	}()
}
