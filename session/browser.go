package session

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/download"
	"github.com/lyrad/lyrad/launch"
	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/policy"
)

// Browser is one running, guarded Chrome: what launch started (the
// process, the CDP connection and the guard on it), and what the session
// keeps of it.
type Browser struct {
	launched *launch.Browser
	proc     *chrome.Process
	conn     *cdpconn.Conn
	guard    *cdpguard.Guard
	profile  datadir.Profile
	release  func()
	found    chrome.Found
	headful  bool
	starts   int    // browser processes the launch started (2 when it relaunched)
	hints    string // where a headless browser's client hints came from (launch.Browser.Hints), for the audit

	closing atomic.Bool // set before we end it ourselves

	worlds  page.Worlds   // lyrad's isolated world per frame
	refs    page.RefStore // aria-ref=eN handles of the tree reads of the active document
	reads   readCache     // the latest read of each mode, for its later pages (readcache.go)
	refused refusals      // recent guard refusals, for the call that set them off
	dialogs dialogs       // native dialogs answered, and the answer handle_dialog armed
	hands   hands         // the real presses at the window (hands.go)
	// downloads: every download of the browser, declared or cancelled
	// (downloads.go); set before the browser is handed over.
	downloads *download.Tracker

	mu     sync.Mutex
	active target.ID
	// answered: when the last acting call ended; the next one tells of
	// the downloads refused since that no call was there to answer for.
	answered time.Time
	// discarded: popups closed because their first load was refused; the
	// session must not follow onto one whose attach is reported late.
	discarded map[target.ID]bool
}

// launcher starts the browser: it clears what an earlier one left, has
// package launch find, start and guard it, and wires the guard's judgement
// and hooks to the parts concerned. Its own state is the download
// directory, opened on first use (downloads.go), whose lock is taken
// alone. It runs under Manager.life.
type launcher struct {
	dl dlStore // the download directory

	// Set by New, read-only after.
	cfg      *Config
	log      *zap.Logger
	own      *ownership
	sends    *sendGuard
	budget   *auditBudget
	takeover *takeovers
	audit    func(audit.Row)
	onTarget func(*Browser, cdpguard.TargetEvent)
}

// start starts the browser through package launch, with the session
// judging and hearing of what the guard sees.
func (l *launcher) start(ctx context.Context) (*Browser, error) {
	// The browser's own download folders point into the store's private
	// incoming folder, so what it stages before the guard's behaviour is
	// set never lands in the user's ~/Downloads.
	store, err := l.store()
	if err != nil {
		return nil, err
	}
	uploadsOf(*l.cfg).clear() // an earlier browser's copies
	if err := l.cfg.Data.ClearDeadBrowserTemps(); err != nil {
		l.log.Warn("could not remove a dead lyrad's temporary directory", zap.Error(err))
	}
	var b *Browser // the last browser launch attached to: the one it hands over
	lb, err := launch.Start(ctx, launch.Options{
		Data: l.cfg.Data, Executable: l.cfg.Executable, Channel: l.cfg.Channel, Headless: l.cfg.Headless,
		Proxy: l.cfg.Proxy, ExtraArgs: l.cfg.ExtraArgs, DownloadDir: store.Incoming(), TempDir: l.cfg.Data.BrowserTemp(),
		Watchdog: l.cfg.Watchdog, Logger: l.log, Quiet: l.own.quietFor,
		Report: func(status string, extra map[string]any) {
			l.audit(audit.Row{Kind: "browser", Status: status, Extra: extra})
		},
		Attach: func(ctx context.Context, lb *launch.Browser) launch.Attachment {
			var att launch.Attachment
			b, att = l.attach(ctx, lb)
			return att
		},
	})
	if err != nil {
		return nil, launchError(err)
	}
	if b == nil || b.launched != lb {
		lb.Shutdown(2 * time.Second)
		lb.Release()
		return nil, newError(StatusBrowserUnavailable, "the browser launch handed over a browser it never attached", "Try open_browser again.")
	}
	b.starts, b.hints = lb.Starts, lb.Hints
	if lb.FirstTab != "" {
		b.setActive(lb.FirstTab)
	}
	return b, nil
}

