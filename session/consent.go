package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/policy"
)

// Consent channels (LYRA_BROWSER_CONSENT_CHANNEL).
const (
	ConsentAuto   = "auto"   // elicitation when the client can answer, else confirm=true
	ConsentElicit = "elicit" // elicitation only
	ConsentLegacy = "legacy" // confirm=true only
	ConsentOff    = "off"    // granted without asking
)

// Statuses of consent.
const (
	StatusApprovalRequired = "approval_required" // ask the user, then repeat with confirm=true
	StatusDenied           = "denied"            // the user declined, cancelled or did not answer
)

// ConsentIO is how one tool call can reach its user. The tools layer
// fills it from the protocol the client speaks and hands it over in the
// call's Caller; the model never writes it.
type ConsentIO struct {
	// Elicit puts the question to the user now and waits for the answer
	// (clients on a protocol before 2026-07-28). nil when the call cannot
	// ask this way. An answer that did not fit the question is an error
	// that wraps ErrUnfitAnswer.
	Elicit func(ctx context.Context, message string) (Answer, error)
	// Deferred: the client answers input requests when it repeats the call
	// (protocol 2026-07-28). A call asks by returning *ConsentNeeded.
	Deferred bool
	// Answers to a previous round's asks, by ask id.
	Answers map[string]Answer
	// Confirm is confirm=true from the model: the fallback for a client
	// that cannot be asked at all, and nothing more.
	Confirm bool
}

// Answer is the user's answer to one yes/no question.
type Answer struct {
	Action string // accept, decline, cancel
	// Approve is the yes or no an accept carried; nil: an accept with no
	// value, which is the yes it is.
	Approve *bool
	// Unfit: the answer carried something other than the one yes/no asked.
	Unfit bool
}

// ErrUnfitAnswer is an answer that did not fit the question: no yes.
var ErrUnfitAnswer = errors.New("the answer did not match the question")

// consent is how c's call can reach its user.
func (c Caller) consent() ConsentIO {
	if c.Consent == nil {
		return ConsentIO{}
	}
	return *c.Consent
}

// ConsentNeeded: the call needs the user's answer before it may act. The
// tools layer turns it into an MCP input request and repeats the call with
// the answer; nothing was done.
type ConsentNeeded struct {
	ID      string
	Message string // a question the user answers yes or no
	// More are the other questions of the same round: a call that needs
	// several answers asks for them all at once, since the answers of a
	// round come back only with the next.
	More []*ConsentNeeded
}

// Questions lists every question of the round, this one first.
func (e *ConsentNeeded) Questions() []*ConsentNeeded {
	return append([]*ConsentNeeded{e}, e.More...)
}

func (e *ConsentNeeded) Error() string { return "consent needed: " + e.Message }

// askID names one question: the capability, the exact scope, and the
// message the user is shown, reason included. An answer is looked up by it,
// so a yes to "send a form from X? The agent says: save the draft" is never
// a yes to the same capability on X for another reason.
func askID(cap policy.Capability, scope policy.Scope, message string) string {
	h := sha256.Sum256([]byte(string(cap) + "\x00" + scope.String() + "\x00" + message))
	return "lyrad-consent-" + strings.ToLower(string(cap)) + "-" + hex.EncodeToString(h[:12])
}

func askMessage(cap policy.Capability, scope policy.Scope, detail, reason string) string {
	what := map[policy.Capability]string{
		policy.Navigate: "open and use",
		policy.Interact: "use",
		policy.Submit:   "send a form (once) from",
		policy.Upload:   "give a file (once) to",
		policy.Publish:  "make content public (once) on",
		policy.Download: "save a file (once) from",
	}[cap]
	// lyrad's question comes first and alone on its line; what lyrad adds
	// (detail, whose page text it quoted) and the agent's reason follow,
	// each on a line of its own, the reason quoted (prompttext.go).
	msg := fmt.Sprintf("Allow the agent to %s %s?", what, promptLine(scope.Loggable(), 300))
	if detail != "" {
		msg += "\n" + detail
	}
	if reason = promptLine(reason, maxReasonRunes); reason != "" {
		msg += "\nAgent's reason: \"" + reason + "\""
	}
	return msg
}

// verdictOf reads an answer. A value-less accept is the yes it is; an
// answer that does not fit the question is a decline.
func verdictOf(a Answer) (yes bool, answer string) {
	switch a.Action {
	case "accept":
		switch {
		case a.Unfit:
			return false, "declined (answer did not match the question)"
		case a.Approve == nil || *a.Approve:
			return true, "accepted"
		}
		return false, "declined"
	case "cancel":
		return false, "cancelled"
	default:
		return false, "declined"
	}
}

