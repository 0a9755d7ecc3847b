package session

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/policy"
)

// grantDesk is where a call buys what it needs the user's yes for: the
// grants to load and to use a site, the single-use credits an action's
// intent declares, and the questions behind them, put through the
// configured consent channel. Its own state is the questions asked and not
// yet answered (asks); it records every answer in the audit trail and holds
// no lock of its own across asking.
type grantDesk struct {
	cfg    *Config
	grants *policy.Grants
	asks   pendingAsks // consent asked of a session through its client and not yet answered
	// approvals: consent the client could not ask, waiting for the user's
	// answer at the terminal (approvals.go)
	approvals approvals
	files     fileRules
	audit     func(audit.Row)
}

// credit is a single-use scope an action bought.
type credit struct {
	scope policy.Scope
	cap   policy.Capability
	tab   string // only a request sent from this tab spends it
}

// navigate makes sure the driver may load rawURL: NAVIGATE on its
// origin (or, for a URL with no origin, that URL once), asked for when it is
// not held yet.
func (d *grantDesk) navigate(ctx context.Context, c Caller, rawURL, reason string) error {
	// rawURL is what navigate hands the browser; ScopeOf reads its host as
	// the browser will request it (http://2130706433/ is 127.0.0.1), so the
	// grant is on the site the browser's request is judged against.
	scope := policy.ScopeOf(rawURL)
	if scope.IsZero() {
		return newError(StatusError, "cannot tell which site "+audit.URL(rawURL)+" is", "Pass an absolute http(s) URL.")
	}
	if scope.Opaque() && webScheme(rawURL) {
		// A web URL whose host the browser would refuse or spell otherwise
		// (a*b is requested as a%2Ab): a grant on it would cover nothing
		// the browser asks for, so the user is not asked for one.
		return newError(StatusError, "the host of "+policy.LoggableURL(rawURL)+" is not one the browser loads as written",
			"Write the URL with a plain host name or a dotted IPv4 address, e.g. https://example.com/ or http://127.0.0.1:8080/.")
	}
	if policy.IsFileURL(rawURL) {
		if reason := d.files.refusal(rawURL); reason != "" {
			return fileRefused(rawURL, reason) // never asked: files.go
		}
	}
	if !scope.Opaque() {
		if _, ok := d.grants.Use(c.ID, scope, policy.Navigate, time.Now()); ok {
			return nil // held, and renewed by this use
		}
	}
	channel, entry, err := d.obtain(ctx, c, policy.Navigate, scope, reason)
	if err != nil {
		return err
	}
	return d.grants.Grant(c.ID, scope, policy.Navigate, policy.GrantOptions{Channel: channel, TrustedEntry: entry})
}

// interact makes sure the driver may act in a document at rawURL (the
// frame an element is in, the focused frame, a tab's own page: see
// interact.go): INTERACT there, which NAVIGATE implies, asked for when it
// is not held and renewed by this use when it is. A page with no origin
// (about:blank) holds nothing to protect.
func (d *grantDesk) interact(ctx context.Context, c Caller, rawURL, reason string) error {
	scope := policy.ScopeOf(rawURL)
	if scope.IsZero() || scope.Opaque() {
		return nil
	}
	if _, ok := d.grants.Use(c.ID, scope, policy.Interact, time.Now()); ok {
		return nil
	}
	channel, entry, err := d.obtain(ctx, c, policy.Interact, scope, reason)
	if err != nil {
		return err
	}
	return d.grants.Grant(c.ID, scope, policy.Interact, policy.GrantOptions{Channel: channel, TrustedEntry: entry})
}

// holdsInteract says whether interact would let the driver act in a
// document of scope without asking anyone: a grant held, the operator's
// lists, or approval turned off. It changes nothing; interact still runs
// in its turn.
func (d *grantDesk) holdsInteract(c Caller, scope policy.Scope) bool {
	if d.cfg.ConsentChannel == ConsentOff || d.grants.Has(c.ID, scope, policy.Interact, time.Now()) {
		return true
	}
	_, ok := d.cfg.Trust.Answers(policy.Interact, scope, false)
	return ok
}

