package download

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/target"
)

// How long an undeclared acting call waits, at most, for the response of
// a download request it set off (an <a download> click, Enter on one) to
// be judged, so that it can answer download_blocked; a call that set off
// none does not wait at all (AwaitBlocked).
const BlockedGrace = 2 * time.Second

// blockedKeep is how long a blocked download is remembered for the calls
// that ask (the next acting call tells of those no call set off, however
// long the agent took to make it; 100 at most are kept).
const blockedKeep = 10 * time.Minute

// Undeclared is a download no call declared: cancelled, or in observe
// mode kept and flagged.
type Undeclared struct {
	At        time.Time
	Tab       target.ID
	Filename  string
	URLOrigin string
	// Observed: observe mode kept it instead (the call answers ok with
	// observed: true and the file, once it is saved: WaitObserved).
	Observed bool
	item     *dlItem
}

func (d *Tracker) rememberBlockedLocked(b Undeclared) {
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

// BlockedSince returns the first undeclared download cancelled on one of
// tabs (any tab when none is named) at or after since.
func (d *Tracker) BlockedSince(since time.Time, tabs ...target.ID) *Undeclared {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.blockedSinceLocked(since, tabs)
}

// BlockedBetween lists the undeclared downloads refused (not those observe
// mode let through) at or after from and before to, on any tab, oldest
// first.
func (d *Tracker) BlockedBetween(from, to time.Time) []Undeclared {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []Undeclared
	for _, b := range d.blocked {
		if !b.Observed && !b.At.Before(from) && b.At.Before(to) {
			b.item = nil
			out = append(out, b)
		}
	}
	return out
}

// ObservedSince is BlockedSince for the undeclared downloads observe mode
// let through.
func (d *Tracker) ObservedSince(since time.Time, tabs ...target.ID) *Undeclared {
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

func (d *Tracker) blockedSinceLocked(since time.Time, tabs []target.ID) *Undeclared {
	return d.downloadSinceLocked(since, tabs, false)
}

// downloadSinceLocked is the first undeclared download of tabs since
// since that was blocked, or with observed, blocked or kept by observe
// mode.
func (d *Tracker) downloadSinceLocked(since time.Time, tabs []target.ID, observed bool) *Undeclared {
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
func (d *Tracker) WaitObserved(ctx context.Context, bd *Undeclared) Outcome {
	it := bd.item
	if it == nil {
		return Outcome{Kind: NotStarted}
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
		return Outcome{Kind: Failed, Reason: "error", Filename: it.filename, URLOrigin: it.origin}
	}
	return it.out
}

// AwaitBlocked is BlockedSince after waiting, up to grace from now, for
// the response of a download request the call made (an <a download>
// click) to be judged. A call that made none does not wait.
func (d *Tracker) AwaitBlocked(ctx context.Context, tabs []target.ID, since time.Time, grace time.Duration) *Undeclared {
	return d.awaitDownload(ctx, tabs, since, grace, false)
}

// AwaitSaving is AwaitBlocked for an input on a link that saves its file:
// the browser starts that download with no navigation before it, and on a
// loaded machine its request may reach the guard after the input was
// answered, so it waits the grace out for it.
func (d *Tracker) AwaitSaving(ctx context.Context, tabs []target.ID, since time.Time, grace time.Duration) *Undeclared {
	return d.awaitDownload(ctx, tabs, since, grace, true)
}

// AwaitAborted is AwaitBlocked for a navigation the browser aborted, which
// a download may have replaced: in observe mode, where no response is held
// and so none is known to be under way, it waits the grace out for the
// browser to announce one.
func (d *Tracker) AwaitAborted(ctx context.Context, tabs []target.ID, since time.Time, grace time.Duration) *Undeclared {
	return d.awaitDownload(ctx, tabs, since, grace, d.rules.Observe)
}

func (d *Tracker) awaitDownload(ctx context.Context, tabs []target.ID, since time.Time, grace time.Duration, anyway bool) *Undeclared {
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