// obtain gets the user's yes for cap on scope through the configured
// channel, or an error to answer with. It grants nothing itself.
func (d *grantDesk) obtain(ctx context.Context, c Caller, cap policy.Capability, scope policy.Scope, reason string) (channel, entry string, err error) {
	return d.obtainAsk(ctx, c, cap, scope, "", reason)
}

// obtainAsk is obtain with a line of lyrad's own under the question
// (detail: page text in it already quoted with quoted()); reason is the
// agent's.
func (d *grantDesk) obtainAsk(ctx context.Context, c Caller, cap policy.Capability, scope policy.Scope, detail, reason string) (channel, entry string, err error) {
	channel, entry, err = d.obtainQuestion(ctx, c, cap, scope, detail, reason)
	return channel, entry, d.pend(c, err)
}

// obtainQuestion is obtainAsk leaving a refusal the user could answer at
// the terminal without its id: a call that asks several questions at once
// (grantDesk.credit) puts them under one.
func (d *grantDesk) obtainQuestion(ctx context.Context, c Caller, cap policy.Capability, scope policy.Scope, detail, reason string) (channel, entry string, err error) {
	if d.cfg.ConsentChannel == ConsentOff {
		return policy.ChannelOff, "", nil
	}
	record := func(channel, answer, why string) {
		d.audit(audit.Row{Kind: "consent", Session: c.ID, Status: answer, Extra: audit.Fields{
			"capability": string(cap), "origin": scope.Loggable(), "consent_channel": channel, "consent_reason": why}})
	}
	if entry, ok := d.cfg.Trust.Answers(cap, scope, false); ok {
		record(policy.ChannelTrusted, "trusted", "matched "+entry)
		return policy.ChannelTrusted, entry, nil
	}
	io := c.consent()
	msg := askMessage(cap, scope, detail, reason)
	id := askID(cap, scope, msg)
	denied := func(answer string) error {
		return newError(StatusDenied, "the user did not allow it: "+answer,
			"Do not repeat this with confirm=true: the user answered. Ask them what to do instead.").
			answered(answer).asking(string(cap), scope.Loggable())
	}
	// The user's answer at the terminal to this very question (lyrad
	// approve, approvals.go) comes before asking them again.
	switch state, aid := d.approvals.answer(c.ID, id, time.Now()); state {
	case ApprovalApproved:
		d.audit(audit.Row{Kind: "consent", Session: c.ID, Status: "accepted", Extra: audit.Fields{
			"capability": string(cap), "origin": scope.Loggable(), "consent_channel": policy.ChannelCLI,
			"consent_reason": "lyrad approve", "approval_id": aid}})
		return policy.ChannelCLI, "", nil
	case ApprovalDenied:
		d.audit(audit.Row{Kind: "consent", Session: c.ID, Status: "declined", Extra: audit.Fields{
			"capability": string(cap), "origin": scope.Loggable(), "consent_channel": policy.ChannelCLI,
			"consent_reason": "lyrad approve --deny", "approval_id": aid}})
		return "", "", newError(StatusDenied, "the user did not allow it: declined with lyrad approve --deny "+aid,
			"Do not repeat this with confirm=true: the user answered. Ask them what to do instead.").
			answered("declined").asking(string(cap), scope.Loggable())
	}
	canAsk := d.cfg.ConsentChannel == ConsentAuto || d.cfg.ConsentChannel == ConsentElicit
	switch {
	case canAsk && io.Elicit != nil:
		actx, cancel := context.WithTimeout(ctx, d.cfg.ConsentTimeout)
		ans, err := io.Elicit(actx, msg)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if timedOut {
			// Nobody was there: the user may answer at the terminal later.
			record(policy.ChannelElicit, "timeout", "no answer within LYRA_BROWSER_CONSENT_TIMEOUT")
			return "", "", newError(StatusDenied, "the user did not allow it: timeout",
				"The user did not answer in time; do not repeat this with confirm=true.").
				answered("timeout").asking(string(cap), scope.Loggable()).askable(cap, scope, msg, id)
		}
		if err != nil {
			if ctx.Err() != nil {
				return "", "", ctx.Err()
			}
			if errors.Is(err, ErrUnfitAnswer) {
				// The client refused an answer that does not fit the
				// question: that is no yes.
				record(policy.ChannelElicit, "declined", "answer did not match the question")
				return "", "", denied("declined (answer did not match the question)")
			}
			record(policy.ChannelElicit, "error", err.Error())
			return "", "", denied("no answer: " + err.Error())
		}
		yes, answer := verdictOf(ans)
		record(policy.ChannelElicit, answer, "")
		if !yes {
			return "", "", denied(answer)
		}
		return policy.ChannelElicit, "", nil
	case canAsk && io.Deferred:
		if ans, ok := io.Answers[id]; ok {
			pending, inTime := d.asks.take(c.ID, id, time.Now())
			if !pending {
				// An answer to nothing this session asked (or to a question
				// it was asked so long ago that it was pruned) is not a yes.
				record(policy.ChannelElicit, "declined", "answer to a question that was not asked, or has expired")
				return "", "", denied("declined (nothing was asked)")
			}
			if !inTime {
				// Answered too late to count: as with an elicitation
				// nobody answered in time, the user may answer at the
				// terminal.
				record(policy.ChannelElicit, "timeout", "answered after LYRA_BROWSER_CONSENT_TIMEOUT")
				return "", "", newError(StatusDenied, "the user did not allow it: timeout",
					"The answer came after LYRA_BROWSER_CONSENT_TIMEOUT; do not repeat this with confirm=true.").
					answered("timeout").asking(string(cap), scope.Loggable()).askable(cap, scope, msg, id)
			}
			yes, answer := verdictOf(ans)
			record(policy.ChannelElicit, answer, "")
			if !yes {
				return "", "", denied(answer)
			}
			return policy.ChannelElicit, "", nil
		}
		d.asks.add(c.ID, id, time.Now())
		return "", "", &ConsentNeeded{ID: id, Message: msg}
	case d.cfg.ConsentChannel == ConsentElicit:
		return "", "", newError(StatusApprovalRequired, msg+"\n(This client cannot be asked for approval, and LYRA_BROWSER_CONSENT_CHANNEL=elicit.)",
			"Use an MCP client with elicitation support, or have the operator set LYRA_BROWSER_CONSENT_CHANNEL=auto.").
			asking(string(cap), scope.Loggable()).askable(cap, scope, msg, id)
	}
	// auto on a client that cannot be asked, or legacy: the model's word.
	if io.Confirm {
		why := "the client has no elicitation handler"
		if d.cfg.ConsentChannel == ConsentLegacy {
			why = "LYRA_BROWSER_CONSENT_CHANNEL=legacy"
		}
		record(policy.ChannelLegacy, "confirmed", why)
		return policy.ChannelLegacy, "", nil
	}
	return "", "", newError(StatusApprovalRequired, msg,
		"Ask the user this question; if they agree, repeat the call with confirm=true.").
		asking(string(cap), scope.Loggable()).askable(cap, scope, msg, id)
}

