package session

import (
	"crypto/rand"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/policy"
)

// Approvals at the terminal. A question the client could not put to its
// user (no elicitation, or LYRA_BROWSER_CONSENT_CHANNEL=elicit with none,
// or an elicitation nobody answered in time) is refused with a short id;
// the user answers it with `lyrad approve ID` (or --deny) over the admin
// socket, which is theirs alone (0600), and the session's repeat of the
// same call finds the answer here.
//
// An id stands for the questions of one refusal, each kept by its askID:
// the capability, the exact scope and the whole message shown, reason and
// page text included. So a yes answers those questions and no other: a
// page that changes its form after the question is a new question, and a
// yes for one origin is never a yes for another. Each question's yes is
// spent by the first call that uses it, as an answer through the client
// is; what it buys is what that answer would (a grant for the site for
// NAVIGATE and INTERACT, a single-use credit for the rest).
//
// The page never sees an id: it is in the reply to the agent and in the
// audit trail only, and answering takes the admin socket.

// Bounds: an agent that loops on refusals must not grow lyrad. The oldest
// go first.
const (
	maxApprovalsPerSession = 8
	maxApprovals           = 64
)

// Approval states.
const (
	ApprovalPending  = "pending"
	ApprovalApproved = "approved"
	ApprovalDenied   = "denied"
)

// ErrNoApproval: no pending approval has that id (never asked, expired,
// already answered, or its session ended).
var ErrNoApproval = errors.New("no pending approval with that id")

// Approval is one refusal waiting for the user's answer at the terminal.
type Approval struct {
	ID        string
	Session   string // the MCP session that asked, whose repeat it answers
	Client    string // the client's name from initialize
	Tool      string // the tool whose call was refused
	Asked     time.Time
	Expires   time.Time // pending: answer by then; answered: repeat the call by then
	State     string    // ApprovalPending, ApprovalApproved or ApprovalDenied
	Questions []ApprovalQuestion
}

// ApprovalQuestion is one question an approval answers.
type ApprovalQuestion struct {
	Capability string
	Origin     string // the scope as the audit writes it
	Message    string // what the user would have been asked
	key        string // askID: the whole question
}

// approvals are the refusals waiting for `lyrad approve`, by id.
type approvals struct {
	mu   sync.Mutex
	ttl  time.Duration
	byID map[string]*Approval
}

// ask records that c's call was refused for qs and answers the id to
// name. The same questions refused again for the same session, still
// pending, keep their id: an agent that repeats the call before the user
// answers does not make a new one.
func (p *approvals) ask(c Caller, qs []ApprovalQuestion, now time.Time) (id string, created bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byID == nil {
		p.byID = map[string]*Approval{}
	}
	p.pruneLocked(now)
	for _, a := range p.byID {
		if a.Session == c.ID && a.State == ApprovalPending && sameQuestions(a.Questions, qs) {
			return a.ID, false
		}
	}
	// A yes the session's calls have not used, now that one asks
	// something else, answered a call that has moved on: it goes, so that
	// a later call asking the old question again is asked again.
	for id, a := range p.byID {
		if a.Session == c.ID && a.State == ApprovalApproved {
			delete(p.byID, id)
		}
	}
	for p.countLocked(c.ID) >= maxApprovalsPerSession {
		p.dropOldestLocked(c.ID)
	}
	for len(p.byID) >= maxApprovals {
		p.dropOldestLocked("")
	}
	id = newApprovalID()
	for p.byID[id] != nil {
		id = newApprovalID()
	}
	p.byID[id] = &Approval{ID: id, Session: c.ID, Client: c.Client, Tool: c.Tool, Asked: now,
		Expires: now.Add(p.ttl), State: ApprovalPending, Questions: slices.Clone(qs)}
	return id, true
}

// answer looks up the user's answer at the terminal to session's question
// key. An approved question is spent by this look-up; a denial is spent
// whole (the call it ends asks again, with a new id, if repeated). state
// is "" when nothing was answered; pending names the id still waiting.
func (p *approvals) answer(session, key string, now time.Time) (state, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pruneLocked(now)
	for _, a := range p.byID {
		if a.Session != session {
			continue
		}
		i := slices.IndexFunc(a.Questions, func(q ApprovalQuestion) bool { return q.key == key })
		if i < 0 {
			continue
		}
		switch a.State {
		case ApprovalApproved:
			a.Questions = slices.Delete(a.Questions, i, i+1)
			if len(a.Questions) == 0 {
				delete(p.byID, a.ID)
			}
			return ApprovalApproved, a.ID
		case ApprovalDenied:
			delete(p.byID, a.ID)
			return ApprovalDenied, a.ID
		}
	}
	return "", ""
}

