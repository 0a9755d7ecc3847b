package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/policy"
)

// ownership is the one browser of a data directory and whose turn it is to
// drive it: the window, the driver and its idle timer, a disconnected
// driver's turn kept for its client (reconnect.go), the handing on of a
// turn (handoff.go), and the browsers whose turn ended but whose profile
// lock is not released yet. One lock guards it all because they change
// together: a turn that ends closes its window, and a call is admitted
// against the browser that is open as it is admitted.
//
// It never holds mu across a browser call, nor while calling the
// audit budget (flush) or a handed-off listener. Under mu it may take the
// grants' lock (a turn's grants go with it) and the audit trail's.
type ownership struct {
	// Set by New, read-only after.
	cfg    *Config
	log    *zap.Logger
	grants *policy.Grants
	asks   *pendingAsks // consent asked of a session (handoff.go)
	// approvals are the questions the user answers at the terminal
	// (approvals.go): a handoff asked of a client that cannot ask.
	approvals *approvals
	audit     func(audit.Row)           // the trail
	flush     func(session, tab string) // what the audit budget held back (auditbudget.go)

	mu          sync.Mutex
	browser     *Browser
	guardLost   bool
	owner       string
	ownerCaller Caller          // the owner's Caller, from claimLocked; trusted only while its ID is owner
	ownerSince  time.Time       // when the owner took the browser
	hold        *held           // a disconnected driver's turn, kept for the reconnect grace
	superseded  map[string]bool // sessions whose turn a new session of the same client took (reconnect.go)
	lastUse     time.Time
	inflight    int // the owner's calls under way: a driver mid-call is not idle
	idle        *time.Timer
	closed      bool // Shutdown was called

	// handedOff is told, outside mu and on its own goroutine, when a
	// session's turn ends while it may still be connected (OnHandedOff).
	handedOff []func(id, message string)

	// dying counts browsers that were killed or quit but whose profile
	// lock is not released yet; a new launch waits for them so it gets the
	// persistent profile rather than a private instance. Added to under mu,
	// with the browser taken away, so that whoever sees no browser waits.
	dying sync.WaitGroup
}

// access says what a call needs before it may run.
type access int

const (
	read   access = iota // reads: checks who drives, never claims
	mutate               // mutating calls: the first one claims the browser
	closeCall
)

// enter applies "one browser, one session" and the guard-lost rule to a
// call. The returned func ends the call; it must be called.
func (o *ownership) enter(ctx context.Context, c Caller, a access) (*Browser, func(), error) {
	b, err := o.admit(c, a)
	var se *Error
	if a == mutate && errors.As(err, &se) && se.handoff {
		// Another session drives: this one's user may be asked to take
		// the browser over (handoff.go).
		if err = o.askHandoff(ctx, c, se); err == nil {
			b, err = o.admit(c, a)
		}
	}
	if err != nil {
		return nil, func() {}, err
	}
	o.mu.Lock()
	o.inflight++
	o.mu.Unlock()
	return b, func() {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.inflight--
		if o.owner == c.ID {
			o.touchLocked()
		}
	}, nil
}

// quietFor: no call is under way and none ended within d.
func (o *ownership) quietFor(d time.Duration) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.inflight == 0 && time.Since(o.lastUse) >= d
}

// idleLocked: the owner has made no call for the idle timeout and has none
// under way.
func (o *ownership) idleLocked() bool {
	return o.inflight == 0 && time.Since(o.lastUse) >= o.cfg.OwnerIdleTimeout
}

func (o *ownership) admit(c Caller, a access) (*Browser, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return nil, newError(StatusError, "lyrad is shutting down", "Reconnect when it is back.")
	}
	if err := o.admitHeldLocked(c); err != nil {
		return nil, err
	}
	if o.owner != "" && o.owner != c.ID && o.supersedeLocked(c) {
		// The driver's own program again, over a new HTTP session: it
		// takes its turn on (reconnect.go).
	} else if o.owner != "" && o.owner != c.ID {
		if !o.idleLocked() {
			return nil, o.conflictLocked()
		}
		// The holder went quiet: hand on. The window closes, because a
		// running browser would carry the previous holder's document.
		o.handoffLocked("owner_idle")
	}
	if o.guardLost && a != closeCall {
		return nil, newError(StatusGuardLost,
			"the connection that guards the browser was lost, so the browser was killed",
			"Call close_browser to acknowledge; the next open_browser starts a fresh, guarded browser.")
	}
	if a != read || o.owner == c.ID {
		if o.owner == "" && a == mutate {
			o.claimLocked(c)
			o.audit(audit.Row{Kind: "session", Session: c.ID, Status: "driver"})
		}
		if o.owner == c.ID {
			o.touchLocked()
		}
	}
	return o.browser, nil
}

