package cdpguard

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/internal/cdptest"

	"github.com/lyrad/lyrad/internal/testenv"
)

// guardHarness is a guard on a fake browser, with a Decider that answers
// from a table and records what it was asked.
type guardHarness struct {
	t     *testing.T
	p     *cdptest.Peer
	g     *Guard
	mu    sync.Mutex
	asked []Request
	deny  func(r Request) bool
	fails chan error
	order []string // "refuse:<id>" before the answer, "decided:<id>" after
}

func newGuardHarness(t *testing.T, fail func(m cdproto.Message) string) *guardHarness {
	t.Helper()
	h := &guardHarness{t: t, fails: make(chan error, 10)}
	p, conn := newFakePeer(t)
	p.OnFail(fail)
	h.p = p
	g, err := Start(context.Background(), conn, Options{
		Decide: func(ctx context.Context, r Request) Verdict {
			h.mu.Lock()
			defer h.mu.Unlock()
			h.asked = append(h.asked, r)
			if h.deny != nil && h.deny(r) {
				return Verdict{Allow: false, Reason: "test"}
			}
			return Verdict{Allow: true, Reason: "test"}
		},
		OnRefuse: func(r Request, v Verdict) {
			h.mu.Lock()
			h.order = append(h.order, "refuse:"+string(r.RequestID))
			h.mu.Unlock()
		},
		OnDecision: func(r Request, v Verdict, took time.Duration) {
			h.mu.Lock()
			h.order = append(h.order, "decided:"+string(r.RequestID))
			h.mu.Unlock()
		},
		OnFailure: func(err error) { h.fails <- err },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	h.g = g
	return h
}

// attach reports a new target, held by the browser until the guard lets it
// run.
func (h *guardHarness) attach(parent, sid target.SessionID, info map[string]any) {
	info["attached"], info["canAccessOpener"] = true, false
	if info["title"] == nil {
		info["title"] = ""
	}
	h.p.Event(parent, "Target.attachedToTarget", map[string]any{"sessionId": sid, "targetInfo": info, "waitingForDebugger": true})
}

func (h *guardHarness) waitReady(id target.ID) {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, ok := h.g.Page(id); ok {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%s never became ready", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (h *guardHarness) pause(sid target.SessionID, id, frame, url, method string, extra map[string]any) {
	req := map[string]any{"url": url, "method": method, "headers": map[string]any{}, "initialPriority": "VeryHigh", "referrerPolicy": "no-referrer"}
	params := map[string]any{"requestId": id, "request": req, "frameId": frame, "resourceType": "Document", "networkId": "N" + id}
	for k, v := range extra {
		switch k {
		case "origin":
			req["headers"] = map[string]any{"Origin": v}
		case "hasPostData":
			req[k] = v
		default:
			params[k] = v
		}
	}
	h.p.Event(sid, "Fetch.requestPaused", params)
}

// decided waits for the Decider to have been asked about request id.
func (h *guardHarness) decided(id string) Request {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		h.mu.Lock()
		for _, r := range h.asked {
			if string(r.RequestID) == id {
				h.mu.Unlock()
				return r
			}
		}
		h.mu.Unlock()
		if time.Now().After(deadline) {
			h.t.Fatalf("request %s was never judged", id)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A new target is let run only after Fetch, the worker bypass and the
// nested auto-attach were sent to it, and it is handed out only once their
// replies came.
func TestAttachHoldsUntilGuarded(t *testing.T) {
	h := newGuardHarness(t, nil)
	h.attach("", "S1", map[string]any{"targetId": "T1", "type": "page", "url": "about:blank"})
	h.p.WaitCmd("Runtime.runIfWaitingForDebugger", "S1")
	h.waitReady("T1")
	got := h.p.Sent("S1")
	run := slices.Index(got, "Runtime.runIfWaitingForDebugger")
	for _, m := range []string{"Fetch.enable", "Network.enable", "Network.setBypassServiceWorker", "Page.enable", "Target.setAutoAttach"} {
		if i := slices.Index(got, m); i < 0 || i > run {
			t.Errorf("%s sent at %d, runIfWaitingForDebugger at %d: %v", m, i, run, got)
		}
	}
	if slices.Contains(got, "Runtime.enable") {
		t.Errorf("Runtime.enable sent to a page: %v", got)
	}
}

// A target whose setup fails is reported, so that its owner kills the
// browser: it may already run unguarded.
func TestSetupFailureFailsClosed(t *testing.T) {
	h := newGuardHarness(t, func(m cdproto.Message) string {
		if m.Method == "Fetch.enable" {
			return "Fetch.enable is not available"
		}
		return ""
	})
	h.attach("", "S1", map[string]any{"targetId": "T1", "type": "page", "url": "about:blank"})
	select {
	case err := <-h.fails:
		t.Logf("reported: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("a target whose Fetch.enable failed was not reported")
	}
	if _, ok := h.g.Page("T1"); ok {
		t.Error("the unguarded target was handed out")
	}
}

// An error that reads like "target gone" is believed only when the browser
// confirms the target is gone; a live target with a failed setup is a
// failure.
func TestGoneErrorIsConfirmed(t *testing.T) {
	var alive sync.Map
	alive.Store("T1", true)
	h := newGuardHarness(t, func(m cdproto.Message) string {
		switch m.Method {
		case "Fetch.enable":
			return "No session with given id"
		case "Target.getTargetInfo":
			if _, ok := alive.Load("T1"); !ok {
				return "No target with given id found"
			}
		}
		return ""
	})
	h.attach("", "S1", map[string]any{"targetId": "T1", "type": "page", "url": "about:blank"})
	select {
	case err := <-h.fails:
		t.Logf("live target reported: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("a live target whose setup failed with a 'gone' message ran unguarded, unreported")
	}
	// The same error for a target that is really gone is no failure.
	alive.Delete("T1")
	h.attach("", "S2", map[string]any{"targetId": "T2", "type": "page", "url": "about:blank"})
	h.p.WaitCmd("Target.getTargetInfo", "")
	select {
	case err := <-h.fails:
		t.Errorf("a target that went away was reported: %v", err)
	case <-time.After(500 * time.Millisecond):
	}
}

// An unreadable paused request is a failure, never let through.
func TestUnreadablePauseFailsClosed(t *testing.T) {
	h := newGuardHarness(t, nil)
	h.attach("", "S1", map[string]any{"targetId": "T1", "type": "page", "url": "about:blank"})
	h.waitReady("T1")
	h.p.Event("S1", "Fetch.requestPaused", map[string]any{"requestId": "R1", "frameId": "T1", "resourceType": "Document"})
	select {
	case <-h.fails:
	case <-time.After(10 * time.Second):
		t.Fatal("a paused request with no request was not reported")
	}
}

// A refusal is told to the owner before the browser hears it, and
// answered with an empty 204; an allowed request is continued.
func TestRefusalToldBeforeAnswered(t *testing.T) {
	h := newGuardHarness(t, nil)
	h.deny = func(r Request) bool { return r.URL == "http://b.test/" }
	h.attach("", "S1", map[string]any{"targetId": "T1", "type": "page", "url": "http://a.test/"})
	h.waitReady("T1")
	h.p.Event("S1", "Page.frameNavigated", map[string]any{"frame": map[string]any{"id": "T1", "loaderId": "L", "url": "http://a.test/", "domainAndRegistry": "", "securityOrigin": "http://a.test", "mimeType": "text/html", "secureContextType": "InsecureScheme", "crossOriginIsolatedContextType": "NotIsolated", "gatedAPIFeatures": []string{}}, "type": "Navigation"})
	h.pause("S1", "R1", "T1", "http://b.test/", "GET", nil)
	h.p.WaitCmd("Fetch.fulfillRequest", "S1")
	h.pause("S1", "R2", "T1", "http://a.test/next", "GET", nil)
	h.p.WaitCmd("Fetch.continueRequest", "S1")
	// The decision is recorded after the answer went out: wait for it.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		h.mu.Lock()
		seen := slices.Contains(h.order, "decided:R1")
		h.mu.Unlock()
		if seen {
			break
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if i, j := slices.Index(h.order, "refuse:R1"), slices.Index(h.order, "decided:R1"); i < 0 || j < i {
		t.Errorf("order %v", h.order)
	}
	if r := h.asked[0]; r.Issuer != "http://a.test/" || r.TabID != "T1" || r.InSubframe {
		t.Errorf("R1 as judged: %+v", r)
	}
}

// A redirect hop knows where it came from, and keeps the sender of its
// chain even when the browser's Origin header changed on the way.
func TestRedirectHopKeepsItsChain(t *testing.T) {
	h := newGuardHarness(t, nil)
	h.attach("", "S1", map[string]any{"targetId": "T1", "type": "page", "url": "http://a.test/"})
	h.waitReady("T1")
	h.pause("S1", "R1", "T1", "http://a.test/post", "POST", map[string]any{"origin": "http://a.test", "hasPostData": true})
	h.decided("R1")
	h.pause("S1", "R2", "T1", "http://b.test/landing", "POST", map[string]any{"origin": "null", "hasPostData": true, "redirectedRequestId": "R1"})
	r := h.decided("R2")
	if r.RedirectFrom != "http://a.test/post" || r.Sender != "http://a.test" {
		t.Errorf("hop: from %q sender %q", r.RedirectFrom, r.Sender)
	}
}

// A document with none of its own (srcdoc, data:, a popup's first load)
// issues as its creator: the parent frame, or the opener.
func TestIssuerIsTheCreator(t *testing.T) {
	h := newGuardHarness(t, nil)
	nav := func(sid target.SessionID, id, parent, url string) {
		f := map[string]any{"id": id, "loaderId": "L" + id, "url": url, "domainAndRegistry": "", "securityOrigin": "", "mimeType": "text/html", "secureContextType": "InsecureScheme", "crossOriginIsolatedContextType": "NotIsolated", "gatedAPIFeatures": []string{}}
		if parent != "" {
			f["parentId"] = parent
		}
		h.p.Event(sid, "Page.frameNavigated", map[string]any{"frame": f, "type": "Navigation"})
	}
	h.attach("", "S1", map[string]any{"targetId": "T1", "type": "page", "url": "http://a.test/"})
	h.waitReady("T1")
	nav("S1", "T1", "", "http://a.test/")
	h.p.Event("S1", "Page.frameAttached", map[string]any{"frameId": "F1", "parentFrameId": "T1"})
	nav("S1", "F1", "T1", "about:srcdoc")
	h.p.Event("S1", "Page.frameAttached", map[string]any{"frameId": "F2", "parentFrameId": "F1"})
	nav("S1", "F2", "F1", "data:text/html,<form>")
	h.pause("S1", "R1", "F2", "http://b.test/", "POST", map[string]any{"hasPostData": true})
	if r := h.decided("R1"); r.Issuer != "http://a.test/" || !r.InSubframe {
		t.Errorf("data: in srcdoc: issuer %q sub %v", r.Issuer, r.InSubframe)
	}
	// A popup A opened, with no document yet.
	h.attach("", "S2", map[string]any{"targetId": "T2", "type": "page", "url": "", "openerId": "T1", "openerFrameId": "F1"})
	h.waitReady("T2")
	h.pause("S2", "R2", "T2", "http://b.test/", "POST", map[string]any{"origin": "http://a.test", "hasPostData": true})
	r := h.decided("R2")
	if r.Issuer != "http://a.test/" || r.SenderTab != "T1" || r.TabID != "T2" {
		t.Errorf("popup's first load: issuer %q sender tab %q tab %q", r.Issuer, r.SenderTab, r.TabID)
	}
	// Once it has a document, it sends for itself.
	nav("S2", "T2", "", "http://b.test/")
	h.pause("S2", "R3", "T2", "http://b.test/x", "POST", map[string]any{"origin": "http://b.test", "hasPostData": true})
	if r := h.decided("R3"); r.SenderTab != "T2" || r.Issuer != "http://b.test/" {
		t.Errorf("popup with a document: issuer %q sender tab %q", r.Issuer, r.SenderTab)
	}
}

// What the guard knows of a target goes with it, and what it keeps is
// bounded: a 2 MB URL is kept cut.
func TestRegistriesPrunedAndBounded(t *testing.T) {
	h := newGuardHarness(t, nil)
	h.attach("", "S1", map[string]any{"targetId": "T1", "type": "page", "url": "http://a.test/"})
	h.waitReady("T1")
	long := "http://a.test/" + strings.Repeat("x", 2<<20)
	h.p.Event("S1", "Page.frameAttached", map[string]any{"frameId": "F1", "parentFrameId": "T1"})
	h.p.Event("S1", "Page.frameNavigated", map[string]any{"frame": map[string]any{"id": "F1", "parentId": "T1", "loaderId": "L", "url": long, "domainAndRegistry": "", "securityOrigin": "", "mimeType": "text/html", "secureContextType": "InsecureScheme", "crossOriginIsolatedContextType": "NotIsolated", "gatedAPIFeatures": []string{}}, "type": "Navigation"})
	h.pause("S1", "R1", "F1", long, "GET", nil)
	r := h.decided("R1")
	if r.URL != long {
		t.Errorf("the request was judged on a cut URL (%d bytes)", len(r.URL))
	}
	h.g.mu.Lock()
	kept := len(h.g.frames["F1"].url) + len(h.g.hops["R1"].url)
	h.g.mu.Unlock()
	if kept > 2*maxURL {
		t.Errorf("the guard keeps %d bytes of URLs for one frame", kept)
	}
	h.p.Event("", "Target.detachedFromTarget", map[string]any{"sessionId": "S1", "targetId": "T1"})
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.g.mu.Lock()
		n := len(h.g.frames) + len(h.g.hops) + len(h.g.targets)
		h.g.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d entries left after the target went", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The hop registry stays bounded whatever a page starts.
	h.g.mu.Lock()
	for i := 0; i < 3*maxHops; i++ {
		h.g.rememberLocked(fetch.RequestID(strconv.Itoa(i)), hop{url: "u", at: time.Now()})
	}
	n := len(h.g.hops)
	h.g.mu.Unlock()
	if n > maxHops {
		t.Errorf("%d hops kept", n)
	}
}

// HasFrame follows the frames of held targets: a tab's main frame and the
// frames it reported, until they detach or the target goes.
func TestHasFrameFollowsFrames(t *testing.T) {
	h := newGuardHarness(t, nil)
	h.attach("", "S1", map[string]any{"targetId": "T1", "type": "page", "url": "http://a.test/"})
	h.waitReady("T1")
	if !h.g.HasFrame("S1", "T1") {
		t.Fatal("a held tab's main frame is not known")
	}
	h.p.Event("S1", "Page.frameAttached", map[string]any{"frameId": "F1", "parentFrameId": "T1"})
	h.p.Event("S1", "Page.frameAttached", map[string]any{"frameId": "F2", "parentFrameId": "T1"})
	testenv.WaitFor(t, "the attached frames to be known", 5*time.Second, func() bool { return h.g.HasFrame("S1", "F1") && h.g.HasFrame("S1", "F2") })
	h.p.Event("S1", "Page.frameDetached", map[string]any{"frameId": "F1", "reason": "remove"})
	testenv.WaitFor(t, "a detached frame to be forgotten", 5*time.Second, func() bool { return !h.g.HasFrame("S1", "F1") && h.g.HasFrame("S1", "F2") })
	if h.g.HasFrame("S9", "T1") {
		t.Error("a frame is known over a session the guard never held")
	}
	h.p.Event("", "Target.detachedFromTarget", map[string]any{"sessionId": "S1", "targetId": "T1"})
	testenv.WaitFor(t, "the frames of a closed tab to be forgotten", 5*time.Second, func() bool { return !h.g.HasFrame("S1", "T1") && !h.g.HasFrame("S1", "F2") })
}

// A target in a context lyrad owns is let run with nothing of the guard's
// and never handed out; once the context is released, a target in it is
// guarded like any other.
func TestOwnContextIsLeftAlone(t *testing.T) {
	h := newGuardHarness(t, nil)
	release := h.g.Own("C1")
	h.attach("", "S1", map[string]any{"targetId": "T1", "type": "page", "url": "about:blank", "browserContextId": "C1"})
	h.p.WaitCmd("Runtime.runIfWaitingForDebugger", "S1")
	if got := h.p.Sent("S1"); !slices.Equal(got, []string{"Runtime.runIfWaitingForDebugger"}) {
		t.Errorf("sent to an own target: %v", got)
	}
	h.attach("", "S2", map[string]any{"targetId": "T2", "type": "page", "url": "about:blank", "browserContextId": "C2"})
	h.waitReady("T2")
	if _, ok := h.g.Page("T1"); ok {
		t.Error("an own target is handed out")
	}
	release()
	h.attach("", "S3", map[string]any{"targetId": "T3", "type": "page", "url": "about:blank", "browserContextId": "C1"})
	h.waitReady("T3")
	if got := h.p.Sent("S3"); !slices.Contains(got, "Fetch.enable") {
		t.Errorf("a target in a released context is not guarded: %v", got)
	}
}

// PrepareAll reaches every page and service worker the guard knows, not a
// dedicated worker (it takes its page's).
func TestPrepareAllReachesEveryTarget(t *testing.T) {
	h := newGuardHarness(t, nil)
	h.attach("", "S1", map[string]any{"targetId": "T1", "type": "page", "url": "about:blank"})
	h.attach("", "S2", map[string]any{"targetId": "T2", "type": "service_worker", "url": "https://a.test/sw.js"})
	h.attach("", "S3", map[string]any{"targetId": "T3", "type": "worker", "url": "https://a.test/w.js"})
	h.waitReady("T1")
	for _, s := range []target.SessionID{"S2", "S3"} {
		h.p.WaitSent("Runtime.runIfWaitingForDebugger", s)
	}
	var mu sync.Mutex
	seen := map[target.ID]string{}
	h.g.PrepareAll(func(q *Sender, t *target.Info) {
		mu.Lock()
		seen[t.TargetID] = t.Type
		mu.Unlock()
		q.Send("Emulation.setUserAgentOverride", map[string]any{"userAgent": "x"})
	})
	if len(seen) != 2 || seen["T1"] != "page" || seen["T2"] != "service_worker" {
		t.Errorf("PrepareAll saw %v", seen)
	}
	h.p.WaitSent("Emulation.setUserAgentOverride", "S1")
	h.p.WaitSent("Emulation.setUserAgentOverride", "S2")
	if slices.Contains(h.p.Sent("S3"), "Emulation.setUserAgentOverride") {
		t.Error("PrepareAll reached a dedicated worker")
	}
}
