// Package launch brings up the one browser lyrad guards: it finds the
// browser, takes the profile, starts it, dials its DevTools endpoint and
// puts the guard on it before any page runs, and gives a headless browser
// the user agent and client hints it sends with a window (uahints.go). It
// hands session a process, a connection and a guard; session supplies the
// guard's judgement and what else must be in place before the browser is
// used (Attach).
//
// It also sees to it that the browser dies with lyrad on every system
// (watchdog.go), and that a browser lost while it starts is killed rather
// than handed over.
package launch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/datadir"
)

// Options is what a launch needs.
type Options struct {
	// Data is the data directory: the profile, its lock, browser-ua.json.
	Data datadir.Dir
	// Executable is an explicit browser path; Channel picks an installed
	// browser by name. Both empty: Chrome, then Edge, then Chromium.
	Executable string
	Channel    string
	// Headless: nil follows the host (headless when there is no display).
	Headless  *bool
	Proxy     string
	ExtraArgs []string
	// DownloadDir is where the browser's own download folders point;
	// TempDir its private temporary directory (see chrome.LaunchOptions).
	DownloadDir string
	TempDir     string
	// Watchdog is a lyrad binary that runs RunWatchdog when started with
	// WatchdogVerb; "" for no watchdog (a test binary).
	Watchdog string
	Logger   *zap.Logger

	// Attach is called for every browser the launch starts (a relaunch
	// starts another), once it is connected and before the guard runs.
	Attach func(ctx context.Context, b *Browser) Attachment
	// Quiet reports whether the driver has made no call for d: the client
	// hints check waits for such a moment (nil: always quiet).
	Quiet func(d time.Duration) bool
	// Report tells what the launch did later on its own that belongs in
	// the audit (ua_checked); nil: nothing.
	Report func(status string, extra map[string]any)
}

// Attachment is what the caller puts on one browser.
type Attachment struct {
	// Guard is the guard's options. The launch adds the client hints to
	// Prepare, and OnFailure is called only once the browser is handed
	// over: before, a failure kills the browser and fails the launch.
	Guard cdpguard.Options
	// OnLost is told when the connection ends after the hand-over.
	OnLost func(err error)
	// Ready is called once the guard runs, before the browser is handed
	// over; an error fails the launch.
	Ready func(g *cdpguard.Guard) error
	// Abort is called when the launch fails before Ready.
	Abort func()
}

// Browser is one started browser: its process, its connection and, once
// it runs, its guard.
type Browser struct {
	Proc    *chrome.Process
	Conn    *cdpconn.Conn
	Profile datadir.Profile
	Found   chrome.Found
	Headful bool
	// Starts is how many browser processes the launch started (2 when
	// it relaunched).
	Starts int
	// Hints is where a headless browser's client hints came from:
	// "remembered" (browser-ua.json), "predicted" (from its version,
	// checked later), "asked" (a start without the switch); "" when
	// headful.
	Hints string
	// FirstTab is the tab the browser started with, guarded and brought
	// to the front ("" when none was held in time).
	FirstTab target.ID

	release func() // the profile's lock; set at the hand-over
	closing atomic.Bool
	att     Attachment

	mu         sync.Mutex
	guard      *cdpguard.Guard
	handedOver bool
	// earlyLoss: until the hand-over, a lost connection or an unguarded
	// target fails the launch instead of reaching the caller: the browser
	// is killed at once, and this says why.
	earlyLoss error

	// predicted: the UA and hints a learnPredicted start gave every
	// target, for checkHints.
	predicted *datadir.UA
	ua        *uaOverrides     // what each target is given (nil: nothing)
	version   *cdpconn.Pending // Browser.getVersion, sent at start when the launch needs it
	// learned: what this browser reported of itself before it was
	// guarded, on a learnNoSwitch start (nil otherwise, or when it
	// failed); reported is the UA it reported.
	learned  *datadir.UA
	reported string
}

// Step is where a launch failed.
type Step int

const (
	StepFind    Step = iota // no browser was found
	StepProfile             // the profile could not be taken
	StepStart               // the browser did not start
	StepConnect             // it could not be reached, or did not answer
	StepGuard               // it could not be guarded, or made ready (Attachment.Ready)
	StepLost                // it was lost while starting, and killed
)

// Error is a failed launch.
type Error struct {
	Step Step
	Msg  string // what failed, before the cause; "" to say the cause alone
	Err  error
}

