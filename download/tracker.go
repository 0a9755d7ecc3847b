package download

import (
	"context"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpconn"
)

// Downloads behind the guard.
//
// A file a page hands to the browser is kept only when the call under way
// declared it. Measured on Chromium 156 (headless, raw CDP): whatever
// Browser.setDownloadBehavior says, the browser first writes the opening
// bytes of a download to a temporary file in $TMPDIR
// (.org.chromium.Chromium.XXXXXX) within 2 ms of downloadWillBegin, before
// any client can answer; with "allow"/"allowAndName" the file then moves to
// <dir>/<name or guid>.crdownload and grows, and with no behaviour set it
// goes to ~/Downloads. With "deny" the browser cancels the download itself
// at that point and deletes the temporary file: nothing reaches the
// download directory, ~/Downloads or the HTTP cache, and no client race is
// involved. Browser.cancelDownload sent at downloadWillBegin fails ("No
// download item found"): the item exists only from the first
// downloadProgress. Held by the guard's Fetch at the response stage and
// answered with an empty 204, a download never starts writing: no file
// appears anywhere, and the browser reports it canceled with 0 bytes. So,
// two layers:
//
//   - A document response that is a download (Content-Disposition:
//     attachment, or a request the download manager made for an
//     <a download>, which carries no Accept header) that no waiting call
//     covers is refused at the response (response.go): not a
//     byte is written, not even the temporary file. This covers clicks,
//     navigations, timers and popups.
//   - The default browser context is set to deny at launch, so what that
//     cannot see (a blob: or data: URL, a response the browser turns into
//     a download by its media type) is cancelled by the browser itself;
//     then only its temporary file in $TMPDIR exists, for milliseconds.
//   - While a declared call waits (Expect .. Wait), it is set to
//     allowAndName into the store's private incoming directory; the one
//     file the call pays for is moved from there into the download
//     directory. Any other is refused at its response, or, when the guard
//     could not see it, cancelled at its first progress event and its
//     leftovers deleted.
//   - In observe mode it is allowAndName all the time, nothing is
//     cancelled, and an undeclared file is kept and audited would_block.
//   - The caps (LYRA_BROWSER_DOWNLOAD_MAX_BYTES, _TIMEOUT) cancel a
//     transfer when it crosses them.
//
// Browser.downloadWillBegin and downloadProgress are browser-level events
// for every tab of the context, popups included.
//
// An acting call that declared a download (download=true) calls Expect
// once its DOWNLOAD grant is bought and before it sends its input, then
// Wait, and Close when it ends. Any other acting call asks AwaitBlocked,
// once its action settled, whether a download it set off was refused
// (BlockedGrace bounds that wait).
//
// Expect covers the tabs named and any popup they open; a second file in
// the same call is cancelled (one file per grant). It pays only for a file
// from the grant's site (downloadScope): the first from another site ends
// the wait as Blocked.

// Outcome kinds of a declared call. Wait answers saved, not_started
// or failed; blocked is what AwaitBlocked reports for a call that declared
// nothing (a declared call's own first file is never blocked, and a second
// one is cancelled without changing its answer).
const (
	Saved      = "saved"
	NotStarted = "not_started"
	Failed     = "failed"
	Blocked    = "blocked"
)

// Outcome is what a declared call's wait ended with.
type Outcome struct {
	Kind     string // Saved, NotStarted, Failed, Blocked
	File     Entry  // Saved
	Reason   string // Failed: too_large, timeout, error
	Observed bool   // observe mode kept a file enforce would have kept too
	// Filename and URLOrigin name the file for every kind but not_started.
	Filename  string
	URLOrigin string
}

// Rules are the settings a tracker follows.
type Rules struct {
	Observe  bool          // observe mode: keep what enforce would block, flagged
	MaxBytes int64         // a transfer's size limit; 0: none
	Timeout  time.Duration // a started transfer's limit; 0: none
}

