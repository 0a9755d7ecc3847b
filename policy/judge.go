package policy

import "time"

// Mode is LYRA_BROWSER_ENFORCEMENT.
type Mode string

const (
	// Enforce refuses what no grant covers and spends what it lets through.
	Enforce Mode = "enforce"
	// Observe refuses nothing and spends nothing; each request enforce would
	// have refused is marked would_deny.
	Observe Mode = "observe"
)

// Declared is what the action in flight declared it may do, and on which
// origin (the page it acts on). The credit itself is a single-use grant in
// the store; the declaration says which credit a request the page sends
// should spend. Only Publish changes the navigation judgement: a form post
// from Origin may then spend the PUBLISH grant (the publish tool's own send)
// instead of a SUBMIT. Upload and Download are for their own gates (the file
// chooser, the download as it arrives) and are carried for the audit.
type Declared struct {
	Submit, Upload, Publish, Download bool
	Origin                            Origin
}

// Judgement is everything one decision depends on.
type Judgement struct {
	Class   Classification // from Classify
	Session string         // the MCP session that drives the browser
	Grants  *Grants        // nil: nothing is granted
	Now     time.Time
	Mode    Mode // "" or anything unknown reads as Enforce
	// Takeover: the user holds the browser. A request a user's act started
	// (UserActivated) is let through and recorded user_driven; nothing is
	// spent. Anything else is what the page does by itself (a timer's
	// navigation, a meta refresh, a script's submit) and is judged as when
	// the agent drives: refused unless a grant covers it, which it spends.
	Takeover bool
	// UserActivated: the browser states that a user's gesture started the
	// request (Network.requestWillBeSent's hasUserGesture on the first hop
	// of its chain; the same navigations carry Sec-Fetch-User: ?1). It counts
	// only during a takeover: the agent's own navigate and clicks carry it
	// too.
	UserActivated bool
	// ConsentOff: approval is off (LYRA_BROWSER_CONSENT_CHANNEL=off). The
	// trusted lists then answer nothing; grants still count.
	ConsentOff bool
	Trust      Trust
	Declared   Declared
	// FileRefusal is why a File request is never let through (a Reason
	// code: Places.Refusal, and what the caller saw on the disk, such as a
	// directory or a link into ~/.ssh), or "". It holds in every mode and
	// during a takeover.
	FileRefusal string
	// Tab is the tab the request was sent from. A single-use credit bought
	// for an action on one tab pays only for requests that tab sends.
	Tab string
	// Body is the request's body as the guard was handed it; nil when it
	// has none or none was handed over. A credit approved with a publish
	// state (GrantInfo.Form) pays only for a body that sends that state.
	Body *Body
}

// Verdict is the judgement's answer. Fields gives its audit columns.
type Verdict struct {
	Allow      bool
	Kind       Kind
	Capability Capability // what was needed; "" for a kind that is not judged
	Origin     string     // where it was needed (Scope.Loggable)
	Reason     string     // one of the Reason* codes
	// Spent is the single-use capability this request used up, if any.
	Spent Capability

	ConsentChannel  string // how the covering grant was obtained
	TrustedEntry    string // the trusted-list entry that answered
	RedirectFrom    string // the previous hop, as LoggableURL
	RedirectedTo    string // a refused hop's destination origin, for the reply
	CrossOriginSend string // a submission's destination on another origin
	// BodyMismatch says what a send refused for its body carried
	// (ReasonPublishStateChanged, ReasonBodyUnreadable).
	BodyMismatch string
	WouldDeny    bool // observe mode: enforce would have refused this
	UserDriven   bool // the user held the browser and did this
	// DuringTakeover: the user held the browser, but the page did this by
	// itself, and it was judged as the agent's would be.
	DuringTakeover bool
}

// Reason codes.
const (
	ReasonGranted    = "granted"              // a grant in the store covered it
	ReasonTrusted    = "trusted"              // the operator's list answered it
	ReasonUserDriven = "user_driven"          // takeover: the user drives
	ReasonSameOrigin = "redirect_same_origin" // a hop carrying on where it was
	ReasonEmbed      = "embed"                // an iframe loading its document
	ReasonNotGranted = "not_granted"          // nothing covered it
	ReasonNoSender   = "no_sender"            // a submission nobody with an origin sent
	ReasonURLTooLong = "url_too_long"         // a document URL over MaxDocumentURL
)

// Fields returns the audit columns of v, named as the audit trail names them.
// Empty and false values are left out.
func (v Verdict) Fields() map[string]any {
	m := map[string]any{"kind": string(v.Kind), "reason": v.Reason}
	put := func(k, s string) {
		if s != "" {
			m[k] = s
		}
	}
	put("capability", string(v.Capability))
	put("origin", v.Origin)
	put("spent", string(v.Spent))
	put("consent_channel", v.ConsentChannel)
	put("trusted_entry", v.TrustedEntry)
	put("redirect_from", v.RedirectFrom)
	put("redirected_to", v.RedirectedTo)
	put("cross_origin_send", v.CrossOriginSend)
	put("body_mismatch", v.BodyMismatch)
	if v.WouldDeny {
		m["would_deny"] = true
	}
	if v.UserDriven {
		m["user_driven"] = true
	}
	if v.DuringTakeover {
		m["during_takeover"] = true
	}
	return m
}

