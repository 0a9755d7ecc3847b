package session

import (
	"crypto/subtle"
	"fmt"
	"time"

	"github.com/lyrad/lyrad/audit"
)

// held is a driver's turn kept through its disconnect: a client that
// restarts (an IDE reload, a crash, the stdio relay's one session per
// invocation) comes back to its window and tabs. Its grants died with the
// old session; the new one is asked again.
//
// A name is no proof: any program can call itself what the driver called
// itself. The new session resumes only with the front door's proof that it
// is the same program (Caller.Proof: over the socket the kernel's peer
// credentials, the same uid and executable, and for `lyrad stdio` the same
// client executable that started the relay; over HTTP the same
// Lyra-Resume-Token header). Without it, it is answered session_conflict.
// (A yes through the new session's elicitation would be no proof either:
// the program asking is the one that answers.)
type held struct {
	from    string // the ended session's id
	client  string // its Caller.Client and Caller.Door
	door    string
	proof   string // its Caller.Proof, never empty
	since   time.Time
	timer   *time.Timer
	refused map[string]bool // sessions refused a resume, audited once each
}

// names: a session under the same name through the same front door, which
// may or may not be the same program.
func (h *held) names(c Caller) bool {
	return c.Client == h.client && c.Door == h.door
}

// resumes: a new session of the same client through the same front door,
// with the same proof.
func (h *held) resumes(c Caller) bool {
	return h.names(c) && h.proof != "" && subtle.ConstantTimeCompare([]byte(c.Proof), []byte(h.proof)) == 1
}

// holdLocked keeps the ending owner's turn for the reconnect grace and says
// whether it did. Nothing is kept when there is no grace, no window to
// keep, or no client name and proof to know the client by when it comes
// back (an owner set other than by claimLocked has none; nor has an HTTP
// client without a resume token, or a socket peer whose credentials could
// not be read).
func (o *ownership) holdLocked() bool {
	grace := o.cfg.ReconnectGrace
	oc := o.ownerCaller
	if grace <= 0 || o.browser == nil || oc.ID != o.owner || oc.Client == "" || oc.Proof == "" {
		return false
	}
	prev := o.owner
	o.grants.DropSession(prev)
	h := &held{from: prev, client: oc.Client, door: oc.Door, proof: oc.Proof, since: time.Now()}
	h.timer = time.AfterFunc(grace, func() { o.graceOver(h) })
	o.hold = h
	o.owner, o.ownerCaller = "", Caller{}
	if o.idle != nil {
		o.idle.Stop()
	}
	o.audit(audit.Row{Kind: "session", Session: prev, Status: "held", Extra: audit.Fields{
		"client": h.client, "front_door": h.door, "peer": oc.Peer, "reconnect_grace_s": grace.Seconds()}})
	return true
}

// graceOver: nobody came back in time. The handoff happens: the
// window closes and the next session may claim the browser.
func (o *ownership) graceOver(h *held) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.hold != h {
		return // resumed, closed or shut down meanwhile
	}
	o.hold = nil
	o.closeWindowLocked(h.from, "reconnect_grace_expired")
}

// admitHeldLocked lets the held turn's client resume it and answers every
// other session session_conflict until the grace is over.
func (o *ownership) admitHeldLocked(c Caller) error {
	h := o.hold
	if h == nil {
		return nil
	}
	if o.browser == nil && !o.guardLost {
		// The browser quit by itself: there is nothing left to keep.
		o.dropHoldLocked()
		return nil
	}
	if !h.resumes(c) {
		if h.names(c) {
			return o.unprovenLocked(h, c)
		}
		// Another client: its user may be asked to take the window over
		// (handoff.go). Not one under the held client's name: a yes from
		// the program asking is no proof it is that client.
		e := o.heldConflict(h)
		e.handoff = true
		return e
	}
	o.dropHoldLocked()
	o.claimLocked(c)
	o.touchLocked()
	o.audit(audit.Row{Kind: "session", Session: c.ID, Status: "resumed", Extra: audit.Fields{
		"from": h.from, "client": c.Client, "front_door": c.Door, "peer": c.Peer, "after_s": time.Since(h.since).Seconds()}})
	return nil
}

