package session

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/policy"
)

// refusedWith is the pending approval a refusal names ("" when it names
// none) and its status.
func refusedWith(err error) (status, id string) {
	var e *Error
	if !errors.As(err, &e) {
		return "", ""
	}
	if e.Approval != nil {
		id = e.Approval.ID
	}
	return e.Status, id
}

// A question the client cannot ask waits under an id; the user's yes at
// the terminal answers that question once, for the session that asked,
// and no other: not another site, not another reason, not another session.
func TestApprovalAnswersItsQuestionOnce(t *testing.T) {
	m := New(Config{ConsentChannel: ConsentAuto, ConsentTimeout: time.Minute, ApproveCommand: "lyrad approve --data-dir /d"})
	a, b := policy.ScopeOf("http://127.0.0.1:8001/"), policy.ScopeOf("http://127.0.0.2:8002/")
	s1 := Caller{ID: "s1", Tool: "navigate", Client: "agent"}
	ask := func(c Caller, scope policy.Scope, reason string) (string, error) {
		channel, _, err := m.desk.obtain(context.Background(), c, policy.Navigate, scope, reason)
		return channel, err
	}

	_, err := ask(s1, a, "read the news")
	status, id := refusedWith(err)
	if status != StatusApprovalRequired || !validApprovalID(id) {
		t.Fatalf("the first ask: %v (id %q), want approval_required with an id", err, id)
	}
	var e *Error
	errors.As(err, &e)
	if !strings.Contains(e.Hint, "lyrad approve --data-dir /d "+id) || !strings.Contains(e.Hint, "confirm=true") {
		t.Errorf("the hint does not name the command: %q", e.Hint)
	}
	if _, again := refusedWith(second(ask(s1, a, "read the news"))); again != id {
		t.Errorf("the same question asked again got id %q, want %q", again, id)
	}
	list := m.Approvals()
	if len(list) != 1 || list[0].ID != id || list[0].Tool != "navigate" || list[0].Session != "s1" ||
		list[0].Questions[0].Capability != "NAVIGATE" || list[0].Questions[0].Origin != a.Loggable() {
		t.Fatalf("the list: %+v", list)
	}

	if _, err := m.AnswerApproval(strings.ToLower(id)+" ", true); err != nil {
		t.Fatalf("approve: %v", err)
	}
	if _, err := m.AnswerApproval(id, true); !errors.Is(err, ErrNoApproval) {
		t.Errorf("approving twice: %v, want ErrNoApproval", err)
	}
	// Another session: a question of its own, still to be asked.
	if status, other := refusedWith(second(ask(Caller{ID: "s2", Tool: "navigate"}, a, "read the news"))); status != StatusApprovalRequired || other == id {
		t.Errorf("another session took s1's yes: %s %q", status, other)
	}
	// Its own question: yes, on the terminal's channel, once.
	if channel, err := ask(s1, a, "read the news"); err != nil || channel != policy.ChannelCLI {
		t.Fatalf("the approved question: %q %v", channel, err)
	}
	if status, again := refusedWith(second(ask(s1, a, "read the news"))); status != StatusApprovalRequired || again == id {
		t.Errorf("the yes was used twice: %s %q", status, again)
	}

	// Another site, another reason: each a question of its own. And a yes
	// the repeat did not use (the call asked something else) goes with that
	// new question: the old question, asked later, is asked again.
	for _, c := range []struct {
		scope  policy.Scope
		reason string
	}{{b, "check the weather"}, {a, "log in"}} {
		_, id = refusedWith(second(ask(s1, a, "check the weather")))
		if _, err := m.AnswerApproval(id, true); err != nil {
			t.Fatal(err)
		}
		if status, other := refusedWith(second(ask(s1, c.scope, c.reason))); status != StatusApprovalRequired || other == id {
			t.Errorf("%s %q took the yes to %s: %s %q", c.scope, c.reason, id, status, other)
		}
		if status, again := refusedWith(second(ask(s1, a, "check the weather"))); status != StatusApprovalRequired || again == id {
			t.Errorf("a yes left behind by a call that moved on was used: %s %q", status, again)
		}
	}
}

func second(_ string, err error) error { return err }

