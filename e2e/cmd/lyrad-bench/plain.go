package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/chrome"
)

// plainNavigate is the floor: the same navigation driven by this program
// over plain CDP, with no guard and no MCP, on a browser launched with the
// same flags. Page.enable and lifecycle events only, as any driver needs.
//
// With intercept, the program also does what the guard asks of Chrome
// (Network.enable, the service-worker bypass, Fetch on documents, each
// paused request continued at once) with no judgement and no MCP: the part
// of lyrad's time that is Chrome's.
func plainNavigate(pageURL string, n int, intercept bool) (pages, chains []time.Duration, err error) {
	mode := plainBare
	if intercept {
		mode = plainHeld
	}
	p, err := startPlain(mode, "")
	if err != nil {
		return nil, nil, err
	}
	defer p.close()
	for i := 0; i < 2*n; i++ {
		u := pageURL + "plain" + strconv.Itoa(i)
		if i >= n {
			u = pageURL + "hop/5/plain" + strconv.Itoa(i)
		}
		took, err := p.navigate(u)
		if err != nil {
			return nil, nil, err
		}
		if i < n {
			pages = append(pages, took)
		} else {
			chains = append(chains, took)
		}
	}
	return pages, chains, nil
}

// plainMode is how much of the guard's asks a plain driver makes of Chrome.
type plainMode int

const (
	// plainBare: Page and lifecycle events only.
	plainBare plainMode = iota
	// plainHeld: and Network, the worker bypass, Fetch on document
	// requests, each continued at once (the bench's baseline).
	plainHeld
	// plainHeldResponses: and Fetch on document responses too, each
	// continued at once: what the download guard (RefuseResponse) adds.
	plainHeldResponses
)

// plainBrowser is a browser driven over plain CDP, one tab attached.
type plainBrowser struct {
	ctx    context.Context
	cancel context.CancelFunc
	dir    string // a profile of its own, removed at close ("" with a given one)
	proc   *chrome.Process
	conn   *cdpconn.Conn
	s      *cdpconn.Session
	stops  []func()
}

// startPlain launches a browser as lyrad does, on profileDir when given
// (kept), else on a temporary profile of its own.
func startPlain(mode plainMode, profileDir string) (_ *plainBrowser, err error) {
	found, err := chrome.Find("", "")
	if err != nil {
		return nil, err
	}
	p := &plainBrowser{}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	defer func() {
		if err != nil {
			p.close()
		}
	}()
	if profileDir == "" {
		if p.dir, err = os.MkdirTemp("", "lyrad-bench-plain"); err != nil {
			return nil, err
		}
		profileDir = p.dir
	}
	ctx, cancel := context.WithTimeout(p.ctx, 2*time.Minute)
	defer cancel()
	if p.proc, err = chrome.Launch(ctx, chrome.LaunchOptions{Path: found.Path, ProfileDir: profileDir, Headless: true}); err != nil {
		return nil, err
	}
	if p.conn, err = cdpconn.Dial(ctx, p.proc.WebSocketURL(), cdpconn.Options{}); err != nil {
		return nil, err
	}
	targets, err := cdp.Call(ctx, p.conn.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, err
	}
	var id target.ID
	for _, t := range targets.TargetInfos {
		if t.Type == "page" {
			id = t.TargetID
		}
	}
	flatten := true
	att, err := cdp.Call(ctx, p.conn.Browser(), target.AttachToTarget, target.AttachToTargetParams{TargetID: id, Flatten: &flatten})
	if err != nil {
		return nil, err
	}
	s := p.conn.Session(att.SessionID)
	p.s = s
	if mode >= plainHeld {
		paused, stop := s.Subscribe(fetch.RequestPaused.Method)
		p.stops = append(p.stops, stop)
		go func() {
			for ev := range paused {
				var e fetch.EventRequestPaused
				if jsonv2.Unmarshal(ev, &e) == nil {
					go cdp.Call(p.ctx, s, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
				}
			}
		}()
		if _, err := cdp.Call(ctx, s, network.Enable, network.EnableParams{}); err != nil {
			return nil, err
		}
		if _, err := cdp.Call(ctx, s, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
			return nil, err
		}
		patterns := []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument}}
		if mode == plainHeldResponses {
			patterns = append(patterns, &fetch.RequestPattern{URLPattern: "*", ResourceType: network.ResourceTypeDocument, RequestStage: fetch.RequestStageResponse})
		}
		if _, err := cdp.Call(ctx, s, fetch.Enable, fetch.EnableParams{Patterns: patterns}); err != nil {
			return nil, err
		}
	}
	if _, err := cdp.Call(ctx, s, page.Enable, page.EnableParams{}); err != nil {
		return nil, err
	}
	if _, err := cdp.Call(ctx, s, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
		return nil, err
	}
	return p, nil
}

// navigate times one navigation to u, up to its DOMContentLoaded.
func (p *plainBrowser) navigate(u string) (time.Duration, error) {
	return p.navigateUntil(u, "DOMContentLoaded")
}

// navigateUntil times one navigation to u, up to its lifecycle event named
// (DOMContentLoaded, load).
func (p *plainBrowser) navigateUntil(u, event string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(p.ctx, time.Minute)
	defer cancel()
	lc, stop := p.s.Subscribe(page.LifecycleEvent.Method)
	defer stop()
	start := time.Now()
	nav, err := cdp.Call(ctx, p.s, page.Navigate, page.NavigateParams{URL: u})
	if err != nil {
		return 0, err
	}
	for {
		select {
		case ev := <-lc:
			var e page.EventLifecycleEvent
			if jsonv2.Unmarshal(ev, &e) == nil && e.LoaderID == nav.LoaderID && e.Name == event {
				return time.Since(start), nil
			}
		case <-ctx.Done():
			return 0, fmt.Errorf("plain navigate timed out")
		}
	}
}

func (p *plainBrowser) close() {
	for _, stop := range p.stops {
		stop()
	}
	if p.conn != nil {
		p.conn.Close()
	}
	if p.proc != nil {
		p.proc.Close(2 * time.Second)
	}
	p.cancel()
	if p.dir != "" {
		os.RemoveAll(p.dir)
	}
}

// plainColdStart times plain Chrome from launch (lyrad's flags, on
// profileDir, used before) to its first navigation's load: what a cold
// start costs without lyrad.
func plainColdStart(profileDir, pageURL string) (time.Duration, error) {
	start := time.Now()
	p, err := startPlain(plainBare, profileDir)
	if err != nil {
		return 0, err
	}
	defer p.close()
	if _, err := p.navigateUntil(pageURL, "load"); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}
