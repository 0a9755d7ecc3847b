package cdpguard

// Judging a paused request: where it comes from, the Decider's verdict, and
// the answer that lets it go or refuses it.

import (
	"context"
	"strings"
	"time"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"
)

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

// hop is a judged request, kept so that its redirect hops know where they
// came from and who sent the chain.
type hop struct {
	url       string
	sender    string
	activated time.Time // when the chain's first hop was seen with a gesture; zero for none
	session   target.SessionID
	at        time.Time
}

// maxHops bounds the redirect registry; hops older than hopTTL are dropped
// first when it is full. Redirect chains are short and fast.
const (
	maxHops = 512
	hopTTL  = time.Minute
)

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
