package session

import (
	"context"
	"net/url"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/policy"
)

// Sends are what a page sends that is not a document: fetch and XHR with a
// body or a mutating method, beacons, reports, WebSocket handshakes. The
// guard judges documents; sends are recorded from the browser's Network
// events with no pause (LYRA_BROWSER_GUARD_SENDS=audit), or held and judged
// by the destination (judge): a site the session holds no grant for gets
// nothing.

// sendGuard is the guard's judge: it decides each paused request (decide:
// documents by policy.Judge, subresource sends by judge), and records and
// judges sends. Its own state is the acting call
// under way (calls) and the send check armed in a page (checks), each
// under its own lock, taken alone; the rest it reads from the Manager's
// parts, never holding one of its locks while it does.
type sendGuard struct {
	calls  calls
	checks sendChecks

	// Set by New, read-only after.
	cfg      *Config
	grants   *policy.Grants
	own      *ownership // who drives, and the browser a takeover is on
	takeover *takeovers
	files    fileRules
	budget   *auditBudget
}

// decide is the guard's judgement of one paused request: classification
// and grants from package policy, for the session driving the browser.
func (g *sendGuard) decide(ctx context.Context, r cdpguard.Request) cdpguard.Verdict {
	if r.Subresource {
		return g.judge(r)
	}
	if g.slow(r) {
		if v, refused := g.checked(ctx, r); refused {
			return v
		}
	}
	cls := policy.Classify(policy.Request{
		URL: r.URL, Method: r.Method, HasBody: r.HasBody,
		IsRedirect: r.RedirectFrom != "", RedirectFrom: r.RedirectFrom,
		InSubframe: r.InSubframe, Sender: r.Sender,
	}, r.Issuer)
	owner := g.own.ownerID()
	t := g.takeover.active(g.own.current())
	var body *policy.Body
	if r.HasBody {
		body = &policy.Body{ContentType: r.ContentType, Parts: r.Body, Unread: r.BodyUnread}
	}
	// A gesture is the user's only if a person's input could have made it
	// (hands.go): otherwise the page acts on the agent's activation.
	user, notUser := t.userHand(r.ActivatedAt)
	v := policy.Judge(policy.Judgement{
		Body:  body,
		Class: cls, Session: owner, Grants: g.grants, Now: time.Now(),
		Mode: g.cfg.Enforcement, ConsentOff: g.cfg.ConsentChannel == ConsentOff, Trust: g.cfg.Trust,
		Tab: string(r.SenderTab), Declared: g.calls.declaration(),
		Takeover: t != nil, UserActivated: r.UserActivated && user,
		FileRefusal: g.files.refusalOf(cls, r.URL),
	})
	if v.UserDriven && v.Allow {
		if o, ok := cls.Destination.Origin(); ok {
			g.takeover.userWent(t, o)
		}
	}
	fields := v.Fields()
	if r.Issuer != "" {
		fields["issuer"] = policy.LoggableURL(r.Issuer)
	}
	if r.Sender != "" {
		fields["sender"] = r.Sender
	}
	if r.UserActivated {
		fields["user_activated"] = true
		if t != nil && !user {
			fields["gesture_not_users"] = notUser
		}
	}
	if r.SenderTab != r.TabID {
		fields["sender_tab"] = string(r.SenderTab)
	}
	return cdpguard.Verdict{Allow: v.Allow, Reason: v.Reason, Fields: fields}
}

// record records a send the guard did not hold.
func (g *sendGuard) record(s cdpguard.Send) {
	extra := audit.Fields{
		"method":        s.Method,
		"destination":   destination(s.URL),
		"resource_type": string(s.Type),
		"target_type":   s.TargetType,
	}
	if s.Sender != "" {
		extra["sender"] = s.Sender
	}
	if s.TabID != "" {
		extra["tab_id"] = string(s.TabID)
	}
	if call := g.calls.following(time.Now()); call != "" {
		extra["after_call"] = call
	}
	g.budget.write(string(s.TabID), "send", audit.Row{Kind: "send", Session: g.own.ownerID(), Status: "recorded", Extra: extra})
}

