package session

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/page"
)

// Only a person's input is the user's. During a takeover a document
// request the browser says a gesture started (hasUserGesture) is the
// user's only when a person's input could have started it: the listener
// in lyrad's world (page.WatchInput) told of a real press at the window
// after the takeover began and after the agent's own input could still
// give the page activation (cdpconn.Conn.InputAt plus agentActivation),
// and before the browser told of the request. Otherwise, the page acting
// on activation the agent's click gave it, it is judged as the agent's.

// agentActivation is how long after lyrad's own input the page may still
// hold the transient user activation it gave: Chrome's is 5 s (measured on
// Chromium 156: 5000-5010 ms from the press to navigator.userActivation
// going inactive), counted from the reply, which comes once the page
// handled the event; 1 s more for good measure.
const agentActivation = 6 * time.Second

// maxPresses is how many of the latest real presses are remembered.
const maxPresses = 64

// hands hears of the real presses at the window of one browser.
type hands struct {
	mu      sync.Mutex
	presses [maxPresses]time.Time // a ring, latest at next-1
	next    int
}

// watch starts hearing b's presses (page.ObserveInput).
func (h *hands) watch(ctx context.Context, conn *cdpconn.Conn, log *zap.Logger) func() {
	return page.ObserveInput(ctx, conn, h.pressed, func(err error) {
		log.Debug("bind the input listener", zap.Error(err))
	})
}

func (h *hands) pressed(at time.Time) {
	h.mu.Lock()
	h.presses[h.next] = at
	h.next = (h.next + 1) % maxPresses
	h.mu.Unlock()
}

// between reports whether a real press was heard after from and no later
// than to.
func (h *hands) between(from, to time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, at := range h.presses {
		if at.After(from) && !at.After(to) {
			return true
		}
	}
	return false
}

// userHand reports whether a request whose chain's first hop the browser
// told of at activatedAt, with a gesture, is the user's under takeover t
// (nil: none; see above). Why not, when it is not: "agent_input" (the agent's input
// was recent enough to have started it), "no_real_input" (no person's
// press was heard since the takeover began).
func (t *takeoverState) userHand(activatedAt time.Time) (bool, string) {
	if t == nil || activatedAt.IsZero() {
		return false, ""
	}
	return userHandAt(t.since, t.b.conn.InputAt(), activatedAt, t.b.hands.between)
}

// userHandAt is userHand's rule: a takeover since then, lyrad's own input
// last at input, a first hop seen with a gesture at activatedAt, heard
// telling whether a real press came within a span.
func userHandAt(since, input, activatedAt time.Time, heard func(from, to time.Time) bool) (bool, string) {
	from := since
	if quiet := input.Add(agentActivation); !input.IsZero() && quiet.After(from) {
		if !activatedAt.After(quiet) {
			return false, "agent_input"
		}
		from = quiet
	}
	if !heard(from, activatedAt) {
		return false, "no_real_input"
	}
	return true, ""
}