// touchLocked records use by the owner and re-arms the idle timer.
func (o *ownership) touchLocked() {
	o.lastUse = time.Now()
	if o.idle == nil {
		o.idle = time.AfterFunc(o.cfg.OwnerIdleTimeout, o.idleCheck)
		return
	}
	o.idle.Reset(o.cfg.OwnerIdleTimeout)
}

func (o *ownership) idleCheck() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.owner == "" {
		return
	}
	if !o.idleLocked() {
		// Re-armed by the call under way when it ends, or here.
		if left := o.cfg.OwnerIdleTimeout - time.Since(o.lastUse); left > 0 {
			o.idle.Reset(left)
		}
		return
	}
	o.handoffLocked("owner_idle")
}

// claimLocked makes c the driver.
func (o *ownership) claimLocked(c Caller) {
	o.owner, o.ownerCaller, o.ownerSince = c.ID, c, time.Now()
}

// handoffLocked ends the current owner's turn: grants go, the window closes.
func (o *ownership) handoffLocked(reason string) {
	prev := o.owner
	o.owner = ""
	o.grants.DropSession(prev)
	o.closeWindowLocked(prev, reason)
	if msg := handedOffMessage(reason); msg != "" {
		for _, fn := range o.handedOff {
			go fn(prev, msg)
		}
	}
}

// onHandedOff registers fn (Manager.OnHandedOff).
func (o *ownership) onHandedOff(fn func(id, message string)) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.handedOff = append(o.handedOff, fn)
}

func handedOffMessage(reason string) string {
	switch reason {
	case "taken_over":
		return "Another MCP client's user took the browser over: this session's window is closed and its grants are gone. Its next call answers session_conflict."
	case "owner_idle":
		return "This session was idle for LYRA_BROWSER_OWNER_IDLE_TIMEOUT: its window is closed and its grants are gone. Call open_browser to drive again."
	}
	return ""
}

// closeWindowLocked closes the browser of a turn that ended (prev's), so
// the next driver never sees the previous one's documents.
func (o *ownership) closeWindowLocked(prev, reason string) {
	b := o.browser
	o.browser = nil
	o.audit(audit.Row{Kind: "session", Session: prev, Status: "handoff", Extra: audit.Fields{"reason": reason}})
	if b != nil {
		o.dying.Add(1)
		go func() {
			defer o.dying.Done()
			b.shutdownAndRelease()
		}()
	}
}

// sessionEnded: a driver that disconnects keeps its window for the
// reconnect grace (reconnect.go), or hands the browser on at once when
// there is none.
func (o *ownership) sessionEnded(id string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if id != "" {
		o.audit(audit.Row{Kind: "session", Session: id, Status: "ended"})
	}
	delete(o.superseded, id)
	if o.owner == id && id != "" {
		if o.holdLocked() {
			return
		}
		o.handoffLocked("session_ended")
	}
}

// current is the browser, or nil.
func (o *ownership) current() *Browser {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.browser
}

// ownerID is the session driving, or "".
func (o *ownership) ownerID() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.owner
}

// waitReleased waits for the browsers whose turn ended to release the
// profile.
func (o *ownership) waitReleased() { o.dying.Wait() }

// adopt makes b, just launched for c, the browser, unless lyrad shut down
// or c's turn was handed on while it was starting; then the caller shuts b
// down.
func (o *ownership) adopt(b *Browser, c Caller) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed || o.owner != c.ID {
		return newError(StatusSessionConflict, "the browser was handed on while it was starting", "Call open_browser again.")
	}
	o.browser = b
	return nil
}

// close ends c's turn for close_browser: it takes the browser away (the
// caller shuts it down) and says whether a lost guard was acknowledged.
// Owner-only.
func (o *ownership) close(c Caller) (b *Browser, lost bool, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if err := o.closeHeldLocked(c); err != nil {
		return nil, false, err
	}
	if o.owner != "" && o.owner != c.ID && !o.idleLocked() && !o.supersedeLocked(c) {
		// (The driver's own program over a new HTTP session may: it takes
		// its turn on, then closes.)
		e := o.conflictLocked()
		e.Message = "only the session driving the browser may close it: " + e.Message
		e.handoff = false
		return nil, false, e
	}
	b, lost = o.browser, o.guardLost
	o.browser = nil
	o.guardLost = false
	o.grants.DropSession(o.owner)
	o.owner = ""
	if o.idle != nil {
		o.idle.Stop()
	}
	return b, lost, nil
}

