package session

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
	"github.com/lyrad/lyrad/download"
	"github.com/lyrad/lyrad/policy"
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
//     covers is refused at the response (downloads_response.go): not a
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
// How an acting call uses this (the lead wires it into the acting
// pipeline):
//
//	// download=true, after the DOWNLOAD grant was bought and before the
//	// input is sent:
//	exp, err := b.downloads.Expect(ctx, []target.ID{tab}, caller.ID, grantScope)
//	if err != nil { ... answer error, the grant is handed back ... }
//	defer exp.Close()
//	... send the click / key / navigation ...
//	out := exp.Wait(ctx, startWindow) // click: timeout_ms, press_key: 10 s, navigate: 2 s
//	switch out.Kind {
//	case DownloadSaved:      // keep the status, add "download": out.File (observed when out.Observed)
//	case DownloadNotStarted: // download_not_started, hand the grant back
//	case DownloadFailed:     // download_failed, reason out.Reason
//	}
//
//	// Any acting call without download=true, after its action settled:
//	if bd := b.downloads.AwaitBlocked(ctx, tabs, callStart, BlockedGrace); bd != nil {
//		// download_blocked, naming the file (Error.Blocked)
//	}
//	// (BlockedGrace for press_key; a reload or history step that
//	// aborted waits 2 s instead.)
//
// Expect covers the tabs named and any popup they open; a second file in
// the same call is cancelled (one file per grant). It pays only for a file
// from the grant's site (downloadScope): the first from another site ends
// the wait as DownloadBlocked.

// Download outcomes of a declared call. Wait answers saved, not_started
// or failed; blocked is what AwaitBlocked reports for a call that declared
// nothing (a declared call's own first file is never blocked, and a second
// one is cancelled without changing its answer).
const (
	DownloadSaved      = "saved"
	DownloadNotStarted = "not_started"
	DownloadFailed     = "failed"
	DownloadBlocked    = "blocked"
)

// How long an undeclared acting call waits, at most, for the response of
// a download request it set off (an <a download> click, Enter on one) to
// be judged, so that it can answer download_blocked; a call that set off
// none does not wait at all (AwaitBlocked).
const BlockedGrace = 2 * time.Second

// blockedKeep is how long a blocked download is remembered for the calls
// that ask.
const blockedKeep = time.Minute

// DownloadOutcome is what a declared call's wait ended with.
type DownloadOutcome struct {
	Kind     string         // DownloadSaved, DownloadNotStarted, DownloadFailed, DownloadBlocked
	File     download.Entry // DownloadSaved
	Reason   string         // DownloadFailed: too_large, timeout, error
	Observed bool           // observe mode kept a file enforce would have kept too
	// Filename and URLOrigin name the file for every kind but not_started.
	Filename  string
	URLOrigin string
}

// BlockedDownload is an undeclared download that was cancelled.
type BlockedDownload struct {
	At        time.Time
	Tab       target.ID
	Filename  string
	URLOrigin string
	// Observed: observe mode kept it instead (the call answers ok with
	// observed: true and the file, once it is saved: WaitObserved).
	Observed bool
	item     *dlItem
}

// downloadRules are the settings a tracker follows.
type downloadRules struct {
	observe  bool
	maxBytes int64         // 0: no limit
	timeout  time.Duration // a started transfer's limit
}