// decided is told of each decision the guard makes: a refused popup is
// closed, and the decision recorded, a document's as a guard row, a
// subresource's as a send with the acting call that set it off.
func (g *sendGuard) decided(b *Browser, r cdpguard.Request, v cdpguard.Verdict, took time.Duration) {
	if !v.Allow {
		b.closeRefusedPopup(r)
	}
	verdict := "allow"
	if !v.Allow {
		verdict = "deny"
	}
	extra := audit.Fields{
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
		if call := g.calls.following(time.Now()); call != "" {
			extra["after_call"] = call
		}
	}
	g.budget.write(string(r.TabID), kind+"/"+verdict, audit.Row{Kind: kind, Session: g.own.ownerID(), Status: verdict, Extra: extra})
}

// judge judges a held send (judge mode): it may go to a site the session
// holds a grant for (NAVIGATE or INTERACT, or the trusted navigate list);
// anywhere else it is refused, its own page's site included when the
// session holds nothing there (a page reached by a cross-origin form post).
// During a takeover the same holds, and a send from a document of a site
// the user navigated to themselves during it, to that site, is the user's.
func (g *sendGuard) judge(r cdpguard.Request) cdpguard.Verdict {
	t := g.takeover.active(g.own.current())
	if policy.IsFileURL(r.URL) {
		return g.files.decideLoad(r, t != nil)
	}
	dest := policy.ScopeOf(r.URL)
	owner := g.own.ownerID()
	fields := audit.Fields{"kind": "send", "destination": destination(r.URL)}
	if r.Sender != "" {
		fields["sender"] = r.Sender
	}
	allow := func(reason string) cdpguard.Verdict {
		fields["reason"] = reason
		return cdpguard.Verdict{Allow: true, Reason: reason, Fields: fields}
	}
	if t != nil {
		fields["during_takeover"] = true
	}
	if _, ok := dest.Origin(); ok {
		if g.grants.Has(owner, dest, policy.Interact, time.Now()) {
			return allow(policy.ReasonGranted)
		}
		if entry, ok := g.cfg.Trust.Answers(policy.Interact, dest, g.cfg.ConsentChannel == ConsentOff); ok {
			fields["trusted_entry"] = entry
			return allow(policy.ReasonTrusted)
		}
		// The user holds the browser: a send from a site they went to
		// themselves, to that site (their login posting by fetch), is
		// theirs. Anything else is judged as when the agent drives.
		if t != nil && g.takeover.userSiteSend(t, r.Sender, dest) {
			delete(fields, "during_takeover")
			fields["user_driven"] = true
			return allow(policy.ReasonUserDriven)
		}
	}
	fields["reason"] = policy.ReasonNotGranted
	if g.cfg.Enforcement == policy.Observe {
		fields["would_deny"] = true
		return cdpguard.Verdict{Allow: true, Reason: policy.ReasonNotGranted, Fields: fields}
	}
	return cdpguard.Verdict{Allow: false, Reason: policy.ReasonNotGranted, Fields: fields}
}

// destination is where a send goes, as the audit names it: the origin only
// (a WebSocket's with its ws scheme).
func destination(raw string) string {
	if o, ok := policy.OriginOf(raw); ok {
		return o.String()
	}
	if u, err := url.Parse(raw); err == nil && (u.Scheme == "ws" || u.Scheme == "wss") && u.Host != "" {
		return u.Scheme + "://" + u.Host
	}
	return policy.LoggableURL(raw)
}

// calls remembers the acting tool call under way or just ended, so that a
// send can be told apart: one the agent's action set off, or one the page
// made on its own.
type calls struct {
	mu       sync.Mutex
	tool     string
	start    time.Time
	end      time.Time       // zero while the call runs
	declared policy.Declared // what the call under way declared (publish's PUBLISH)
}

// declare records what the call under way declared, for the guard's
// judgement of what it sends.
func (c *calls) declare(d policy.Declared) {
	c.mu.Lock()
	c.declared = d
	c.mu.Unlock()
}

// declaration is what the call under way declared; nothing once it ended.
func (c *calls) declaration() policy.Declared {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.end.IsZero() {
		return policy.Declared{}
	}
	return c.declared
}

// callTail is how long after an acting call a send still counts as set off
// by it: a click's handler can send a moment after the call answered.
const callTail = 2 * time.Second

