package download

import (
	"context"
	"strings"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/policy"
)

// Expectation is one declared call's claim on the next download of its
// tabs. Close it when the call ends.
type Expectation struct {
	d      *Tracker
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
	out     Outcome
}

// Expect declares that the call about to send its input on tabs may start
// one download from the site from (the DOWNLOAD grant's scope), and opens
// the browser to it. The caller must Close it.
func (d *Tracker) Expect(ctx context.Context, tabs []target.ID, caller string, from policy.Scope) (*Expectation, error) {
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
func (e *Expectation) Wait(ctx context.Context, startWindow time.Duration) Outcome {
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
			return Outcome{Kind: NotStarted}
		}
	case <-ctx.Done():
		e.Close()
		return Outcome{Kind: NotStarted}
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
		return Outcome{Kind: Failed, Reason: "error", Filename: e.item.filename, URLOrigin: e.item.origin}
	}
	return e.out
}

// Started is closed once a download of the call's tabs is claimed for it,
// or blocked: a navigation waiting on the tab stops waiting then.
func (e *Expectation) Started() <-chan struct{} { return e.started }

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

// claimLocked finds the waiting expectation a download on tab belongs to.
// The caller checks that the file is from the site it was approved for
// (e.pays).
func (d *Tracker) claimLocked(tab target.ID) *Expectation {
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
	e.out = Outcome{Kind: Blocked, Filename: filename, URLOrigin: origin}
	close(e.started)
	close(e.ended)
}
