package cdpguard

import (
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"

	"github.com/lyrad/lyrad/cdpconn"
)

func willBeSent(id, typ string, gesture bool) cdpconn.Event {
	return cdpconn.Event{Method: network.RequestWillBeSent.Method, Params: []byte(fmt.Sprintf(
		`{"requestId":%q,"loaderId":%q,"request":{"url":"https://a.test/","method":"GET","headers":{}},"type":%q,"hasUserGesture":%v,"initiator":{"type":"other"}}`,
		id, id, typ, gesture))}
}

func TestGestures(t *testing.T) {
	var g gestures
	before := time.Now()
	g.observe(willBeSent("L1", "Document", true))
	g.observe(willBeSent("L2", "Document", false))
	g.observe(willBeSent("R3", "Fetch", true)) // not a document
	if at := g.take("L1"); at.Before(before) || at.After(time.Now()) {
		t.Errorf("a document request with the user's gesture, seen at %v", at)
	}
	if !g.take("L1").IsZero() {
		t.Error("taken twice")
	}
	for _, id := range []network.RequestID{"L2", "R3", "", "nobody"} {
		if !g.take(id).IsZero() {
			t.Errorf("%q has no gesture", id)
		}
	}
	// A page cannot grow it without end.
	for i := range 10 * maxGestures {
		g.observe(willBeSent(fmt.Sprint("F", i), "Document", true))
	}
	if n := len(g.m); n > maxGestures {
		t.Errorf("%d entries, bound %d", n, maxGestures)
	}
	if g.take(network.RequestID(fmt.Sprint("F", 10*maxGestures-1))).IsZero() {
		t.Error("the latest gesture was dropped")
	}
}
