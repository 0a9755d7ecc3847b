package session

import (
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
)

// rowLimiter bounds the audit rows a tab's page sets off by itself: guard
// decisions, sends, downloads it starts and is refused (never the rows of
// the agent's own calls, consent, takeover, session or browser rows). Two
// bounds, one record of what they held back:
//
//   - Rate: each (tab, kind) may write a burst of rowBurst rows and then
//     rowRate a second.
//   - Budget: each tab may write at most perDay bytes of them in any day
//     (LYRA_BROWSER_AUDIT_TAB_BYTES_PER_DAY): a token bucket of bytes that
//     holds a burst of perDay/budgetBurstDiv and refills at the rest over a
//     day. A tab whose next row does not fit is held, every kind of its
//     rows, until its bucket has refilled to a tenth of the burst.
//
// Rows held back are counted per (tab, kind), with their bytes and the
// first and last time, and written as one "suppressed" row each: when rows
// of that kind flow again, when the tab's budget refills, when the tab
// closes, or when the browser closes or lyrad stops. Nothing vanishes
// silently. A summary row is itself charged to its tab's budget (which may
// go into debt for it: it is always written).
type rowLimiter struct {
	mu      sync.Mutex
	perDay  int64 // bytes a tab may write a day; 0: no budget
	buckets map[[2]string]*bucket
	tabs    map[string]*tabBudget
}

// bucket is the rate of one (tab, kind) and what was held back of it.
type bucket struct {
	tokens float64
	last   time.Time
	held   heldBack
}

// heldBack counts the rows of one (tab, kind) that were not written.
type heldBack struct {
	count       int
	bytes       int64
	since, last time.Time
	rate        bool // held by the rate
	budget      bool // held by the tab's byte budget
}

func (h *heldBack) add(size int, now time.Time, budget bool) {
	if h.count == 0 {
		h.since = now
	}
	h.count++
	h.bytes += int64(size)
	h.last = now
	if budget {
		h.budget = true
	} else {
		h.rate = true
	}
}

// tabBudget is one tab's byte bucket.
type tabBudget struct {
	bytes float64
	last  time.Time
	held  bool // out of budget: nothing of the tab is written until it refills
}

// summary is what a "suppressed" row says.
type summary struct {
	tab, kind string
	heldBack
}

const (
	rowBurst = 100
	rowRate  = 20 // per second
	// maxBuckets bounds the limiter itself: a page that opens and closes
	// tabs cannot grow it without end.
	maxBuckets = 1024

	// DefaultAuditTabBytesPerDay is the per-tab audit budget when none is
	// set (LYRA_BROWSER_AUDIT_TAB_BYTES_PER_DAY).
	DefaultAuditTabBytesPerDay = 500 << 20
	// budgetBurstDiv: a tab's burst is its day's budget over this (5 MiB
	// of the default: some thousands of rows, more than a busy page
	// writes in minutes); the rest refills evenly over the day.
	budgetBurstDiv = 100
	// resumeDiv: a held tab writes again once its bucket holds the burst
	// over this (some 86 s after it ran out, for any budget).
	resumeDiv = 10
)

func (l *rowLimiter) burst() float64 { return float64(l.perDay) / budgetBurstDiv }

// rate is bytes a second: burst plus a day of it is the day's budget.
func (l *rowLimiter) rate() float64 {
	return (float64(l.perDay) - l.burst()) / (24 * time.Hour).Seconds()
}

// tabLocked returns tab's budget refilled to now.
func (l *rowLimiter) tabLocked(tab string, now time.Time) *tabBudget {
	if l.tabs == nil {
		l.tabs = map[string]*tabBudget{}
	}
	t := l.tabs[tab]
	if t == nil {
		if len(l.tabs) >= maxBuckets {
			for k, old := range l.tabs {
				l.refillLocked(old, now)
				if !old.held && old.bytes >= l.burst() {
					delete(l.tabs, k) // as good as new
				}
			}
		}
		t = &tabBudget{bytes: l.burst(), last: now}
		l.tabs[tab] = t
	}
	l.refillLocked(t, now)
	return t
}

