package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/policy"
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
func (o *ownership) conflictLocked() *Error {
	oc := o.ownerCaller
	holder := oc.Client
	if holder == "" {
		holder = "another MCP client"
	}
	idle := time.Since(o.lastUse).Round(time.Second)
	idleLeft := max(0, o.cfg.OwnerIdleTimeout-time.Since(o.lastUse)).Round(time.Second)
	then := "the browser is handed on at once"
	if grace := o.cfg.ReconnectGrace; grace > 0 && oc.Proof != "" && oc.Client != "" {
		then = fmt.Sprintf("its window is kept for its client to reconnect for the reconnect grace, %s (LYRA_BROWSER_RECONNECT_GRACE), then handed on", grace)
	}
	gone := " (when its client disconnects, " + then + ")"
	if oc.Door == "http" && o.cfg.HTTPSessionTimeout > 0 {
		// An HTTP client that quit without DELETE is known to be gone when
		// its session ends: nothing open for the timeout.
		gone = fmt.Sprintf(" (an HTTP client that quit without DELETE: its session ends within %s with nothing open, LYRA_BROWSER_HTTP_SESSION_TIMEOUT; then %s)", o.cfg.HTTPSessionTimeout, then)
	}
	e := newError(StatusSessionConflict,
		fmt.Sprintf("%s is driving the browser (last active %v ago)", holder, idle),
		"Ways out: that session calls close_browser or disconnects"+gone+"; or it stays idle "+idleLeft.String()+" more (LYRA_BROWSER_OWNER_IDLE_TIMEOUT, "+o.cfg.OwnerIdleTimeout.String()+") and the window is handed on; or, from a client that can ask its user (elicitation), the user agrees to take it over.").
		driving(&Holder{Client: holder, IdleTimeout: int(o.cfg.OwnerIdleTimeout.Seconds()), Idle: int(idle.Seconds()),
			IdleLeft: int(idleLeft.Seconds())})
	e.handoff = true
	return e
}

// askHandoff asks c's user whether to take the browser from the session
// driving it, and hands it on when they agree. conflict is the answer when
// they cannot be asked or say no. A user who cannot be asked through the
// client (no elicitation, or an elicitation that failed) can answer at the
// terminal: conflict then carries an approval id (lyrad approve), which
// the session's repeat of the call finds (approvals.go).
func (o *ownership) askHandoff(ctx context.Context, c Caller, conflict *Error) error {
	io := c.consent()
	o.mu.Lock()
	owner, holder, since, last := o.owner, o.ownerCaller.Client, o.ownerSince, o.lastUse
	h := o.hold
	o.mu.Unlock()
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
	record := func(channel, answer string, extra audit.Fields) {
		f := audit.Fields{"capability": "HANDOFF", "from_session": owner, "consent_channel": channel}
		for k, v := range extra {
			f[k] = v
		}
		o.audit(audit.Row{Kind: "consent", Session: c.ID, Status: answer, Extra: f})
	}
	var yes bool
	var answer string
	canAsk := o.cfg.ConsentChannel == ConsentAuto || o.cfg.ConsentChannel == ConsentElicit
	state, aid := o.approvals.answer(c.ID, id, time.Now())
	switch {
	case state == ApprovalApproved:
		record(policy.ChannelCLI, "accepted", audit.Fields{"consent_reason": "lyrad approve", "approval_id": aid})
		yes, answer = true, "accepted"
	case state == ApprovalDenied:
		record(policy.ChannelCLI, "declined", audit.Fields{"consent_reason": "lyrad approve --deny", "approval_id": aid})
		return conflict.answered("declined")
	case !canAsk || (io.Elicit == nil && !io.Deferred):
		return o.pendHandoff(c, conflict, owner, id, msg)
	case io.Elicit != nil:
		actx, cancel := context.WithTimeout(ctx, o.cfg.ConsentTimeout)
		ans, err := io.Elicit(actx, msg)
		cancel()
		if err != nil {
			record("elicit", "error", nil)
			return o.pendHandoff(c, conflict, owner, id, msg)
		}
		yes, answer = verdictOf(ans)
		record("elicit", answer, nil)
	default:
		ans, ok := io.Answers[id]
		if !ok {
			o.asks.add(c.ID, id, time.Now())
			return &ConsentNeeded{ID: id, Message: msg}
		}
		if pending, inTime := o.asks.take(c.ID, id, time.Now()); !pending || !inTime {
			record("elicit", "declined", nil)
			return conflict
		}
		yes, answer = verdictOf(ans)
		record("elicit", answer, nil)
	}
	if !yes {
		return conflict.answered(answer)
	}
	o.mu.Lock()
	switch {
	case o.owner == owner:
		o.handoffLocked("taken_over")
	case h != nil && o.hold == h:
		o.dropHoldLocked()
		o.closeWindowLocked(h.from, "taken_over")
	}
	o.mu.Unlock()
	return nil
}

// pendHandoff is conflict with an approval id the user answers at the
// terminal (lyrad approve ID): a yes hands the browser to c's session on
// its repeat of the call, as a yes through the client does. The id is kept
// while the same session asks to take the same driver's turn.
func (o *ownership) pendHandoff(c Caller, conflict *Error, owner, key, msg string) error {
	id, created := o.approvals.ask(c, []ApprovalQuestion{{Capability: "HANDOFF", Message: msg, key: key}}, time.Now())
	if created {
		o.audit(audit.Row{Kind: "consent", Session: c.ID, Tool: c.Tool, Status: "approval_pending", Extra: audit.Fields{
			"capability": "HANDOFF", "from_session": owner, "consent_channel": policy.ChannelCLI, "approval_id": id}})
	}
	ref := &ApprovalRef{ID: id, Command: o.cfg.ApproveCommand + " " + id, Within: o.cfg.ApprovalTimeout}
	conflict.Approval = ref
	conflict.Hint += " Or, to take the browser over now, ask the user to run: " + ref.Command + " (within " + ref.Within.String() + "), then repeat this same call."
	return conflict
}
