package session

import (
	"context"
	"sync"
	"time"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/policy"
)

// Collaboration: the user shares the window, and does what an agent must
// not (passwords, CAPTCHAs, 2FA, payments).
//
// request_takeover hands the browser to the user. While the takeover is
// held every acting call answers takeover_active at once (act.go checks it
// before anything), reads keep working, and the guard lets the user's own
// navigations through without spending a grant, each audited user_driven
// (policy.Judgement.Takeover). Only what the user does counts: a request
// is theirs when the browser says a user's gesture started it
// (hasUserGesture, cdpguard.Request.UserActivated); what the page does by itself is
// judged as when the agent drives. A send (no activation signal) is the
// user's only from a site they navigated to during the takeover, to that
// site (policy.UserSiteSend). A download the user starts (an attachment
// answering a user-activated request) is kept and audited user_driven; one
// the page starts is blocked like an undeclared one. resume_after_takeover
// asks the user, through the client, for INTERACT on the current origin:
// only their yes ends it.
//
// Headless there is no one to hand the window to: the collaboration tools
// answer unattended and take no lock, so the agent is never blocked
// waiting for a person who cannot see anything.

// Collaboration statuses, the names agents see on the wire.
const (
	StatusTakeover     = "takeover_active"
	StatusUnattended   = "unattended"
	StatusAwaitingUser = "awaiting_user"
)

// highlightFor is how long highlight_element's outline stays.
const highlightFor = 4 * time.Second

// takeoverBanner is the message the browser draws over the page while the
// user holds it: Chrome's own overlay, which a page can neither remove nor
// draw over.
const takeoverBanner = "lyrad: you have control. Tell your agent when you are done."

// takeoverState is a takeover in force, for one browser.
type takeoverState struct {
	b      *Browser
	reason string
	since  time.Time
	by     string // the session that asked for it
	// visited are the sites the user navigated to during the takeover (a
	// user-activated navigation, each hop's destination): sends from their
	// own documents to them are the user's (policy.UserSiteSend). Guarded
	// by takeovers.mu.
	visited map[policy.Origin]bool
}

// takeovers holds the takeover in force.
type takeovers struct {
	mu  sync.Mutex
	cur *takeoverState
}

// active is the takeover in force on b, or nil.
func (t *takeovers) active(b *Browser) *takeoverState {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur == nil || b == nil || t.cur.b != b {
		return nil
	}
	return t.cur
}

// maxVisited bounds the sites one takeover remembers.
const maxVisited = 256

// userWent records that the user navigated to o during takeover t.
func (t *takeovers) userWent(cur *takeoverState, o policy.Origin) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.cur != cur || cur == nil {
		return
	}
	if cur.visited == nil {
		cur.visited = map[policy.Origin]bool{}
	}
	if len(cur.visited) < maxVisited {
		cur.visited[o] = true
	}
}

// userSiteSend reports whether a send from sender to dest is the user's
// under takeover cur (policy.UserSiteSend).
func (t *takeovers) userSiteSend(cur *takeoverState, sender string, dest policy.Scope) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cur == cur && cur != nil && policy.UserSiteSend(sender, dest, cur.visited)
}

func takeoverError(t *takeoverState) *Error {
	return newError(StatusTakeover, "the user has control of the browser: "+t.reason,
		"Wait for the user to say they are done, then call resume_after_takeover; reads (read_page, get_url, screenshot ...) work meanwhile.").
		because(t.reason).takenFor(int(time.Since(t.since).Seconds()))
}

// TakeoverInfo is what the collaboration tools answer.
type TakeoverInfo struct {
	Reason   string
	URL      string
	Title    string
	Resumed  bool // resume: a takeover was ended
	Selector string
	Matches  int
}

// unattended is the answer of a collaboration tool with no one at the
// window.
func unattended(what string) *Error {
	return newError(StatusUnattended, "the browser runs headless: there is no one at the window to "+what,
		"Do not wait for a human: carry on without this step, or tell the user it needs a visible browser (LYRA_BROWSER_HEADLESS=false).")
}

