// Package session owns the browser's life and the rules around it: launch,
// the profile lock, which MCP session drives, and what happens when the guard
// is lost. Tools ask it to act; it never speaks MCP.
package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/policy"
)

// Caller is the MCP session a call comes from.
type Caller struct {
	ID string
	// Client is the name the client gave in initialize (clientInfo.name)
	// and Door the front door it came through ("stdio" for stdio and the
	// socket `lyrad stdio` relays to, "http"): a session that ended is
	// resumed by a new one with the same two (reconnect.go).
	Client string
	Door   string
	// Proof is the front door's word on which program this is (the
	// socket's peer credentials, an HTTP resume token's hash): a held
	// window is resumed only with the same (reconnect.go). Peer says what
	// it is of, for the audit. Empty: no proof.
	Proof string
	Peer  string

	// Tool is the tool this call runs, and Consent how it can reach its
	// user (nil: it cannot ask); both are the call's, not the session's.
	Tool    string
	Consent *ConsentIO
}

// Manager is the one browser of a data directory and who drives it.
type Manager struct {
	cfg Config
	log *zap.Logger

	// life serialises launching and closing, which are slow; mu guards the
	// fields below and is never held across a CDP call.
	life sync.Mutex
	mu   sync.Mutex

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

	grants   *policy.Grants
	rows     rowLimiter  // audit rows a tab's page sets off, bounded (auditbudget.go)
	refill   refillTimer // writes a held tab's summaries when its budget refills
	calls    calls       // the acting call under way, for the sends it sets off
	checks   sendChecks  // the send check armed in a page (act.armSends)
	asks     pendingAsks // consent asked of a session through its client and not yet answered
	dl       dlStore     // the download directory
	takeover takeovers   // the user holding the browser (takeover.go)

	// handedOff is told, outside mu and on its own goroutine, when a
	// session's turn ends while it may still be connected (OnHandedOff).
	handedOff []func(id, message string)

	// dying counts browsers that were killed or quit but whose profile
	// lock is not released yet; a new launch waits for them so it gets the
	// persistent profile rather than a private instance.
	dying sync.WaitGroup
}

// New returns a Manager. Nothing is launched until a tool asks.
func New(cfg Config) *Manager {
	cfg.defaults()
	m := &Manager{cfg: cfg, log: cfg.Logger, grants: policy.NewGrants(cfg.GrantTTL, nil), asks: pendingAsks{timeout: cfg.ConsentTimeout}}
	m.rows.perDay = max(0, cfg.AuditTabBytesPerDay)
	return m
}

// Audit is the trail this manager writes to.
func (m *Manager) Audit() *audit.Log { return m.cfg.Audit }

// access says what a call needs before it may run.
type access int

const (
	read   access = iota // reads: checks who drives, never claims
	mutate               // mutating calls: the first one claims the browser
	closeCall
)

// enter applies "one browser, one session" and the guard-lost rule to a
// call. The returned func ends the call; it must be called.
func (m *Manager) enter(ctx context.Context, c Caller, a access) (*Browser, func(), error) {
	b, err := m.admit(c, a)
	var se *Error
	if a == mutate && errors.As(err, &se) && se.handoff {
		// Another session drives: this one's user may be asked to take
		// the browser over (handoff.go).
		if err = m.askHandoff(ctx, c, se); err == nil {
			b, err = m.admit(c, a)
		}
	}
	if err != nil {
		return nil, func() {}, err
	}
	m.mu.Lock()
	m.inflight++
	m.mu.Unlock()
	return b, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.inflight--
		if m.owner == c.ID {
			m.touchLocked()
		}
	}, nil
}

// quietFor: no call is under way and none ended within d.
func (m *Manager) quietFor(d time.Duration) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.inflight == 0 && time.Since(m.lastUse) >= d
}

// idleLocked: the owner has made no call for the idle timeout and has none
// under way.
func (m *Manager) idleLocked() bool {
	return m.inflight == 0 && time.Since(m.lastUse) >= m.cfg.OwnerIdleTimeout
}

