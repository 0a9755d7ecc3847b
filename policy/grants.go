package policy

import (
	"errors"
	"sort"
	"sync"
	"time"
)

// Capability is what a grant allows on a scope.
type Capability string

const (
	// Navigate: load a document from this origin. Implies Interact.
	Navigate Capability = "NAVIGATE"
	// Interact: click and type while staying on this origin.
	Interact Capability = "INTERACT"
	// Submit: send a body or a mutating method. Single-use.
	Submit Capability = "SUBMIT"
	// Upload: give a file to a page. Single-use.
	Upload Capability = "UPLOAD"
	// Publish: make content publicly visible. Single-use.
	Publish Capability = "PUBLISH"
	// Download: write a file to disk. Single-use.
	Download Capability = "DOWNLOAD"
)

// Valid reports whether c is one of the six capabilities.
func (c Capability) Valid() bool {
	switch c {
	case Navigate, Interact, Submit, Upload, Publish, Download:
		return true
	}
	return false
}

// SingleUse reports whether a grant of c is spent by the one use it buys.
func (c Capability) SingleUse() bool {
	switch c {
	case Submit, Upload, Publish, Download:
		return true
	}
	return false
}

// Consent channels a grant can be recorded with (consent_channel in the audit).
const (
	ChannelElicit  = "elicit"  // the user answered an MCP elicitation
	ChannelLegacy  = "legacy"  // the model's confirm=true, on a client that cannot be asked
	ChannelTrusted = "trusted" // the operator's trusted list answered in advance
	ChannelCLI     = "cli"     // the user answered at a terminal: lyrad approve
	ChannelOff     = "off"     // approval is off: nobody was asked
)

const (
	// DefaultGrantTTL is how long a NAVIGATE or INTERACT grant stays usable
	// when nothing else is configured (LYRA_BROWSER_GRANT_TTL).
	DefaultGrantTTL = 600 * time.Second
	// DefaultReleaseGrace is how long an unused single-use scope outlives the
	// action that bought it (LYRA_BROWSER_RELEASE_GRACE): a click's navigation
	// can leave just after the call returns.
	DefaultReleaseGrace = 2 * time.Second
)

// GrantOptions describe one grant.
type GrantOptions struct {
	// TTL bounds a NAVIGATE or INTERACT grant; zero means the store's TTL.
	// Single-use grants ignore the store's TTL (they are retired by their use
	// or by ReleaseAfter) but honour an explicit TTL here as a backstop.
	TTL time.Duration
	// Channel is how the answer was obtained (ChannelElicit, ...).
	Channel string
	// TrustedEntry is the trusted-list entry that answered, for ChannelTrusted.
	TrustedEntry string
	// Tab binds a single-use grant to the tab whose action bought it: only
	// a request sent from that tab spends it. "" is unbound.
	Tab string
	// Form, on a SUBMIT or PUBLISH credit, is the publish state the send
	// was approved with: only a body that sends it spends the credit.
	Form *ApprovedForm
}

// GrantInfo is what the store knows about a live grant.
type GrantInfo struct {
	Capability   Capability
	Channel      string
	TrustedEntry string
	Expires      time.Time // zero: until spent, released or dropped
	// Form is the publish state a send must carry to spend this credit
	// (GrantOptions.Form); nil: any.
	Form *ApprovedForm
}

// Grants holds the grants of every session: (session, scope, capability).
// It is safe for concurrent use. The zero value is ready, with time.Now as
// its clock and DefaultGrantTTL.
type Grants struct {
	clock func() time.Time
	ttl   time.Duration

	mu sync.Mutex
	m  map[grantKey]*grantRec
}

type grantKey struct {
	session string
	scope   Scope
	cap     Capability
	tab     string // single-use grants only: the tab that may spend it
}

type grantRec struct {
	GrantInfo
	single bool
	life   time.Duration // the lifetime it was given: what a use renews it by
}

// NewGrants returns a store whose NAVIGATE/INTERACT grants live ttl (zero:
// DefaultGrantTTL) and which reads the time from clock (nil: time.Now). The
// clock is used by Grant and ReleaseAfter; Has and Use are told the time.
func NewGrants(ttl time.Duration, clock func() time.Time) *Grants {
	return &Grants{clock: clock, ttl: ttl}
}

// ErrBadGrant is returned for a grant on the zero Scope or an unknown
// capability: it would name nothing and must not look granted.
var ErrBadGrant = errors.New("policy: a grant needs a scope and a known capability")

func (g *Grants) now() time.Time {
	if g.clock != nil {
		return g.clock()
	}
	return time.Now()
}

func (g *Grants) defaultTTL() time.Duration {
	if g.ttl > 0 {
		return g.ttl
	}
	return DefaultGrantTTL
}

// singleUse reports whether a grant of c on s is spent by its use. Every
// grant on an opaque scope is: it names one URL and covers it once.
func singleUse(s Scope, c Capability) bool { return c.SingleUse() || s.Opaque() }