// downloads tracks the downloads of one browser.
type downloads struct {
	conn  *cdpconn.Conn
	store *download.Store
	rules downloadRules
	// frameOf names the tab and document of a frame; opener names the
	// tab that opened a popup ("" for none).
	frameOf func(cdp.FrameID) (target.ID, string, bool)
	opener  func(target.ID) target.ID
	audit   func(audit.Row)
	log     *zap.Logger
	// userDriven, when set and true, means the user holds a takeover. A
	// download is then theirs (kept, recorded user_driven) only when its
	// response answered a request a user's act started (userWant); one the
	// page starts by itself is blocked like an undeclared one.
	userDriven func() bool
	// userHand says whether a request with a gesture, its first hop seen
	// at that time, was a person's (Manager.userHand).
	userHand func(activatedAt time.Time) bool

	// behaviour is held while the browser's download behaviour is worked
	// out and sent (applyBehavior), so that two changes from different
	// goroutines reach the browser in the order they were decided.
	behaviour sync.Mutex

	mu       sync.Mutex
	items    map[string]*dlItem // by guid
	expects  []*Expectation
	allowing bool // the behaviour is allowAndName (observe, or a declared call waits)
	blocked  []BlockedDownload
	changed  chan struct{} // closed and replaced on every blocked download
	// refused are the responses refused before their body came (by URL):
	// the download the browser still announces for one is not counted
	// twice.
	refused map[string]time.Time
	// pending are download requests whose response has not been judged
	// yet, by URL (downloads_response.go).
	pending map[string]pendingDownload
	// userWant are the downloads the user started during a takeover: an
	// attachment response to a user-activated request, let through, by URL,
	// until the browser announces it (downloads_response.go).
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
	out   DownloadOutcome
}

// Expectation is one declared call's claim on the next download of its
// tabs. Close it when the call ends.
type Expectation struct {
	d      *downloads
	tabs   []target.ID
	caller string
	// from is what the DOWNLOAD grant was approved for: a file from
	// anywhere else is blocked (downloadScope).
	from    policy.Scope
	started chan struct{} // closed when a download is claimed, or blocked
	ended   chan struct{} // closed when the claimed one ends, or blocked
	closed  bool
	decided bool // a download of its tabs was claimed or blocked
	item    *dlItem
	out     DownloadOutcome
}