// Hooks are what a tracker asks of its owner, which knows the browser's
// tabs, the audit trail and the takeover.
type Hooks struct {
	// FrameOf names the tab and document of a frame.
	FrameOf func(cdp.FrameID) (tab target.ID, doc string, ok bool)
	// Opener names the tab that opened a popup ("" for none).
	Opener func(target.ID) target.ID
	// Audit writes a download's row.
	Audit func(audit.Row)
	// UserDriven, when set and true, means the user holds a takeover. A
	// download is then theirs (kept, recorded user_driven) only when its
	// response answered a request a user's act started (userWant); one the
	// page starts by itself is blocked like an undeclared one.
	UserDriven func() bool
	// UserHand says whether a request with a gesture, its first hop seen
	// at activatedAt, was a person's.
	UserHand func(activatedAt time.Time) bool
}

// Tracker keeps the downloads of one browser behind the guard.
type Tracker struct {
	conn  *cdpconn.Conn
	store *Store
	rules Rules
	// Set once, at Start (Hooks).
	frameOf    func(cdp.FrameID) (target.ID, string, bool)
	opener     func(target.ID) target.ID
	audit      func(audit.Row)
	userDriven func() bool
	userHand   func(activatedAt time.Time) bool
	log        *zap.Logger

	// behaviour is held while the browser's download behaviour is worked
	// out and sent (applyBehavior), so that two changes from different
	// goroutines reach the browser in the order they were decided.
	behaviour sync.Mutex

	mu       sync.Mutex
	items    map[string]*dlItem // by guid
	expects  []*Expectation
	allowing bool // the behaviour is allowAndName (observe, or a declared call waits)
	blocked  []Undeclared
	changed  chan struct{} // closed and replaced on every blocked download
	// refused are the responses refused before their body came (by URL):
	// the download the browser still announces for one is not counted
	// twice.
	refused map[string]time.Time
	// pending are download requests whose response has not been judged
	// yet, by URL (response.go).
	pending map[string]pendingDownload
	// userWant are the downloads the user started during a takeover: an
	// attachment response to a user-activated request, let through, by URL,
	// until the browser announces it (response.go).
	userWant map[string]time.Time
}

// dlItem is one download the browser announced.
type dlItem struct {
	guid, filename, origin, initiator string
	tab                               target.ID
	exp                               *Expectation // the call that pays for it; nil when undeclared
	keep                              bool         // let it finish and keep it (declared, or observed)
	observed                          bool
	user                              bool   // started by the user during a takeover
	folded                            bool   // its response was refused and recorded already
	foreign                           string // blocked: the call's grant was for this other site
	cancelReason                      string // why lyrad cancels it: blocked, too_large, timeout
	cancelSent                        bool
	timer                             *time.Timer
	done                              bool
	// ended is closed when the download was kept or given up, with out.
	ended chan struct{}
	out   Outcome
}

// Start sets the browser's download behaviour (deny, or allowAndName in
// observe mode) and starts listening to its download events. A browser
// whose behaviour cannot be set is not started: its downloads would go to
// ~/Downloads unjudged. FrameOf and Audit are required.
func Start(ctx context.Context, conn *cdpconn.Conn, store *Store, rules Rules, h Hooks, log *zap.Logger) (*Tracker, error) {
	if log == nil {
		log = zap.NewNop()
	}
	d := &Tracker{conn: conn, store: store, rules: rules, frameOf: h.FrameOf, opener: h.Opener, audit: h.Audit,
		userDriven: h.UserDriven, userHand: h.UserHand, log: log, items: map[string]*dlItem{}}
	events, stop := conn.Subscribe(browser.DownloadWillBegin.Method, browser.DownloadProgress.Method)
	if err := d.setBehavior(ctx, rules.Observe); err != nil {
		stop()
		return nil, err
	}
	d.allowing = rules.Observe
	go func() {
		defer stop()
		for ev := range events {
			if ev.SessionID != "" {
				continue // the page-level copy; the browser's is the one
			}
			switch ev.Method {
			case browser.DownloadWillBegin.Method:
				var w browser.EventDownloadWillBegin
				if jsonv2.Unmarshal(ev.Params, &w) == nil {
					d.began(&w)
				}
			case browser.DownloadProgress.Method:
				var p browser.EventDownloadProgress
				if jsonv2.Unmarshal(ev.Params, &p) == nil {
					d.progress(&p)
				}
			}
		}
	}()
	return d, nil
}