func (c *calls) begin(tool string) {
	c.mu.Lock()
	c.tool, c.start, c.end, c.declared = tool, time.Now(), time.Time{}, policy.Declared{}
	c.mu.Unlock()
}

func (c *calls) finish() {
	c.mu.Lock()
	c.end = time.Now()
	c.mu.Unlock()
}

func (c *calls) following(now time.Time) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tool == "" || (!c.end.IsZero() && now.Sub(c.end) > callTail) {
		return ""
	}
	return c.tool
}

// sendChecks is the send check armed in a page for the declared send of
// the call under way or just ended (act.armSends), until it is taken away
// after the release grace: each document send with a body its tab makes
// meanwhile goes only when that check passed a submission (the browser
// built its body, and the publish fields held what was approved), as the
// check told through its binding (page.SendCheckTokens). A page that keeps the formdata
// event from lyrad's listener thus sends nothing. (The page is not asked
// when the send is judged: a frame whose navigation is held answers no
// DevTools call.)
type sendChecks struct {
	mu           sync.Mutex
	tab          target.ID
	token        string
	passed, used int
	wake         chan struct{} // closed and replaced when passed grows
	stop         func()        // ends the watch of the binding
}

// checkWait bounds the wait, as a send is judged, for the check's word:
// it is sent before the send starts, but on another path.
const checkWait = 3 * time.Second

// arm holds tab's sends to the check armed with token in n's frame,
// watching the binding on its session (added first).
func (c *sendChecks) arm(ctx context.Context, b *Browser, tab target.ID, n *page.Node, token string) error {
	tokens, stop, err := page.SendCheckTokens(ctx, b.conn, n.Session)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if c.stop != nil {
		c.stop()
	}
	c.tab, c.token, c.passed, c.used, c.wake, c.stop = tab, token, 0, 0, make(chan struct{}), stop
	c.mu.Unlock()
	go func() {
		for token := range tokens {
			c.mu.Lock()
			if token == c.token && c.token != "" {
				c.passed++
				close(c.wake)
				c.wake = make(chan struct{})
			}
			c.mu.Unlock()
		}
	}()
	return nil
}

// disarm takes the check armed with token away; "" takes any.
func (c *sendChecks) disarm(token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != token && token != "" {
		return
	}
	if c.stop != nil {
		c.stop()
	}
	c.tab, c.token, c.passed, c.used, c.stop = "", "", 0, 0, nil
}

// armedFor: a check holds tab's sends.
func (c *sendChecks) armedFor(tab target.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.token != "" && tab != "" && c.tab == tab
}

// take waits, within checkWait, for a submission the check passed and
// has not been taken, and takes it.
func (c *sendChecks) take(ctx context.Context) bool {
	timer := time.NewTimer(checkWait)
	defer timer.Stop()
	for {
		c.mu.Lock()
		if c.token == "" {
			c.mu.Unlock()
			return false
		}
		if c.passed > c.used {
			c.used++
			c.mu.Unlock()
			return true
		}
		wake := c.wake
		c.mu.Unlock()
		select {
		case <-wake:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// checked is the guard's judgement of a document send with a body from a
// tab a send check holds (sendChecks): nothing when the check passed it,
// else its refusal (send_unchecked).
func (g *sendGuard) checked(ctx context.Context, r cdpguard.Request) (cdpguard.Verdict, bool) {
	if g.checks.take(ctx) {
		return cdpguard.Verdict{}, false
	}
	fields := audit.Fields{"kind": string(policy.Submission), "reason": policy.ReasonSendUnchecked,
		"origin": policy.ScopeOf(r.URL).Loggable()}
	if r.Sender != "" {
		fields["sender"] = r.Sender
	}
	if g.cfg.Enforcement == policy.Observe {
		fields["would_deny"] = true
		return cdpguard.Verdict{Allow: true, Reason: policy.ReasonSendUnchecked, Fields: fields}, true
	}
	return cdpguard.Verdict{Allow: false, Reason: policy.ReasonSendUnchecked, Fields: fields}, true
}

// slow: a document send the guard judges only once the page's send check
// was heard from (sendChecks); a redirect hop carries the body that was
// checked.
func (g *sendGuard) slow(r cdpguard.Request) bool {
	return !r.Subresource && r.HasBody && r.RedirectFrom == "" && g.checks.armedFor(r.SenderTab)
}
