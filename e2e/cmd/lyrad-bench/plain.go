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
	found, err := chrome.Find("", "")
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "lyrad-bench-plain")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	proc, err := chrome.Launch(ctx, chrome.LaunchOptions{Path: found.Path, ProfileDir: dir, Headless: true})
	if err != nil {
		return nil, nil, err
	}
	defer proc.Close(2 * time.Second)
	conn, err := cdpconn.Dial(ctx, proc.WebSocketURL(), cdpconn.Options{})
	if err != nil {
		return nil, nil, err
	}
	defer conn.Close()
	targets, err := cdp.Call(ctx, conn.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return nil, nil, err
	}
	var id target.ID
	for _, t := range targets.TargetInfos {
		if t.Type == "page" {
			id = t.TargetID
		}
	}
	flatten := true
	att, err := cdp.Call(ctx, conn.Browser(), target.AttachToTarget, target.AttachToTargetParams{TargetID: id, Flatten: &flatten})
	if err != nil {
		return nil, nil, err
	}
	s := conn.Session(att.SessionID)
	if intercept {
		paused, stop := s.Subscribe(fetch.RequestPaused.Method)
		defer stop()
		go func() {
			for ev := range paused {
				var p fetch.EventRequestPaused
				if jsonv2.Unmarshal(ev, &p) == nil {
					go cdp.Call(ctx, s, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: p.RequestID})
				}
			}
		}()
		if _, err := cdp.Call(ctx, s, network.Enable, network.EnableParams{}); err != nil {
			return nil, nil, err
		}
		if _, err := cdp.Call(ctx, s, network.SetBypassServiceWorker, network.SetBypassServiceWorkerParams{Bypass: true}); err != nil {
			return nil, nil, err
		}
		if _, err := cdp.Call(ctx, s, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*", ResourceType: network.ResourceTypeDocument}}}); err != nil {
			return nil, nil, err
		}
	}
	if _, err := cdp.Call(ctx, s, page.Enable, page.EnableParams{}); err != nil {
		return nil, nil, err
	}
	if _, err := cdp.Call(ctx, s, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true}); err != nil {
		return nil, nil, err
	}
	for i := 0; i < 2*n; i++ {
		u := pageURL + "plain" + strconv.Itoa(i)
		if i >= n {
			u = pageURL + "hop/5/plain" + strconv.Itoa(i)
		}
		lc, stop := s.Subscribe(page.LifecycleEvent.Method)
		start := time.Now()
		nav, err := cdp.Call(ctx, s, page.Navigate, page.NavigateParams{URL: u})
		if err != nil {
			stop()
			return nil, nil, err
		}
		for done := false; !done; {
			select {
			case ev := <-lc:
				var e page.EventLifecycleEvent
				if jsonv2.Unmarshal(ev, &e) == nil && e.LoaderID == nav.LoaderID && e.Name == "DOMContentLoaded" {
					done = true
				}
			case <-ctx.Done():
				stop()
				return nil, nil, fmt.Errorf("plain navigate timed out")
			}
		}
		if i < n {
			pages = append(pages, time.Since(start))
		} else {
			chains = append(chains, time.Since(start))
		}
		stop()
	}
	return pages, chains, nil
}