func (m *Manager) admit(c Caller, a access) (*Browser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, newError(StatusError, "lyrad is shutting down", "Reconnect when it is back.")
	}
	if err := m.admitHeldLocked(c); err != nil {
		return nil, err
	}
	if m.owner != "" && m.owner != c.ID && m.supersedeLocked(c) {
		// The driver's own program again, over a new HTTP session: it
		// takes its turn on (reconnect.go).
	} else if m.owner != "" && m.owner != c.ID {
		if !m.idleLocked() {
			return nil, m.conflictLocked()
		}
		// The holder went quiet: hand on. The window closes, because a
		// running browser would carry the previous holder's document.
		m.handoffLocked("owner_idle")
	}
	if m.guardLost && a != closeCall {
		return nil, newError(StatusGuardLost,
			"the connection that guards the browser was lost, so the browser was killed",
			"Call close_browser to acknowledge; the next open_browser starts a fresh, guarded browser.")
	}
	if a != read || m.owner == c.ID {
		if m.owner == "" && a == mutate {
			m.claimLocked(c)
			m.audit(audit.Row{Kind: "session", Session: c.ID, Status: "driver"})
		}
		if m.owner == c.ID {
			m.touchLocked()
		}
	}
	return m.browser, nil
}

// touchLocked records use by the owner and re-arms the idle timer.
func (m *Manager) touchLocked() {
	m.lastUse = time.Now()
	if m.idle == nil {
		m.idle = time.AfterFunc(m.cfg.OwnerIdleTimeout, m.idleCheck)
		return
	}
	m.idle.Reset(m.cfg.OwnerIdleTimeout)
}

func (m *Manager) idleCheck() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.owner == "" {
		return
	}
	if !m.idleLocked() {
		// Re-armed by the call under way when it ends, or here.
		if left := m.cfg.OwnerIdleTimeout - time.Since(m.lastUse); left > 0 {
			m.idle.Reset(left)
		}
		return
	}
	m.handoffLocked("owner_idle")
}

// claimLocked makes c the driver.
func (m *Manager) claimLocked(c Caller) {
	m.owner, m.ownerCaller, m.ownerSince = c.ID, c, time.Now()
}

// handoffLocked ends the current owner's turn: grants go, the window closes.
func (m *Manager) handoffLocked(reason string) {
	prev := m.owner
	m.owner = ""
	m.grants.DropSession(prev)
	m.closeWindowLocked(prev, reason)
	if msg := handedOffMessage(reason); msg != "" {
		for _, fn := range m.handedOff {
			go fn(prev, msg)
		}
	}
}

