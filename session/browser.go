package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/download"
	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/policy"
)

// Browser is one running, guarded Chrome: the process, the CDP connection
// and the guard on it.
type Browser struct {
	proc    *chrome.Process
	conn    *cdpconn.Conn
	guard   *cdpguard.Guard
	profile datadir.Profile
	release func()
	found   chrome.Found
	headful bool
	starts  int // browser processes the launch started (2 when it relaunched)
	// hints: where a headless browser's client hints came from, for the
	// audit: "remembered" (browser-ua.json), "predicted" (from its
	// version, checked later), "asked" (a start without the switch), ""
	// when headful.
	hints string
	// predicted: the UA and hints a learnPredicted start gave every
	// target, for checkHints.
	predicted *uaFile
	ua        *uaOverrides     // what each target is given (nil: nothing)
	version   *cdpconn.Pending // Browser.getVersion, sent at start when launch needs it
	// learned: what this browser reported of itself before it was
	// guarded, on a learnNoSwitch launch (nil otherwise, or when it failed).
	learned *uaFile

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
	// discarded: popups closed because their first load was refused; the
	// session must not follow onto one whose attach is reported late.
	discarded map[target.ID]bool
	// Until the launch hands the browser over (handOver), a lost
	// connection or an unguarded target fails the launch instead of
	// reaching the manager: the browser is killed at once and earlyLoss
	// says why.
	handedOver bool
	earlyLoss  error
}

// uaFile remembers the headful user agent of a browser binary, so that a
// headless launch can send it from its first request, and the client hints
// the binary reports itself, which that switch would otherwise empty.
// Stamp tells a binary replaced in place (an upgrade) before it starts.
type uaFile struct {
	Executable  string      `json:"executable"`
	Stamp       string      `json:"executable_stamp,omitempty"`
	Product     string      `json:"product"`
	UserAgent   string      `json:"user_agent"`
	ClientHints *uaMetadata `json:"client_hints,omitempty"`
	// AskWithoutSwitch: the hints a request sent under the switch could
	// not be completed; the next launch asks the browser without it.
	AskWithoutSwitch bool `json:"ask_without_switch,omitempty"`
	// reported: the UA the browser itself reported, on a launch that
	// learned it.
	reported string
}