// setBehavior is allowAndName into the incoming directory, or deny (with
// the incoming directory as its path too).
func (d *Tracker) setBehavior(ctx context.Context, allow bool) error {
	events := true
	// The path even for deny: Chrome stages a download it is about to
	// cancel in the download path, the user's ~/Downloads when none is given.
	p := browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorDeny, EventsEnabled: &events, DownloadPath: d.store.Incoming()}
	if allow {
		p.Behavior = browser.SetDownloadBehaviorBehaviorAllowAndName
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := cdp.Call(cctx, d.conn.Browser(), browser.SetDownloadBehavior, p)
	return err
}

// denyAgain denies downloads again when nothing is waiting for one: no
// declared call, no observe mode, no download of the user's on its way.
func (d *Tracker) denyAgain() {
	if err := d.applyBehavior(context.Background()); err != nil {
		d.log.Warn("cannot deny downloads again", zap.Error(err))
	}
}

// applyBehavior brings the browser's download behaviour to what is wanted
// now: allowAndName while observe mode is on, a declared call waits, a
// kept download is on its way or one the user started is to be announced;
// deny otherwise. Deciding and sending happen under one lock: decided
// apart, a deny worked out before a declared call's allow could reach the
// browser after it, and the declared download was cancelled (seen as
// TestDeclaredDownloads' second download failing, 1 run in 4 under -race).
func (d *Tracker) applyBehavior(ctx context.Context) error {
	d.behaviour.Lock()
	defer d.behaviour.Unlock()
	d.mu.Lock()
	want := d.rules.Observe || len(d.expects) > 0 || d.transferringLocked() || d.userWaitingLocked()
	change := want != d.allowing
	d.mu.Unlock()
	if !change {
		return nil
	}
	if err := d.setBehavior(ctx, want); err != nil {
		return err
	}
	d.mu.Lock()
	d.allowing = want
	d.mu.Unlock()
	return nil
}

// UserHolds is told when a takeover starts (on) and ends. The browser stays
// closed to downloads meanwhile: it is opened for each one the user starts
// (userStarts), so that what the page starts by itself, a blob included,
// is denied by the browser before a byte is written. When the takeover
// ends the user's unclaimed downloads are forgotten.
func (d *Tracker) UserHolds(on bool) {
	if on {
		return
	}
	d.mu.Lock()
	d.userWant = nil
	d.mu.Unlock()
	d.denyAgain()
}

// userWantKeep bounds how long a download the user started waits for the
// browser to announce it.
const userWantKeep = 30 * time.Second

// userStarts opens the browser to the download that answers url: the user
// started it during a takeover. It is called before the response goes on,
// so the behaviour is in place when the browser decides.
func (d *Tracker) userStarts(url string) {
	d.mu.Lock()
	if d.userWant == nil {
		d.userWant = map[string]time.Time{}
	}
	d.userWant[url] = time.Now()
	d.mu.Unlock()
	if err := d.applyBehavior(context.Background()); err != nil {
		d.log.Warn("cannot open the browser to the user's download", zap.Error(err))
	}
}

// userWaitingLocked: a download the user started is still to be announced.
func (d *Tracker) userWaitingLocked() bool {
	for u, at := range d.userWant {
		if time.Since(at) > userWantKeep {
			delete(d.userWant, u)
			continue
		}
		return true
	}
	return false
}

// userWantsLocked takes url's download as one the user started, if it is.
func (d *Tracker) userWantsLocked(url string) bool {
	at, ok := d.userWant[url]
	if !ok || time.Since(at) > userWantKeep {
		return false
	}
	delete(d.userWant, url)
	return d.userDriven != nil && d.userDriven()
}

// transferringLocked: a kept download is still under way (closing the
// browser to it now would not stop it, but keep the state honest).
func (d *Tracker) transferringLocked() bool {
	for _, it := range d.items {
		if it.keep && !it.done {
			return true
		}
	}
	return false
}

