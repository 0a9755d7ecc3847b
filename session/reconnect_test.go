package session

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/policy"
)

// TestHeldTurnAdmission: a driver that disconnects is held for the grace.
// Another client, or the same client through another front door, is
// answered session_conflict naming the grace (close_browser too); the same
// client through the same door resumes, with the old session's grants
// gone; but only with the same proof: another program under the same name
// (another executable, no resume token) is answered session_conflict too.
func TestHeldTurnAdmission(t *testing.T) {
	m := New(Config{ReconnectGrace: time.Minute})
	m.own.browser = &Browser{} // a window to keep; never shut down here
	driver := Caller{ID: "mcp-1", Client: "ide", Door: "stdio", Proof: "socket:ide"}
	if _, err := m.own.admit(driver, mutate); err != nil || m.own.owner != driver.ID {
		t.Fatalf("claim: owner %q, %v", m.own.owner, err)
	}
	m.SessionEnded(driver.ID)
	if m.own.hold == nil || m.own.owner != "" || m.own.browser == nil {
		t.Fatalf("not held: hold %v, owner %q, browser %v", m.own.hold, m.own.owner, m.own.browser)
	}
	defer m.own.hold.timer.Stop()
	for _, c := range []Caller{
		{ID: "mcp-2", Client: "other", Door: "stdio"},
		{ID: "mcp-3", Client: "ide", Door: "http", Proof: "socket:ide"},
		{ID: "mcp-4"},
		{ID: "mcp-6", Client: "ide", Door: "stdio", Proof: "socket:impostor"},
		{ID: "mcp-7", Client: "ide", Door: "stdio"},
		{ID: "mcp-8", Client: "ide", Door: "stdio", Proof: "socket:id"},
	} {
		for _, a := range []access{read, mutate} {
			_, err := m.own.admit(c, a)
			var se *Error
			if !errors.As(err, &se) || se.Status != StatusSessionConflict || se.Held == nil || se.Held.Grace != 60.0 {
				t.Errorf("%+v (access %d) during the grace: %v, want session_conflict naming the grace", c, a, err)
			}
		}
		if _, err := m.CloseBrowser(t.Context(), c); err == nil {
			t.Errorf("%+v closed the held browser", c)
		}
	}
	back := Caller{ID: "mcp-5", Client: "ide", Door: "stdio", Proof: "socket:ide"}
	if _, err := m.own.admit(back, read); err != nil {
		t.Fatalf("the same client through the same door: %v", err)
	}
	if m.own.owner != back.ID || m.own.hold != nil {
		t.Errorf("not resumed: owner %q, hold %v", m.own.owner, m.own.hold)
	}
}

// TestNoGraceNoHold: with no grace, or no window to keep, a disconnect is
// not held.
func TestNoGraceNoHold(t *testing.T) {
	m := New(Config{ReconnectGrace: time.Minute})
	c := Caller{ID: "mcp-1", Client: "ide", Door: "stdio"}
	m.own.admit(c, mutate)
	m.SessionEnded(c.ID) // no browser open
	if m.own.hold != nil || m.own.owner != "" {
		t.Errorf("held with no window: hold %v, owner %q", m.own.hold, m.own.owner)
	}
	// A driver with no proof is not held: nobody could resume it.
	m = New(Config{ReconnectGrace: time.Minute})
	m.own.browser = &Browser{}
	m.own.admit(c, mutate)
	m.own.mu.Lock()
	unproven := m.own.holdLocked()
	m.own.mu.Unlock()
	if unproven {
		t.Error("held with no proof to know the client by")
	}
	m = New(Config{})
	m.own.admit(c, mutate)
	m.own.browser = &Browser{}
	m.own.mu.Lock()
	held := m.own.holdLocked()
	m.own.mu.Unlock()
	if held {
		t.Error("held with no grace")
	}
}

// TestSupersede: over HTTP a new session with the driver's name and resume
// token takes the turn from the driver's still-open session; a name alone,
// or the same proof over the socket, does not.
func TestSupersede(t *testing.T) {
	m := New(Config{ReconnectGrace: time.Minute, OwnerIdleTimeout: time.Hour})
	m.own.browser = &Browser{}
	old := Caller{ID: "mcp-1", Client: "cli", Door: "http", Proof: "http:t"}
	if _, err := m.own.admit(old, mutate); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if m.own.idle != nil {
			m.own.idle.Stop()
		}
	}()
	for _, c := range []Caller{
		{ID: "mcp-2", Client: "cli", Door: "http"},
		{ID: "mcp-3", Client: "cli", Door: "http", Proof: "http:u"},
		{ID: "mcp-4", Client: "other", Door: "http", Proof: "http:t"},
	} {
		if _, err := m.own.admit(c, read); err == nil || m.own.owner != old.ID {
			t.Errorf("%+v took the turn (owner %q)", c, m.own.owner)
		}
	}
	next := Caller{ID: "mcp-5", Client: "cli", Door: "http", Proof: "http:t"}
	if _, err := m.own.admit(next, read); err != nil || m.own.owner != next.ID {
		t.Fatalf("the same client's new session: owner %q, %v", m.own.owner, err)
	}
	if _, err := m.own.admit(old, read); err == nil {
		t.Error("the superseded session still drives")
	}
	m.own.ownerCaller.Door, m.own.ownerCaller.Proof = "stdio", "socket:x"
	if _, err := m.own.admit(Caller{ID: "mcp-6", Client: "cli", Door: "stdio", Proof: "socket:x"}, read); err == nil {
		t.Error("a second socket session of the same executable took the turn")
	}
}