// Grant records that session may use cap on scope. A grant replaces an
// earlier one with the same key (a fresh answer, a fresh lifetime).
func (g *Grants) Grant(session string, scope Scope, cap Capability, opts GrantOptions) error {
	if scope.IsZero() || !cap.Valid() {
		return ErrBadGrant
	}
	now := g.now()
	rec := &grantRec{
		GrantInfo: GrantInfo{Capability: cap, Channel: opts.Channel, TrustedEntry: opts.TrustedEntry, Form: opts.Form},
		single:    singleUse(scope, cap),
	}
	switch {
	case opts.TTL > 0:
		rec.life = opts.TTL
	case !cap.SingleUse():
		rec.life = g.defaultTTL()
	}
	if rec.life > 0 {
		rec.Expires = now.Add(rec.life)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.m == nil {
		g.m = map[grantKey]*grantRec{}
	}
	for k, r := range g.m { // small: a session holds a handful of grants
		if r.expired(now) {
			delete(g.m, k)
		}
	}
	tab := opts.Tab
	if !rec.single {
		tab = "" // an origin grant is the session's, on every tab
	}
	g.m[grantKey{session, scope, cap, tab}] = rec
	return nil
}

func (r *grantRec) expired(now time.Time) bool {
	return !r.Expires.IsZero() && !now.Before(r.Expires)
}

// Has reports whether session holds cap on scope at now. NAVIGATE answers
// for INTERACT. Nothing is spent.
func (g *Grants) Has(session string, scope Scope, cap Capability, now time.Time) bool {
	_, ok := g.take(session, scope, cap, "", now, false)
	return ok
}

// Use is Has, also telling how the grant was obtained, for the agent's
// own acting use of a site (a click, a key, a navigate call): a NAVIGATE
// or INTERACT grant that answers is renewed, its lifetime starting again
// at now, so an agent working steadily on a site is not asked again while
// one that left it idle longer than the lifetime is. Only a live grant is renewed: an expired one stays gone.
// Single-use grants are neither renewed nor spent.
func (g *Grants) Use(session string, scope Scope, cap Capability, now time.Time) (GrantInfo, bool) {
	info, ok := g.take(session, scope, cap, "", now, false)
	if !ok || cap.SingleUse() || scope.Opaque() {
		return info, ok
	}
	caps := []Capability{cap}
	if cap == Interact {
		caps = append(caps, Navigate)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range caps { // every grant that answers for cap
		r := g.m[grantKey{session, scope, c, ""}]
		if r == nil || r.single || r.life <= 0 || r.expired(now) {
			continue
		}
		if next := now.Add(r.life); next.After(r.Expires) {
			r.Expires = next
		}
	}
	return info, ok
}

// take finds (and with spend, uses) a grant of cap on scope that a request
// from tab may use: one bound to that tab, else an unbound one.
func (g *Grants) take(session string, scope Scope, cap Capability, tab string, now time.Time, spend bool) (GrantInfo, bool) {
	if g == nil || scope.IsZero() || !cap.Valid() {
		return GrantInfo{}, false
	}
	caps := []Capability{cap}
	if cap == Interact {
		caps = append(caps, Navigate)
	}
	tabs := []string{""}
	if tab != "" {
		tabs = []string{tab, ""}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, c := range caps {
		for _, tb := range tabs {
			k := grantKey{session, scope, c, tb}
			r := g.m[k]
			if r == nil {
				continue
			}
			if r.expired(now) {
				delete(g.m, k)
				continue
			}
			if spend && r.single {
				delete(g.m, k)
			}
			return r.GrantInfo, true
		}
	}
	return GrantInfo{}, false
}

// ReleaseAfter hands back an unused single-use grant grace after now (the
// store's clock): the action that bought it has ended, and only a navigation
// it set off just before returning may still spend it. A grant already spent
// is untouched; NAVIGATE and INTERACT on an origin keep their lifetime.
// grace <= 0 releases at once.
func (g *Grants) ReleaseAfter(session string, scope Scope, cap Capability, tab string, grace time.Duration) {
	if g == nil {
		return
	}
	if grace < 0 {
		grace = 0
	}
	deadline := g.now().Add(grace)
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.m[grantKey{session, scope, cap, tab}]
	if r == nil || !r.single {
		return
	}
	if r.Expires.IsZero() || deadline.Before(r.Expires) {
		r.Expires = deadline
	}
}

// Bind sets the publish state a live single-use credit's send must carry
// (GrantOptions.Form), replacing the one it had: the state as it stands
// just before the action sends. It reports whether the credit was live.
func (g *Grants) Bind(session string, scope Scope, cap Capability, tab string, form *ApprovedForm) bool {
	if g == nil {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.m[grantKey{session, scope, cap, tab}]
	if r == nil || !r.single || r.expired(g.now()) {
		return false
	}
	r.Form = form
	return true
}

// DropBound forgets session's live single-use credits that hold a publish
// state (GrantInfo.Form): the declared send they were bought for is over.
func (g *Grants) DropBound(session string) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for k, r := range g.m {
		if k.session == session && r.single && r.Form != nil {
			delete(g.m, k)
		}
	}
}

// DropSession forgets every grant of session: close_browser, or the window
// handed on to the next session.
func (g *Grants) DropSession(session string) {
	if g == nil {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for k := range g.m {
		if k.session == session {
			delete(g.m, k)
		}
	}
}

// LiveGrant is one live grant, as an operator's status lists it.
type LiveGrant struct {
	Scope string // the scope, loggable
	GrantInfo
}

// Live lists session's live grants at now, sorted by scope then
// capability.
func (g *Grants) Live(session string, now time.Time) []LiveGrant {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []LiveGrant
	for k, r := range g.m {
		if k.session != session || (!r.Expires.IsZero() && !now.Before(r.Expires)) {
			continue
		}
		out = append(out, LiveGrant{Scope: k.scope.Loggable(), GrantInfo: r.GrantInfo})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Scope != out[j].Scope {
			return out[i].Scope < out[j].Scope
		}
		return out[i].Capability < out[j].Capability
	})
	return out
}
