package session

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestHeldTurnAdmission: a driver that disconnects is held for the grace.
// Another client, or the same client through another front door, is
// answered session_conflict naming the grace (close_browser too); the same
// client through the same door resumes, with the old session's grants
// gone; but only with the same proof: another program under the same name
// (another executable, no resume token) is answered session_conflict too.
func TestHeldTurnAdmission(t *testing.T) {
	m := New(Config{ReconnectGrace: time.Minute})
	m.browser = &Browser{} // a window to keep; never shut down here
	driver := Caller{ID: "mcp-1", Client: "ide", Door: "stdio", Proof: "socket:ide"}
	if _, err := m.admit(driver, mutate); err != nil || m.owner != driver.ID {
		t.Fatalf("claim: owner %q, %v", m.owner, err)
	}
	m.SessionEnded(driver.ID)
	if m.hold == nil || m.owner != "" || m.browser == nil {
		t.Fatalf("not held: hold %v, owner %q, browser %v", m.hold, m.owner, m.browser)
	}
	defer m.hold.timer.Stop()
	for _, c := range []Caller{
		{ID: "mcp-2", Client: "other", Door: "stdio"},
		{ID: "mcp-3", Client: "ide", Door: "http", Proof: "socket:ide"},
		{ID: "mcp-4"},
		{ID: "mcp-6", Client: "ide", Door: "stdio", Proof: "socket:impostor"},
		{ID: "mcp-7", Client: "ide", Door: "stdio"},
		{ID: "mcp-8", Client: "ide", Door: "stdio", Proof: "socket:id"},
	} {
		for _, a := range []access{read, mutate} {
			_, err := m.admit(c, a)
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
	if _, err := m.admit(back, read); err != nil {
		t.Fatalf("the same client through the same door: %v", err)
	}
	if m.owner != back.ID || m.hold != nil {
		t.Errorf("not resumed: owner %q, hold %v", m.owner, m.hold)
	}
}

// TestNoGraceNoHold: with no grace, or no window to keep, a disconnect is
// not held.
func TestNoGraceNoHold(t *testing.T) {
	m := New(Config{ReconnectGrace: time.Minute})
	c := Caller{ID: "mcp-1", Client: "ide", Door: "stdio"}
	m.admit(c, mutate)
	m.SessionEnded(c.ID) // no browser open
	if m.hold != nil || m.owner != "" {
		t.Errorf("held with no window: hold %v, owner %q", m.hold, m.owner)
	}
	// A driver with no proof is not held: nobody could resume it.
	m = New(Config{ReconnectGrace: time.Minute})
	m.browser = &Browser{}
	m.admit(c, mutate)
	m.mu.Lock()
	unproven := m.holdLocked()
	m.mu.Unlock()
	if unproven {
		t.Error("held with no proof to know the client by")
	}
	m = New(Config{})
	m.admit(c, mutate)
	m.browser = &Browser{}
	m.mu.Lock()
	held := m.holdLocked()
	m.mu.Unlock()
	if held {
		t.Error("held with no grace")
	}
}

// TestSupersede: over HTTP a new session with the driver's name and resume
// token takes the turn from the driver's still-open session; a name alone,
// or the same proof over the socket, does not.
func TestSupersede(t *testing.T) {
	m := New(Config{ReconnectGrace: time.Minute, OwnerIdleTimeout: time.Hour})
	m.browser = &Browser{}
	old := Caller{ID: "mcp-1", Client: "cli", Door: "http", Proof: "http:t"}
	if _, err := m.admit(old, mutate); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if m.idle != nil {
			m.idle.Stop()
		}
	}()
	for _, c := range []Caller{
		{ID: "mcp-2", Client: "cli", Door: "http"},
		{ID: "mcp-3", Client: "cli", Door: "http", Proof: "http:u"},
		{ID: "mcp-4", Client: "other", Door: "http", Proof: "http:t"},
	} {
		if _, err := m.admit(c, read); err == nil || m.owner != old.ID {
			t.Errorf("%+v took the turn (owner %q)", c, m.owner)
		}
	}
	next := Caller{ID: "mcp-5", Client: "cli", Door: "http", Proof: "http:t"}
	if _, err := m.admit(next, read); err != nil || m.owner != next.ID {
		t.Fatalf("the same client's new session: owner %q, %v", m.owner, err)
	}
	if _, err := m.admit(old, read); err == nil {
		t.Error("the superseded session still drives")
	}
	m.ownerCaller.Door, m.ownerCaller.Proof = "stdio", "socket:x"
	if _, err := m.admit(Caller{ID: "mcp-6", Client: "cli", Door: "stdio", Proof: "socket:x"}, read); err == nil {
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
	if _, err := m.admit(driver, mutate); err != nil {
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
	if m.owner != "" {
		t.Errorf("owner %q after close_browser", m.owner)
	}

	m = New(Config{ReconnectGrace: time.Minute})
	m.browser = &Browser{} // a window to keep; never shut down here
	if _, err := m.admit(driver, mutate); err != nil {
		t.Fatal(err)
	}
	m.SessionEnded(driver.ID)
	if m.hold == nil {
		t.Fatal("not held")
	}
	defer m.hold.timer.Stop()
	_, err = m.admit(other, mutate)
	if !errors.As(err, &se) || !se.handoff {
		t.Errorf("another client during the hold: %+v, want a conflict its user may be asked to end", err)
	}
	_, err = m.admit(Caller{ID: "mcp-4", Client: "ide", Door: "http"}, mutate)
	if !errors.As(err, &se) || se.handoff {
		t.Errorf("the held client's name without its proof: %+v, want a conflict nobody is asked about", err)
	}
}