// shutdown refuses every later call and takes the browser away (the caller
// shuts it down).
func (o *ownership) shutdown() *Browser {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.closed = true
	o.dropHoldLocked()
	b := o.browser
	o.browser = nil
	if o.idle != nil {
		o.idle.Stop()
	}
	return b
}

// status is the operator's view of who drives and of a held turn, and the
// browser open.
func (o *ownership) status() (Status, *Browser, string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	st := Status{GuardLost: o.guardLost}
	if o.owner != "" {
		c := o.ownerCaller
		st.Driver = &DriverStatus{Session: o.owner, Client: c.Client, Door: c.Door, IdleFor: time.Since(o.lastUse).Round(time.Second)}
	}
	if h := o.hold; h != nil {
		st.Held = &HeldStatus{Session: h.from, Client: h.client, Door: h.door, Since: h.since, Until: h.since.Add(o.cfg.ReconnectGrace)}
	}
	return st, o.browser, o.owner
}

// connLost tells a browser that quit by itself (crash, last window closed)
// apart from a connection lost under a running browser, which is killed at
// once: Chrome releases every held request the moment the connection ends.
func (o *ownership) connLost(b *Browser, err error) {
	if b.closing.Load() {
		return
	}
	if b.proc.Gone() {
		o.browserQuit(b)
		return
	}
	if len(b.pages()) > 0 {
		o.loseGuard(b, "connection_lost", err)
		return
	}
	// No tab open: a browser whose last window was closed leaves within
	// 300 ms.
	select {
	case <-b.proc.Done():
		o.browserQuit(b)
	case <-time.After(300 * time.Millisecond):
		o.loseGuard(b, "connection_lost", err)
	}
}

// loseGuard kills b, whose guard is lost (its connection, or a target the
// guard could not set up and that may run unguarded): every call answers
// guard_lost until close_browser.
func (o *ownership) loseGuard(b *Browser, reason string, err error) {
	if b.closing.Swap(true) {
		return
	}
	start := time.Now()
	// Every call answers guard_lost from here on; then the kill, before
	// anything slower. (mu is never held across a browser call.)
	o.mu.Lock()
	if o.browser == b {
		o.browser = nil
		o.guardLost = true
	}
	owner := o.owner
	o.dying.Add(1)
	o.mu.Unlock()
	b.proc.Kill()
	if b.conn != nil {
		b.conn.Abort()
	}
	if b.guard != nil {
		b.guard.Stop()
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	o.log.Error("guard lost; browser killed", zap.String("reason", reason), zap.String("error", msg))
	o.audit(audit.Row{Kind: "guard_lost", Session: owner, Status: StatusGuardLost, Extra: audit.Fields{"reason": reason, "error": msg}})
	o.flush(owner, "")
	go func() {
		defer o.dying.Done()
		select {
		case <-b.proc.Done():
		case <-time.After(5 * time.Second):
		}
		o.audit(audit.Row{Kind: "browser", Session: owner, Status: "killed", Extra: audit.Fields{
			"exit_ms": float64(time.Since(start).Microseconds()) / 1000, "exited": b.proc.Exited()}})
		if b.release != nil {
			b.release()
		}
	}()
}

// browserQuit: b exited by itself.
func (o *ownership) browserQuit(b *Browser) {
	if b.closing.Swap(true) {
		return
	}
	if b.guard != nil {
		b.guard.Stop()
	}
	b.proc.Kill()
	o.mu.Lock()
	if o.browser == b {
		o.browser = nil
	}
	owner := o.owner
	o.dying.Add(1)
	o.mu.Unlock()
	o.audit(audit.Row{Kind: "browser", Session: owner, Status: "quit", Extra: audit.Fields{"reason": "the browser exited by itself"}})
	o.flush(owner, "")
	go func() {
		defer o.dying.Done()
		select {
		case <-b.proc.Done():
		case <-time.After(5 * time.Second):
		}
		if b.release != nil {
			b.release()
		}
	}()
}