func (e *Error) Error() string {
	if e.Msg == "" {
		return e.Err.Error()
	}
	return e.Msg + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// learnMode is what a start learns of the browser's user agent.
type learnMode int

const (
	learnNone      learnMode = iota
	learnPredicted           // started with the switch; predict the hints it empties, check them later
	learnNoSwitch            // started without it; ask for the UA and hints
)

// Start finds and starts the browser, guarded, and hands it over: from
// then on the caller's OnLost and OnFailure hear of a loss, and the
// browser holds the profile until Release.
func Start(ctx context.Context, o Options) (*Browser, error) {
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Quiet == nil {
		o.Quiet = func(time.Duration) bool { return true }
	}
	if o.Report == nil {
		o.Report = func(string, map[string]any) {}
	}
	found, err := chrome.Find(o.Channel, o.Executable)
	if err != nil {
		return nil, &Error{Step: StepFind, Err: err}
	}
	headless := !chrome.HasDisplay()
	if o.Headless != nil {
		headless = *o.Headless
	}
	prof, release, err := o.Data.AcquireProfile(chrome.EndOrphan)
	if err != nil {
		return nil, &Error{Step: StepProfile, Msg: "cannot take the browser profile", Err: err}
	}
	stamp := executableStamp(found.Path)
	var ua datadir.UA
	if headless {
		if u, err := o.Data.ReadUA(); err == nil && u.Executable == found.Path && u.Stamp == stamp {
			ua = u
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
		b, err := start(ctx, &o, found, prof, headless, userAgent, brand, hints, learn)
		if err != nil {
			release()
			return nil, err
		}
		b.Starts = attempt + 1
		switch {
		case learn == learnPredicted:
			b.Hints = "predicted"
		case learn == learnNoSwitch:
			b.Hints = "asked"
		case headless:
			b.Hints = "remembered"
		}
		if !headless || attempt > 2 {
			return b.handOver(release)
		}
		switch learn {
		case learnPredicted:
			if b.predicted == nil {
				// Its version does not read, or is not the one --version
				// said: ask it without the switch.
				o.Logger.Info("relaunching headless browser to learn its user agent")
				b.Shutdown(2 * time.Second)
				continue
			}
			hb, err := b.handOver(release)
			if err == nil {
				go hb.checkHints(&o, stamp)
			}
			return hb, err
		case learnNoSwitch:
			if got := b.learned; got != nil {
				want := *got
				want.Executable, want.Stamp = found.Path, stamp
				if err := o.Data.WriteUA(want); err != nil {
					o.Logger.Warn("cannot remember the browser's user agent", zap.Error(err))
				}
				if want.UserAgent == b.reported {
					// Already what a page should see.
					return b.handOver(release)
				}
				learnFailed = want.ClientHints == nil
				ua = want
				o.Logger.Info("relaunching headless browser once with its headful user agent", zap.String("product", want.Product))
			} else {
				o.Logger.Info("relaunching headless browser to learn its user agent")
			}
			b.Shutdown(2 * time.Second)
			continue
		}
		v, err := b.versionResult(ctx)
		if err != nil {
			b.Shutdown(2 * time.Second)
			release()
			return nil, &Error{Step: StepConnect, Msg: "browser did not answer", Err: err}
		}
		if ua.Product == v.Product {
			return b.handOver(release)
		}
		// Another version of the binary, replaced in a way its stamp did
		// not show: its UA and hints are stale, and with the switch on it
		// cannot tell the new ones.
		o.Logger.Info("relaunching headless browser to learn its user agent", zap.String("product", v.Product))
		b.Shutdown(2 * time.Second)
		ua = datadir.UA{}
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

// handOver ends a launch that went well: from here on the caller handles a
// lost connection or guard, and the browser owns the profile's release.
// A loss before this point fails the launch.
func (b *Browser) handOver(release func()) (*Browser, error) {
	b.mu.Lock()
	lost := b.earlyLoss
	if lost == nil {
		b.release = release
		b.handedOver = true
	}
	b.mu.Unlock()
	if lost != nil {
		b.Shutdown(2 * time.Second)
		release()
		return nil, lostError(lost)
	}
	return b, nil
}

func lostError(err error) error {
	return &Error{Step: StepLost, Msg: "the browser was lost while it was starting, so it was killed", Err: err}
}

// lostEarly records a loss before the hand-over and kills the browser,
// which may be running unguarded; it reports false once the caller handles
// losses. A browser the launch is ending itself has lost nothing.
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
	b.Proc.Kill()
	return true
}

func (b *Browser) lostWhileStarting() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.earlyLoss
}

// Guard is the guard once it runs (nil before: the guard's own hooks may
// be called while it is being started).
func (b *Browser) Guard() *cdpguard.Guard {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.guard
}

// Release lets the profile go; call it once the browser has exited.
func (b *Browser) Release() {
	if b.release != nil {
		b.release()
	}
}

// Shutdown ends the browser: a polite close, then the process group, and
// only then the connection. Chrome lets every request the guard holds go
// the moment the connection ends, so the connection outlives the browser.
func (b *Browser) Shutdown(grace time.Duration) {
	b.closing.Store(true)
	if g := b.Guard(); g != nil {
		g.Stop()
	}
	if b.Conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		_, _ = cdp.Call(ctx, b.Conn.Browser(), browser.Close, cdp.Empty{})
		cancel()
	}
	_ = b.Proc.Close(grace)
	if b.Conn != nil {
		b.Conn.Abort()
	}
}