// OnHandedOff registers fn to be told when a session still connected loses
// the browser (another client's user took it over, or it went idle), so
// the front door can tell that client at once rather than on its next
// call. fn must not call back into the Manager synchronously.
func (m *Manager) OnHandedOff(fn func(id, message string)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.handedOff = append(m.handedOff, fn)
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
func (m *Manager) closeWindowLocked(prev, reason string) {
	b := m.browser
	m.browser = nil
	m.audit(audit.Row{Kind: "session", Session: prev, Status: "handoff", Extra: map[string]any{"reason": reason}})
	if b != nil {
		m.dying.Add(1)
		go func() {
			defer m.dying.Done()
			b.shutdownAndRelease()
		}()
	}
}

// SessionEnded is told when an MCP session goes away (a stdio client
// disconnected, an HTTP session deleted or timed out). A driver that
// disconnects keeps its window for the reconnect grace (reconnect.go), or
// hands the browser on at once when there is none, instead of holding it
// until the idle timeout.
func (m *Manager) SessionEnded(id string) {
	m.asks.dropSession(id) // its questions can no longer be answered
	m.mu.Lock()
	defer m.mu.Unlock()
	if id != "" {
		m.audit(audit.Row{Kind: "session", Session: id, Status: "ended"})
	}
	delete(m.superseded, id)
	if m.owner == id && id != "" {
		if m.holdLocked() {
			return
		}
		m.handoffLocked("session_ended")
	}
}

// OpenInfo is what open_browser answers.
type OpenInfo struct {
	AlreadyOpen bool
	Attended    bool
	Profile     string // "persistent" or "instance"
	Browser     string // product and version
	Channel     string
	URL         string
	Title       string
	TabCount    int
}

// Open launches (or focuses) the shared browser.
func (m *Manager) Open(ctx context.Context, c Caller) (*OpenInfo, error) {
	_, done, err := m.enter(ctx, c, mutate)
	defer done()
	if err != nil {
		return nil, err
	}
	m.life.Lock()
	defer m.life.Unlock()
	m.mu.Lock()
	b := m.browser
	m.mu.Unlock()
	if b != nil {
		info := m.openInfo(ctx, b)
		info.AlreadyOpen = true
		return info, nil
	}
	m.dying.Wait()
	b, err = m.launch(ctx)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.closed || m.owner != c.ID {
		// Shut down, or handed on, while we were launching.
		m.mu.Unlock()
		b.shutdownAndRelease()
		return nil, newError(StatusSessionConflict, "the browser was handed on while it was starting", "Call open_browser again.")
	}
	m.browser = b
	m.mu.Unlock()
	m.audit(audit.Row{Kind: "browser", Session: c.ID, Status: "opened", Extra: map[string]any{
		"attended": b.headful, "profile": b.profile.Kind, "channel": b.found.Channel, "starts": b.starts, "ua_hints": b.hints}})
	return m.openInfo(ctx, b), nil
}

func (m *Manager) openInfo(ctx context.Context, b *Browser) *OpenInfo {
	info := &OpenInfo{Attended: b.headful, Profile: b.profile.Kind, Channel: b.found.Channel, TabCount: len(b.pages())}
	if t, err := b.activePage(ctx); err == nil {
		info.URL, info.Title = t.URL, t.Title
	}
	return info
}

// CloseBrowser ends the turn: the window goes, the grants with it, and the
// next session may claim the browser. Owner-only.
func (m *Manager) CloseBrowser(ctx context.Context, c Caller) (wasOpen bool, err error) {
	m.mu.Lock()
	if err := m.closeHeldLocked(c); err != nil {
		m.mu.Unlock()
		return false, err
	}
	if m.owner != "" && m.owner != c.ID && !m.idleLocked() && !m.supersedeLocked(c) {
		// (The driver's own program over a new HTTP session may: it takes
		// its turn on, then closes.)
		e := m.conflictLocked()
		e.Message = "only the session driving the browser may close it: " + e.Message
		e.handoff = false
		m.mu.Unlock()
		return false, e
	}
	b := m.browser
	lost := m.guardLost
	m.browser = nil
	m.guardLost = false
	m.grants.DropSession(m.owner)
	m.owner = ""
	if m.idle != nil {
		m.idle.Stop()
	}
	m.mu.Unlock()
	m.life.Lock()
	defer m.life.Unlock()
	if b != nil {
		b.shutdownAndRelease()
		m.clearUploads()
	}
	m.flushSuppressed(c.ID, "")
	if b != nil || lost {
		m.audit(audit.Row{Kind: "browser", Session: c.ID, Status: "closed", Extra: map[string]any{"guard_lost_acknowledged": lost}})
	}
	return b != nil || lost, nil
}

// Shutdown closes the browser and refuses further calls (SIGINT, SIGTERM, SIGHUP).
func (m *Manager) Shutdown() {
	m.mu.Lock()
	m.closed = true
	m.dropHoldLocked()
	b := m.browser
	m.browser = nil
	if m.idle != nil {
		m.idle.Stop()
	}
	m.mu.Unlock()
	m.life.Lock()
	defer m.life.Unlock()
	if b != nil {
		b.shutdownAndRelease()
		m.clearUploads()
	}
	// Also what a browser lost or quit before held back.
	m.flushSuppressed("", "")
	if b != nil {
		m.audit(audit.Row{Kind: "browser", Status: "closed", Extra: map[string]any{"reason": "shutdown"}})
	}
	// A browser handed on or lost just before must be gone too.
	m.dying.Wait()
}

func (b *Browser) shutdownAndRelease() {
	b.shutdown(3 * time.Second)
	if b.release != nil {
		b.release()
	}
}

// onRefuse keeps a refused navigation for the acting call that set it off.
// A refused subresource moves no tab: the trail has it.
func (m *Manager) onRefuse(b *Browser, r cdpguard.Request, v cdpguard.Verdict) {
	if !r.Subresource {
		b.refused.add(newRefusal(r, v))
	}
}

func (m *Manager) onDecision(b *Browser, r cdpguard.Request, v cdpguard.Verdict, took time.Duration) {
	if !v.Allow {
		b.closeRefusedPopup(r)
	}
	verdict := "allow"
	if !v.Allow {
		verdict = "deny"
	}
	extra := map[string]any{
		"verdict":       verdict,
		"reason":        v.Reason,
		"request_url":   r.URL,
		"method":        r.Method,
		"has_body":      r.HasBody,
		"resource_type": string(r.ResourceType),
		"target_type":   r.TargetType,
		"target_id":     string(r.TargetID),
		"tab_id":        string(r.TabID),
		"judge_ms":      float64(took.Microseconds()) / 1000,
	}
	if r.RedirectFrom != "" {
		extra["redirect_from"] = r.RedirectFrom
	}
	for k, val := range v.Fields {
		extra[k] = val
	}
	kind := "guard"
	if r.Subresource {
		kind = "send"
		delete(extra, "request_url") // a send is recorded by its destination
		if call := m.calls.following(time.Now()); call != "" {
			extra["after_call"] = call
		}
	}
	m.limitedAudit(string(r.TabID), kind+"/"+verdict, audit.Row{Kind: kind, Session: m.ownerID(), Status: verdict, Extra: extra})
}

// onGuardFailure: a target the guard could not set up may be running
// unguarded, which is the same event as losing the connection.
func (m *Manager) onGuardFailure(b *Browser, err error) {
	m.loseGuard(b, "target_unguarded", err)
}

// onConnLost tells a browser that quit by itself (crash, last window
// closed) apart from a connection lost under a running browser, which is
// killed at once: Chrome releases every held request the moment the
// connection ends.
func (m *Manager) onConnLost(b *Browser, err error) {
	if b.closing.Load() {
		return
	}
	if b.proc.Gone() {
		m.browserQuit(b)
		return
	}
	if len(b.pages()) > 0 {
		m.loseGuard(b, "connection_lost", err)
		return
	}
	// No tab open: a browser whose last window was closed leaves within
	// 300 ms.
	select {
	case <-b.proc.Done():
		m.browserQuit(b)
	case <-time.After(300 * time.Millisecond):
		m.loseGuard(b, "connection_lost", err)
	}
}

func (m *Manager) loseGuard(b *Browser, reason string, err error) {
	if b.closing.Swap(true) {
		return
	}
	start := time.Now()
	// Every call answers guard_lost from here on; then the kill, before
	// anything slower. (m.mu is never held across a browser call.)
	m.mu.Lock()
	if m.browser == b {
		m.browser = nil
		m.guardLost = true
	}
	owner := m.owner
	m.dying.Add(1)
	m.mu.Unlock()
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
	m.log.Error("guard lost; browser killed", zap.String("reason", reason), zap.String("error", msg))
	m.audit(audit.Row{Kind: "guard_lost", Session: owner, Status: StatusGuardLost, Extra: map[string]any{"reason": reason, "error": msg}})
	m.flushSuppressed(owner, "")
	go func() {
		defer m.dying.Done()
		select {
		case <-b.proc.Done():
		case <-time.After(5 * time.Second):
		}
		m.audit(audit.Row{Kind: "browser", Session: owner, Status: "killed", Extra: map[string]any{
			"exit_ms": float64(time.Since(start).Microseconds()) / 1000, "exited": b.proc.Exited()}})
		if b.release != nil {
			b.release()
		}
	}()
}

func (m *Manager) browserQuit(b *Browser) {
	if b.closing.Swap(true) {
		return
	}
	if b.guard != nil {
		b.guard.Stop()
	}
	b.proc.Kill()
	m.mu.Lock()
	if m.browser == b {
		m.browser = nil
	}
	owner := m.owner
	m.dying.Add(1)
	m.mu.Unlock()
	m.audit(audit.Row{Kind: "browser", Session: owner, Status: "quit", Extra: map[string]any{"reason": "the browser exited by itself"}})
	m.flushSuppressed(owner, "")
	go func() {
		defer m.dying.Done()
		select {
		case <-b.proc.Done():
		case <-time.After(5 * time.Second):
		}
		if b.release != nil {
			b.release()
		}
	}()
}

func (m *Manager) onTarget(b *Browser, ev cdpguard.TargetEvent) {
	switch ev.Kind {
	case "attached":
		// The session follows onto a tab the active page opened.
		b.follow(ev.Target)
		if m.takeover.active(b) != nil {
			go m.bannerOnNewTab(b, ev.Target)
		}
	case "detached":
		defer b.forget(ev.Target.ID)
		defer m.flushSuppressed(m.ownerID(), string(ev.Target.ID))
		if ev.Target.ID == b.activeID() {
			// Back to the opener when it is still there; activePage picks
			// the newest otherwise. (No guard yet: a tab closed while the
			// guard is being started.)
			if g := b.guardSet(); g != nil {
				if _, ok := g.Page(ev.Target.OpenerID); ok {
					b.setActive(ev.Target.OpenerID)
				}
			}
		}
	}
}

func (m *Manager) audit(r audit.Row) {
	if err := m.cfg.Audit.Write(r); err != nil {
		m.log.Error("audit write failed", zap.Error(err))
	}
}
