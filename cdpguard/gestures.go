package cdpguard

import (
	"bytes"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/network"

	"github.com/lyrad/lyrad/cdpconn"
)

// gestures remembers which document requests the browser says a user's
// gesture started (Network.requestWillBeSent's hasUserGesture), by their
// Network id, until they are judged. It is fed on the connection's reader
// (Conn.Observe), so it must be quick: most requests a page makes are not
// documents and are told apart by a byte search.
//
// Measured on Chromium 156 under Xvfb with real input (xdotool): true on a
// real click on a link, on a form's submit button, on a typed URL and on
// back from the keyboard; false on a timer's navigation, a meta refresh, a
// script's form submit. The Sec-Fetch-User: ?1 header Chrome sends on the
// same navigations is added by the network service after the Fetch domain
// has seen the request, so a paused request never carries it.
type gestures struct {
	mu sync.Mutex
	m  map[string]time.Time
}

// maxGestures bounds the map: a page cannot grow it without end, and an
// entry whose request is never judged is dropped after gestureTTL.
const (
	maxGestures = 256
	gestureTTL  = time.Minute
)

var (
	documentType = []byte(`"type":"Document"`)
	userGesture  = []byte(`"hasUserGesture":true`)
)

func (g *gestures) observe(ev cdpconn.Event) {
	if !bytes.Contains(ev.Params, userGesture) || !bytes.Contains(ev.Params, documentType) {
		return
	}
	var w struct {
		RequestID      string `json:"requestId"`
		Type           string `json:"type"`
		HasUserGesture bool   `json:"hasUserGesture"`
	}
	if jsonv2.Unmarshal(ev.Params, &w) != nil || w.Type != "Document" || !w.HasUserGesture || w.RequestID == "" {
		return
	}
	now := time.Now()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[string]time.Time{}
	}
	if len(g.m) >= maxGestures {
		for k, at := range g.m {
			if now.Sub(at) > gestureTTL || len(g.m) >= maxGestures {
				delete(g.m, k)
			}
		}
	}
	g.m[w.RequestID] = now
}

// take reports when the document request with Network id id was seen
// with a user's gesture (zero: it had none), and forgets it.
func (g *gestures) take(nid network.RequestID) time.Time {
	id := string(nid)
	if id == "" {
		return time.Time{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	at, ok := g.m[id]
	delete(g.m, id)
	if !ok || time.Since(at) > gestureTTL {
		return time.Time{}
	}
	return at
}
