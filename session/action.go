package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/audit"
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

// Refusal is a request the guard refused. Its URLs are kept cut
// (newRefusal): a page can have thousands refused in the minute they are
// kept, each with a 2 MB URL.
type Refusal struct {
	At           time.Time
	TabID        target.ID // the tab (page target) the request belonged to
	URL          string    // the refused request's URL, cut (audit.CutURL)
	RedirectFrom string    // set when a redirect hop was refused, cut
	Reason       string
	MainFrame    bool   // the tab's own document would have moved (not an iframe's)
	NetworkID    string // the navigation's id (its loader id), kept over redirects
	Issuer       string // the document that issued it, as urlKey
	// MessageBytes: for a body the browser could not hand over
	// (cdpguard.ReasonBodyTooLarge), the size of the DevTools message it
	// dropped; -1 when unknown.
	MessageBytes int64
}

// newRefusal keeps what a call needs of a refused request: the origin it
// was going to (a cut URL keeps it), whether it was a redirect hop, and who
// issued it, to compare.
func newRefusal(r cdpguard.Request, v cdpguard.Verdict) Refusal {
	size, ok := v.Fields["message_bytes"].(int64)
	if !ok {
		size = -1
	}
	return Refusal{At: time.Now(), TabID: r.TabID, URL: audit.CutURL(r.URL), RedirectFrom: audit.CutURL(r.RedirectFrom),
		Reason: v.Reason, MainFrame: r.TargetID == r.TabID && !r.InSubframe, NetworkID: r.NetworkID, Issuer: urlKey(r.Issuer),
		MessageBytes: size}
}

// urlKey is a URL small enough to keep that still tells two long URLs
// apart: a URL over audit.URLMax is cut and followed by a digest of the
// whole. Never written down: the digest of a URL with a short secret in it
// would give the secret away.
func urlKey(u string) string {
	if len(u) <= audit.URLMax {
		return u
	}
	h := sha256.Sum256([]byte(u))
	return audit.CutURL(u) + hex.EncodeToString(h[:12])
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

// beginAction admits a mutating call from c and resolves the active tab;
// then, before the call touches the page, it makes sure INTERACT is held
// on actsIn, the URL of the document the call acts in (interact.go), and
// credits what the intent declares. Every acting call comes through here,
// so this is where INTERACT is checked, asked for and renewed by use.
// actsIn is "" only for navigate, whose destination the guard judges
// instead. The error is an *Error to answer with.
func (m *Manager) beginAction(ctx context.Context, c Caller, in Intent, actsIn string) (*Action, error) {
	b, t, done, err := m.enterTab(ctx, c, mutate)
	if err != nil {
		done()
		return nil, err
	}
	a := &Action{m: m, b: b, c: c, Tab: t, Start: time.Now(), intent: in, done: done, dialogsEnd: b.dialogs.use(t.ID)}
	m.calls.begin(toolFrom(ctx))
	err = m.grantInteract(ctx, c, actsIn, in.Reason)
	if err == nil {
		err = m.credit(ctx, a, actsIn)
	}
	if err != nil {
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
		if (loader != "" && r.NetworkID == loader) || (r.Issuer != "" && r.Issuer != urlKey(before)) {
			return &r
		}
	}
	return nil
}

// End finishes the action: unused single-use scopes are handed back after
// the release grace.
func (a *Action) End() {
	a.m.calls.finish()
	a.m.releaseCredits(a)
	a.dialogsEnd(true)
	a.done()
}
