package policy

import (
	"sync"
	"testing"
	"time"
)

// Lookup is Has, also telling how the grant was obtained (tests only).
func (g *Grants) Lookup(session string, scope Scope, cap Capability, now time.Time) (GrantInfo, bool) {
	return g.take(session, scope, cap, "", now, false)
}

// Spend uses cap on scope once, as a request with no tab would (tests
// only). A single-use grant (SUBMIT, UPLOAD, PUBLISH, DOWNLOAD, or any grant
// on an opaque scope) is gone afterwards; NAVIGATE and INTERACT on an origin
// stay until they expire.
func (g *Grants) Spend(session string, scope Scope, cap Capability, now time.Time) bool {
	_, ok := g.take(session, scope, cap, "", now, true)
	return ok
}

// fakeClock is a clock tests move by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2026, 9, 17, 12, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Add(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	return c.t
}

var (
	example = ScopeOf("https://example.com/")
	other   = ScopeOf("https://other.test/")
)

func TestCapabilities(t *testing.T) {
	single := map[Capability]bool{Navigate: false, Interact: false, Submit: true, Upload: true, Publish: true, Download: true}
	for c, want := range single {
		if !c.Valid() || c.SingleUse() != want {
			t.Errorf("%s: valid=%v single=%v", c, c.Valid(), c.SingleUse())
		}
	}
	if Capability("navigate").Valid() || Capability("").Valid() {
		t.Error("only the six spellings are capabilities")
	}
}

func TestGrantNavigateImpliesInteract(t *testing.T) {
	clk := newClock()
	g := NewGrants(0, clk.Now)
	if err := g.Grant("s1", example, Navigate, GrantOptions{Channel: ChannelElicit}); err != nil {
		t.Fatal(err)
	}
	now := clk.Now()
	for _, c := range []Capability{Navigate, Interact} {
		if !g.Has("s1", example, c, now) {
			t.Errorf("NAVIGATE should answer %s", c)
		}
	}
	if g.Has("s1", example, Submit, now) {
		t.Error("NAVIGATE does not imply SUBMIT")
	}
	if g.Has("s1", other, Navigate, now) || g.Has("s2", example, Navigate, now) {
		t.Error("a grant belongs to one session and one origin")
	}
	// Interact alone does not imply Navigate.
	g.Grant("s1", other, Interact, GrantOptions{})
	if g.Has("s1", other, Navigate, now) {
		t.Error("INTERACT does not imply NAVIGATE")
	}
	// Spending NAVIGATE on an origin does not use it up.
	for i := 0; i < 3; i++ {
		if !g.Spend("s1", example, Navigate, now) {
			t.Fatal("NAVIGATE is not single-use")
		}
	}
	info, ok := g.Lookup("s1", example, Interact, now)
	if !ok || info.Capability != Navigate || info.Channel != ChannelElicit {
		t.Errorf("Lookup = %+v %v", info, ok)
	}
}

func TestGrantTTL(t *testing.T) {
	clk := newClock()
	g := NewGrants(10*time.Minute, clk.Now)
	g.Grant("s1", example, Navigate, GrantOptions{})
	g.Grant("s1", other, Navigate, GrantOptions{TTL: time.Minute})
	if !g.Has("s1", example, Navigate, clk.Add(10*time.Minute-time.Nanosecond)) {
		t.Error("a grant is usable until its TTL")
	}
	if g.Has("s1", other, Navigate, clk.Now()) {
		t.Error("an explicit TTL wins over the store's")
	}
	if g.Has("s1", example, Navigate, clk.Add(time.Nanosecond)) {
		t.Error("a grant is gone at its TTL")
	}
	// A fresh grant is a fresh lifetime.
	g.Grant("s1", example, Navigate, GrantOptions{})
	if !g.Has("s1", example, Navigate, clk.Add(5*time.Minute)) {
		t.Error("re-granting renews the lifetime")
	}

	// The zero store uses DefaultGrantTTL.
	var z Grants
	z.Grant("s1", example, Interact, GrantOptions{})
	if !z.Has("s1", example, Interact, time.Now().Add(DefaultGrantTTL-time.Second)) ||
		z.Has("s1", example, Interact, time.Now().Add(DefaultGrantTTL+time.Second)) {
		t.Error("the zero store's TTL is DefaultGrantTTL")
	}
}

func TestSingleUse(t *testing.T) {
	clk := newClock()
	g := NewGrants(time.Minute, clk.Now)
	for _, c := range []Capability{Submit, Upload, Publish, Download} {
		g.Grant("s1", example, c, GrantOptions{Channel: ChannelLegacy})
		now := clk.Add(time.Hour) // single-use grants ignore the store's TTL
		if !g.Has("s1", example, c, now) {
			t.Errorf("%s: an unspent single-use grant outlives the TTL", c)
		}
		if !g.Spend("s1", example, c, now) {
			t.Errorf("%s: first spend", c)
		}
		if g.Spend("s1", example, c, now) || g.Has("s1", example, c, now) {
			t.Errorf("%s: a single-use grant is spent once", c)
		}
	}
	// An explicit TTL is honoured as a backstop.
	g.Grant("s1", example, Submit, GrantOptions{TTL: time.Second})
	if g.Spend("s1", example, Submit, clk.Add(time.Second)) {
		t.Error("an explicit TTL bounds a single-use grant too")
	}
}