func (m *Manager) launch(ctx context.Context) (*Browser, error) {
	found, err := chrome.Find(m.cfg.Channel, m.cfg.Executable)
	if err != nil {
		return nil, &Error{Status: StatusBrowserUnavailable, Message: err.Error(),
			Hint: "Relay this to the user: install Google Chrome, Microsoft Edge or Chromium (Debian: apt-get install chromium), or point LYRA_BROWSER_CHANNEL / --chrome at one."}
	}
	headless := !chrome.HasDisplay()
	if m.cfg.Headless != nil {
		headless = *m.cfg.Headless
	}
	data := datadir.New(m.cfg.DataDir)
	prof, release, err := data.AcquireProfile(chrome.EndOrphan)
	if err != nil {
		return nil, newError(StatusError, "cannot take the browser profile: "+err.Error(), "Check that the data directory is writable.")
	}
	uaPath := data.BrowserUA()
	stamp := executableStamp(found.Path)
	var ua uaFile
	if headless {
		if b, err := os.ReadFile(uaPath); err == nil {
			_ = json.Unmarshal(b, &ua)
			if ua.Executable != found.Path || ua.Stamp != stamp {
				ua = uaFile{}
			}
		}
	}
	triedSwitch, learnFailed := false, false
	for attempt := 0; ; attempt++ {
		// Headless Chrome says HeadlessChrome in its UA, and Cloudflare
		// refuses on that token alone, so lyrad sends the UA this binary
		// sends with a window (--user-agent). That switch also empties the
		// high-entropy client hints; each target gets them back from what
		// the binary reports. Until both are known for this binary:
		//   - Chromium and Google Chrome on Linux tell their version
		//     without starting (chrome.LinuxUserAgent): the browser starts
		//     with the switch, and every target gets the hints this
		//     version reports, worked out as Chromium does
		//     (predictLinuxHints). One start, nothing waited for. Once
		//     the first page had its chance to load, a page of lyrad's
		//     that the guard leaves alone asks the browser what it sends
		//     itself (checkHints); only then are they remembered, and
		//     if the prediction was wrong every target is corrected.
		//   - Otherwise, or if that failed on an earlier launch
		//     (AskWithoutSwitch), the browser starts without the switch,
		//     is asked, and starts again with it. Targets alone
		//     cannot be given the UA instead: service and shared workers
		//     keep the browser's own (measured: HeadlessChrome in their
		//     navigator.userAgent and script request).
		learn := learnNone
		var userAgent, brand string
		var hints *uaMetadata
		if headless {
			switch {
			case ua.UserAgent != "" && (ua.ClientHints != nil || learnFailed):
				userAgent, hints = ua.UserAgent, ua.ClientHints
			case !triedSwitch && !ua.AskWithoutSwitch:
				triedSwitch = true
				if userAgent, brand = chrome.LinuxUserAgent(ctx, found.Path); userAgent != "" {
					learn = learnPredicted
					break
				}
				learn = learnNoSwitch
			default:
				learn = learnNoSwitch
			}
		}
		b, err := m.start(ctx, found, prof, headless, userAgent, brand, hints, learn)
		if err != nil {
			release()
			return nil, err
		}
		b.starts = attempt + 1
		switch {
		case learn == learnPredicted:
			b.hints = "predicted"
		case learn == learnNoSwitch:
			b.hints = "asked"
		case headless:
			b.hints = "remembered"
		}
		if !headless || attempt > 2 {
			return m.handOver(b, release)
		}
		switch learn {
		case learnPredicted:
			if b.predicted == nil {
				// Its version does not read, or is not the one --version
				// said: ask it without the switch.
				m.log.Info("relaunching headless browser to learn its user agent")
				b.shutdown(2 * time.Second)
				continue
			}
			hb, err := m.handOver(b, release)
			if err == nil {
				go m.checkHints(hb, uaPath, stamp)
			}
			return hb, err
		case learnNoSwitch:
			if got := b.learned; got != nil {
				want := *got
				want.Executable, want.Stamp = found.Path, stamp
				if data, err := json.MarshalIndent(want, "", "  "); err == nil {
					_ = writeFileAtomic(uaPath, data, 0o600)
				}
				if want.UserAgent == got.reported {
					// Already what a page should see.
					return m.handOver(b, release)
				}
				learnFailed = want.ClientHints == nil
				ua = want
				m.log.Info("relaunching headless browser once with its headful user agent", zap.String("product", want.Product))
			} else {
				m.log.Info("relaunching headless browser to learn its user agent")
			}
			b.shutdown(2 * time.Second)
			continue
		}
		v, err := b.versionResult(ctx)
		if err != nil {
			b.shutdown(2 * time.Second)
			release()
			return nil, newError(StatusBrowserUnavailable, "browser did not answer: "+err.Error(), "Try open_browser again.")
		}
		if ua.Product == v.Product {
			return m.handOver(b, release)
		}
		// Another version of the binary, replaced in a way its stamp did
		// not show: its UA and hints are stale, and with the switch on it
		// cannot tell the new ones.
		m.log.Info("relaunching headless browser to learn its user agent", zap.String("product", v.Product))
		b.shutdown(2 * time.Second)
		ua = uaFile{}
	}
}

// versionResult reads the Browser.getVersion start sent.
func (b *Browser) versionResult(ctx context.Context) (browser.GetVersionResult, error) {
	var v browser.GetVersionResult
	if b.version == nil {
		return v, errors.New("the browser's version was not asked")
	}
	err := b.version.Wait(ctx, &v)
	return v, err
}

// learnMode is what a launch learns of the browser's user agent.
type learnMode int

const (
	learnNone      learnMode = iota
	learnPredicted           // started with the switch; predict the hints it empties, check them later
	learnNoSwitch            // started without it; ask for the UA and hints
)

// executableStamp tells one build of the browser binary from the next one
// installed at the same path: the size and modification time of the file
// the path resolves to ("" when it cannot be read).
func executableStamp(path string) string {
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d-%d", fi.Size(), fi.ModTime().UnixNano())
}

// handOver ends a launch that went well: from here on the manager handles a
// lost connection or guard, and the browser owns the profile's release.
// A loss before this point fails the launch.
func (m *Manager) handOver(b *Browser, release func()) (*Browser, error) {
	b.mu.Lock()
	lost := b.earlyLoss
	if lost == nil {
		b.release = release
		b.handedOver = true
	}
	b.mu.Unlock()
	if lost != nil {
		b.shutdown(2 * time.Second)
		release()
		return nil, earlyLossError(lost)
	}
	return b, nil
}

func earlyLossError(err error) error {
	return newError(StatusBrowserUnavailable, "the browser was lost while it was starting, so it was killed: "+err.Error(), "Try open_browser again.")
}