// decide answers the pending approval id. The answer waits ttl for the
// call to be repeated.
func (p *approvals) decide(id string, approve bool, now time.Time) (Approval, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pruneLocked(now)
	a := p.byID[NormalApprovalID(id)]
	if a == nil || a.State != ApprovalPending {
		return Approval{}, ErrNoApproval
	}
	a.State = ApprovalDenied
	if approve {
		a.State = ApprovalApproved
	}
	a.Expires = now.Add(p.ttl)
	return a.copy(), nil
}

// list is every approval not expired, the oldest first.
func (p *approvals) list(now time.Time) []Approval {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pruneLocked(now)
	out := make([]Approval, 0, len(p.byID))
	for _, a := range p.byID {
		out = append(out, a.copy())
	}
	slices.SortFunc(out, func(a, b Approval) int { return a.Asked.Compare(b.Asked) })
	return out
}

// dropSession forgets the approvals of a session that ended: no call of
// its can be repeated.
func (p *approvals) dropSession(session string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, a := range p.byID {
		if a.Session == session {
			delete(p.byID, id)
		}
	}
}

func (p *approvals) pruneLocked(now time.Time) {
	for id, a := range p.byID {
		if now.After(a.Expires) {
			delete(p.byID, id)
		}
	}
}

func (p *approvals) countLocked(session string) int {
	n := 0
	for _, a := range p.byID {
		if a.Session == session {
			n++
		}
	}
	return n
}

// dropOldestLocked drops the oldest approval of session ("" for any).
func (p *approvals) dropOldestLocked(session string) {
	var oldest *Approval
	for _, a := range p.byID {
		if (session == "" || a.Session == session) && (oldest == nil || a.Asked.Before(oldest.Asked)) {
			oldest = a
		}
	}
	if oldest != nil {
		delete(p.byID, oldest.ID)
	}
}

func (a *Approval) copy() Approval {
	c := *a
	c.Questions = slices.Clone(a.Questions)
	return c
}

func sameQuestions(a, b []ApprovalQuestion) bool {
	return slices.EqualFunc(a, b, func(x, y ApprovalQuestion) bool { return x.key == y.key })
}

// approvalAlphabet leaves out the letters and digits read alike (0 O, 1 I
// L, U V): the user types the id from a chat.
const approvalAlphabet = "23456789ABCDEFGHJKMNPQRSTWXYZ"

// approvalIDLen characters of 29: some 29 bits, against a guesser who
// would need the user's admin socket to try one.
const approvalIDLen = 6

func newApprovalID() string {
	b := make([]byte, approvalIDLen)
	var r [1]byte
	for i := 0; i < len(b); {
		_, _ = rand.Read(r[:])
		// Rejection keeps the draw even: 232 = 8*29.
		if int(r[0]) >= 8*len(approvalAlphabet) {
			continue
		}
		b[i] = approvalAlphabet[int(r[0])%len(approvalAlphabet)]
		i++
	}
	return string(b)
}

// validApprovalID: id has the form newApprovalID gives.
func validApprovalID(id string) bool {
	if len(id) != approvalIDLen {
		return false
	}
	for _, r := range id {
		if !strings.ContainsRune(approvalAlphabet, r) {
			return false
		}
	}
	return true
}

// NormalApprovalID reads an id as the user may type it: any case, spaces
// around it.
func NormalApprovalID(id string) string {
	return strings.ToUpper(strings.TrimSpace(id))
}

// Approvals lists the approvals not expired, pending and answered, the
// oldest first (lyrad approve --list).
func (m *Manager) Approvals() []Approval {
	return m.desk.approvals.list(time.Now())
}

// AnswerApproval is the user's answer at the terminal to the pending
// approval id: approve or deny. Each answer, and each id that names
// nothing pending, is an audit row (kind consent, consent_channel cli).
func (m *Manager) AnswerApproval(id string, approve bool) (Approval, error) {
	a, err := m.desk.approvals.decide(id, approve, time.Now())
	row := audit.Row{Kind: "consent", Session: a.Session, Extra: audit.Fields{
		"consent_channel": policy.ChannelCLI, "approval_id": NormalApprovalID(id), "via": "lyrad approve"}}
	switch {
	case err != nil:
		row.Status = "no_such_approval"
		if !validApprovalID(NormalApprovalID(id)) {
			row.Extra["approval_id"] = "(malformed)" // whatever was typed is not kept
		}
	case approve:
		row.Status = "approved"
	default:
		row.Status = "denied"
	}
	if err == nil {
		asked := make([]string, 0, len(a.Questions))
		for _, q := range a.Questions {
			asked = append(asked, q.Capability+" "+q.Origin)
		}
		row.Tool, row.Extra["asked"] = a.Tool, asked
		row.Extra["capability"], row.Extra["origin"] = a.Questions[0].Capability, a.Questions[0].Origin
	}
	m.audit(row)
	return a, err
}