// TestGoneHTTPDriver: over HTTP the driver's own program (same name, same
// resume token) over a new session may close the browser while its old
// session is still open; anyone else is told the true waits, not the idle
// timeout alone. Once the driver's session ended and its window is held,
// another client may be asked to take it over, never one under the held
// client's name.
func TestGoneHTTPDriver(t *testing.T) {
	m := New(Config{ReconnectGrace: time.Minute, HTTPSessionTimeout: 10 * time.Second, OwnerIdleTimeout: 15 * time.Minute})
	driver := Caller{ID: "mcp-1", Client: "ide", Door: "http", Proof: "http:ide"}
	if _, err := m.own.admit(driver, mutate); err != nil {
		t.Fatal(err)
	}
	other := Caller{ID: "mcp-2", Client: "other", Door: "http"}
	_, err := m.CloseBrowser(t.Context(), other)
	var se *Error
	if !errors.As(err, &se) || se.Status != StatusSessionConflict || se.handoff ||
		!strings.Contains(se.Hint, "within 10s") || !strings.Contains(se.Hint, "reconnect grace, 1m0s") || se.Holder == nil {
		t.Fatalf("another client's close_browser: %+v, want session_conflict with the true waits", err)
	}
	again := Caller{ID: "mcp-3", Client: "ide", Door: "http", Proof: "http:ide"}
	if _, err := m.CloseBrowser(t.Context(), again); err != nil {
		t.Fatalf("the driver's program over a new session: %v", err)
	}
	if m.own.owner != "" {
		t.Errorf("owner %q after close_browser", m.own.owner)
	}

	m = New(Config{ReconnectGrace: time.Minute})
	m.own.browser = &Browser{} // a window to keep; never shut down here
	if _, err := m.own.admit(driver, mutate); err != nil {
		t.Fatal(err)
	}
	m.SessionEnded(driver.ID)
	if m.own.hold == nil {
		t.Fatal("not held")
	}
	defer m.own.hold.timer.Stop()
	_, err = m.own.admit(other, mutate)
	if !errors.As(err, &se) || !se.handoff {
		t.Errorf("another client during the hold: %+v, want a conflict its user may be asked to end", err)
	}
	_, err = m.own.admit(Caller{ID: "mcp-4", Client: "ide", Door: "http"}, mutate)
	if !errors.As(err, &se) || se.handoff {
		t.Errorf("the held client's name without its proof: %+v, want a conflict nobody is asked about", err)
	}
}

// TestIdleTurnHandedOn: ownership stands on its own, with only the parts
// New hands it. Another session is answered session_conflict while the
// driver is active; once the driver has been idle for the timeout, its
// turn ends: its grants go, the handoff is recorded, the front door is
// told, and the other session may claim the browser.
func TestIdleTurnHandedOn(t *testing.T) {
	var rows []audit.Row
	told := make(chan string, 1)
	grants := policy.NewGrants(time.Hour, nil)
	o := &ownership{cfg: &Config{OwnerIdleTimeout: time.Minute}, grants: grants,
		audit: func(r audit.Row) { rows = append(rows, r) }, flush: func(string, string) {}}
	o.onHandedOff(func(id, _ string) { told <- id })
	driver, other := Caller{ID: "mcp-1", Client: "ide"}, Caller{ID: "mcp-2", Client: "cli"}
	if _, err := o.admit(driver, mutate); err != nil || o.ownerID() != driver.ID {
		t.Fatalf("claim: owner %q, %v", o.ownerID(), err)
	}
	defer o.idle.Stop()
	site := policy.ScopeOf("https://example.com/")
	if err := grants.Grant(driver.ID, site, policy.Interact, policy.GrantOptions{}); err != nil {
		t.Fatal(err)
	}
	var se *Error
	if _, err := o.admit(other, mutate); !errors.As(err, &se) || se.Status != StatusSessionConflict || !se.handoff {
		t.Fatalf("another session while the driver is active: %v, want a session_conflict its user may be asked to end", err)
	}
	o.mu.Lock()
	o.lastUse = time.Now().Add(-2 * time.Minute)
	o.mu.Unlock()
	o.idleCheck()
	select {
	case id := <-told:
		if id != driver.ID {
			t.Errorf("told %q, want %q", id, driver.ID)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the front door was not told of the handoff")
	}
	if grants.Has(driver.ID, site, policy.Interact, time.Now()) {
		t.Error("the idle driver's grant outlived its turn")
	}
	if len(rows) != 2 || rows[0].Status != "driver" || rows[1].Status != "handoff" || rows[1].Extra["reason"] != "owner_idle" {
		t.Errorf("audit rows %+v, want driver then handoff (owner_idle)", rows)
	}
	if _, err := o.admit(other, mutate); err != nil || o.ownerID() != other.ID {
		t.Errorf("the other session after the handoff: owner %q, %v", o.ownerID(), err)
	}
}
