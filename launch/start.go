package launch

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/datadir"
)

// noParentDeathSignal leaves the kernel's parent-death signal off, so that
// the watchdog alone ends the browser with lyrad; only a test build sets it
// (testhooks.go).
var noParentDeathSignal bool

// start starts one browser, with its watchdog, and guards it. With learn,
// it first asks the browser, before anything is guarded, for its version
// and client hints.
func start(ctx context.Context, o *Options, found chrome.Found, prof datadir.Profile, headless bool, userAgent, brand string, hints *uaMetadata, learn learnMode) (*Browser, error) {
	// Chrome's log is the only word of a DevTools message it dropped (an
	// upload body too large to hand over); the guard refuses what waited
	// on it. Before the guard exists nothing can wait on one.
	var guarded atomic.Pointer[cdpguard.Guard]
	wd := startWatchdog(o.Watchdog, o.Logger)
	proc, err := chrome.Launch(ctx, chrome.LaunchOptions{
		OnMessageDropped: func(size int64) {
			if g := guarded.Load(); g != nil {
				g.MessageDropped(size)
			}
		},
		OnStarted:           wd.watch,
		NoParentDeathSignal: noParentDeathSignal,
		Path:                found.Path,
		ProfileDir:          prof.Dir,
		Headless:            headless,
		UserAgent:           userAgent,
		Proxy:               o.Proxy,
		ExtraArgs:           o.ExtraArgs,
		Logger:              o.Logger,
		PIDFile:             prof.PIDFile,
		DownloadDir:         o.DownloadDir,
		TempDir:             o.TempDir,
	})
	if err != nil {
		wd.release()
		return nil, &Error{Step: StepStart, Msg: "the browser did not start", Err: err}
	}
	go func() {
		<-proc.Done()
		wd.release()
	}()
	b := &Browser{Proc: proc, Profile: prof, Found: found, Headful: !headless}
	var sock net.Conn
	conn, err := cdpconn.Dial(ctx, proc.WebSocketURL(), cdpconn.Options{
		Logger: o.Logger,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			sock = c
			return c, err
		},
		OnClose: func(err error) {
			if !b.lostEarly(err) {
				b.mu.Lock()
				onLost := b.att.OnLost
				b.mu.Unlock()
				if onLost != nil {
					onLost(err)
				}
			}
		},
	})
	if err != nil {
		proc.Kill()
		return nil, &Error{Step: StepConnect, Msg: "cannot connect to the browser", Err: err}
	}
	wd.hold(sock)
	b.Conn = conn
	if headless {
		// Learning needs the version at once; otherwise Start compares it
		// with the one the UA was learned from, and reads it then.
		b.version, _ = conn.Browser().Send(browser.GetVersion.Method, nil)
	}
	var att Attachment
	if o.Attach != nil {
		att = o.Attach(ctx, b)
	}
	b.mu.Lock()
	b.att = att
	b.mu.Unlock()
	fail := func(step Step, msg string, err error) (*Browser, error) {
		b.closing.Store(true)
		proc.Kill()
		conn.Abort()
		if att.Abort != nil {
			att.Abort()
		}
		return nil, &Error{Step: step, Msg: msg, Err: err}
	}
	if learn != learnNone {
		v, err := b.versionResult(ctx)
		if err != nil {
			return fail(StepConnect, "browser did not answer", err)
		}
		switch learn {
		case learnPredicted:
			major, _, _ := strings.Cut(strings.TrimPrefix(v.Product, "Chrome/"), ".")
			if md := predictLinuxHints(brand, v.Product); md != nil && strings.Contains(userAgent, " Chrome/"+major+".0.0.0 ") {
				hints = md
				b.predicted = &datadir.UA{Product: v.Product, UserAgent: userAgent, ClientHints: md}
			}
		case learnNoSwitch:
			md, err := learnUAMetadata(ctx, conn)
			if err != nil {
				o.Logger.Warn("cannot learn the browser's user agent client hints", zap.Error(err))
			}
			if md != nil && len(md.FullVersionList) == 0 {
				md = nil
			}
			b.learned = &datadir.UA{Product: v.Product, UserAgent: chrome.HeadfulUserAgent(v.UserAgent), ClientHints: md}
			b.reported = v.UserAgent
		}
	}
	gopts := att.Guard
	if b.ua = newUAOverrides(userAgent, hints); b.ua != nil {
		prepare := gopts.Prepare
		gopts.Prepare = func(q *cdpguard.Sender, t *target.Info) {
			b.ua.prepare(q, t)
			if prepare != nil {
				prepare(q, t)
			}
		}
	}
	onFailure := gopts.OnFailure
	gopts.OnFailure = func(err error) {
		if !b.lostEarly(err) && onFailure != nil {
			onFailure(err)
		}
	}
	if gopts.Logger == nil {
		gopts.Logger = o.Logger
	}
	g, err := cdpguard.Start(ctx, conn, gopts)
	if err != nil {
		return fail(StepGuard, "cannot guard the browser", err)
	}
	b.mu.Lock()
	b.guard = g
	b.mu.Unlock()
	guarded.Store(g)
	if att.Ready != nil {
		if err := att.Ready(g); err != nil {
			b.Shutdown(2 * time.Second)
			return nil, &Error{Step: StepGuard, Err: err}
		}
	}
	// The first tab exists before we attach; wait until the guard holds it.
	deadline := time.Now().Add(5 * time.Second)
	for len(g.Pages()) == 0 && time.Now().Before(deadline) && b.lostWhileStarting() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	if lost := b.lostWhileStarting(); lost != nil {
		b.Shutdown(2 * time.Second)
		return nil, lostError(lost)
	}
	if pages := g.Pages(); len(pages) > 0 {
		b.FirstTab = pages[0].ID
		// The startup tab is not focused until something brings it to
		// the front (a person's click, or Chrome opening a URL it was
		// given): without this document.hasFocus() is false in it, in
		// no person's Chrome. A real focus, not an emulated one
		// (Emulation.setFocusEmulationEnabled); Target.activateTarget
		// selects the tab without focusing it.
		fctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		if _, err := cdp.Call(fctx, conn.Session(pages[0].SessionID), cdppage.BringToFront, cdp.Empty{}); err != nil {
			o.Logger.Warn("cannot bring the first tab to the front", zap.Error(err))
		}
		cancel()
	}
	return b, nil
}
