package session

import (
	"context"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/policy"
)

// Caller is the MCP session a call comes from.
type Caller struct {
	ID string
	// Client is the name the client gave in initialize (clientInfo.name)
	// and Door the front door it came through ("stdio" for stdio and the
	// socket `lyrad stdio` relays to, "http"): a session that ended is
	// resumed by a new one with the same two (reconnect.go).
	Client string
	Door   string
	// Proof is the front door's word on which program this is (the
	// socket's peer credentials, an HTTP resume token's hash): a held
	// window is resumed only with the same (reconnect.go). Peer says what
	// it is of, for the audit. Empty: no proof.
	Proof string
	Peer  string

	// Tool is the tool this call runs, and Consent how it can reach its
	// user (nil: it cannot ask); both are the call's, not the session's.
	Tool    string
	Consent *ConsentIO
}

// Manager is the one browser of a data directory and who drives it. It
// holds the parts that keep their own state under their own locks
// (doc.go) and answers the tools' calls through them.
type Manager struct {
	cfg Config
	log *zap.Logger

	// life serialises launching and closing, which are slow: it is held
	// across browser calls, and taken before any other lock.
	life sync.Mutex

	own      *ownership   // the browser and whose turn it is (ownership.go, reconnect.go, handoff.go)
	budget   *auditBudget // audit rows a tab's page sets off, bounded (auditbudget.go)
	sends    *sendGuard   // what pages send, recorded or judged (sends.go)
	files    fileRules    // which file: URLs are never opened (files.go)
	grants   *policy.Grants
	desk     *grantDesk // grants and credits bought with the user's yes, and the questions asked (grants.go, consent.go)
	launcher *launcher  // starts the browser and wires its guard; the download directory (browser.go, downloads.go)
	takeover takeovers  // the user holding the browser (takeover.go)
}

// New returns a Manager. Nothing is launched until a tool asks.
func New(cfg Config) *Manager {
	cfg.defaults()
	m := &Manager{cfg: cfg, log: cfg.Logger, grants: policy.NewGrants(cfg.GrantTTL, nil)}
	m.files = newFileRules(cfg)
	m.desk = &grantDesk{cfg: &m.cfg, grants: m.grants, asks: pendingAsks{timeout: cfg.ConsentTimeout},
		approvals: approvals{ttl: m.cfg.ApprovalTimeout}, files: m.files, audit: m.audit}
	m.budget = &auditBudget{trail: cfg.Audit, log: cfg.Logger}
	m.budget.rows.perDay = max(0, cfg.AuditTabBytesPerDay)
	m.own = &ownership{cfg: &m.cfg, log: cfg.Logger, grants: m.grants, asks: &m.desk.asks, approvals: &m.desk.approvals, audit: m.audit, flush: m.budget.flush}
	m.budget.owner = m.own.ownerID
	m.sends = &sendGuard{cfg: &m.cfg, grants: m.grants, own: m.own, takeover: &m.takeover, files: m.files, budget: m.budget}
	m.launcher = &launcher{cfg: &m.cfg, log: cfg.Logger, own: m.own, sends: m.sends, budget: m.budget, takeover: &m.takeover, audit: m.audit, onTarget: m.onTarget}
	return m
}

// Audit is the trail this manager writes to.
func (m *Manager) Audit() *audit.Log { return m.cfg.Audit }

// OnHandedOff registers fn to be told when a session still connected loses
// the browser (another client's user took it over, or it went idle), so
// the front door can tell that client at once rather than on its next
// call. fn must not call back into the Manager synchronously.
func (m *Manager) OnHandedOff(fn func(id, message string)) { m.own.onHandedOff(fn) }

// SessionEnded is told when an MCP session goes away (a stdio client
// disconnected, an HTTP session deleted or timed out). A driver that
// disconnects keeps its window for the reconnect grace (reconnect.go), or
// hands the browser on at once when there is none, instead of holding it
// until the idle timeout.
func (m *Manager) SessionEnded(id string) {
	m.desk.asks.dropSession(id) // its questions can no longer be answered
	m.desk.approvals.dropSession(id)
	m.own.sessionEnded(id)
}

// OpenInfo is what open_browser answers.
type OpenInfo struct {
	AlreadyOpen bool
	Attended    bool
	Profile     string // "persistent" or "instance"
	Browser     string // product and version
	Channel     string
	URL         string
	Title       string
	TabCount    int
}