// A denial at the terminal refuses the repeat without asking, once; an id
// that names nothing is an error.
func TestApprovalDenied(t *testing.T) {
	m := New(Config{ConsentChannel: ConsentElicit})
	a := policy.ScopeOf("http://127.0.0.1:8001/")
	c := Caller{ID: "s1", Tool: "navigate"}
	_, _, err := m.desk.obtain(context.Background(), c, policy.Navigate, a, "")
	_, id := refusedWith(err)
	var e *Error
	if !errors.As(err, &e) || !strings.Contains(e.Hint, "lyrad approve "+id) || !strings.Contains(e.Message, "LYRA_BROWSER_CONSENT_CHANNEL=elicit") {
		t.Fatalf("elicit channel, no elicitation: %v (%+v)", err, e)
	}
	if _, err := m.AnswerApproval(id, false); err != nil {
		t.Fatal(err)
	}
	_, _, err = m.desk.obtain(context.Background(), c, policy.Navigate, a, "")
	if status, _ := refusedWith(err); status != StatusDenied || consentOf(err) != "declined" {
		t.Fatalf("the repeat after a denial: %v", err)
	}
	_, _, err = m.desk.obtain(context.Background(), c, policy.Navigate, a, "")
	if status, again := refusedWith(err); status != StatusApprovalRequired || again == id {
		t.Fatalf("the next repeat: %v, want a new question", err)
	}
	for _, bad := range []string{"", "ZZZZZZ", "not an id at all\n"} {
		if _, err := m.AnswerApproval(bad, true); !errors.Is(err, ErrNoApproval) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// An approval waits its timeout for an answer, and an answer as long for
// the repeat; a session that ends takes its approvals with it; each
// session and the whole ledger are bounded.
func TestApprovalExpiresAndIsBounded(t *testing.T) {
	p := approvals{ttl: time.Minute}
	t0 := time.Unix(1000, 0)
	q := []ApprovalQuestion{{Capability: "NAVIGATE", Origin: "http://a", key: "k1"}}
	id, _ := p.ask(Caller{ID: "s1"}, q, t0)
	if _, err := p.decide(id, true, t0.Add(time.Minute+time.Second)); !errors.Is(err, ErrNoApproval) {
		t.Errorf("answered after it expired: %v", err)
	}
	id, _ = p.ask(Caller{ID: "s1"}, q, t0)
	if _, err := p.decide(id, true, t0.Add(50*time.Second)); err != nil {
		t.Fatal(err)
	}
	if state, _ := p.answer("s1", "k1", t0.Add(50*time.Second+time.Minute+time.Second)); state != "" {
		t.Errorf("an approval used after it expired: %s", state)
	}
	id, _ = p.ask(Caller{ID: "s1"}, q, t0)
	p.dropSession("s1")
	if _, err := p.decide(id, true, t0); !errors.Is(err, ErrNoApproval) {
		t.Errorf("an ended session's approval answered: %v", err)
	}
	for i := range 3 * maxApprovalsPerSession {
		p.ask(Caller{ID: "s1"}, []ApprovalQuestion{{key: string(rune('a' + i))}}, t0.Add(time.Duration(i)*time.Millisecond))
	}
	if n := len(p.list(t0)); n != maxApprovalsPerSession {
		t.Errorf("one session holds %d approvals, want %d", n, maxApprovalsPerSession)
	}
	for i := range 2 * maxApprovals {
		p.ask(Caller{ID: string(rune('A' + i%40))}, []ApprovalQuestion{{key: string(rune('a' + i))}}, t0)
	}
	if n := len(p.list(t0)); n > maxApprovals {
		t.Errorf("%d approvals held, want at most %d", n, maxApprovals)
	}
}

// The questions of one call (two credits, and NAVIGATE where the form
// goes) wait under one id, which answers them all: one id per question
// would spend the first yes while the next is asked, for ever.
func TestApprovalAnswersTheRoundTogether(t *testing.T) {
	m := New(Config{ConsentChannel: ConsentAuto})
	a := &act{m: m, c: Caller{ID: "s1", Tool: "click"}, tab: cdpguard.Target{ID: "T1"},
		spec:  &actSpec{opts: ActOptions{Intent: Intent{Submit: true, Upload: true, Reason: "send the form"}}},
		sends: &page.FormSends{Action: "http://127.0.0.2:8002/post"}}
	err := m.desk.credit(context.Background(), a, "http://127.0.0.1:8001/form")
	status, id := refusedWith(err)
	if status != StatusApprovalRequired || len(m.Approvals()) != 1 || len(m.Approvals()[0].Questions) != 3 {
		t.Fatalf("first try: %v; approvals %+v, want one with three questions", err, m.Approvals())
	}
	if !strings.Contains(err.Error(), "goes to http://127.0.0.2:8002") {
		t.Errorf("the refusal does not say where the form goes: %v", err)
	}
	if _, err := m.AnswerApproval(id, true); err != nil {
		t.Fatal(err)
	}
	if err := m.desk.credit(context.Background(), a, "http://127.0.0.1:8001/form"); err != nil {
		t.Fatalf("the repeat: %v", err)
	}
	if len(a.credits) != 2 {
		t.Errorf("credits: %+v", a.credits)
	}
	if _, ok := m.grants.Use("s1", policy.ScopeOf("http://127.0.0.2:8002/"), policy.Navigate, time.Now()); !ok {
		t.Error("no NAVIGATE where the form goes")
	}
}

// A user who did not answer the elicitation in time can answer at the
// terminal: the timeout names an id, and the repeat takes the yes without
// asking again.
func TestApprovalAfterElicitationTimeout(t *testing.T) {
	m := New(Config{ConsentChannel: ConsentAuto, ConsentTimeout: 10 * time.Millisecond})
	asked := 0
	c := Caller{ID: "s1", Tool: "navigate", Consent: &ConsentIO{Elicit: func(ctx context.Context, _ string) (Answer, error) {
		asked++
		<-ctx.Done()
		return Answer{}, ctx.Err()
	}}}
	site := policy.ScopeOf("http://127.0.0.1:8001/")
	_, _, err := m.desk.obtain(context.Background(), c, policy.Navigate, site, "")
	status, id := refusedWith(err)
	if status != StatusDenied || consentOf(err) != "timeout" || id == "" {
		t.Fatalf("no answer in time: %v (id %q), want denied with an id", err, id)
	}
	if _, err := m.AnswerApproval(id, true); err != nil {
		t.Fatal(err)
	}
	if channel, _, err := m.desk.obtain(context.Background(), c, policy.Navigate, site, ""); err != nil || channel != policy.ChannelCLI || asked != 1 {
		t.Fatalf("the repeat: %q %v, asked %d times", channel, err, asked)
	}
}

// A client of the deferred protocol (2026-07-28) whose user answered after
// the consent timeout is refused with an id, as an elicitation nobody
// answered in time is: the user can answer at the terminal, and the
// repeat takes that yes without asking again.
func TestApprovalAfterLateDeferredAnswer(t *testing.T) {
	m := New(Config{ConsentChannel: ConsentAuto, ConsentTimeout: 10 * time.Millisecond})
	site := policy.ScopeOf("http://127.0.0.1:8001/")
	var need *ConsentNeeded
	if err := deferredAsk(m, "s1", policy.Navigate, site, "", nil); !errors.As(err, &need) {
		t.Fatalf("first round: %v, want a question", err)
	}
	time.Sleep(50 * time.Millisecond)
	err := deferredAsk(m, "s1", policy.Navigate, site, "", map[string]Answer{need.ID: {Action: "accept", Approve: &approve}})
	status, id := refusedWith(err)
	if status != StatusDenied || consentOf(err) != "timeout" || id == "" {
		t.Fatalf("a late answer: %v (id %q), want denied timeout with an id", err, id)
	}
	if _, err := m.AnswerApproval(id, true); err != nil {
		t.Fatal(err)
	}
	c := Caller{ID: "s1", Consent: &ConsentIO{Deferred: true}}
	if channel, _, err := m.desk.obtain(context.Background(), c, policy.Navigate, site, ""); err != nil || channel != policy.ChannelCLI {
		t.Fatalf("the repeat: %q %v, want the terminal's yes", channel, err)
	}
}