// credit buys what an action's intent declares, as single-use grants on the
// origin of the frame it acts in, bound to its tab: the first matching
// request that tab sends (or a popup it opens, for its first load) spends
// them. Another tab on the same site cannot.
func (d *grantDesk) credit(ctx context.Context, a *act, actsIn string) error {
	in := a.spec.opts.Intent
	var caps []policy.Capability
	if in.Submit {
		caps = append(caps, policy.Submit)
	}
	if in.Upload {
		caps = append(caps, policy.Upload)
	}
	if in.Publish {
		caps = append(caps, policy.Publish)
	}
	if in.Download {
		caps = append(caps, policy.Download)
	}
	if len(caps) == 0 {
		return nil
	}
	// The frame acted in sends what the action sets off (a form in a
	// cross-site iframe is that frame's send); navigate acts on the tab.
	url := actsIn
	if url == "" && a.spec != nil && a.spec.on == onDestination {
		url = a.spec.url // navigate(download=true): the file's site
	}
	if url == "" {
		url, _ = a.b.fresh(ctx, a.tab)
	}
	scope := policy.ScopeOf(url)
	if scope.IsZero() {
		return newError(StatusError, "the page has no address to act from", "Navigate to a page first.")
	}
	// A form that goes to another site goes there as any navigation does:
	// the question names where, and NAVIGATE there is needed (asked for
	// after the credits, unless held). The guard holds the send to it
	// whatever the form says by then (policy.Judge).
	var to policy.Scope
	if a.sends != nil && in.Submit {
		if d := policy.ScopeOf(a.sends.Action); !d.Opaque() && !d.IsZero() && d != scope {
			to = d
		}
	}
	// The publish state the form sends now: the credit pays only for a
	// body that sends it. publish binds it once its live control is set.
	var form *policy.ApprovedForm
	if !in.Publish {
		form = approvedForm(a.sends)
	}
	var need *ConsentNeeded
	var left *Error // questions the client cannot ask, left to lyrad approve
	for _, cap := range caps {
		detail := in.Detail
		if cap == policy.Submit && !to.IsZero() {
			detail = joinLines("The form goes to "+promptLine(to.Loggable(), 300)+", another site than the one it is sent from.", detail)
		}
		channel, entry, err := d.obtainQuestion(ctx, a.c, cap, scope, detail, in.Reason)
		var q *ConsentNeeded
		if errors.As(err, &q) {
			// Every unanswered question goes out in this round: asking one
			// per round would hand back the credits already answered, and
			// their answers would not come again.
			need = need.also(q)
			continue
		}
		if e := terminalQuestion(err); e != nil {
			// The same for questions left to the terminal: one id
			// answers them all.
			left = left.alsoAsked(e)
			continue
		}
		if err != nil {
			d.release(a)
			return d.pend(a.c, err)
		}
		tab := string(a.tab.ID)
		opts := policy.GrantOptions{Channel: channel, TrustedEntry: entry, Tab: tab}
		if cap == policy.Submit || cap == policy.Publish {
			opts.Form = form
		}
		if err := d.grants.Grant(a.c.ID, scope, cap, opts); err != nil {
			d.release(a)
			return newError(StatusError, err.Error(), "")
		}
		a.credits = append(a.credits, credit{scope, cap, tab})
		if cap == policy.Download {
			a.dlFrom = scope // the one site whose file it pays for
		}
	}
	if !to.IsZero() {
		if _, ok := d.grants.Use(a.c.ID, to, policy.Navigate, time.Now()); !ok {
			channel, entry, err := d.obtainQuestion(ctx, a.c, policy.Navigate, to,
				"A form from "+promptLine(scope.Loggable(), 300)+" goes there.", in.Reason)
			var q *ConsentNeeded
			if errors.As(err, &q) {
				// In the same round as the credits' questions.
				need = need.also(q)
			} else if e := terminalQuestion(err); e != nil {
				left = left.alsoAsked(e)
			} else if err != nil {
				d.release(a)
				return d.pend(a.c, err)
			} else if err := d.grants.Grant(a.c.ID, to, policy.Navigate, policy.GrantOptions{Channel: channel, TrustedEntry: entry}); err != nil {
				d.release(a)
				return newError(StatusError, err.Error(), "")
			}
		}
	}
	if need != nil {
		d.release(a)
		return need
	}
	if left != nil {
		d.release(a)
		return d.pend(a.c, left)
	}
	return nil
}

// terminalQuestion is err when it is approval_required for a question the
// user can answer at the terminal, else nil.
func terminalQuestion(err error) *Error {
	var e *Error
	if errors.As(err, &e) && e.Status == StatusApprovalRequired && len(e.asked) > 0 && e.Approval == nil {
		return e
	}
	return nil
}

// alsoAsked adds the questions of o to the refusal e (e itself when nil):
// its message lists them, each on its own line.
func (e *Error) alsoAsked(o *Error) *Error {
	if e == nil {
		return o
	}
	for _, q := range o.asked {
		e.asked = append(e.asked, q)
		e.Message += "\n" + q.Message
	}
	return e
}

// joinLines joins the non-empty lines of a prompt.
func joinLines(lines ...string) string {
	var out []string
	for _, l := range lines {
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// release hands back an action's unused single-use scopes after the
// release grace: a click's navigation can leave just after the call returns.
func (d *grantDesk) release(a *act) {
	for _, cr := range a.credits {
		d.grants.ReleaseAfter(a.c.ID, cr.scope, cr.cap, cr.tab, d.cfg.ReleaseGrace)
	}
	a.credits = nil
}

// webScheme reports whether rawURL is an http or https URL (or a blob: of
// one), which always has a site.
func webScheme(rawURL string) bool {
	s := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(rawURL, "blob:"), "BLOB:"))
	return strings.HasPrefix(s, "http:") || strings.HasPrefix(s, "https:")
}

// also adds q to the questions of one round: need itself, or q when there
// are none yet.
func (need *ConsentNeeded) also(q *ConsentNeeded) *ConsentNeeded {
	if need == nil {
		return q
	}
	need.More = append(need.More, q)
	return need
}