// startDownloads sets the browser's download behaviour and starts
// listening. A browser whose behaviour cannot be set is not started:
// its downloads would go to ~/Downloads unjudged.
func startDownloads(ctx context.Context, conn *cdpconn.Conn, store *download.Store, rules downloadRules,
	frameOf func(cdp.FrameID) (target.ID, string, bool), opener func(target.ID) target.ID,
	write func(audit.Row), log *zap.Logger) (*downloads, error) {
	d := &downloads{conn: conn, store: store, rules: rules, frameOf: frameOf, opener: opener, audit: write, log: log, items: map[string]*dlItem{}}
	events, stop := conn.Subscribe(browser.DownloadWillBegin.Method, browser.DownloadProgress.Method)
	if err := d.setBehavior(ctx, rules.observe); err != nil {
		stop()
		return nil, err
	}
	d.allowing = rules.observe
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
func (d *downloads) setBehavior(ctx context.Context, allow bool) error {
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

// Expect declares that the call about to send its input on tabs may start
// one download from the site from (the DOWNLOAD grant's scope), and opens
// the browser to it. The caller must Close it.
func (d *downloads) Expect(ctx context.Context, tabs []target.ID, caller string, from policy.Scope) (*Expectation, error) {
	e := &Expectation{d: d, tabs: tabs, caller: caller, from: from, started: make(chan struct{}), ended: make(chan struct{})}
	d.mu.Lock()
	d.expects = append(d.expects, e)
	d.mu.Unlock()
	if err := d.applyBehavior(ctx); err != nil {
		e.Close()
		return nil, err
	}
	return e, nil
}

// Wait waits up to startWindow for the download to start, then for it to
// end (the transfer is bounded by the download timeout). A ctx that ends
// first cancels the transfer.
func (e *Expectation) Wait(ctx context.Context, startWindow time.Duration) DownloadOutcome {
	t := time.NewTimer(startWindow)
	defer t.Stop()
	select {
	case <-e.started:
	case <-t.C:
		e.d.mu.Lock()
		started := e.item != nil
		e.d.mu.Unlock()
		if !started {
			e.Close()
			return DownloadOutcome{Kind: DownloadNotStarted}
		}
	case <-ctx.Done():
		e.Close()
		return DownloadOutcome{Kind: DownloadNotStarted}
	}
	select {
	case <-e.ended:
	case <-ctx.Done():
		e.d.cancel(e.item, "error")
		select {
		case <-e.ended:
		case <-time.After(2 * time.Second):
		}
	}
	e.d.mu.Lock()
	defer e.d.mu.Unlock()
	if e.out.Kind == "" {
		return DownloadOutcome{Kind: DownloadFailed, Reason: "error", Filename: e.item.filename, URLOrigin: e.item.origin}
	}
	return e.out
}

// Close retires the expectation: a download that has not started is no
// longer this call's. When no call waits any more, downloads are denied
// again.
func (e *Expectation) Close() {
	d := e.d
	d.mu.Lock()
	if e.closed {
		d.mu.Unlock()
		return
	}
	e.closed = true
	for i, x := range d.expects {
		if x == e {
			d.expects = append(d.expects[:i], d.expects[i+1:]...)
			break
		}
	}
	d.mu.Unlock()
	d.denyAgain()
}

// denyAgain denies downloads again when nothing is waiting for one: no
// declared call, no observe mode, no download of the user's on its way.
func (d *downloads) denyAgain() {
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
func (d *downloads) applyBehavior(ctx context.Context) error {
	d.behaviour.Lock()
	defer d.behaviour.Unlock()
	d.mu.Lock()
	want := d.rules.observe || len(d.expects) > 0 || d.transferringLocked() || d.userWaitingLocked()
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

// userHolds is told when a takeover starts and ends. The browser stays
// closed to downloads meanwhile: it is opened for each one the user starts
// (userStarts), so that what the page starts by itself, a blob included,
// is denied by the browser before a byte is written. When the takeover
// ends the user's unclaimed downloads are forgotten.
func (d *downloads) userHolds(ctx context.Context, on bool) {
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
func (d *downloads) userStarts(url string) {
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
func (d *downloads) userWaitingLocked() bool {
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
func (d *downloads) userWantsLocked(url string) bool {
	at, ok := d.userWant[url]
	if !ok || time.Since(at) > userWantKeep {
		return false
	}
	delete(d.userWant, url)
	return d.userDriven != nil && d.userDriven()
}

// transferringLocked: a kept download is still under way (closing the
// browser to it now would not stop it, but keep the state honest).
func (d *downloads) transferringLocked() bool {
	for _, it := range d.items {
		if it.keep && !it.done {
			return true
		}
	}
	return false
}

// claimLocked finds the waiting expectation a download on tab belongs to.
// The caller checks that the file is from the site it was approved for
// (e.pays).
func (d *downloads) claimLocked(tab target.ID) *Expectation {
	for _, e := range d.expects {
		if e.decided || e.closed {
			continue
		}
		for _, t := range e.tabs {
			if t == tab || (tab != "" && d.opener != nil && d.opener(tab) == t) {
				return e
			}
		}
	}
	return nil
}

// downloadScope is the site a download's file is from, which a DOWNLOAD
// grant must name: the origin of its URL as the browser reports it, the
// last of its redirects (a blob: URL's is the page's that made it); for a
// data: URL, which has none, the document that started it.
func downloadScope(rawURL, doc string) policy.Scope {
	if strings.HasPrefix(strings.ToLower(rawURL), "data:") {
		if s := policy.ScopeOf(doc); !s.Opaque() {
			return s
		}
		return policy.Scope{}
	}
	return policy.ScopeOf(rawURL)
}

// pays reports whether the expectation's grant pays for a file at rawURL,
// started by the document doc.
func (e *Expectation) pays(rawURL, doc string) bool {
	s := downloadScope(rawURL, doc)
	return !s.IsZero() && s == e.from
}

// blockLocked ends the expectation's wait with a download of its tabs from
// another site than the one approved: the call answers download_blocked,
// and its grant pays for nothing more in this call.
func (e *Expectation) blockLocked(filename, origin string) {
	e.decided = true
	e.out = DownloadOutcome{Kind: DownloadBlocked, Filename: filename, URLOrigin: origin}
	close(e.started)
	close(e.ended)
}

func (d *downloads) began(w *browser.EventDownloadWillBegin) {
	tab, doc, _ := d.frameOf(w.FrameID)
	it := &dlItem{
		guid:      w.GUID,
		filename:  download.SanitizeName(w.SuggestedFilename),
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
	} else if e := d.claimLocked(tab); e != nil && (d.rules.observe || e.pays(w.URL, doc)) {
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
		d.rememberBlockedLocked(BlockedDownload{At: time.Now(), Tab: tab, Filename: it.filename, URLOrigin: it.origin})
	} else if d.userWantsLocked(w.URL) {
		it.keep, it.user = true, true
	} else if d.rules.observe {
		it.keep, it.observed = true, true
		d.rememberBlockedLocked(BlockedDownload{At: time.Now(), Tab: tab, Filename: it.filename, URLOrigin: it.origin, Observed: true, item: it})
	} else {
		it.cancelReason = "blocked"
		b := BlockedDownload{At: time.Now(), Tab: tab, Filename: it.filename, URLOrigin: it.origin}
		d.rememberBlockedLocked(b)
	}
	if it.keep && d.rules.timeout > 0 {
		it.timer = time.AfterFunc(d.rules.timeout, func() { d.cancel(it, "timeout") })
	}
	d.mu.Unlock()
	if it.cancelReason == "blocked" && !it.folded {
		d.row(it, "blocked", nil)
	}
}

func (d *downloads) rememberBlockedLocked(b BlockedDownload) {
	cut := 0
	for cut < len(d.blocked) && (time.Since(d.blocked[cut].At) > blockedKeep || len(d.blocked)-cut >= 100) {
		cut++
	}
	d.blocked = append(d.blocked[cut:], b)
	if d.changed != nil {
		close(d.changed)
		d.changed = nil
	}
}

func (d *downloads) progress(p *browser.EventDownloadProgress) {
	d.mu.Lock()
	it := d.items[p.GUID]
	if it == nil || it.done {
		d.mu.Unlock()
		return
	}
	switch p.State {
	case browser.DownloadProgressStateInProgress:
		if it.cancelReason == "" && d.rules.maxBytes > 0 && (p.ReceivedBytes > float64(d.rules.maxBytes) || p.TotalBytes > float64(d.rules.maxBytes)) {
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
		if it.cancelReason == "" && d.rules.maxBytes > 0 && p.ReceivedBytes > float64(d.rules.maxBytes) {
			// Finished between two progress events: too late to stop, not
			// too late to refuse.
			it.cancelReason = "too_large"
		}
		keep := it.keep && it.cancelReason == ""
		d.mu.Unlock()
		if !keep {
			d.store.Discard(it.guid)
			d.finish(it, DownloadOutcome{Kind: DownloadFailed, Reason: failReason(it.cancelReason)})
			return
		}
		d.keep(it)
		return
	default: // canceled
		it.done = true
		d.mu.Unlock()
		d.store.Discard(it.guid)
		d.finish(it, DownloadOutcome{Kind: DownloadFailed, Reason: failReason(it.cancelReason)})
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
func (d *downloads) keep(it *dlItem) {
	src := filepath.Join(d.store.Incoming(), it.guid)
	e, err := d.store.Keep(src, it.filename, it.origin)
	if err != nil {
		d.log.Warn("cannot keep a download", zap.Error(err))
		d.store.Discard(it.guid)
		d.finish(it, DownloadOutcome{Kind: DownloadFailed, Reason: "error"})
		return
	}
	it.filename = e.Filename
	d.finish(it, DownloadOutcome{Kind: DownloadSaved, File: e, Observed: it.observed})
}

// finish records how a download ended and hands it to its call.
func (d *downloads) finish(it *dlItem, out DownloadOutcome) {
	if it.timer != nil {
		it.timer.Stop()
	}
	out.Filename, out.URLOrigin = it.filename, it.origin
	status := out.Reason
	var extra map[string]any
	switch {
	case out.Kind == DownloadSaved && it.user:
		status, extra = "user_driven", map[string]any{"bytes": out.File.Bytes}
	case out.Kind == DownloadSaved && it.observed:
		status, extra = "would_block", map[string]any{"bytes": out.File.Bytes}
	case out.Kind == DownloadSaved:
		status, extra = "saved", map[string]any{"bytes": out.File.Bytes}
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
func (d *downloads) cancel(it *dlItem, reason string) {
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

func (d *downloads) sendCancel(guid string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := cdp.Call(ctx, d.conn.Browser(), browser.CancelDownload, browser.CancelDownloadParams{GUID: guid}); err != nil {
		d.log.Debug("cancel download", zap.Error(err))
	}
}

// row writes a download's audit row: origins only, never a path or a query.
func (d *downloads) row(it *dlItem, status string, extra map[string]any) {
	x := map[string]any{"url_origin": it.origin, "initiator": it.initiator, "filename": it.filename}
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

// BlockedSince returns the first undeclared download cancelled on one of
// tabs (any tab when none is named) at or after since.
func (d *downloads) BlockedSince(since time.Time, tabs ...target.ID) *BlockedDownload {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.blockedSinceLocked(since, tabs)
}

// ObservedSince is BlockedSince for the undeclared downloads observe mode
// let through.
func (d *downloads) ObservedSince(since time.Time, tabs ...target.ID) *BlockedDownload {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, b := range d.blocked {
		if !b.Observed || b.At.Before(since) {
			continue
		}
		for _, t := range tabs {
			if b.Tab == t || (b.Tab != "" && d.opener != nil && d.opener(b.Tab) == t) {
				return &b
			}
		}
	}
	return nil
}

func (d *downloads) blockedSinceLocked(since time.Time, tabs []target.ID) *BlockedDownload {
	return d.downloadSinceLocked(since, tabs, false)
}

// downloadSinceLocked is the first undeclared download of tabs since
// since that was blocked, or with observed, blocked or kept by observe
// mode.
func (d *downloads) downloadSinceLocked(since time.Time, tabs []target.ID, observed bool) *BlockedDownload {
	for _, b := range d.blocked {
		if b.At.Before(since) || (b.Observed && !observed) {
			continue
		}
		if len(tabs) == 0 {
			return &b
		}
		for _, t := range tabs {
			if b.Tab == t || (b.Tab != "" && d.opener != nil && d.opener(b.Tab) == t) {
				return &b
			}
		}
	}
	return nil
}

// WaitObserved waits for a download observe mode let through (bd.Observed)
// to be kept or given up, as a declared call waits for its own: the
// transfer is bounded by the download timeout, and a ctx that ends first
// cancels it.
func (d *downloads) WaitObserved(ctx context.Context, bd *BlockedDownload) DownloadOutcome {
	it := bd.item
	if it == nil {
		return DownloadOutcome{Kind: DownloadNotStarted}
	}
	select {
	case <-it.ended:
	case <-ctx.Done():
		d.cancel(it, "error")
		select {
		case <-it.ended:
		case <-time.After(2 * time.Second):
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if it.out.Kind == "" {
		return DownloadOutcome{Kind: DownloadFailed, Reason: "error", Filename: it.filename, URLOrigin: it.origin}
	}
	return it.out
}

// AwaitBlocked is BlockedSince after waiting, up to grace from now, for
// the response of a download request the call made (an <a download>
// click) to be judged. A call that made none does not wait.
func (d *downloads) AwaitBlocked(ctx context.Context, tabs []target.ID, since time.Time, grace time.Duration) *BlockedDownload {
	return d.awaitDownload(ctx, tabs, since, grace, false)
}

// AwaitAborted is AwaitBlocked for a navigation the browser aborted, which
// a download may have replaced: in observe mode, where no response is held
// and so none is known to be under way, it waits the grace out for the
// browser to announce one.
func (d *downloads) AwaitAborted(ctx context.Context, tabs []target.ID, since time.Time, grace time.Duration) *BlockedDownload {
	return d.awaitDownload(ctx, tabs, since, grace, d.rules.observe)
}

func (d *downloads) awaitDownload(ctx context.Context, tabs []target.ID, since time.Time, grace time.Duration, anyway bool) *BlockedDownload {
	deadline := time.NewTimer(grace)
	defer deadline.Stop()
	for {
		d.mu.Lock()
		if b := d.downloadSinceLocked(since, tabs, true); b != nil {
			d.mu.Unlock()
			return b
		}
		if !anyway && !d.pendingSinceLocked(since, tabs) {
			// No download request of this call is waiting for its
			// response: nothing will be blocked for it.
			d.mu.Unlock()
			return nil
		}
		if d.changed == nil {
			d.changed = make(chan struct{})
		}
		wake := d.changed
		d.mu.Unlock()
		select {
		case <-wake:
		case <-deadline.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
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
