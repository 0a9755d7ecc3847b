package session

import (
	"context"
	"time"

	"github.com/lyrad/lyrad/policy"
)

// Status is what an operator's `lyrad status` shows of the daemon: who
// drives, the tabs, the live grants and any takeover.
type Status struct {
	BrowserOpen bool
	Attended    bool
	Driver      *DriverStatus
	Tabs        []TabInfo
	Grants      []policy.LiveGrant
	Takeover    *TakeoverStatus
	GuardLost   bool
}

// DriverStatus is the session that drives.
type DriverStatus struct {
	Session string
	Client  string
	Door    string
	IdleFor time.Duration
}

// TakeoverStatus is a takeover in force.
type TakeoverStatus struct {
	Reason string
	Since  time.Time
	By     string
}

// Status answers the operator's status. It asks the browser only for its
// tabs' titles, within a second.
func (m *Manager) Status(ctx context.Context) Status {
	m.mu.Lock()
	b := m.browser
	st := Status{GuardLost: m.guardLost}
	if m.owner != "" {
		c := m.ownerCaller
		st.Driver = &DriverStatus{Session: m.owner, Client: c.Client, Door: c.Door, IdleFor: time.Since(m.lastUse).Round(time.Second)}
	}
	owner := m.owner
	m.mu.Unlock()
	if owner != "" {
		st.Grants = m.grants.Live(owner, time.Now())
	}
	if b != nil {
		st.BrowserOpen, st.Attended = true, b.headful
		tctx, cancel := context.WithTimeout(ctx, time.Second)
		st.Tabs = b.tabList(tctx).Tabs
		cancel()
		if t := m.takeover.active(b); t != nil {
			st.Takeover = &TakeoverStatus{Reason: t.reason, Since: t.since, By: t.by}
		}
	}
	return st
}
