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
	// Held: no session drives, but a driver that disconnected keeps its
	// window and tabs for the reconnect grace; others get session_conflict.
	Held *HeldStatus
}

// HeldStatus is a disconnected driver's turn kept for its client.
type HeldStatus struct {
	Session string // the session that ended
	Client  string
	Door    string
	Since   time.Time // when it ended
	Until   time.Time // when the grace ends and the window closes
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
	st, b, owner := m.own.status()
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
