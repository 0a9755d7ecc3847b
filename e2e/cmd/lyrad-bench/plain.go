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
	dir, err := os.MkdirTemp("", "lyrad-bench-plain")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := openPlain(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	defer b.close()
	s := b.page
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
	if err := enablePage(ctx, s); err != nil {
		return nil, nil, err
	}
	for i := 0; i < 2*n; i++ {
		u := pageURL + "plain" + strconv.Itoa(i)
		if i >= n {
			u = pageURL + "hop/5/plain" + strconv.Itoa(i)
		}
		start := time.Now()
		if err := navigateUntil(ctx, s, u, "DOMContentLoaded"); err != nil {
			return nil, nil, err
		}
		if i < n {
			pages = append(pages, time.Since(start))
		} else {
			chains = append(chains, time.Since(start))
		}
	}
	return pages, chains, nil
}

// plainColdStart is cold start's floor: Chrome launched with lyrad's flags
// (chrome.Launch, lyrad's own launcher: --remote-debugging-port=0 and
// DevToolsActivePort, --headless, --no-sandbox as root, ...) on profileDir,
// connected over CDP by this program, its tab attached and navigated to
// pageURL until load, then closed. No guard, no MCP.
func plainColdStart(profileDir, pageURL string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	b, err := openPlain(ctx, profileDir)
	if err != nil {
		return 0, err
	}
	defer b.close()
	if err := enablePage(ctx, b.page); err != nil {
		return 0, err
	}
	if err := navigateUntil(ctx, b.page, pageURL, "load"); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

// plainBrowser is a browser launched as lyrad launches one, connected over
// CDP, with a session on its tab.
type plainBrowser struct {
	proc *chrome.Process
	conn *cdpconn.Conn
	page *cdpconn.Session
}

func (b *plainBrowser) close() {
	b.conn.Close()
	b.proc.Close(2 * time.Second)
}

func openPlain(ctx context.Context, profileDir string) (*plainBrowser, error) {
	found, err := chrome.Find("", "")
	if err != nil {
		return nil, err
	}
	proc, err := chrome.Launch(ctx, chrome.LaunchOptions{Path: found.Path, ProfileDir: profileDir, Headless: true})
	if err != nil {
		return nil, err
	}
	b := &plainBrowser{proc: proc}
	if b.conn, err = cdpconn.Dial(ctx, proc.WebSocketURL(), cdpconn.Options{}); err != nil {
		proc.Close(2 * time.Second)
		return nil, err
	}
	targets, err := cdp.Call(ctx, b.conn.Browser(), target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		b.close()
		return nil, err
	}
	var id target.ID
	for _, t := range targets.TargetInfos {
		if t.Type == "page" {
			id = t.TargetID
		}
	}
	flatten := true
	att, err := cdp.Call(ctx, b.conn.Browser(), target.AttachToTarget, target.AttachToTargetParams{TargetID: id, Flatten: &flatten})
	if err != nil {
		b.close()
		return nil, err
	}
	b.page = b.conn.Session(att.SessionID)
	return b, nil
}

// enablePage turns on what any driver needs to see a navigation end:
// Page events and lifecycle events.
func enablePage(ctx context.Context, s *cdpconn.Session) error {
	if _, err := cdp.Call(ctx, s, page.Enable, page.EnableParams{}); err != nil {
		return err
	}
	_, err := cdp.Call(ctx, s, page.SetLifecycleEventsEnabled, page.SetLifecycleEventsEnabledParams{Enabled: true})
	return err
}

// navigateUntil navigates s to u and waits for the lifecycle event named
// (DOMContentLoaded, load) of that navigation.
func navigateUntil(ctx context.Context, s *cdpconn.Session, u, event string) error {
	lc, stop := s.Subscribe(page.LifecycleEvent.Method)
	defer stop()
	nav, err := cdp.Call(ctx, s, page.Navigate, page.NavigateParams{URL: u})
	if err != nil {
		return err
	}
	for {
		select {
		case ev := <-lc:
			var e page.EventLifecycleEvent
			if jsonv2.Unmarshal(ev, &e) == nil && e.LoaderID == nav.LoaderID && e.Name == event {
				return nil
			}
		case <-ctx.Done():
			return fmt.Errorf("plain navigate timed out")
		}
	}
}
