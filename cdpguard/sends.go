package cdpguard

// Sends: what a guarded page or worker sends that is not a document and
// not a GET, read from the Network events without holding anything.

import (
	"bytes"
	"net/url"
	"slices"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"

	"github.com/lyrad/lyrad/cdpconn"
)

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
