package cdpguard

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lyrad/lyrad/internal/cdptest"
)

// decisions collects what the guard told its owner.
type decisions struct {
	mu      sync.Mutex
	refused []Request
	reasons []Verdict
	decided chan Request
}

func startBodyGuard(t *testing.T) (*cdptest.Peer, *Guard, *decisions) {
	t.Helper()
	p, conn := newFakePeer(t)
	d := &decisions{decided: make(chan Request, 100)}
	g, err := Start(context.Background(), conn, Options{
		OnRefuse: func(r Request, v Verdict) {
			d.mu.Lock()
			d.refused, d.reasons = append(d.refused, r), append(d.reasons, v)
			d.mu.Unlock()
		},
		OnDecision: func(r Request, v Verdict, took time.Duration) { d.decided <- r },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	p.Event("", "Target.attachedToTarget", map[string]any{
		"sessionId":          "S1",
		"targetInfo":         map[string]any{"targetId": "T1", "type": "page", "title": "", "url": "http://a.test/form", "attached": true, "canAccessOpener": false},
		"waitingForDebugger": true,
	})
	p.WaitCmd("Runtime.runIfWaitingForDebugger", "S1")
	deadline := time.Now().Add(10 * time.Second)
	for len(g.Pages()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the page was never guarded")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return p, g, d
}

func willSend(p *cdptest.Peer, id string, body bool) {
	p.Event("S1", "Network.requestWillBeSent", map[string]any{
		"requestId": id, "loaderId": id, "documentURL": "http://a.test/sink", "type": "Document", "frameId": "T1",
		"timestamp": 1, "wallTime": 1, "initiator": map[string]any{"type": "other"}, "redirectHasExtraInfo": false,
		"request": map[string]any{"url": "http://a.test/sink", "method": "POST", "headers": map[string]any{}, "hasPostData": body,
			"initialPriority": "VeryHigh", "referrerPolicy": "no-referrer"},
	})
}

// waitDecided waits for the decision on the request with this network id.
func (d *decisions) waitDecided(t *testing.T, id string) Request {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case r := <-d.decided:
			if r.NetworkID == id {
				return r
			}
		case <-deadline:
			t.Fatalf("no decision on %s", id)
		}
	}
}

// A request whose requestPaused Chrome dropped is refused and its
// navigation stopped once Chrome says so; one whose event came, or whose
// loading ended, is left alone.
func TestDroppedBodyIsRefused(t *testing.T) {
	p, g, d := startBodyGuard(t)

	willSend(p, "L1", true)
	g.MessageDropped(307583866)
	p.WaitCmd("Page.stopLoading", "S1")
	r := d.waitDecided(t, "L1")
	if r.TabID != "T1" || r.TargetType != "page" || r.InSubframe || r.Method != "POST" || !r.HasBody || r.Issuer != "http://a.test/form" {
		t.Fatalf("refused request %+v", r)
	}
	d.mu.Lock()
	v := d.reasons[0]
	d.mu.Unlock()
	if v.Allow || v.Reason != ReasonBodyTooLarge || v.Fields["message_bytes"] != int64(307583866) {
		t.Fatalf("verdict %+v", v)
	}

	// Paused (and judged by the guard's own loop), ended, or without a
	// body: none of these is stopped by the next drop.
	willSend(p, "L2", true)
	p.Event("S1", "Fetch.requestPaused", map[string]any{
		"requestId": "interception-job-1.0", "networkId": "L2", "frameId": "T1", "resourceType": "Document",
		"request": map[string]any{"url": "http://a.test/sink", "method": "POST", "headers": map[string]any{}, "hasPostData": true,
			"initialPriority": "VeryHigh", "referrerPolicy": "no-referrer"},
	})
	p.WaitCmd("Fetch.continueRequest", "S1")
	willSend(p, "L3", true)
	p.Event("S1", "Network.loadingFailed", map[string]any{"requestId": "L3", "timestamp": 1, "type": "Document", "errorText": "net::ERR_ABORTED", "canceled": true})
	willSend(p, "L4", false)
	willSend(p, "L5", true)
	g.MessageDropped(-1)
	d.waitDecided(t, "L5")
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.refused) != 2 || d.refused[1].NetworkID != "L5" || d.reasons[1].Fields["message_bytes"] != int64(-1) {
		t.Fatalf("refused %+v", d.refused)
	}
}

// Without a word from Chrome, a body that never comes is stopped after
// bodyHandover.
func TestBodyNotHandedOverIsRefused(t *testing.T) {
	old := bodyHandover
	bodyHandover = 300 * time.Millisecond
	p, _, d := startBodyGuard(t)
	bodyHandover = old

	start := time.Now()
	willSend(p, "L1", true)
	p.WaitCmd("Page.stopLoading", "S1")
	d.waitDecided(t, "L1")
	if time.Since(start) < 300*time.Millisecond {
		t.Fatalf("stopped after %v", time.Since(start))
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.reasons[0].Reason != ReasonBodyNotHandedOver || d.refused[0].NetworkID != "L1" {
		t.Fatalf("refused %+v: %+v", d.refused, d.reasons)
	}
}
