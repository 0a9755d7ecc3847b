package cdpguard

import (
	"context"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"
)

// Response is a document response held before its body reaches the
// browser, as Options.RefuseResponse sees it.
type Response struct {
	TabID   target.ID
	FrameID cdp.FrameID
	URL     string
	Status  int64
	// ContentDisposition and ContentType are the response's headers.
	ContentDisposition string
	ContentType        string
	// NoAccept: the request carried no Accept header. Chrome's navigations
	// always send one; a request its download manager makes (an
	// <a download> click, "Save link as") does not.
	NoAccept bool
	// UserActivated: the request this answers was judged as started by the
	// user's gesture (Request.UserActivated, its chain's first hop's).
	UserActivated bool
	ActivatedAt   time.Time // Request.ActivatedAt of that request
}

// responsePatterns hold document responses too, when someone judges them.
func (g *Guard) responsePatterns() []*fetch.RequestPattern {
	if g.opts.RefuseResponse == nil {
		return nil
	}
	return []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageResponse}}
}

// isResponse: a pause at the response stage (the request itself was
// judged already).
func isResponse(p *fetch.EventRequestPaused) bool {
	return p.ResponseStatusCode != 0 || p.ResponseErrorReason != ""
}

// judgeResponse lets a held response go on, or answers it with an empty
// 204 so that no byte of its body reaches the browser: a download refused
// here is never written anywhere, not even to the browser's temporary file.
func (g *Guard) judgeResponse(ctx context.Context, sid target.SessionID, p *fetch.EventRequestPaused) {
	r := Response{
		FrameID: p.FrameID, URL: p.Request.URL, Status: p.ResponseStatusCode,
		NoAccept: header(p.Request.Headers, "Accept") == "",
	}
	for _, h := range p.ResponseHeaders {
		switch {
		case strings.EqualFold(h.Name, "Content-Disposition"):
			r.ContentDisposition = h.Value
		case strings.EqualFold(h.Name, "Content-Type"):
			r.ContentType = h.Value
		}
	}
	g.mu.Lock()
	if t := g.targets[sid]; t != nil {
		r.TabID = t.TabID
	}
	if h, ok := g.hops[p.RequestID]; ok && !h.activated.IsZero() {
		r.UserActivated, r.ActivatedAt = true, h.activated // as its request stage read it
	}
	g.mu.Unlock()
	refuse := p.ResponseErrorReason == "" && g.opts.RefuseResponse(r)
	method, params := fetch.ContinueRequest.Method, any(fetch.ContinueRequestParams{RequestID: p.RequestID})
	if refuse {
		method, params = fetch.FulfillRequest.Method, fetch.FulfillRequestParams{
			RequestID:       p.RequestID,
			ResponseCode:    204,
			ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Length", Value: "0"}},
		}
	}
	g.respond(ctx, sid, method, params, func(err error) {
		g.log.Debug("answer held response", zap.Bool("refuse", refuse), zap.Error(err))
	})
}