// attach is what the session puts on each browser launch starts, before
// its guard runs: the guard's judgement and hooks, the downloads behind
// the guard, the listener for real input, the dialogs.
func (l *launcher) attach(ctx context.Context, lb *launch.Browser) (*Browser, launch.Attachment) {
	// release lets the profile go once launch has handed the browser
	// over (a loss from then on may call it before Start returns).
	b := &Browser{launched: lb, proc: lb.Proc, conn: lb.Conn, profile: lb.Profile, found: lb.Found, headful: lb.Headful, release: lb.Release}
	b.worlds.Live = b.frameLive
	if pid := lb.Proc.KilledOrphan(); pid != 0 {
		// It ran unguarded since its lyrad died; nothing else records it.
		l.audit(audit.Row{Kind: "browser", Status: "orphan_killed", Extra: audit.Fields{
			"pid": pid, "reason": "a browser left running on this profile by an earlier lyrad"}})
	}
	// Downloads are denied while the guard starts, rather than after.
	dlDone := make(chan error, 1)
	go func() { dlDone <- l.startDownloads(ctx, b) }()
	// Heard from the first target on: the browser's first tab is guarded
	// (and its listener bound) by cdpguard.Start.
	stopHands := b.hands.watch(context.WithoutCancel(ctx), lb.Conn, l.log)
	// Downloads no call declared are refused at their response. In observe
	// mode nothing is refused (refuseResponse answers no to every one), so
	// no response is held: that is a round trip less for every document.
	var refuseResponse func(cdpguard.Response) bool
	if l.cfg.Enforcement != policy.Observe {
		refuseResponse = b.refuseResponse
	}
	return b, launch.Attachment{
		Guard: cdpguard.Options{
			Decide: func(ctx context.Context, r cdpguard.Request) cdpguard.Verdict {
				if r.NoAccept {
					b.downloadRequested(r)
				}
				return l.sends.decide(ctx, r)
			},
			OnDecision:     func(r cdpguard.Request, v cdpguard.Verdict, took time.Duration) { l.sends.decided(b, r, v, took) },
			OnRefuse:       func(r cdpguard.Request, v cdpguard.Verdict) { keepRefusal(b, r, v) },
			OnFailure:      func(err error) { l.own.loseGuard(b, "target_unguarded", err) },
			OnTarget:       func(ev cdpguard.TargetEvent) { l.onTarget(b, ev) },
			OnSend:         func(s cdpguard.Send) { l.sends.record(s) },
			HoldSends:      l.cfg.GuardSends == SendsJudge,
			RefuseResponse: refuseResponse,
			Slow:           l.sends.slow,
			Prepare:        preparePage,
			Logger:         l.log,
		},
		OnLost: func(err error) { l.own.connLost(b, err) },
		Ready: func(g *cdpguard.Guard) error {
			b.mu.Lock()
			b.guard = g
			b.mu.Unlock()
			b.startDialogs(l.log)
			if err := <-dlDone; err != nil {
				return fmt.Errorf("cannot put the browser's downloads behind the guard: %w", err)
			}
			return nil
		},
		Abort: func() {
			stopHands()
			<-dlDone
		},
	}
}

// launchError is the session's error for a failed launch: which status,
// and what to do next, depend on the step that failed.
func launchError(err error) error {
	var le *launch.Error
	if !errors.As(err, &le) {
		return err
	}
	switch le.Step {
	case launch.StepFind:
		return &Error{Status: StatusBrowserUnavailable, Message: le.Error(),
			Hint: "Relay this to the user: install Google Chrome, Microsoft Edge or Chromium (Debian: apt-get install chromium), or point LYRA_BROWSER_CHANNEL / --chrome at one."}
	case launch.StepProfile:
		return newError(StatusError, le.Error(), "Check that the data directory is writable.")
	case launch.StepStart:
		return newError(StatusBrowserUnavailable, le.Error(),
			"Relay this to the user; check that the browser runs (a headful launch needs a display; set LYRA_BROWSER_HEADLESS=true otherwise).")
	}
	return newError(StatusBrowserUnavailable, le.Error(), "Try open_browser again.")
}

// guardSet is the guard once the launch has set it, for the hooks the
// guard calls while it is being started (nil then).
func (b *Browser) guardSet() *cdpguard.Guard {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.guard
}

// preparePage sends what navigate waits on to each page while Chrome still
// holds it; out-of-process iframes need none of it. Pages and
// out-of-process iframes get the listener that tells of real input
// (hands.go). Never Runtime.enable or Console.enable.
func preparePage(q *cdpguard.Sender, t *target.Info) {
	if t.Type != "page" && t.Type != "iframe" {
		return
	}
	page.WatchInput(q)
	if t.Type != "page" {
		return
	}
	page.ReportLifecycle(q)
}