func TestFileURLOneURLOnce(t *testing.T) {
	clk := newClock()
	g := NewGrants(0, clk.Now)
	a := ScopeOf("file:///home/u/a.html")
	g.Grant("s1", a, Navigate, GrantOptions{})
	now := clk.Now()
	if g.Has("s1", ScopeOf("file:///home/u/b.html"), Navigate, now) {
		t.Error("a file: grant names one URL")
	}
	if g.Has("s1", ScopeOf("file:///"), Navigate, now) {
		t.Error("a file: grant is not a grant on the disk")
	}
	if !g.Has("s1", ScopeOf("file:///home/u/a.html#section"), Navigate, now) {
		t.Error("the fragment does not change the file")
	}
	if !g.Spend("s1", a, Navigate, now) {
		t.Fatal("the approved file: URL loads once")
	}
	if g.Spend("s1", a, Navigate, now) {
		t.Error("and only once")
	}
	// Its TTL still applies while unspent.
	g.Grant("s1", a, Navigate, GrantOptions{})
	if g.Spend("s1", a, Navigate, clk.Add(DefaultGrantTTL)) {
		t.Error("an unspent file: grant expires with the TTL")
	}
}

func TestReleaseAfter(t *testing.T) {
	clk := newClock()
	g := NewGrants(0, clk.Now)
	g.Grant("s1", example, Submit, GrantOptions{})
	g.ReleaseAfter("s1", example, Submit, "", DefaultReleaseGrace)
	if !g.Has("s1", example, Submit, clk.Add(DefaultReleaseGrace-time.Millisecond)) {
		t.Error("inside the grace a click's late navigation may still spend it")
	}
	if g.Has("s1", example, Submit, clk.Add(time.Millisecond)) {
		t.Error("after the grace the unused scope is handed back")
	}

	// A new approval inside the grace replaces the old one, with no deadline.
	clk = newClock()
	g = NewGrants(0, clk.Now)
	g.Grant("s1", example, Publish, GrantOptions{})
	g.ReleaseAfter("s1", example, Publish, "", time.Second)
	clk.Add(500 * time.Millisecond)
	g.Grant("s1", example, Publish, GrantOptions{})
	if !g.Has("s1", example, Publish, clk.Add(time.Hour)) {
		t.Error("a fresh approval is not bound by an older release")
	}

	// Released at once with no grace; a later release never extends.
	g.Grant("s1", example, Upload, GrantOptions{})
	g.ReleaseAfter("s1", example, Upload, "", time.Second)
	g.ReleaseAfter("s1", example, Upload, "", time.Hour)
	if g.Has("s1", example, Upload, clk.Add(time.Second)) {
		t.Error("a second ReleaseAfter must not extend the first")
	}
	g.Grant("s1", example, Download, GrantOptions{})
	g.ReleaseAfter("s1", example, Download, "", 0)
	if g.Has("s1", example, Download, clk.Now()) {
		t.Error("grace 0 releases at once")
	}

	// NAVIGATE keeps its lifetime; ReleaseAfter of nothing is harmless.
	g.Grant("s1", other, Navigate, GrantOptions{})
	g.ReleaseAfter("s1", other, Navigate, "", 0)
	g.ReleaseAfter("s9", other, Submit, "", 0)
	if !g.Has("s1", other, Navigate, clk.Add(time.Minute)) {
		t.Error("ReleaseAfter is for single-use scopes only")
	}
}

func TestDropSession(t *testing.T) {
	clk := newClock()
	g := NewGrants(0, clk.Now)
	for _, s := range []string{"s1", "s2"} {
		g.Grant(s, example, Navigate, GrantOptions{})
		g.Grant(s, other, Submit, GrantOptions{})
	}
	g.DropSession("s1")
	now := clk.Now()
	if g.Has("s1", example, Navigate, now) || g.Has("s1", other, Submit, now) {
		t.Error("close_browser drops every grant of the session")
	}
	if !g.Has("s2", example, Navigate, now) || !g.Has("s2", other, Submit, now) {
		t.Error("another session's grants stay")
	}
}

