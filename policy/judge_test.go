package policy

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

const (
	shop = "https://shop.example/cart"
	pay  = "https://pay.test/charge"
)

// env is one session's view of the store, with a fake clock.
type env struct {
	t     *testing.T
	clk   *fakeClock
	g     *Grants
	mode  Mode
	trust Trust
	off   bool
	taken bool
	user  bool // the request carries the user's activation
	decl  Declared
	body  *Body
}

func newEnv(t *testing.T) *env {
	clk := newClock()
	return &env{t: t, clk: clk, g: NewGrants(0, clk.Now), mode: Enforce}
}

func (e *env) grant(rawURL string, c Capability, channel string) {
	e.t.Helper()
	if err := e.g.Grant("s1", ScopeOf(rawURL), c, GrantOptions{Channel: channel}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) judge(r Request, current string) Verdict {
	return Judge(Judgement{
		Class: Classify(r, current), Session: "s1", Grants: e.g, Now: e.clk.Now(),
		Mode: e.mode, Takeover: e.taken, UserActivated: e.user, ConsentOff: e.off, Trust: e.trust, Declared: e.decl,
		Body: e.body,
	})
}

func mustTrusted(t *testing.T, list string) []TrustedEntry {
	t.Helper()
	es, warns := ParseTrusted(list)
	if len(warns) > 0 || len(es) == 0 {
		t.Fatalf("ParseTrusted(%q): %v", list, warns)
	}
	return es
}

func post(u string) Request { return Request{URL: u, Method: "POST", HasBody: true} }
func get(u string) Request  { return Request{URL: u, Method: "GET"} }

func TestJudgeInteractionAndLeaving(t *testing.T) {
	e := newEnv(t)
	if v := e.judge(get("https://shop.example/item"), shop); v.Allow || v.Reason != ReasonNotGranted || v.Capability != Interact {
		t.Errorf("ungranted interaction: %+v", v)
	}
	e.grant(shop, Navigate, ChannelElicit)
	v := e.judge(get("https://shop.example/search?q=x"), shop)
	if !v.Allow || v.Kind != Interaction || v.ConsentChannel != ChannelElicit || v.Spent != "" {
		t.Errorf("arriving on a site carries permission to use it: %+v", v)
	}
	v = e.judge(get("https://other.test/"), shop)
	if v.Allow || v.Kind != Leaving || v.Capability != Navigate || v.Origin != "https://other.test" {
		t.Errorf("leaving for an unapproved site is refused: %+v", v)
	}
	if v.RedirectedTo != "" {
		t.Errorf("not a redirect, no redirected_to: %+v", v)
	}
	e.grant("https://other.test/", Navigate, ChannelLegacy)
	if v := e.judge(get("https://other.test/"), shop); !v.Allow || v.ConsentChannel != ChannelLegacy {
		t.Errorf("leaving for an approved site: %+v", v)
	}
	// The grant expires with the TTL.
	e.clk.Add(DefaultGrantTTL)
	if v := e.judge(get("https://other.test/"), shop); v.Allow {
		t.Errorf("an expired grant covers nothing: %+v", v)
	}
}

func TestJudgeSubmission(t *testing.T) {
	e := newEnv(t)
	e.grant(shop, Navigate, ChannelElicit)
	if v := e.judge(post("https://shop.example/order"), shop); v.Allow || v.Capability != Submit {
		t.Errorf("an undeclared POST is stopped even on an approved site: %+v", v)
	}
	// The declared submit is one credit, spent once by the origin that acts.
	e.grant(shop, Submit, ChannelElicit)
	e.decl = Declared{Submit: true, Origin: mustOrigin(shop)}
	if v := e.judge(post("https://other.test/x"), "https://other.test/form"); v.Allow {
		t.Errorf("another origin cannot spend shop's credit: %+v", v)
	}
	v := e.judge(post("https://shop.example/order"), shop)
	if !v.Allow || v.Spent != Submit || v.ConsentChannel != ChannelElicit {
		t.Errorf("the declared submit goes through: %+v", v)
	}
	if v := e.judge(post("https://shop.example/order"), shop); v.Allow {
		t.Errorf("a second POST finds the credit spent: %+v", v)
	}
}

func TestJudgeCrossOriginSend(t *testing.T) {
	e := newEnv(t)
	e.grant(shop, Submit, ChannelElicit)
	// The destination is somewhere the send goes, as any navigation: with
	// no NAVIGATE there it is refused, and the credit is left unspent.
	v := e.judge(post(pay), shop)
	if v.Allow || v.Capability != Navigate || v.Origin != "https://pay.test" || v.CrossOriginSend != "https://pay.test" || v.Spent != "" {
		t.Errorf("a form posted to an unapproved site is refused for NAVIGATE there: %+v", v)
	}
	e.grant(pay, Navigate, ChannelElicit)
	v = e.judge(post(pay), shop)
	if !v.Allow || v.CrossOriginSend != "https://pay.test" || v.Origin != "https://shop.example" || v.Spent != Submit {
		t.Errorf("a form posted to an approved payment handler is paid by the sender and labelled: %+v", v)
	}
	if f := v.Fields(); f["cross_origin_send"] != "https://pay.test" {
		t.Errorf("audit fields: %v", f)
	}
	if e.g.Has("s1", ScopeOf(pay), Submit, e.clk.Now()) {
		t.Error("cross_origin_send buys nothing at the destination")
	}
	// The trusted navigate list answers for the destination as for a
	// navigation.
	e = newEnv(t)
	e.grant(shop, Submit, ChannelElicit)
	e.trust = Trust{Navigate: mustTrusted(t, "pay.test")}
	if v := e.judge(post(pay), shop); !v.Allow || v.Spent != Submit {
		t.Errorf("a destination on the trusted navigate list: %+v", v)
	}
}

// Redirect hops: a 307/308 that repeats the body needs a second
// credit, a 302/303 after a POST is leaving, a hop to an unapproved origin
// is refused with redirect_from and redirected_to.
func TestJudgeRedirectHops(t *testing.T) {
	for _, status := range []int{307, 308} {
		e := newEnv(t)
		e.grant(shop, Submit, ChannelElicit)
		e.grant(pay, Navigate, ChannelElicit)
		if v := e.judge(post(pay), shop); !v.Allow {
			t.Fatalf("%d: first POST: %+v", status, v)
		}
		hop := Request{URL: "https://away.test/land?token=abc", Method: "POST", HasBody: true, IsRedirect: true, RedirectFrom: pay + "?id=7", RedirectStatus: status}
		v := e.judge(hop, shop)
		if v.Allow || v.Kind != Submission || v.CrossOriginSend != "https://away.test" {
			t.Errorf("%d: the first POST spent the grant, the hop is denied: %+v", status, v)
		}
		if v.RedirectFrom != pay || v.RedirectedTo != "https://away.test" {
			t.Errorf("%d: redirect_from %q (no query), redirected_to %q (origin only)", status, v.RedirectFrom, v.RedirectedTo)
		}
	}
	for _, status := range []int{301, 302, 303} {
		e := newEnv(t)
		e.grant(shop, Submit, ChannelElicit)
		e.judge(post(pay), shop)
		hop := Request{URL: "https://away.test/land", Method: "POST", HasBody: true, IsRedirect: true, RedirectFrom: pay, RedirectStatus: status}
		v := e.judge(hop, shop)
		if v.Allow || v.Kind != Leaving || v.Capability != Navigate || v.RedirectedTo != "https://away.test" {
			t.Errorf("%d after a POST to another origin is leaving, not submission: %+v", status, v)
		}
		e.grant("https://away.test/", Navigate, ChannelElicit)
		if v := e.judge(hop, shop); !v.Allow {
			t.Errorf("%d: approved destination: %+v", status, v)
		}
	}
	// An approved site answering 302 to an unapproved one is refused like
	// that destination asked for directly.
	e := newEnv(t)
	e.grant("https://approved.test/", Navigate, ChannelElicit)
	hop := Request{URL: "https://evil.test/", IsRedirect: true, RedirectFrom: "https://approved.test/go", RedirectStatus: 302}
	if v := e.judge(hop, ""); v.Allow || v.RedirectedTo != "https://evil.test" {
		t.Errorf("302 to an unapproved origin: %+v", v)
	}
	// A hop that stays on its origin, or upgrades to https, is not judged.
	for _, to := range []string{"https://approved.test/go/", "https://approved.test/login"} {
		hop := Request{URL: to, Method: "POST", HasBody: true, IsRedirect: true, RedirectFrom: "https://approved.test/go", RedirectStatus: 307}
		if v := e.judge(hop, "https://approved.test/form"); !v.Allow || v.Reason != ReasonSameOrigin || v.Spent != "" {
			t.Errorf("same-origin hop to %s: %+v", to, v)
		}
	}
	up := Request{URL: "https://plain.test/", IsRedirect: true, RedirectFrom: "http://plain.test/", RedirectStatus: 301}
	if v := e.judge(up, ""); !v.Allow || v.Reason != ReasonSameOrigin {
		t.Errorf("http->https upgrade hop: %+v", v)
	}
	up.URL = "https://plain.test:8443/"
	if v := e.judge(up, ""); v.Allow {
		t.Errorf("an upgrade to another port is somewhere new: %+v", v)
	}
}

func TestJudgeObserveNeverSpends(t *testing.T) {
	e := newEnv(t)
	e.mode = Observe
	e.grant(shop, Submit, ChannelElicit)
	for i := 0; i < 3; i++ {
		v := e.judge(post("https://shop.example/order"), shop)
		if !v.Allow || v.WouldDeny || v.Spent != "" {
			t.Fatalf("observe, covered: %+v", v)
		}
	}
	if !e.g.Has("s1", ScopeOf(shop), Submit, e.clk.Now()) {
		t.Error("observe mode spent a grant")
	}
	v := e.judge(get("https://evil.test/"), shop)
	if !v.Allow || !v.WouldDeny || v.Reason != ReasonNotGranted {
		t.Errorf("observe refuses nothing and marks what it would have: %+v", v)
	}
	if f := v.Fields(); f["would_deny"] != true {
		t.Errorf("audit fields: %v", f)
	}
	file := "file:///home/u/a.html"
	e.grant(file, Navigate, ChannelElicit)
	e.judge(get(file), "")
	e.judge(get(file), "")
	if !e.g.Has("s1", ScopeOf(file), Navigate, e.clk.Now()) {
		t.Error("observe mode used up a file: grant")
	}
	// Trusted answers count, but mint nothing in observe mode.
	e.trust.Navigate, _ = ParseTrusted("kvraudio.com")
	if v := e.judge(get("https://kvraudio.com/"), shop); !v.Allow || v.WouldDeny || v.ConsentChannel != ChannelTrusted {
		t.Errorf("observe, trusted: %+v", v)
	}
	if e.g.Has("s1", ScopeOf("https://kvraudio.com/"), Navigate, e.clk.Now()) {
		t.Error("observe mode changed the store")
	}
}

func TestJudgeUnknownModeEnforces(t *testing.T) {
	e := newEnv(t)
	for _, m := range []Mode{"", "OBSERVE", "record"} {
		e.mode = m
		if v := e.judge(get("https://evil.test/"), shop); v.Allow || v.WouldDeny {
			t.Errorf("mode %q must enforce: %+v", m, v)
		}
	}
}

func TestJudgeTakeover(t *testing.T) {
	e := newEnv(t)
	e.taken, e.user = true, true
	e.grant(shop, Submit, ChannelElicit)
	for _, r := range []Request{get("https://bank.test/login"), post("https://bank.test/2fa"), post("https://shop.example/pay"), get("file:///etc/passwd")} {
		v := e.judge(r, shop)
		if !v.Allow || !v.UserDriven || v.Reason != ReasonUserDriven || v.Spent != "" {
			t.Errorf("takeover %s: %+v", r.URL, v)
		}
		if f := v.Fields(); f["user_driven"] != true {
			t.Errorf("audit fields: %v", f)
		}
	}
	if !e.g.Has("s1", ScopeOf(shop), Submit, e.clk.Now()) {
		t.Error("what the user did spent the agent's credit")
	}
	e.taken = false
	if v := e.judge(get("https://bank.test/"), shop); v.Allow {
		t.Errorf("after the takeover the agent is judged again: %+v", v)
	}
}

// During a takeover what the page does by itself (no user activation on
// the request: a timer's navigation, a meta refresh, a script's submit) is
// judged exactly as when the agent drives: refused unless a grant covers
// it, which it spends; audited during_takeover, never user_driven. Outside
// a takeover an activation means nothing (the agent's clicks carry one).
func TestJudgeTakeoverPageByItself(t *testing.T) {
	e := newEnv(t)
	e.grant(shop, Navigate, ChannelElicit)
	e.trust.Navigate, _ = ParseTrusted("docs.example")
	e.taken = true
	for _, r := range []Request{get("https://bank.test/exfil?d=1"), post("https://bank.test/exfil"),
		{URL: "https://bank.test/x", Method: "GET", IsRedirect: true, RedirectFrom: "https://shop.example/hop", RedirectStatus: 302}} {
		v := e.judge(r, shop)
		if v.Allow || v.UserDriven || v.Reason != ReasonNotGranted {
			t.Errorf("the page's own %s %s during a takeover: %+v", r.Method, r.URL, v)
		}
		if f := v.Fields(); f["during_takeover"] != true || f["user_driven"] != nil {
			t.Errorf("audit fields: %v", f)
		}
	}
	// What a grant covers goes, as the agent's would, and spends: a post
	// is paid by its sender's SUBMIT credit.
	e.grant(shop, Submit, ChannelElicit)
	if v := e.judge(get("https://shop.example/next"), shop); !v.Allow || v.Reason != ReasonGranted || v.UserDriven {
		t.Errorf("the page moving on its granted site: %+v", v)
	}
	if v := e.judge(post("https://shop.example/order"), shop); !v.Allow || v.Spent != Submit || v.UserDriven {
		t.Errorf("the page's own post on a SUBMIT credit: %+v", v)
	}
	if v := e.judge(post("https://shop.example/order"), shop); v.Allow {
		t.Errorf("the credit was spent: %+v", v)
	}
	// The trusted list answers as when the agent drives.
	if v := e.judge(get("https://docs.example/"), shop); !v.Allow || v.Reason != ReasonTrusted {
		t.Errorf("a listed site: %+v", v)
	}
	// Observe mode: let through, marked.
	e.mode = Observe
	if v := e.judge(get("https://bank.test/"), shop); !v.Allow || !v.WouldDeny || v.UserDriven {
		t.Errorf("observe: %+v", v)
	}
	e.mode = Enforce
	// The user's own act, on the same request, passes.
	e.user = true
	if v := e.judge(get("https://bank.test/exfil?d=1"), shop); !v.Allow || !v.UserDriven || v.DuringTakeover {
		t.Errorf("the user's own navigation: %+v", v)
	}
	// No takeover: an activation is no grant.
	e.taken = false
	if v := e.judge(get("https://bank.test/"), shop); v.Allow || v.UserDriven || v.DuringTakeover {
		t.Errorf("an activated request outside a takeover: %+v", v)
	}
}

func TestUserSiteSend(t *testing.T) {
	b, _ := OriginOf("https://bank.test/login")
	visited := map[Origin]bool{b: true}
	for _, c := range []struct {
		sender, dest string
		want         bool
	}{
		{"https://bank.test", "https://bank.test/api/login", true},
		{"https://BANK.test:443", "https://bank.test/api", true},
		{"https://evil.test", "https://bank.test/api", false},     // another site's document
		{"https://bank.test", "https://evil.test/collect", false}, // to another site
		{"https://bank.test", "http://bank.test/api", false},      // another origin
		{"https://api.bank.test", "https://api.bank.test/", false},
		{"null", "https://bank.test/", false},
		{"", "https://bank.test/", false},
	} {
		if got := UserSiteSend(c.sender, ScopeOf(c.dest), visited); got != c.want {
			t.Errorf("UserSiteSend(%q, %q) = %v, want %v", c.sender, c.dest, got, c.want)
		}
	}
	if UserSiteSend("https://bank.test", ScopeOf("https://bank.test/"), nil) {
		t.Error("nothing visited")
	}
}

func TestJudgeTrusted(t *testing.T) {
	e := newEnv(t)
	e.trust.Navigate, _ = ParseTrusted("kvraudio.com *.example.com")
	e.trust.Send, _ = ParseTrusted("app.example")

	v := e.judge(get("https://kvraudio.com/forum"), "")
	if !v.Allow || v.Reason != ReasonTrusted || v.ConsentChannel != ChannelTrusted || v.TrustedEntry != "https://kvraudio.com" {
		t.Errorf("a listed site: %+v", v)
	}
	info, ok := e.g.Lookup("s1", ScopeOf("https://kvraudio.com/"), Navigate, e.clk.Now())
	if !ok || info.Channel != ChannelTrusted || info.TrustedEntry != "https://kvraudio.com" || info.Expires.IsZero() {
		t.Errorf("a listed site gets a real grant with an approved one's lifetime: %+v %v", info, ok)
	}
	// A redirect hop to a listed site is answered too.
	hop := Request{URL: "https://app.example.com/", IsRedirect: true, RedirectFrom: "https://api.example.com/login", RedirectStatus: 302}
	if v := e.judge(hop, ""); !v.Allow || v.TrustedEntry != "*.example.com" {
		t.Errorf("a hop to a listed subdomain: %+v", v)
	}
	for _, u := range []string{"https://example.com/", "http://kvraudio.com/", "https://kvraudio.com.evil.io/", "https://kvraudio.com:8443/"} {
		if v := e.judge(get(u), ""); v.Allow {
			t.Errorf("%s is not listed: %+v", u, v)
		}
	}
	// The navigate list never answers a send.
	if v := e.judge(post("https://kvraudio.com/post"), "https://kvraudio.com/"); v.Allow {
		t.Errorf("a trusted site still asks for SUBMIT: %+v", v)
	}
	// The send list answers a send from a listed origin, spending nothing.
	for i := 0; i < 2; i++ {
		v := e.judge(post("https://app.example/save"), "https://app.example/edit")
		if !v.Allow || v.Reason != ReasonTrusted || v.Spent != "" || v.TrustedEntry != "https://app.example" {
			t.Errorf("send list: %+v", v)
		}
	}
	// ... but not a navigation to it.
	if v := e.judge(get("https://app.example/"), ""); v.Allow {
		t.Errorf("the send list answers nothing but SUBMIT and UPLOAD: %+v", v)
	}
	// When approval is off the lists answer nothing; grants still count.
	e2 := newEnv(t)
	e2.trust = e.trust
	e2.off = true
	if v := e2.judge(get("https://kvraudio.com/"), ""); v.Allow {
		t.Errorf("approval off: the list does not apply: %+v", v)
	}
	e2.grant("https://kvraudio.com/", Navigate, ChannelOff)
	if v := e2.judge(get("https://kvraudio.com/"), ""); !v.Allow || v.ConsentChannel != ChannelOff {
		t.Errorf("approval off keeps consent_channel=off: %+v", v)
	}
}

func TestJudgeDeclaredPublish(t *testing.T) {
	e := newEnv(t)
	kvr := "https://kvraudio.com/edit"
	e.grant(kvr, Publish, ChannelElicit)
	if v := e.judge(post("https://kvraudio.com/save"), kvr); v.Allow {
		t.Errorf("PUBLISH is spent only by the action that declared it: %+v", v)
	}
	e.decl = Declared{Publish: true, Origin: mustOrigin("https://other.test/")}
	if v := e.judge(post("https://kvraudio.com/save"), kvr); v.Allow {
		t.Errorf("declared for another origin: %+v", v)
	}
	e.decl = Declared{Publish: true, Origin: mustOrigin(kvr)}
	e.grant(kvr, Submit, ChannelElicit)
	v := e.judge(post("https://kvraudio.com/save"), kvr)
	if !v.Allow || v.Spent != Publish || v.Capability != Publish {
		t.Errorf("the publish tool's send spends PUBLISH first: %+v", v)
	}
	if !e.g.Has("s1", ScopeOf(kvr), Submit, e.clk.Now()) {
		t.Error("the SUBMIT credit was left alone")
	}
}

func TestJudgeFileOnce(t *testing.T) {
	e := newEnv(t)
	a := "file:///home/u/a.html"
	e.grant(a, Navigate, ChannelElicit)
	if v := e.judge(get("file:///home/u/b.html"), ""); v.Allow {
		t.Errorf("another file: URL: %+v", v)
	}
	if v := e.judge(get(a), ""); !v.Allow || v.Spent != Navigate || v.Origin != a {
		t.Errorf("the approved file: URL: %+v", v)
	}
	if v := e.judge(get(a), a); v.Allow {
		t.Errorf("once: reloading it asks again: %+v", v)
	}
}

func TestJudgeReleaseGrace(t *testing.T) {
	e := newEnv(t)
	e.grant(shop, Submit, ChannelElicit)
	e.g.ReleaseAfter("s1", ScopeOf(shop), Submit, "", DefaultReleaseGrace)
	e.clk.Add(time.Second)
	if v := e.judge(post("https://shop.example/order"), shop); !v.Allow {
		t.Errorf("a click's late navigation inside the grace: %+v", v)
	}
	e.grant(shop, Submit, ChannelElicit)
	e.g.ReleaseAfter("s1", ScopeOf(shop), Submit, "", DefaultReleaseGrace)
	e.clk.Add(DefaultReleaseGrace)
	if v := e.judge(post("https://shop.example/order"), shop); v.Allow {
		t.Errorf("after the grace the scope was handed back: %+v", v)
	}
}

func TestJudgeDropSession(t *testing.T) {
	e := newEnv(t)
	e.grant(shop, Navigate, ChannelElicit)
	e.g.DropSession("s1")
	if v := e.judge(get("https://shop.example/x"), shop); v.Allow {
		t.Errorf("close_browser drops the grants: %+v", v)
	}
}

func TestJudgeUnjudgedKinds(t *testing.T) {
	e := newEnv(t)
	if v := e.judge(Request{URL: "https://maps.test/embed", InSubframe: true}, shop); !v.Allow || v.Reason != ReasonEmbed {
		t.Errorf("embed: %+v", v)
	}
	hop := Request{URL: "https://shop.example/b", IsRedirect: true, RedirectFrom: "https://shop.example/a", RedirectStatus: 301}
	if v := e.judge(hop, ""); !v.Allow || v.Reason != ReasonSameOrigin {
		t.Errorf("same-origin hop: %+v", v)
	}
	// Not a classification at all, or no store: refused, never guessed.
	if v := Judge(Judgement{Grants: e.g}); v.Allow {
		t.Errorf("the zero Judgement: %+v", v)
	}
	if v := Judge(Judgement{Class: Classify(get("https://x.test/"), "https://x.test/")}); v.Allow {
		t.Errorf("no store: %+v", v)
	}
}

func TestVerdictFields(t *testing.T) {
	v := Verdict{Kind: Submission, Capability: Submit, Origin: "https://a.test", Reason: ReasonGranted, Spent: Submit,
		ConsentChannel: ChannelElicit, RedirectFrom: "https://a.test/x", CrossOriginSend: "https://b.test"}
	want := map[string]any{
		"kind": "submission", "capability": "SUBMIT", "origin": "https://a.test", "reason": "granted", "spent": "SUBMIT",
		"consent_channel": "elicit", "redirect_from": "https://a.test/x", "cross_origin_send": "https://b.test",
	}
	if got := v.Fields(); !reflect.DeepEqual(got, want) {
		t.Errorf("Fields() = %v", got)
	}
}

func mustOrigin(u string) Origin {
	o, ok := OriginOf(u)
	if !ok {
		panic(u)
	}
	return o
}

// A submission from a document with no origin is paid by nobody: not by its
// destination's credit, not by a trusted send list.
func TestJudgeNoSender(t *testing.T) {
	e := newEnv(t)
	e.grant(pay, Submit, ChannelElicit)
	e.trust.Send, _ = ParseTrusted("https://pay.test")
	r := post(pay)
	r.Sender = "null"
	if v := e.judge(r, shop); v.Allow || v.Reason != ReasonNoSender {
		t.Errorf("opaque sender: %+v", v)
	}
	if !e.g.Has("s1", ScopeOf(pay), Submit, e.clk.Now()) {
		t.Error("the destination's credit was spent by a send it did not make")
	}
	e.mode = Observe
	if v := e.judge(r, shop); !v.Allow || !v.WouldDeny || v.Reason != ReasonNoSender {
		t.Errorf("observe: %+v", v)
	}
}

// A single-use credit bound to a tab pays only for a request from that tab;
// an unbound one (a file: URL's one load) pays for any.
func TestJudgeCreditBoundToTab(t *testing.T) {
	e := newEnv(t)
	if err := e.g.Grant("s1", ScopeOf(shop), Submit, GrantOptions{Channel: ChannelElicit, Tab: "T1"}); err != nil {
		t.Fatal(err)
	}
	judge := func(tab string) Verdict {
		return Judge(Judgement{Class: Classify(post(shop), shop), Session: "s1", Grants: e.g, Now: e.clk.Now(), Mode: Enforce, Tab: tab})
	}
	if v := judge("T2"); v.Allow {
		t.Errorf("another tab spent the credit: %+v", v)
	}
	if v := judge(""); v.Allow {
		t.Errorf("a request from no known tab spent the credit: %+v", v)
	}
	if v := judge("T1"); !v.Allow || v.Spent != Submit {
		t.Errorf("the tab that bought it: %+v", v)
	}
	if v := judge("T1"); v.Allow {
		t.Errorf("spent twice: %+v", v)
	}
	// Release names the tab too.
	_ = e.g.Grant("s1", ScopeOf(shop), Submit, GrantOptions{Tab: "T1"})
	e.g.ReleaseAfter("s1", ScopeOf(shop), Submit, "T1", 0)
	if v := judge("T1"); v.Allow {
		t.Errorf("released credit still paid: %+v", v)
	}
	// NAVIGATE is never bound: a tab option on it is ignored.
	_ = e.g.Grant("s1", ScopeOf(shop), Navigate, GrantOptions{Tab: "T1"})
	if !e.g.Has("s1", ScopeOf(shop), Interact, e.clk.Now()) {
		t.Error("an origin grant was bound to a tab")
	}
}

// A document URL over MaxDocumentURL is refused whatever grants cover it;
// the user driving is not held to it.
func TestJudgeURLTooLong(t *testing.T) {
	e := newEnv(t)
	e.grant(shop, Navigate, ChannelElicit)
	long := "https://shop.example/embed?p=" + strings.Repeat("x", MaxDocumentURL)
	r := get(long)
	r.InSubframe = true
	if v := e.judge(r, shop); v.Allow || v.Reason != ReasonURLTooLong {
		t.Errorf("a 256 KiB iframe URL: %+v", v)
	}
	if v := e.judge(get(long[:MaxDocumentURL]), shop); !v.Allow {
		t.Errorf("a URL at the limit: %+v", v)
	}
	e.taken, e.user = true, true
	if v := e.judge(get(long), shop); !v.Allow || !v.UserDriven {
		t.Errorf("the user's own long URL: %+v", v)
	}
}