func (l *rowLimiter) refillLocked(t *tabBudget, now time.Time) {
	if now.After(t.last) {
		t.bytes = min(l.burst(), t.bytes+now.Sub(t.last).Seconds()*l.rate())
		t.last = now
	}
}

// decision is what allow says of one row.
type decision struct {
	write bool      // write the row
	due   []summary // to be written first
	held  bool      // the tab ran out of budget with this row
}

// allow decides whether a row of kind from tab, size bytes as written, is
// written now, and which summaries of rows held back are due before it.
func (l *rowLimiter) allow(tab, kind string, size int, now time.Time) decision {
	l.mu.Lock()
	defer l.mu.Unlock()
	var d decision
	var t *tabBudget
	if l.perDay > 0 {
		t = l.tabLocked(tab, now)
		if t.held && t.bytes >= l.burst()/resumeDiv {
			t.held = false
			d.due = l.takeLocked(tab)
		}
	}
	if l.buckets == nil {
		l.buckets = map[[2]string]*bucket{}
	}
	k := [2]string{tab, kind}
	b := l.buckets[k]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			for k, old := range l.buckets {
				if old.held.count == 0 {
					delete(l.buckets, k)
				}
			}
		}
		b = &bucket{tokens: rowBurst, last: now}
		l.buckets[k] = b
	}
	if now.After(b.last) {
		b.tokens = min(rowBurst, b.tokens+now.Sub(b.last).Seconds()*rowRate)
		b.last = now
	}
	switch {
	case t != nil && t.held:
		b.held.add(size, now, true)
	case b.tokens < 1:
		b.held.add(size, now, false)
	case t != nil && t.bytes < float64(size):
		t.held = true
		d.held = true
		b.held.add(size, now, true)
	default:
		b.tokens--
		if t != nil {
			t.bytes -= float64(size)
		}
		if b.held.count > 0 {
			d.due = append(d.due, summary{tab, kind, b.held})
			b.held = heldBack{}
		}
		d.write = true
	}
	return d
}

// takeLocked returns and clears what was held back of tab's rows.
func (l *rowLimiter) takeLocked(tab string) []summary {
	var out []summary
	for k, b := range l.buckets {
		if k[0] == tab && b.held.count > 0 {
			out = append(out, summary{k[0], k[1], b.held})
			b.held = heldBack{}
		}
	}
	return out
}

// charge takes n bytes, a summary written, from tab's budget; it may go
// into debt.
func (l *rowLimiter) charge(tab string, n int, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perDay <= 0 {
		return
	}
	l.tabLocked(tab, now).bytes -= float64(n)
}

// refilled lets the held tabs whose budget refilled by now write again,
// returning what they held back, and says when the next held tab refills
// (0: none is held).
func (l *rowLimiter) refilled(now time.Time) (due []summary, next time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perDay <= 0 {
		return nil, 0
	}
	level := l.burst() / resumeDiv
	for tab, t := range l.tabs {
		if !t.held {
			continue
		}
		l.refillLocked(t, now)
		if t.bytes >= level {
			t.held = false
			due = append(due, l.takeLocked(tab)...)
			continue
		}
		wait := time.Duration((level-t.bytes)/l.rate()*float64(time.Second)) + time.Millisecond
		if next == 0 || wait < next {
			next = wait
		}
	}
	return due, next
}

// drain returns what was held back of tab ("" for all) and forgets it.
func (l *rowLimiter) drain(tab string) []summary {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []summary
	for k, b := range l.buckets {
		if tab != "" && k[0] != tab {
			continue
		}
		if b.held.count > 0 {
			out = append(out, summary{k[0], k[1], b.held})
		}
		delete(l.buckets, k)
	}
	for k := range l.tabs {
		if tab == "" || k == tab {
			delete(l.tabs, k)
		}
	}
	return out
}

// auditBudget is the audit rows a tab's page sets off by itself, written
// within the rate and byte budget of rowLimiter, and the timer that writes
// what a held tab held back once its budget refilled. Its locks (the
// limiter's and the timer's) are taken one at a time and never held while
// writing to the trail or asking who drives.
type auditBudget struct {
	// Set by New, read-only after.
	trail *audit.Log
	log   *zap.Logger
	owner func() string // the session driving, for the rows the timer writes

	rows   rowLimiter
	refill refillTimer
}

