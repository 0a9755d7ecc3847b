package session

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/policy"
)

// A question is answered once, within the timeout, by the session it was
// asked of; what is not answered is pruned, and the map stays bounded.
func TestPendingAsks(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := pendingAsks{timeout: time.Minute}

	p.add("s1", "q", t0)
	if pending, inTime := p.take("s2", "q", t0); pending || inTime {
		t.Error("another session answered s1's question")
	}
	if pending, inTime := p.take("s1", "q", t0.Add(time.Second)); !pending || !inTime {
		t.Error("s1's answer in time did not count")
	}
	if pending, _ := p.take("s1", "q", t0.Add(time.Second)); pending {
		t.Error("one answer counted twice")
	}

	// Late: still known as asked (a timeout, not "never asked") until
	// something prunes it.
	p.add("s1", "late", t0)
	if pending, inTime := p.take("s1", "late", t0.Add(2*time.Minute)); !pending || inTime {
		t.Errorf("a late answer: pending=%v inTime=%v, want a timeout", pending, inTime)
	}

	// Expired questions go when another is asked or answered.
	p.add("s1", "old", t0)
	p.add("s2", "new", t0.Add(61*time.Second))
	if p.len() != 1 {
		t.Errorf("%d pending after the old one expired, want 1", p.len())
	}
	p.add("s1", "old2", t0.Add(61*time.Second))
	p.take("s2", "new", t0.Add(3*time.Minute))
	if p.len() != 0 {
		t.Errorf("%d pending after everything expired, want 0", p.len())
	}

	// A session that ended takes its questions with it.
	p.add("s1", "a", t0)
	p.add("s1", "b", t0)
	p.add("s2", "c", t0)
	p.dropSession("s1")
	if pending, _ := p.take("s1", "a", t0); pending || p.len() != 1 {
		t.Errorf("s1's questions outlived it (%d pending)", p.len())
	}
	p.dropSession("s2")

	// Bounded per session (oldest first) and overall.
	for i := 0; i < 3*maxAsksPerSession; i++ {
		p.add("loop", fmt.Sprint(i), t0.Add(time.Duration(i)*time.Millisecond))
	}
	if n := p.len(); n != maxAsksPerSession {
		t.Errorf("one session holds %d questions, bound %d", n, maxAsksPerSession)
	}
	if pending, _ := p.take("loop", "0", t0.Add(time.Second)); pending {
		t.Error("the oldest question was kept over a newer one")
	}
	if pending, _ := p.take("loop", fmt.Sprint(3*maxAsksPerSession-1), t0.Add(time.Second)); !pending {
		t.Error("the newest question was dropped")
	}
	p.dropSession("loop")
	for i := 0; i < 2*maxAsks; i++ {
		p.add(fmt.Sprint("s", i), "q", t0.Add(time.Duration(i)*time.Millisecond))
	}
	if n := p.len(); n != maxAsks {
		t.Errorf("%d questions pending, bound %d", n, maxAsks)
	}
}

// deferredAsk runs obtain for a client that answers on a repeated call
// (protocol 2026-07-28), with answers from its previous round.
func deferredAsk(m *Manager, session string, cap policy.Capability, scope policy.Scope, reason string, answers map[string]Answer) error {
	c := Caller{ID: session, Consent: &ConsentIO{Deferred: true, Answers: answers}}
	_, _, err := m.desk.obtain(context.Background(), c, cap, scope, reason)
	return err
}

var approve = true

func consentOf(err error) any {
	var e *Error
	if errors.As(err, &e) {
		if e.Consent != "" {
			return e.Consent
		}
	}
	return nil
}