// pend gives a refusal the user can answer at the terminal its id, and
// says in its hint how: the user runs the command, then the same call is
// repeated. Other errors pass as they are.
func (d *grantDesk) pend(c Caller, err error) error {
	var e *Error
	if !errors.As(err, &e) || len(e.asked) == 0 || e.Approval != nil {
		return err
	}
	id, created := d.approvals.ask(c, e.asked, time.Now())
	if created {
		for _, q := range e.asked {
			d.audit(audit.Row{Kind: "consent", Session: c.ID, Tool: c.Tool, Status: "approval_pending", Extra: audit.Fields{
				"capability": q.Capability, "origin": q.Origin, "consent_channel": policy.ChannelCLI, "approval_id": id}})
		}
	}
	ref := &ApprovalRef{ID: id, Command: d.cfg.ApproveCommand + " " + id, Within: d.cfg.ApprovalTimeout}
	e.Approval = ref
	run := "ask the user to run: " + ref.Command + " (within " + ref.Within.String() + "), then repeat this same call"
	switch {
	case e.Status == StatusDenied:
		e.Hint += " If the user agrees later, " + run + "."
	case d.cfg.ConsentChannel == ConsentElicit:
		e.Hint = "This client cannot ask its user: " + run + ". Or use an MCP client with elicitation support, or have the operator set LYRA_BROWSER_CONSENT_CHANNEL=auto."
	default:
		e.Hint = "Ask the user this question. If they agree, " + run + "; or repeat the call with confirm=true."
	}
	return err
}