// lostEarly records a loss before handOver and kills the browser, which may
// be running unguarded; it reports false once the manager handles losses.
// A browser the launch is ending itself has lost nothing.
func (b *Browser) lostEarly(err error) bool {
	b.mu.Lock()
	if b.handedOver {
		b.mu.Unlock()
		return false
	}
	if b.closing.Load() {
		b.mu.Unlock()
		return true
	}
	if b.earlyLoss == nil {
		if err == nil {
			err = errors.New("connection closed")
		}
		b.earlyLoss = err
	}
	b.mu.Unlock()
	b.proc.Kill()
	return true
}

func (b *Browser) lostWhileStarting() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.earlyLoss
}

// guardSet is the guard once start has set it, for the hooks the guard
// calls while it is being started (nil then).
func (b *Browser) guardSet() *cdpguard.Guard {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.guard
}

// start launches the browser and guards it, with the manager judging and
// hearing of what the guard sees. With learn, it first asks the browser,
// before anything is guarded, for its version and client hints.
func (m *Manager) start(ctx context.Context, found chrome.Found, prof datadir.Profile, headless bool, userAgent, brand string, hints *uaMetadata, learn learnMode) (*Browser, error) {
	// Chrome's log is the only word of a DevTools message it dropped (an
	// upload body too large to hand over); the guard refuses what waited
	// on it. Before the guard exists nothing can wait on one.
	var guarded atomic.Pointer[cdpguard.Guard]
	// The browser's own download folders point into the store's private
	// incoming folder, so what it stages before the guard's behaviour is
	// set never lands in the user's ~/Downloads.
	store, err := m.downloadStore()
	if err != nil {
		return nil, err
	}
	m.clearUploads() // an earlier browser's copies
	data := datadir.New(m.cfg.DataDir)
	if err := data.ClearDeadBrowserTemps(); err != nil {
		m.log.Warn("could not remove a dead lyrad's temporary directory", zap.Error(err))
	}
	proc, err := chrome.Launch(ctx, chrome.LaunchOptions{
		OnMessageDropped: func(size int64) {
			if g := guarded.Load(); g != nil {
				g.MessageDropped(size)
			}
		},
		Path:        found.Path,
		ProfileDir:  prof.Dir,
		Headless:    headless,
		UserAgent:   userAgent,
		Proxy:       m.cfg.Proxy,
		ExtraArgs:   m.cfg.ExtraArgs,
		Logger:      m.log,
		PIDFile:     prof.PIDFile,
		DownloadDir: store.Incoming(),
		TempDir:     data.BrowserTemp(),
	})
	if err != nil {
		return nil, newError(StatusBrowserUnavailable, "the browser did not start: "+err.Error(),
			"Relay this to the user; check that the browser runs (a headful launch needs a display; set LYRA_BROWSER_HEADLESS=true otherwise).")
	}
	b := &Browser{proc: proc, profile: prof, found: found, headful: !headless}
	b.worlds.Live = b.frameLive
	if pid := proc.KilledOrphan(); pid != 0 {
		// It ran unguarded since its lyrad died; nothing else records it.
		m.audit(audit.Row{Kind: "browser", Status: "orphan_killed", Extra: map[string]any{
			"pid": pid, "reason": "a browser left running on this profile by an earlier lyrad"}})
	}
	conn, err := cdpconn.Dial(ctx, proc.WebSocketURL(), cdpconn.Options{
		Logger: m.log,
		OnClose: func(err error) {
			if !b.lostEarly(err) {
				m.own.connLost(b, err)
			}
		},
	})
	if err != nil {
		proc.Kill()
		return nil, newError(StatusBrowserUnavailable, "cannot connect to the browser: "+err.Error(), "Try open_browser again.")
	}
	b.conn = conn
	if headless {
		// Learning needs the version at once; otherwise launch compares it
		// with the one the UA was learned from, and reads it then.
		b.version, _ = conn.Browser().Send(browser.GetVersion.Method, nil)
	}
	// Downloads are denied while the guard starts, rather than after.
	dlDone := make(chan error, 1)
	go func() { dlDone <- m.startDownloads(ctx, b) }()
	if learn != learnNone {
		v, err := b.versionResult(ctx)
		if err != nil {
			conn.Abort()
			proc.Kill()
			<-dlDone
			return nil, newError(StatusBrowserUnavailable, "browser did not answer: "+err.Error(), "Try open_browser again.")
		}
		switch learn {
		case learnPredicted:
			major, _, _ := strings.Cut(strings.TrimPrefix(v.Product, "Chrome/"), ".")
			if md := predictLinuxHints(brand, v.Product); md != nil && strings.Contains(userAgent, " Chrome/"+major+".0.0.0 ") {
				hints = md
				b.predicted = &uaFile{Product: v.Product, UserAgent: userAgent, ClientHints: md}
			}
		case learnNoSwitch:
			md, err := learnUAMetadata(ctx, conn)
			if err != nil {
				m.log.Warn("cannot learn the browser's user agent client hints", zap.Error(err))
			}
			if md != nil && len(md.FullVersionList) == 0 {
				md = nil
			}
			b.learned = &uaFile{Product: v.Product, UserAgent: chrome.HeadfulUserAgent(v.UserAgent), ClientHints: md, reported: v.UserAgent}
		}
	}
	prepare := preparePage
	if b.ua = newUAOverrides(userAgent, hints); b.ua != nil {
		prepare = func(q *cdpguard.Sender, t *target.Info) {
			b.ua.prepare(q, t)
			preparePage(q, t)
		}
	}
	// Heard from the first target on: the browser's first tab is guarded
	// (and its listener bound) by Start.
	stopHands := b.hands.watch(context.WithoutCancel(ctx), conn, m.log)
	// Downloads no call declared are refused at their response. In observe
	// mode nothing is refused (refuseResponse answers no to every one), so
	// no response is held: that is a round trip less for every document.
	var refuseResponse func(cdpguard.Response) bool
	if m.cfg.Enforcement != policy.Observe {
		refuseResponse = b.refuseResponse
	}
	g, err := cdpguard.Start(ctx, conn, cdpguard.Options{
		Decide: func(ctx context.Context, r cdpguard.Request) cdpguard.Verdict {
			if r.NoAccept {
				b.downloadRequested(r)
			}
			return m.decide(ctx, r)
		},
		OnDecision: func(r cdpguard.Request, v cdpguard.Verdict, took time.Duration) { m.sends.decided(b, r, v, took) },
		OnRefuse:   func(r cdpguard.Request, v cdpguard.Verdict) { keepRefusal(b, r, v) },
		OnFailure: func(err error) {
			if !b.lostEarly(err) {
				m.own.loseGuard(b, "target_unguarded", err)
			}
		},
		OnTarget:       func(ev cdpguard.TargetEvent) { m.onTarget(b, ev) },
		OnSend:         func(s cdpguard.Send) { m.sends.record(s) },
		HoldSends:      m.cfg.GuardSends == SendsJudge,
		RefuseResponse: refuseResponse,
		Slow:           m.sends.slow,
		Prepare:        prepare,
		Logger:         m.log,
	})
	if err != nil {
		stopHands()
		b.closing.Store(true)
		conn.Abort()
		proc.Kill()
		<-dlDone
		return nil, newError(StatusBrowserUnavailable, "cannot guard the browser: "+err.Error(), "Try open_browser again.")
	}
	b.mu.Lock()
	b.guard = g
	guarded.Store(g)
	b.mu.Unlock()
	b.startDialogs(m.log)
	if err := <-dlDone; err != nil {
		b.shutdown(2 * time.Second)
		return nil, newError(StatusBrowserUnavailable, "cannot put the browser's downloads behind the guard: "+err.Error(), "Try open_browser again.")
	}
	// The first tab exists before we attach; wait until the guard holds it.
	deadline := time.Now().Add(5 * time.Second)
	for len(g.Pages()) == 0 && time.Now().Before(deadline) && b.lostWhileStarting() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	if lost := b.lostWhileStarting(); lost != nil {
		b.shutdown(2 * time.Second)
		return nil, earlyLossError(lost)
	}
	if pages := g.Pages(); len(pages) > 0 {
		b.setActive(pages[0].ID)
		// The startup tab is not focused until something brings it to
		// the front (a person's click, or Chrome opening a URL it was
		// given): without this document.hasFocus() is false in it, in
		// no person's Chrome. A real focus, not an emulated one
		// (Emulation.setFocusEmulationEnabled); Target.activateTarget
		// selects the tab without focusing it.
		fctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		if err := page.BringToFront(fctx, conn, pages[0].SessionID); err != nil {
			m.log.Warn("cannot bring the first tab to the front", zap.Error(err))
		}
		cancel()
	}
	return b, nil
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

// shutdown ends the browser: a polite close, then the process group, and
// only then the connection. Chrome lets every request the guard holds go
// the moment the connection ends, so the connection outlives the browser.
func (b *Browser) shutdown(grace time.Duration) {
	b.closing.Store(true)
	if b.guard != nil {
		b.guard.Stop()
	}
	if b.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		_, _ = cdp.Call(ctx, b.conn.Browser(), browser.Close, cdp.Empty{})
		cancel()
	}
	_ = b.proc.Close(grace)
	if b.conn != nil {
		b.conn.Abort()
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

func (b *Browser) activeID() target.ID {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.active
}

func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