// An answer is keyed by the whole question: capability, site and the
// reason the user was shown. A yes to one question is never a yes to
// another, is used once, and is the asking session's alone.
func TestConsentAnswerIsForItsQuestion(t *testing.T) {
	m := New(Config{ConsentChannel: ConsentAuto, ConsentTimeout: time.Minute})
	site := policy.ScopeOf("https://mail.example/")
	yes := Answer{Action: "accept", Approve: &approve}

	err := deferredAsk(m, "s1", policy.Submit, site, "save the draft", nil)
	var draft *ConsentNeeded
	if !errors.As(err, &draft) {
		t.Fatalf("first round: %v, want a question", err)
	}

	// The same capability on the same site for another reason: the yes to
	// "save the draft" does not answer it; the user is asked this one.
	err = deferredAsk(m, "s1", policy.Submit, site, "delete the account", map[string]Answer{draft.ID: yes})
	var other *ConsentNeeded
	if !errors.As(err, &other) || other.ID == draft.ID {
		t.Fatalf("a yes for another reason was taken: %v", err)
	}
	// Nor another capability, nor another site.
	for _, q := range []struct {
		cap   policy.Capability
		scope policy.Scope
	}{{policy.Upload, site}, {policy.Submit, policy.ScopeOf("https://bank.example/")}} {
		var need *ConsentNeeded
		if err := deferredAsk(m, "s1", q.cap, q.scope, "save the draft", map[string]Answer{draft.ID: yes}); !errors.As(err, &need) || need.ID == draft.ID {
			t.Fatalf("%s on %s took the yes to another question: %v", q.cap, q.scope, err)
		}
	}
	// Another session cannot use it.
	if err := deferredAsk(m, "s2", policy.Submit, site, "save the draft", map[string]Answer{draft.ID: yes}); consentOf(err) != "declined (nothing was asked)" {
		t.Fatalf("another session used s1's answer: %v", err)
	}

	// The question it answers: yes, once.
	if err := deferredAsk(m, "s1", policy.Submit, site, " save the draft ", map[string]Answer{draft.ID: yes}); err != nil {
		t.Fatalf("the answer to its own question: %v", err)
	}
	if err := deferredAsk(m, "s1", policy.Submit, site, "save the draft", map[string]Answer{draft.ID: yes}); consentOf(err) != "declined (nothing was asked)" {
		t.Fatalf("an answer replayed: %v", err)
	}

	// A session that ended: its question can no longer be answered.
	err = deferredAsk(m, "s3", policy.Navigate, site, "", nil)
	var nav *ConsentNeeded
	if !errors.As(err, &nav) {
		t.Fatalf("s3's question: %v", err)
	}
	m.SessionEnded("s3")
	if err := deferredAsk(m, "s3", policy.Navigate, site, "", map[string]Answer{nav.ID: yes}); consentOf(err) != "declined (nothing was asked)" {
		t.Fatalf("an ended session's question answered: %v", err)
	}
}

// len counts the questions pending.
func (p *pendingAsks) len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.byKey)
}

// A call that declares two single-use capabilities asks for both in one
// round, and the next round's answers buy both: asking one per round would
// hand back the first credit while the second is asked, and ask for ever.
func TestCreditsAskedTogether(t *testing.T) {
	m := New(Config{ConsentChannel: ConsentAuto, ConsentTimeout: time.Minute})
	a := &act{m: m, c: Caller{ID: "s1"}, tab: cdpguard.Target{ID: "T1"}, spec: &actSpec{opts: ActOptions{Intent: Intent{Submit: true, Upload: true, Reason: "send the form"}}}}
	round := func(answers map[string]Answer) error {
		a.c.Consent = &ConsentIO{Deferred: true, Answers: answers}
		return m.desk.credit(context.Background(), a, "https://forms.example/apply")
	}
	var need *ConsentNeeded
	if err := round(nil); !errors.As(err, &need) || len(need.Questions()) != 2 {
		t.Fatalf("first round: %v, want two questions", err)
	}
	yes := map[string]Answer{}
	for _, q := range need.Questions() {
		yes[q.ID] = Answer{Action: "accept", Approve: &approve}
	}
	if err := round(yes); err != nil {
		t.Fatalf("second round with both answers: %v", err)
	}
	if len(a.credits) != 2 {
		t.Fatalf("credits: %+v", a.credits)
	}
}

// An answer is a yes only as an accept that carries a yes or nothing; one
// that did not fit the question is a decline, whatever else it says.
func TestVerdictOf(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		a      Answer
		ok     bool
		answer string
	}{
		{Answer{Action: "accept"}, true, "accepted"},
		{Answer{Action: "accept", Approve: &yes}, true, "accepted"},
		{Answer{Action: "accept", Approve: &no}, false, "declined"},
		{Answer{Action: "accept", Approve: &yes, Unfit: true}, false, "declined (answer did not match the question)"},
		{Answer{Action: "decline", Approve: &yes}, false, "declined"},
		{Answer{Action: "cancel"}, false, "cancelled"},
	} {
		if ok, answer := verdictOf(c.a); ok != c.ok || answer != c.answer {
			t.Errorf("%+v: %v %q, want %v %q", c.a, ok, answer, c.ok, c.answer)
		}
	}
}