func (d *Tracker) began(w *browser.EventDownloadWillBegin) {
	tab, doc, _ := d.frameOf(w.FrameID)
	it := &dlItem{
		guid:      w.GUID,
		filename:  SanitizeName(w.SuggestedFilename),
		origin:    urlOrigin(w.URL),
		initiator: urlOrigin(doc),
		tab:       tab,
		ended:     make(chan struct{}),
	}
	if it.initiator == "" && tab != "" && d.opener != nil {
		// A popup's first document is its opener's doing.
		if op := d.opener(tab); op != "" {
			_, doc, _ := d.frameOf(cdp.FrameID(op))
			it.initiator = urlOrigin(doc)
		}
	}
	if it.initiator == "" && strings.HasPrefix(w.URL, "blob:") {
		it.initiator = it.origin // a blob belongs to the page that made it
	}
	d.mu.Lock()
	d.items[w.GUID] = it
	delete(d.pending, w.URL)
	if at, ok := d.refused[w.URL]; ok && time.Since(at) < refusedFold {
		// Refused at its response: recorded then, and it never had a byte.
		delete(d.refused, w.URL)
		it.cancelReason, it.folded = "blocked", true
	} else if e := d.claimLocked(tab); e != nil && (d.rules.Observe || e.pays(w.URL, doc)) {
		it.exp, it.keep = e, true
		// Observe mode keeps a file from another site too, flagged.
		it.observed = !e.pays(w.URL, doc)
		e.item, e.decided = it, true
		close(e.started)
	} else if e != nil {
		// The call's tab, but not the site its grant was approved for (a
		// frame or a redirect swapped in another site's file).
		it.cancelReason = "blocked"
		it.foreign = e.from.Loggable()
		e.blockLocked(it.filename, it.origin)
		d.rememberBlockedLocked(Undeclared{At: time.Now(), Tab: tab, Filename: it.filename, URLOrigin: it.origin})
	} else if d.userWantsLocked(w.URL) {
		it.keep, it.user = true, true
	} else if d.rules.Observe {
		it.keep, it.observed = true, true
		d.rememberBlockedLocked(Undeclared{At: time.Now(), Tab: tab, Filename: it.filename, URLOrigin: it.origin, Observed: true, item: it})
	} else {
		it.cancelReason = "blocked"
		b := Undeclared{At: time.Now(), Tab: tab, Filename: it.filename, URLOrigin: it.origin}
		d.rememberBlockedLocked(b)
	}
	if it.keep && d.rules.Timeout > 0 {
		it.timer = time.AfterFunc(d.rules.Timeout, func() { d.cancel(it, "timeout") })
	}
	d.mu.Unlock()
	if it.cancelReason == "blocked" && !it.folded {
		d.row(it, "blocked", nil)
	}
}

func (d *Tracker) progress(p *browser.EventDownloadProgress) {
	d.mu.Lock()
	it := d.items[p.GUID]
	if it == nil || it.done {
		d.mu.Unlock()
		return
	}
	switch p.State {
	case browser.DownloadProgressStateInProgress:
		if it.cancelReason == "" && d.rules.MaxBytes > 0 && (p.ReceivedBytes > float64(d.rules.MaxBytes) || p.TotalBytes > float64(d.rules.MaxBytes)) {
			it.cancelReason = "too_large"
		}
		send := it.cancelReason != "" && !it.cancelSent
		it.cancelSent = it.cancelSent || send
		d.mu.Unlock()
		if send {
			d.sendCancel(it.guid)
		}
		return
	case browser.DownloadProgressStateCompleted:
		it.done = true
		if it.cancelReason == "" && d.rules.MaxBytes > 0 && p.ReceivedBytes > float64(d.rules.MaxBytes) {
			// Finished between two progress events: too late to stop, not
			// too late to refuse.
			it.cancelReason = "too_large"
		}
		keep := it.keep && it.cancelReason == ""
		d.mu.Unlock()
		if !keep {
			d.store.Discard(it.guid)
			d.finish(it, Outcome{Kind: Failed, Reason: failReason(it.cancelReason)})
			return
		}
		d.keep(it)
		return
	default: // canceled
		it.done = true
		d.mu.Unlock()
		d.store.Discard(it.guid)
		d.finish(it, Outcome{Kind: Failed, Reason: failReason(it.cancelReason)})
	}
}

