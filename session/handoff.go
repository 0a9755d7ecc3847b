package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/lyrad/lyrad/audit"
)

// A consented handoff. One session drives; when another wants to act, its
// user can be asked whether to take the browser over, instead of waiting
// for the driver to close or go idle: "<client> has driven the browser for
// N min and was last active N s ago. Take over?". Yes hands the browser on
// as an idle handoff does (the driver's grants go and its window closes, so
// nothing of its documents is seen); the old session learns it with
// session_conflict on its next call. No leaves everything as it was. A
// client that cannot be asked gets session_conflict naming the holder and
// the ways out.

// conflictLocked is the session_conflict answer while another session
// drives, with the true waits: how long the driver may stay idle before it
// is handed on, and what happens when its client is gone.
func (m *Manager) conflictLocked() *Error {
	oc := m.ownerCaller
	holder := oc.Client
	if holder == "" {
		holder = "another MCP client"
	}
	idle := time.Since(m.lastUse).Round(time.Second)
	idleLeft := max(0, m.cfg.OwnerIdleTimeout-time.Since(m.lastUse)).Round(time.Second)
	then := "the browser is handed on at once"
	if grace := m.cfg.ReconnectGrace; grace > 0 && oc.Proof != "" && oc.Client != "" {
		then = fmt.Sprintf("its window is kept for its client to reconnect for the reconnect grace, %s (LYRA_BROWSER_RECONNECT_GRACE), then handed on", grace)
	}
	gone := " (when its client disconnects, " + then + ")"
	if oc.Door == "http" && m.cfg.HTTPSessionTimeout > 0 {
		// An HTTP client that quit without DELETE is known to be gone when
		// its session ends: nothing open for the timeout.
		gone = fmt.Sprintf(" (an HTTP client that quit without DELETE: its session ends within %s with nothing open, LYRA_BROWSER_HTTP_SESSION_TIMEOUT; then %s)", m.cfg.HTTPSessionTimeout, then)
	}
	e := newError(StatusSessionConflict,
		fmt.Sprintf("%s is driving the browser (last active %v ago)", holder, idle),
		"Ways out: that session calls close_browser or disconnects"+gone+"; or it stays idle "+idleLeft.String()+" more (LYRA_BROWSER_OWNER_IDLE_TIMEOUT, "+m.cfg.OwnerIdleTimeout.String()+") and the window is handed on; or, from a client that can ask its user (elicitation), the user agrees to take it over.").
		driving(&Holder{Client: holder, IdleTimeout: int(m.cfg.OwnerIdleTimeout.Seconds()), Idle: int(idle.Seconds()),
			IdleLeft: int(idleLeft.Seconds())})
	e.handoff = true
	return e
}

// askHandoff asks c's user whether to take the browser from the session
// driving it, and hands it on when they agree. conflict is the answer when
// they cannot be asked or say no.
func (m *Manager) askHandoff(ctx context.Context, c Caller, conflict *Error) error {
	io := c.consent()
	canAsk := m.cfg.ConsentChannel == ConsentAuto || m.cfg.ConsentChannel == ConsentElicit
	if !canAsk || (io.Elicit == nil && !io.Deferred) {
		return conflict
	}
	m.mu.Lock()
	owner, holder, since, last := m.owner, m.ownerCaller.Client, m.ownerSince, m.lastUse
	h := m.hold
	m.mu.Unlock()
	if owner == "" && h != nil {
		// A driver that disconnected, its window kept for it.
		owner, holder = h.from, h.client
	}
	if owner == "" || owner == c.ID {
		return nil // handed on meanwhile: admit again
	}
	// The name is the client's own (clientInfo.name): quoted on one line,
	// never lyrad's words (prompttext.go).
	if holder == "" {
		holder = "Another MCP client"
	} else {
		holder = "The MCP client named " + quoted(holder, maxNameRunes)
	}
	msg := fmt.Sprintf("%s has driven the browser for %d min and was last active %d s ago. Take over? Its window closes and its tabs end.",
		holder, int(time.Since(since).Minutes()), int(time.Since(last).Seconds()))
	if h != nil && owner == h.from {
		msg = fmt.Sprintf("%s disconnected %d s ago; its window is kept for it to reconnect. Take over? Its window closes and its tabs end.",
			holder, int(time.Since(h.since).Seconds()))
	}
	sum := sha256.Sum256([]byte("handoff\x00" + owner + "\x00" + c.ID))
	id := "handoff-" + hex.EncodeToString(sum[:12]) // stable while the same two sessions are concerned
	record := func(answer string) {
		m.audit(audit.Row{Kind: "consent", Session: c.ID, Status: answer, Extra: map[string]any{
			"capability": "HANDOFF", "from_session": owner, "consent_channel": "elicit"}})
	}
	var yes bool
	var answer string
	switch {
	case io.Elicit != nil:
		actx, cancel := context.WithTimeout(ctx, m.cfg.ConsentTimeout)
		ans, err := io.Elicit(actx, msg)
		cancel()
		if err != nil {
			record("error")
			return conflict
		}
		yes, answer = verdictOf(ans)
	default:
		ans, ok := io.Answers[id]
		if !ok {
			m.asks.add(c.ID, id, time.Now())
			return &ConsentNeeded{ID: id, Message: msg}
		}
		if pending, inTime := m.asks.take(c.ID, id, time.Now()); !pending || !inTime {
			record("declined")
			return conflict
		}
		yes, answer = verdictOf(ans)
	}
	record(answer)
	if !yes {
		return conflict.answered(answer)
	}
	m.mu.Lock()
	switch {
	case m.owner == owner:
		m.handoffLocked("taken_over")
	case h != nil && m.hold == h:
		m.dropHoldLocked()
		m.closeWindowLocked(h.from, "taken_over")
	}
	m.mu.Unlock()
	return nil
}
