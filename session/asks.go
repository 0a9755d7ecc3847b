package session

import (
	"sync"
	"time"
)

// Bounds on the questions asked through the client and not answered yet: a
// client that never answers, or a driver that asks in a loop, must not grow
// lyrad. A session rarely has more than one open; the oldest go first.
const (
	maxAsksPerSession = 16
	maxAsks           = 256
)

// pendingAsks are the consent questions a session was asked through its
// client (protocol 2026-07-28) and has not answered. An answer counts only
// against an entry here: one the session was asked, under the same id, within
// the consent timeout. The id is the whole question (see askID), so an
// answer to one question is never an answer to another.
type pendingAsks struct {
	mu      sync.Mutex
	timeout time.Duration
	byKey   map[askKey]time.Time
}

type askKey struct {
	session string
	id      string
}

// add records that session was asked id at now. Expired entries go first,
// then, if the session or the whole map is at its bound, the oldest.
func (p *pendingAsks) add(session, id string, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byKey == nil {
		p.byKey = map[askKey]time.Time{}
	}
	p.pruneLocked(now)
	k := askKey{session, id}
	delete(p.byKey, k)
	for p.countLocked(session) >= maxAsksPerSession {
		p.dropOldestLocked(session)
	}
	for len(p.byKey) >= maxAsks {
		p.dropOldestLocked("")
	}
	p.byKey[k] = now
}

// take removes session's question id and says whether it was pending and
// whether it was answered in time. An answer is used once: taken is final.
func (p *pendingAsks) take(session, id string, now time.Time) (pending, inTime bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := askKey{session, id}
	asked, ok := p.byKey[k]
	delete(p.byKey, k)
	p.pruneLocked(now)
	return ok, ok && now.Sub(asked) <= p.timeout
}

// dropSession forgets every question of a session that ended.
func (p *pendingAsks) dropSession(session string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k := range p.byKey {
		if k.session == session {
			delete(p.byKey, k)
		}
	}
}

// pruneLocked drops questions past the consent timeout: no answer to them
// can count any more.
func (p *pendingAsks) pruneLocked(now time.Time) {
	for k, asked := range p.byKey {
		if now.Sub(asked) > p.timeout {
			delete(p.byKey, k)
		}
	}
}

func (p *pendingAsks) countLocked(session string) int {
	n := 0
	for k := range p.byKey {
		if k.session == session {
			n++
		}
	}
	return n
}

// dropOldestLocked drops the oldest question of session ("" for any).
func (p *pendingAsks) dropOldestLocked(session string) {
	var oldest askKey
	var at time.Time
	found := false
	for k, asked := range p.byKey {
		if session != "" && k.session != session {
			continue
		}
		if !found || asked.Before(at) {
			oldest, at, found = k, asked, true
		}
	}
	if found {
		delete(p.byKey, oldest)
	}
}