// shutdown ends the browser (launch.Browser.Shutdown: the connection
// outlives the browser, since Chrome lets every request the guard holds go
// the moment it ends).
func (b *Browser) shutdown(grace time.Duration) {
	b.closing.Store(true)
	if b.launched != nil {
		b.launched.Shutdown(grace)
	}
}

// pages lists the open tabs.
func (b *Browser) pages() []cdpguard.Target {
	return b.guard.Pages()
}

// activePage returns the tab the session reads and acts on. A closed active
// tab moves to its opener, else the newest tab, else a fresh blank one.
func (b *Browser) activePage(ctx context.Context) (cdpguard.Target, error) {
	b.mu.Lock()
	active := b.active
	b.mu.Unlock()
	if t, ok := b.guard.Page(active); ok {
		return t, nil
	}
	// The opener was chosen when the active tab closed (onTarget); here
	// it is gone too, so take the newest tab.
	var next *cdpguard.Target
	if pages := b.pages(); len(pages) > 0 {
		next = &pages[len(pages)-1]
	}
	if next == nil {
		res, err := cdp.Call(ctx, b.conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
		if err != nil {
			return cdpguard.Target{}, fmt.Errorf("open a blank tab: %w", err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			if t, ok := b.guard.Page(res.TargetID); ok {
				next = &t
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		if next == nil {
			return cdpguard.Target{}, errors.New("the new tab was never guarded")
		}
	}
	b.mu.Lock()
	b.active = next.ID
	b.mu.Unlock()
	return *next, nil
}

// closeRefusedPopup closes a popup whose first navigation the guard
// refused: it would stand empty, and the session would have followed onto
// it. A popup that refused later navigations keeps its document.
func (b *Browser) closeRefusedPopup(r cdpguard.Request) {
	if r.TargetType != "page" || r.InSubframe || r.TargetID != r.TabID {
		return
	}
	g := b.guardSet()
	if g == nil {
		return
	}
	t, ok := g.Held(r.TargetID)
	if !ok || t.OpenerID == "" || (t.URL != "" && t.URL != "about:blank") {
		return
	}
	b.mu.Lock()
	if b.discarded == nil {
		b.discarded = map[target.ID]bool{}
	}
	b.discarded[t.ID] = true
	b.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = cdp.Call(ctx, b.conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: t.ID})
	}()
}

func (b *Browser) setActive(id target.ID) {
	b.mu.Lock()
	b.active = id
	b.mu.Unlock()
}

// follow makes a popup the active tab when it was opened by the active tab
// and is not being closed for a refused first load.
func (b *Browser) follow(t cdpguard.Target) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t.OpenerID != "" && t.OpenerID == b.active && !b.discarded[t.ID] {
		b.active = t.ID
	}
}

// forget drops what the browser kept of a closed tab: whether it was
// discarded, and the isolated worlds of its frames and of every other frame
// gone meanwhile.
func (b *Browser) forget(id target.ID) {
	b.mu.Lock()
	delete(b.discarded, id)
	b.mu.Unlock()
	b.worlds.Prune()
}

// frameLive says whether a frame lyrad made a world in is still there.
// Before the guard runs nothing is known to be gone.
func (b *Browser) frameLive(sid target.SessionID, f cdp.FrameID) bool {
	g := b.guardSet()
	return g == nil || g.HasFrame(sid, f)
}

// lastAnswered returns when the last acting call ended, and sets it to
// start, the asking call's: a call that runs beside it (one session may send
// several) takes the refusals from then on, so none is told twice.
func (b *Browser) lastAnswered(start time.Time) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.answered
	b.answered = start
	return t
}

// untell gives the mark back to from when the call that moved it to start
// told nothing (and no call has moved it since).
func (b *Browser) untell(from, start time.Time) {
	b.mu.Lock()
	if b.answered.Equal(start) {
		b.answered = from
	}
	b.mu.Unlock()
}

// answeredNow records that an acting call ended.
func (b *Browser) answeredNow() {
	b.mu.Lock()
	b.answered = time.Now()
	b.mu.Unlock()
}

func (b *Browser) activeID() target.ID {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.active
}