func TestBadGrants(t *testing.T) {
	g := NewGrants(0, nil)
	if err := g.Grant("s1", Scope{}, Navigate, GrantOptions{}); err == nil {
		t.Error("a grant on nothing is an error")
	}
	if err := g.Grant("s1", example, Capability("ADMIN"), GrantOptions{}); err == nil {
		t.Error("an unknown capability is an error")
	}
	if g.Has("s1", Scope{}, Navigate, time.Now()) {
		t.Error("nothing is held on the zero scope")
	}
	var nilStore *Grants
	if nilStore.Has("s1", example, Navigate, time.Now()) || nilStore.Spend("s1", example, Submit, time.Now()) {
		t.Error("a nil store grants nothing")
	}
	nilStore.DropSession("s1")
	nilStore.ReleaseAfter("s1", example, Submit, "", 0)
}

func TestGrantsConcurrentSpend(t *testing.T) {
	clk := newClock()
	g := NewGrants(0, clk.Now)
	g.Grant("s1", example, Submit, GrantOptions{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	spent := 0
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if g.Spend("s1", example, Submit, clk.Now()) {
				mu.Lock()
				spent++
				mu.Unlock()
			}
			g.Has("s1", example, Navigate, clk.Now())
			g.Grant("s2", other, Navigate, GrantOptions{})
		}()
	}
	wg.Wait()
	if spent != 1 {
		t.Errorf("one SUBMIT was spent %d times", spent)
	}
}

// TestUseRenews: each use of a NAVIGATE or INTERACT grant within its
// lifetime starts that lifetime again (a sliding window), so steady use
// never lapses; a grant left idle past its lifetime is gone, and a use
// cannot bring it back. Single-use grants are not renewed.
func TestUseRenews(t *testing.T) {
	clk := newClock()
	g := NewGrants(10*time.Second, clk.Now)
	g.Grant("s1", example, Navigate, GrantOptions{Channel: ChannelElicit})
	g.Grant("s1", other, Interact, GrantOptions{TTL: 4 * time.Second})
	// Forty uses, 9 s apart: six minutes, far past the 10 s lifetime.
	for i := 0; i < 40; i++ {
		now := clk.Add(9 * time.Second)
		if info, ok := g.Use("s1", example, Interact, now); !ok || info.Capability != Navigate || info.Channel != ChannelElicit {
			t.Fatalf("use %d at +%v: %+v %v, want the renewed NAVIGATE", i, 9*time.Second*time.Duration(i+1), info, ok)
		}
	}
	// A grant renews by its own lifetime, not the store's.
	if _, ok := g.Use("s1", other, Interact, clk.Now()); ok {
		t.Error("INTERACT with a 4 s lifetime survived six minutes without use")
	}
	g.Grant("s1", other, Interact, GrantOptions{TTL: 4 * time.Second})
	clk.Add(3 * time.Second)
	g.Use("s1", other, Interact, clk.Now())
	if !g.Has("s1", other, Interact, clk.Add(3*time.Second)) {
		t.Error("a use at 3 s did not carry a 4 s grant to 6 s")
	}
	if g.Has("s1", other, Interact, clk.Add(1500*time.Millisecond)) {
		t.Error("a 4 s grant last used 4.5 s ago is still held")
	}
	// Idle past the lifetime: gone, and Use does not revive it.
	now := clk.Add(10 * time.Second)
	if _, ok := g.Use("s1", example, Navigate, now); ok {
		t.Error("a NAVIGATE grant idle for its whole lifetime answered a use")
	}
	if g.Has("s1", example, Navigate, now) {
		t.Error("a failed use revived the grant")
	}
	// Has and Lookup read without renewing.
	g.Grant("s1", example, Navigate, GrantOptions{})
	clk.Add(6 * time.Second)
	g.Has("s1", example, Navigate, clk.Now())
	g.Lookup("s1", example, Interact, clk.Now())
	if g.Has("s1", example, Navigate, clk.Add(5*time.Second)) {
		t.Error("Has or Lookup renewed a grant")
	}
	// Single-use credits are neither renewed nor spent by a use.
	g.Grant("s1", example, Submit, GrantOptions{TTL: 4 * time.Second})
	clk.Add(3 * time.Second)
	if _, ok := g.Use("s1", example, Submit, clk.Now()); !ok {
		t.Fatal("the SUBMIT credit is not there")
	}
	if g.Has("s1", example, Submit, clk.Add(2*time.Second)) {
		t.Error("a use renewed a single-use credit")
	}
}

func TestLiveGrants(t *testing.T) {
	now := time.Now()
	g := NewGrants(time.Minute, func() time.Time { return now })
	a, b := ScopeOf("https://a.test/"), ScopeOf("https://b.test/")
	_ = g.Grant("s1", b, Navigate, GrantOptions{Channel: "elicit"})
	_ = g.Grant("s1", a, Submit, GrantOptions{Channel: "elicit"})
	_ = g.Grant("s1", a, Interact, GrantOptions{TTL: time.Second})
	_ = g.Grant("s2", a, Navigate, GrantOptions{})
	live := g.Live("s1", now.Add(2*time.Second))
	if len(live) != 2 || live[0].Scope != "https://a.test" || live[0].Capability != Submit || live[1].Capability != Navigate {
		t.Errorf("live grants %+v", live)
	}
}