// RequestTakeover hands the browser to the user. Only the driver may.
func (m *Manager) RequestTakeover(ctx context.Context, c Caller, reason string) (*TakeoverInfo, error) {
	b, tab, done, err := m.enterTab(ctx, c, mutate)
	defer done()
	if err != nil {
		return nil, err
	}
	if !b.headful {
		return nil, unattended("take over").withHint("No lock was taken and nothing is blocked: do not wait for a human.")
	}
	t := m.takeover.start(ctx, b, reason, c.ID, m.audit)
	url, title := b.fresh(ctx, tab)
	return &TakeoverInfo{Reason: t.reason, URL: url, Title: title}, nil
}

// ResumeAfterTakeover ends the takeover once the user says so: INTERACT
// on the current origin is asked ("The user is handing control back"), and
// a refusal keeps the takeover. Without a takeover it does nothing.
func (m *Manager) ResumeAfterTakeover(ctx context.Context, c Caller, reason string) (*TakeoverInfo, error) {
	b, tab, done, err := m.enterTab(ctx, c, mutate)
	defer done()
	if err != nil {
		return nil, err
	}
	url, title := b.fresh(ctx, tab)
	t := m.takeover.active(b)
	if t == nil {
		return &TakeoverInfo{URL: url, Title: title}, nil
	}
	if scope := policy.ScopeOf(url); !scope.IsZero() && !scope.Opaque() {
		channel, entry, err := m.desk.obtainAsk(ctx, c, policy.Interact, scope, "The user is handing control back.", reason)
		if err != nil {
			return nil, err // a refusal keeps the takeover
		}
		if err := m.grants.Grant(c.ID, scope, policy.Interact, policy.GrantOptions{Channel: channel, TrustedEntry: entry}); err != nil {
			return nil, newError(StatusError, err.Error(), "")
		}
	}
	m.takeover.end(ctx, b, t, c.ID, m.audit)
	url, title = b.fresh(ctx, tab)
	return &TakeoverInfo{Reason: t.reason, URL: url, Title: title, Resumed: true}, nil
}

// showBanner draws (or removes) the takeover message over every tab, with
// the browser's own overlay: the page cannot remove it, and cannot draw it.
func (b *Browser) showBanner(ctx context.Context, on bool) {
	msg := ""
	if on {
		msg = takeoverBanner
	}
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	for _, p := range b.pages() {
		page.Banner(bctx, b.conn, p.SessionID, msg)
	}
}

// bannerOnNewTab draws the banner over a tab that opened during a
// takeover (a popup, the user's new tab). A takeover that ended meanwhile
// takes it off again.
func (o *takeovers) bannerOnNewTab(b *Browser, t cdpguard.Target) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	page.Banner(ctx, b.conn, t.SessionID, takeoverBanner)
	if o.active(b) == nil {
		page.Banner(ctx, b.conn, t.SessionID, "")
	}
}

// AskUser asks the user to do a step the agent must not: it highlights the
// selector when one is given and answers awaiting_user at once. It neither
// blocks nor locks.
func (m *Manager) AskUser(ctx context.Context, c Caller, instruction, selector string) (*TakeoverInfo, error) {
	info := &TakeoverInfo{}
	if selector != "" {
		h, err := m.Highlight(ctx, c, selector)
		if err != nil {
			return nil, err
		}
		info.Selector, info.Matches = h.Selector, h.Matches
	} else {
		b, tab, done, err := m.enterTab(ctx, c, mutate)
		defer done()
		if err != nil {
			return nil, err
		}
		if t := m.takeover.active(b); t != nil {
			return nil, takeoverError(t)
		}
		if !b.headful {
			return nil, unattended("ask")
		}
		info.URL, info.Title = b.fresh(ctx, tab)
	}
	m.audit(audit.Row{Kind: "ask_user", Session: c.ID, Status: StatusAwaitingUser, Extra: audit.Fields{"instruction": instruction}})
	return info, nil
}

