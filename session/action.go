package session

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpguard"
)

// Intent is what a browser-acting call declares it will set off beyond
// interacting with the page it is on. The guard credits exactly that, once,
// to the origin that acts.
type Intent struct {
	Submit   bool // submits=true (submit=true on type_text): one SUBMIT
	Download bool // download=true: one DOWNLOAD
	Upload   bool
	Publish  bool
	Reason   string // shown to the user when consent is asked
	Confirm  bool   // legacy consent (confirm=true) from a client that cannot be asked
}

// Refusal is a request the guard refused.
type Refusal struct {
	At           time.Time
	TabID        target.ID // the tab (page target) the request belonged to
	URL          string    // the refused request's URL
	RedirectFrom string    // set when a redirect hop was refused
	Reason       string
	MainFrame    bool   // the tab's own document would have moved (not an iframe's)
	NetworkID    string // the navigation's id (its loader id), kept over redirects
	Issuer       string // the document that issued it
	// MessageBytes: for a body the browser could not hand over
	// (cdpguard.ReasonBodyTooLarge), the size of the DevTools message it
	// dropped; -1 when unknown.
	MessageBytes int64
}

// refusals remembers recent refusals per browser so a call can tell that a
// navigation it set off was refused.
type refusals struct {
	mu   sync.Mutex
	list []Refusal
}

func (r *refusals) add(x Refusal) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// Keep the last minute; calls look back a few seconds at most.
	cut := 0
	for cut < len(r.list) && time.Since(r.list[cut].At) > time.Minute {
		cut++
	}
	r.list = append(r.list[cut:], x)
}

// since returns refusals at or after t on any of the tabs.
func (r *refusals) since(t time.Time, tabs ...target.ID) []Refusal {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Refusal
	for _, x := range r.list {
		if x.At.Before(t) {
			continue
		}
		for _, id := range tabs {
			if x.TabID == id {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// Action is one browser-acting call under way (click, type_text, press_key,
// hover, scroll, navigate ...). Begin it after the usability checks (so an
// unusable control neither prompts nor spends a grant) and before touching
// the page; End it when the call answers.
type Action struct {
	m       *Manager
	b       *Browser
	c       Caller
	Tab     cdpguard.Target // the active tab when the action began
	Start   time.Time
	intent  Intent
	credits []credit
	done    func()
	// dialogsEnd ends the answer handle_dialog armed, which this action
	// took (dialogs.go).
	dialogsEnd func(used bool)
}

// beginAction admits a mutating call from c, resolves the active tab and
// credits what the intent declares. The error is an *Error to answer with.
func (m *Manager) beginAction(ctx context.Context, c Caller, in Intent) (*Action, error) {
	b, t, done, err := m.enterTab(ctx, c, mutate)
	if err != nil {
		done()
		return nil, err
	}
	a := &Action{m: m, b: b, c: c, Tab: t, Start: time.Now(), intent: in, done: done, dialogsEnd: b.dialogs.use()}
	if err := m.credit(ctx, a); err != nil {
		var need *ConsentNeeded
		a.dialogsEnd(!errors.As(err, &need))
		done()
		return nil, err
	}
	return a, nil
}

// Refused returns the first refusal on the action's tab, or on a tab it
// opened, since the action began.
func (a *Action) Refused(extraTabs ...target.ID) *Refusal {
	rs := a.b.refused.since(a.Start, append([]target.ID{a.Tab.ID}, extraTabs...)...)
	if len(rs) == 0 {
		return nil
	}
	return &rs[0]
}

// refusedNavigation is the first refusal, since the action began, of the
// navigation with loader id loader (its redirect hops included) or of one
// the new document started itself (a page moving itself on as it loads),
// as opposed to what the previous document was still doing: what navigate,
// go_back and reload_page answer for. before is the tab's URL when the
// action began; an empty loader matches by issuer only.
func (a *Action) refusedNavigation(loader, before string) *Refusal {
	for _, r := range a.b.refused.since(a.Start, a.Tab.ID) {
		if !r.MainFrame {
			continue
		}
		if (loader != "" && r.NetworkID == loader) || (r.Issuer != "" && r.Issuer != before) {
			return &r
		}
	}
	return nil
}

// End finishes the action: unused single-use scopes are handed back after
// the release grace.
func (a *Action) End() {
	a.m.releaseCredits(a)
	a.dialogsEnd(true)
	a.done()
}