// Open launches (or focuses) the shared browser.
func (m *Manager) Open(ctx context.Context, c Caller) (*OpenInfo, error) {
	_, done, err := m.own.enter(ctx, c, mutate)
	defer done()
	if err != nil {
		return nil, err
	}
	m.life.Lock()
	defer m.life.Unlock()
	if b := m.own.current(); b != nil {
		info := openInfo(ctx, b)
		info.AlreadyOpen = true
		return info, nil
	}
	m.own.waitReleased()
	b, err := m.launcher.start(ctx)
	if err != nil {
		return nil, err
	}
	if err := m.own.adopt(b, c); err != nil {
		// Shut down, or handed on, while we were launching.
		b.shutdownAndRelease()
		return nil, err
	}
	m.audit(audit.Row{Kind: "browser", Session: c.ID, Status: "opened", Extra: audit.Fields{
		"attended": b.headful, "profile": b.profile.Kind, "channel": b.found.Channel, "starts": b.starts, "ua_hints": b.hints}})
	return openInfo(ctx, b), nil
}

func openInfo(ctx context.Context, b *Browser) *OpenInfo {
	info := &OpenInfo{Attended: b.headful, Profile: b.profile.Kind, Channel: b.found.Channel, TabCount: len(b.pages())}
	if t, err := b.activePage(ctx); err == nil {
		info.URL, info.Title = t.URL, t.Title
	}
	return info
}

// CloseBrowser ends the turn: the window goes, the grants with it, and the
// next session may claim the browser. Owner-only.
func (m *Manager) CloseBrowser(ctx context.Context, c Caller) (wasOpen bool, err error) {
	b, lost, err := m.own.close(c)
	if err != nil {
		return false, err
	}
	m.life.Lock()
	defer m.life.Unlock()
	if b != nil {
		b.shutdownAndRelease()
		uploadsOf(m.cfg).clear()
	}
	m.budget.flush(c.ID, "")
	if b != nil || lost {
		m.audit(audit.Row{Kind: "browser", Session: c.ID, Status: "closed", Extra: audit.Fields{"guard_lost_acknowledged": lost}})
	}
	return b != nil || lost, nil
}

// Shutdown closes the browser and refuses further calls (SIGINT, SIGTERM, SIGHUP).
func (m *Manager) Shutdown() {
	b := m.own.shutdown()
	m.life.Lock()
	defer m.life.Unlock()
	if b != nil {
		b.shutdownAndRelease()
		uploadsOf(m.cfg).clear()
	}
	// Also what a browser lost or quit before held back.
	m.budget.flush("", "")
	if b != nil {
		m.audit(audit.Row{Kind: "browser", Status: "closed", Extra: audit.Fields{"reason": "shutdown"}})
	}
	// A browser handed on or lost just before must be gone too.
	m.own.waitReleased()
}

func (b *Browser) shutdownAndRelease() {
	b.shutdown(3 * time.Second)
	if b.release != nil {
		b.release()
	}
}

// keepRefusal keeps a refused navigation for the acting call that set it
// off. A refused subresource moves no tab: the trail has it.
func keepRefusal(b *Browser, r cdpguard.Request, v cdpguard.Verdict) {
	if !r.Subresource {
		b.refused.add(newRefusal(r, v))
	}
}

// onTarget follows the tabs the guard attaches to and forgets those it
// loses.
func (m *Manager) onTarget(b *Browser, ev cdpguard.TargetEvent) {
	switch ev.Kind {
	case "attached":
		// The session follows onto a tab the active page opened.
		b.follow(ev.Target)
		if m.takeover.active(b) != nil {
			go m.takeover.bannerOnNewTab(b, ev.Target)
		}
	case "detached":
		defer b.forget(ev.Target.ID)
		defer m.budget.flush(m.own.ownerID(), string(ev.Target.ID))
		if ev.Target.ID == b.activeID() {
			// Back to the opener when it is still there; activePage picks
			// the newest otherwise. (No guard yet: a tab closed while the
			// guard is being started.)
			if g := b.guardSet(); g != nil {
				if _, ok := g.Page(ev.Target.OpenerID); ok {
					b.setActive(ev.Target.OpenerID)
				}
			}
		}
	}
}

func (m *Manager) audit(r audit.Row) {
	if err := m.cfg.Audit.Write(r); err != nil {
		m.log.Error("audit write failed", zap.Error(err))
	}
}
