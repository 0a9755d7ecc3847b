package session

import (
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/page"
)

// Native dialogs (alert, confirm, prompt, beforeunload) stop a page until
// they are answered, and a tab left with one open is frozen. So one listener,
// started with the browser, answers every dialog of every tab and popup the
// moment it opens: by default as a browser with no one to ask would (alerts
// and beforeunload accepted, confirm false, prompt null), or as handle_dialog
// armed it for the browser-acting call under way, but only a dialog of the
// tab that call acts on (its frames included). A popup or another tab that
// raises a dialog meanwhile gets the default: the text the agent meant for
// one page's prompt never goes to another's.
//
// What was raised is kept for a minute, so the call that raised it can
// report it under "dialogs".

// armedTTL is the longest an armed answer waits for the call that uses it.
// A variable only so that a test build can shorten it (dialogs_testhook.go).
var armedTTL = 60 * time.Second

// DialogAnswer is what handle_dialog arms: accept or not, and the text a
// prompt receives ("" accepts the prompt's default).
type DialogAnswer struct {
	Accept bool
	Text   string
}

// DialogRecord is one dialog a page raised and how it was answered.
type DialogRecord struct {
	At       time.Time
	TabID    target.ID
	Type     string // alert, confirm, prompt, beforeunload
	Message  string // the page's text, never the user's
	Accepted bool
	By       string // "default" or "handle_dialog"
}

type armedAnswer struct {
	DialogAnswer
	until time.Time
	tab   target.ID // the tab of the call it is in force for
}

// dialogs is the browser's dialog state.
type dialogs struct {
	mu      sync.Mutex
	armed   *armedAnswer // set by handle_dialog, waiting for its call
	inForce *armedAnswer // taken by the browser-acting call under way
	log     []DialogRecord
}

// arm sets the answer for the next browser-acting call, replacing any
// earlier one.
func (d *dialogs) arm(a DialogAnswer) time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	until := time.Now().Add(armedTTL)
	d.armed = &armedAnswer{DialogAnswer: a, until: until}
	return until
}

// use puts the armed answer (if any) in force for the call under way, for
// the dialogs of tab, the tab that call acts on. The returned func ends it:
// used up, or, when the call did nothing and will be repeated (consent asked
// through the client), armed again for the repeat. A call that finds nothing
// armed leaves an answer already in force alone, so a nested begin
// (beginAction inside a tool's call) is harmless.
func (d *dialogs) use(tab target.ID) (end func(used bool)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a := d.armed
	if a == nil || time.Now().After(a.until) {
		d.armed = nil
		return func(bool) {}
	}
	d.armed = nil
	inForce := *a
	inForce.tab = tab
	d.inForce = &inForce
	return func(used bool) {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.inForce == &inForce {
			d.inForce = nil
		}
		if !used && d.armed == nil && time.Now().Before(a.until) {
			d.armed = a
		}
	}
}

// retarget moves the answer in force from tab from to tab to: a call that
// resolves the active tab first and then acts on another (tabs close)
// answers that tab's dialogs (its beforeunload).
func (d *dialogs) retarget(from, to target.ID) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.inForce != nil && d.inForce.tab == from {
		d.inForce.tab = to
	}
}

// since returns the dialogs raised at or after t on any of the tabs (on
// every tab when none is named).
func (d *dialogs) since(t time.Time, tabs ...target.ID) []DialogRecord {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []DialogRecord
	for _, r := range d.log {
		if r.At.Before(t) {
			continue
		}
		if len(tabs) == 0 {
			out = append(out, r)
			continue
		}
		for _, id := range tabs {
			if r.TabID == id {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// answer decides how to answer a dialog now, and records it.
func (d *dialogs) answer(tab target.ID, ev page.Dialog) page.DialogAnswer {
	d.mu.Lock()
	defer d.mu.Unlock()
	rec := DialogRecord{At: time.Now(), TabID: tab, Type: ev.Type, Message: ev.Message, By: "default"}
	p := page.DialogAnswer{}
	switch ev.Type {
	case page.DialogAlert, page.DialogBeforeunload:
		p.Accept = true
	}
	if a := d.inForce; a != nil && tab != "" && a.tab == tab {
		rec.By = "handle_dialog"
		p.Accept = a.Accept
		if ev.Type == page.DialogPrompt && a.Accept {
			p.PromptText = a.Text
			if a.Text == "" {
				p.PromptText = ev.DefaultPrompt
			}
		}
	}
	rec.Accepted = p.Accept
	// Keep a minute's worth, and never more than a storm's worth.
	cut := 0
	for cut < len(d.log) && (time.Since(d.log[cut].At) > time.Minute || len(d.log)-cut >= 1000) {
		cut++
	}
	d.log = append(d.log[cut:], rec)
	return p
}

// startDialogs answers every dialog of this browser from now on. It runs
// until the connection ends.
func (b *Browser) startDialogs(log *zap.Logger) {
	page.AnswerDialogs(b.conn, func(d page.Dialog) page.DialogAnswer {
		return b.dialogs.answer(b.tabOfSession(d.Session), d)
	}, func(err error) {
		if !b.closing.Load() {
			log.Debug("answer dialog", zap.Error(err))
		}
	})
}

// tabOfSession names the tab a CDP session belongs to: the tab itself, or
// the tab an out-of-process iframe is part of.
func (b *Browser) tabOfSession(sid target.SessionID) target.ID {
	for _, p := range b.guard.Pages() {
		if p.SessionID == sid {
			return p.ID
		}
		for _, f := range b.guard.Frames(p.ID) {
			if f.SessionID == sid {
				return p.ID
			}
		}
	}
	return ""
}

// ArmDialog answers handle_dialog: the answer for the dialogs the next
// browser-acting call raises. It touches no page, but it decides for one:
// INTERACT on the active tab's page is asked for first, like any action's.
func (m *Manager) ArmDialog(ctx context.Context, c Caller, a DialogAnswer, in Intent) (time.Time, error) {
	b, tab, done, err := m.enterTab(ctx, c, mutate)
	defer done()
	if err != nil {
		return time.Time{}, err
	}
	if t := m.takeover.active(b); t != nil {
		return time.Time{}, takeoverError(t)
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	site, err := b.pageSite(sctx, tab)
	cancel()
	if err != nil {
		return time.Time{}, newError(StatusError, "the page did not say which site it belongs to: "+err.Error(),
			"Retry; call get_url to see where the tab stands.")
	}
	if err := m.desk.interact(ctx, c, site, in.Reason); err != nil {
		return time.Time{}, err
	}
	return b.dialogs.arm(a), nil
}
