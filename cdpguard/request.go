package cdpguard

// What the guard hands its Decider and its owner: a paused request, a send
// read from the Network events, and the verdict on a request.

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
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