// Highlight outlines the element selector names for the user to see:
// scrolled to the middle of the view and outlined by the browser's own
// overlay for highlightFor. Nothing is written into the page: its DOM, its
// mutation observers and its console see nothing.
func (m *Manager) Highlight(ctx context.Context, c Caller, selector string) (*TakeoverInfo, error) {
	sel, err := parseSelector(selector)
	if err != nil {
		return nil, err
	}
	b, tab, done, err := m.enterTab(ctx, c, mutate)
	defer done()
	if err != nil {
		return nil, err
	}
	if t := m.takeover.active(b); t != nil {
		return nil, takeoverError(t)
	}
	if !b.headful {
		return nil, unattended("see an outline").withHint("An outline nobody sees is not a signal: the page was not touched.")
	}
	a := &act{m: m, b: b, c: c, spec: &actSpec{verb: "highlight_element", opts: ActOptions{Timeout: 10 * time.Second}},
		tab: tab, on: tab, sel: sel, start: time.Now(), group: page.NewActGroup(), res: &ActResult{}}
	defer a.releaseHandles()
	if err := a.waitUsable(ctx); err != nil {
		return nil, err
	}
	n := a.loc.Node
	if err := page.Highlight(ctx, b.conn, &b.worlds, n); err != nil {
		return nil, a.annotate(ctx, err)
	}
	time.AfterFunc(highlightFor, func() {
		hctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		// The overlay stays while the takeover's banner is drawn.
		page.Unhighlight(hctx, b.conn, n.Session, m.takeover.active(b) == nil)
	})
	url, title := b.fresh(ctx, tab)
	return &TakeoverInfo{URL: url, Title: title, Selector: sel.raw, Matches: a.loc.Matches}, nil
}

// operator is the audit's name for the person at the terminal (lyrad
// takeover, lyrad resume, over the admin socket).
const operator = "operator"

// OperatorTakeover is request_takeover from the person at the window, by
// the command line: they are the user, so no session need drive, and the
// driver's calls answer takeover_active from now on.
func (m *Manager) OperatorTakeover(ctx context.Context, reason string) (*TakeoverInfo, error) {
	b := m.own.current()
	if b == nil {
		return nil, notOpen()
	}
	if !b.headful {
		return nil, unattended("take over")
	}
	if reason == "" {
		reason = "the user took over from the command line"
	}
	t := m.takeover.start(ctx, b, reason, operator, m.audit)
	return &TakeoverInfo{Reason: t.reason}, nil
}

// OperatorResume ends a takeover from the command line: the person who
// holds the browser says they are done, so nothing is asked.
func (m *Manager) OperatorResume(ctx context.Context) (*TakeoverInfo, error) {
	b := m.own.current()
	t := m.takeover.active(b)
	if t == nil {
		return &TakeoverInfo{}, nil
	}
	m.takeover.end(ctx, b, t, operator, m.audit)
	return &TakeoverInfo{Reason: t.reason, Resumed: true}, nil
}

// start hands b to the user (a takeover already in force stays as it
// is), records it, draws the banner and opens b to their downloads.
func (tk *takeovers) start(ctx context.Context, b *Browser, reason, by string, record func(audit.Row)) *takeoverState {
	tk.mu.Lock()
	if tk.cur == nil || tk.cur.b != b {
		tk.cur = &takeoverState{b: b, reason: reason, since: time.Now(), by: by}
	}
	t := tk.cur
	tk.mu.Unlock()
	record(audit.Row{Kind: "takeover", Session: by, Status: "active", Extra: audit.Fields{"reason": reason}})
	b.showBanner(ctx, true)
	if d := b.downloads; d != nil {
		d.UserHolds(true)
	}
	return t
}

// end ends takeover t on b: the agent may act again.
func (tk *takeovers) end(ctx context.Context, b *Browser, t *takeoverState, by string, record func(audit.Row)) {
	tk.mu.Lock()
	if tk.cur == t {
		tk.cur = nil
	}
	tk.mu.Unlock()
	record(audit.Row{Kind: "takeover", Session: by, Status: "resumed", Extra: audit.Fields{"held_s": int(time.Since(t.since).Seconds())}})
	b.showBanner(ctx, false)
	if d := b.downloads; d != nil {
		d.UserHolds(false)
	}
}