func failReason(cancel string) string {
	switch cancel {
	case "too_large", "timeout":
		return cancel
	}
	return "error"
}

// keep moves a finished file into the download directory.
func (d *Tracker) keep(it *dlItem) {
	src := filepath.Join(d.store.Incoming(), it.guid)
	e, err := d.store.Keep(src, it.filename, it.origin)
	if err != nil {
		d.log.Warn("cannot keep a download", zap.Error(err))
		d.store.Discard(it.guid)
		d.finish(it, Outcome{Kind: Failed, Reason: "error"})
		return
	}
	it.filename = e.Filename
	d.finish(it, Outcome{Kind: Saved, File: e, Observed: it.observed})
}

// finish records how a download ended and hands it to its call.
func (d *Tracker) finish(it *dlItem, out Outcome) {
	if it.timer != nil {
		it.timer.Stop()
	}
	out.Filename, out.URLOrigin = it.filename, it.origin
	status := out.Reason
	var extra audit.Fields
	switch {
	case out.Kind == Saved && it.user:
		status, extra = "user_driven", audit.Fields{"bytes": out.File.Bytes}
	case out.Kind == Saved && it.observed:
		status, extra = "would_block", audit.Fields{"bytes": out.File.Bytes}
	case out.Kind == Saved:
		status, extra = "saved", audit.Fields{"bytes": out.File.Bytes}
	case it.cancelReason == "blocked":
		status = "" // its row was written when it was blocked
	}
	if status != "" {
		d.row(it, status, extra)
	}
	d.mu.Lock()
	delete(d.items, it.guid)
	if it.ended != nil && it.out.Kind == "" {
		it.out = out
		close(it.ended)
	}
	e := it.exp
	if e != nil && e.out.Kind == "" {
		e.out = out
		close(e.ended)
	}
	d.mu.Unlock()
	if e != nil {
		e.Close()
	} else if it.user {
		d.denyAgain() // the user's download is done: closed again
	}
}

// cancel stops a transfer lyrad let run, for reason.
func (d *Tracker) cancel(it *dlItem, reason string) {
	if it == nil {
		return
	}
	d.mu.Lock()
	if it.done || it.cancelReason != "" {
		d.mu.Unlock()
		return
	}
	it.cancelReason = reason
	it.cancelSent = true
	d.mu.Unlock()
	d.sendCancel(it.guid)
}

func (d *Tracker) sendCancel(guid string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cdp.Call(ctx, d.conn.Browser(), browser.CancelDownload, browser.CancelDownloadParams{GUID: guid}); err != nil {
		d.log.Debug("cancel download", zap.Error(err))
	}
}

// row writes a download's audit row: origins only, never a path or a query.
func (d *Tracker) row(it *dlItem, status string, extra audit.Fields) {
	x := audit.Fields{"url_origin": it.origin, "initiator": it.initiator, "filename": it.filename}
	if it.tab != "" {
		x["tab"] = string(it.tab)
	}
	if it.exp != nil {
		x["declared"] = true
	}
	if it.foreign != "" {
		x["approved_for"] = it.foreign
	}
	for k, v := range extra {
		x[k] = v
	}
	r := audit.Row{Kind: "download", Status: status, Extra: x}
	if it.exp != nil {
		r.Session = it.exp.caller
	}
	d.audit(r)
}

// urlOrigin is scheme://host[:port] of rawURL, the origin inside a blob:
// URL, "data:" for a data: URL, and "" for what has none.
func urlOrigin(rawURL string) string {
	if rest, ok := strings.CutPrefix(rawURL, "blob:"); ok {
		rawURL = rest
	}
	if strings.HasPrefix(rawURL, "data:") {
		return "data:"
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host)
}