// write writes r unless its tab has written too many rows of this kind
// lately, or too many bytes today; what it held back is summed up in rows
// of their own.
func (a *auditBudget) write(tab, kind string, r audit.Row) {
	line, err := audit.Encode(r)
	if err != nil {
		a.log.Error("audit encode failed", zap.Error(err))
		return
	}
	d := a.rows.allow(tab, kind, line.Len(), time.Now())
	for _, s := range d.due {
		a.writeSummary(r.Session, s, true)
	}
	if d.write {
		if err := a.trail.WriteLine(line); err != nil {
			a.log.Error("audit write failed", zap.Error(err))
		}
	}
	if d.held {
		a.armRefill()
	}
}

// writeSummary writes one "suppressed" row; charge: take its bytes from
// the tab's budget (not for a tab that is gone).
func (a *auditBudget) writeSummary(session string, s summary, charge bool) {
	extra := audit.Fields{
		"of_kind": s.kind, "tab_id": s.tab, "count": s.count, "bytes": s.bytes,
		"since": s.since.UTC().Format(time.RFC3339Nano), "last": s.last.UTC().Format(time.RFC3339Nano),
	}
	switch {
	case s.rate && s.budget:
		extra["limit"] = "rate+budget"
	case s.budget:
		extra["limit"] = "budget"
	default:
		extra["limit"] = "rate"
	}
	if s.budget {
		extra["tab_bytes_per_day"] = a.rows.perDay
	}
	line, err := audit.Encode(audit.Row{Kind: "suppressed", Session: session, Status: s.kind, Extra: extra})
	if err != nil {
		a.log.Error("audit encode failed", zap.Error(err))
		return
	}
	if charge {
		a.rows.charge(s.tab, line.Len(), time.Now())
	}
	if err := a.trail.WriteLine(line); err != nil {
		a.log.Error("audit write failed", zap.Error(err))
	}
}

// armRefill sets the timer that writes a held tab's summaries once its
// budget refilled, though the page sends nothing more.
func (a *auditBudget) armRefill() {
	_, next := a.rows.refilledPeek(time.Now())
	if next <= 0 {
		return
	}
	at := time.Now().Add(next)
	a.refill.Lock()
	defer a.refill.Unlock()
	if a.refill.timer != nil && !a.refill.at.After(at) {
		return
	}
	if a.refill.timer != nil {
		a.refill.timer.Stop()
	}
	a.refill.at = at
	a.refill.timer = time.AfterFunc(next, a.flushRefilled)
}

// flushRefilled writes the summaries of the tabs whose budget refilled.
func (a *auditBudget) flushRefilled() {
	a.refill.Lock()
	a.refill.timer = nil
	a.refill.Unlock()
	due, _ := a.rows.refilled(time.Now())
	owner := a.owner()
	for _, s := range due {
		a.writeSummary(owner, s, true)
	}
	a.armRefill()
}

// refillTimer is armRefill's one timer.
type refillTimer struct {
	sync.Mutex
	timer *time.Timer
	at    time.Time
}

// refilledPeek says when the next held tab refills, changing nothing.
func (l *rowLimiter) refilledPeek(now time.Time) (n int, next time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perDay <= 0 {
		return 0, 0
	}
	level := l.burst() / resumeDiv
	for _, t := range l.tabs {
		if !t.held {
			continue
		}
		n++
		b := t.bytes
		if now.After(t.last) {
			b = min(l.burst(), b+now.Sub(t.last).Seconds()*l.rate())
		}
		wait := time.Duration(max(0, level-b)/l.rate()*float64(time.Second)) + time.Millisecond
		if next == 0 || wait < next {
			next = wait
		}
	}
	return n, next
}

// flush writes what the limiter held back for tab ("" for all): a tab
// that closed, or a browser that ended. It never asks who drives.
func (a *auditBudget) flush(session, tab string) {
	for _, s := range a.rows.drain(tab) {
		a.writeSummary(session, s, false)
	}
}