// Judge decides one classified request. It reads the store and, in enforce
// mode only, changes it: a single-use credit that pays for the request is
// spent, and a site the trusted navigate list answers gets a real NAVIGATE
// grant (consent_channel=trusted), as an approved one would. Observe mode
// never changes the store.
func Judge(j Judgement) Verdict {
	c := j.Class
	v := Verdict{
		Kind:            c.Kind,
		Capability:      c.Capability,
		Origin:          c.Subject.Loggable(),
		CrossOriginSend: c.CrossOriginSend,
	}
	if c.RedirectFrom != "" {
		v.RedirectFrom = LoggableURL(c.RedirectFrom)
	}
	if c.Kind == File && j.FileRefusal != "" {
		v.Reason, v.DuringTakeover = j.FileRefusal, j.Takeover
		return v // never: not in observe mode, not for the user's own hand
	}
	if j.Takeover && j.UserActivated {
		// Grants record what the agent may do; holding the user to them
		// would refuse them their own browser.
		v.Allow, v.UserDriven, v.Reason = true, true, ReasonUserDriven
		return v
	}
	// The page moving by itself while the user holds the window is judged
	// exactly as when the agent drives: the user's presence grants nothing.
	v.DuringTakeover = j.Takeover
	if c.TooLong {
		v = deny(j, v)
		v.Reason = ReasonURLTooLong
		return v
	}
	switch c.Kind {
	case RedirectSameOrigin:
		v.Allow, v.Reason = true, ReasonSameOrigin
		return v
	case Embed:
		v.Allow, v.Reason = true, ReasonEmbed
		return v
	case Submission:
		if c.NoSender {
			v = deny(j, v)
			v.Reason = ReasonNoSender
			return v
		}
	case Interaction, Leaving, File:
	default:
		// Not a classification: refuse rather than guess.
		return deny(j, v)
	}

	enforce := j.Mode != Observe
	caps := []Capability{c.Capability}
	if c.Kind == Submission {
		caps = []Capability{Submit}
		if d := j.Declared; d.Publish {
			if s, ok := c.Subject.Origin(); ok && s == d.Origin {
				caps = []Capability{Publish, Submit} // the declared credit first
			}
		}
	}
	for _, cap := range caps {
		// Looked at first, spent only once everything else holds: a send
		// refused for its body or its destination leaves the credit to the
		// send that was approved.
		info, ok := j.Grants.take(j.Session, c.Subject, cap, j.Tab, j.Now, false)
		if !ok {
			continue
		}
		if c.Kind == Submission {
			// Chrome 156 hands no navigation's body over (Judgement.Body);
			// when it does, the body must send the approved state.
			if b := j.Body; b != nil && !b.Unread {
				if reason, detail := info.Form.Check(*b); reason != "" {
					v = deny(j, v)
					v.Capability, v.Reason, v.BodyMismatch = cap, reason, detail
					return v
				}
			}
			if refused, ok := destinationRefused(j, v); ok {
				return refused
			}
		}
		if enforce {
			info, _ = j.Grants.take(j.Session, c.Subject, cap, j.Tab, j.Now, true)
		}
		v.Allow, v.Reason = true, ReasonGranted
		v.Capability = cap
		v.ConsentChannel, v.TrustedEntry = info.Channel, info.TrustedEntry
		if enforce && singleUse(c.Subject, info.Capability) {
			v.Spent = info.Capability
		}
		return v
	}
	if entry, ok := j.Trust.Answers(c.Capability, c.Subject, j.ConsentOff); ok {
		if c.Kind == Submission {
			if refused, ok := destinationRefused(j, v); ok {
				return refused
			}
		}
		v.Allow, v.Reason = true, ReasonTrusted
		v.ConsentChannel, v.TrustedEntry = ChannelTrusted, entry
		if enforce && (c.Capability == Navigate || c.Capability == Interact) && j.Grants != nil {
			// A listed site gets a real grant, with an approved one's lifetime.
			_ = j.Grants.Grant(j.Session, c.Subject, Navigate, GrantOptions{Channel: ChannelTrusted, TrustedEntry: entry})
		}
		return v
	}
	return deny(j, v)
}

// destinationRefused: a submission to another origin than its sender's
// goes there as any navigation does, and needs NAVIGATE on its destination
// (held, or answered by the trusted navigate list), which it does not
// spend or renew. ok reports a refusal, with its verdict.
func destinationRefused(j Judgement, v Verdict) (Verdict, bool) {
	c := j.Class
	if c.CrossOriginSend == "" {
		return v, false
	}
	if j.Grants.Has(j.Session, c.Destination, Navigate, j.Now) {
		return v, false
	}
	if _, ok := j.Trust.Answers(Navigate, c.Destination, j.ConsentOff); ok {
		return v, false
	}
	v = deny(j, v)
	v.Capability, v.Origin = Navigate, c.Destination.Loggable()
	return v, true
}

func deny(j Judgement, v Verdict) Verdict {
	v.Reason = ReasonNotGranted
	if j.Class.RedirectFrom != "" {
		v.RedirectedTo = j.Class.Destination.Loggable()
	}
	if j.Mode == Observe {
		v.Allow, v.WouldDeny = true, true
		return v
	}
	v.Allow = false
	return v
}

// UserSiteSend is the takeover's rule for a send (a fetch, XHR or beacon,
// which carry no activation signal): it is the user's when it goes from a
// document of a site the user navigated to during the takeover (a
// user-activated navigation, in visited) to that same site, as a login
// form that posts by fetch does. Anything else is judged as when the agent
// drives. sender is the sending document's origin (the Origin header).
func UserSiteSend(sender string, dest Scope, visited map[Origin]bool) bool {
	d, ok := dest.Origin()
	if !ok || !visited[d] {
		return false
	}
	s, ok := OriginOf(sender)
	return ok && s == d
}