// supersedeLocked: over HTTP a client that quits without DELETE leaves its
// session open until LYRA_BROWSER_HTTP_SESSION_TIMEOUT. A new session of the
// same client with the same resume token is that program again: it takes
// the driver's turn at once, window and tabs as they are, as a resume after
// the grace would; the old session's grants go, and its next call answers
// session_conflict. Only the resume token says so: two sessions over the
// socket from the same executable may well be two programs running at once.
func (o *ownership) supersedeLocked(c Caller) bool {
	oc := o.ownerCaller
	if o.superseded[c.ID] || oc.ID != o.owner || oc.Door != "http" || c.Door != "http" || oc.Client == "" || c.Client != oc.Client ||
		oc.Proof == "" || subtle.ConstantTimeCompare([]byte(c.Proof), []byte(oc.Proof)) != 1 {
		return false
	}
	prev := o.owner
	o.grants.DropSession(prev)
	if o.superseded == nil {
		o.superseded = map[string]bool{}
	}
	o.superseded[prev] = true // it does not take the turn back
	o.claimLocked(c)
	o.touchLocked()
	o.audit(audit.Row{Kind: "session", Session: c.ID, Status: "resumed", Extra: audit.Fields{
		"from": prev, "client": c.Client, "front_door": c.Door, "peer": c.Peer, "superseded": true}})
	return true
}

// closeHeldLocked: close_browser during the grace is the held client's
// alone; it ends the hold (the caller closes the window).
func (o *ownership) closeHeldLocked(c Caller) error {
	if h := o.hold; h != nil {
		if !h.resumes(c) {
			if h.names(c) {
				return o.unprovenLocked(h, c)
			}
			return o.heldConflict(h)
		}
		o.dropHoldLocked()
	}
	return nil
}

// unprovenLocked answers a session that names itself like the held client
// but cannot prove it is that program: session_conflict, audited once per
// session.
func (o *ownership) unprovenLocked(h *held, c Caller) error {
	if !h.refused[c.ID] {
		if h.refused == nil {
			h.refused = map[string]bool{}
		}
		h.refused[c.ID] = true
		o.audit(audit.Row{Kind: "session", Session: c.ID, Status: "resume_refused", Extra: audit.Fields{
			"from": h.from, "client": c.Client, "front_door": c.Door, "peer": c.Peer}})
	}
	how := "the same user and executable over the socket, and for `lyrad stdio` the same client program that started it"
	if h.door == "http" {
		how = "the same " + "Lyra-Resume-Token" + " header the ended session sent"
	}
	e := o.heldConflict(h)
	e.Message = fmt.Sprintf("this session is named %q like the client whose session ended, but it is not proven to be that program (%s): a name is no proof; %s", c.Client, how, e.Message)
	return e
}

func (o *ownership) dropHoldLocked() {
	if o.hold != nil {
		o.hold.timer.Stop()
		o.hold = nil
	}
}

func (o *ownership) heldConflict(h *held) *Error {
	grace := o.cfg.ReconnectGrace
	left := max(0, grace-time.Since(h.since)).Round(time.Second)
	return newError(StatusSessionConflict,
		fmt.Sprintf("the browser is held for %q (over %s), whose session ended %s ago: it may reconnect and find its tabs", h.client, h.door, time.Since(h.since).Round(time.Second)),
		fmt.Sprintf("Wait %s: when the reconnect grace (%s, LYRA_BROWSER_RECONNECT_GRACE) is over without it, the window is closed and the next session may claim the browser.", left, grace)).
		kept(&Held{Client: h.client,
			Grace:     grace.Seconds(),
			GraceLeft: left.Seconds()})
}
