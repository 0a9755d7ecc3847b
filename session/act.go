package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/download"
	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/policy"
)

// Every acting call (click, hover, type_text, press_key, select_option,
// scroll, navigate, go_back, reload_page, tabs switch and close) goes
// through one pipeline, m.act, which owns the sequence:
//
//  1. admission, once: one session drives (manager.go); navigate asks for
//     NAVIGATE on its destination first and opens the browser if needed;
//  2. the tab acted on, and the answer handle_dialog armed put in force
//     for that tab's dialogs;
//  3. for a call with a selector, the wait, at most appearWindow, until
//     its target is usable (act_usable.go, page.WaitActionable). This only
//     reads the page, so an unusable control neither prompts nor spends a
//     grant; the one exception is type_text's focus, made by the look that
//     finds a usable field only when nothing below could stop the call
//     (act.focusFirst);
//  4. INTERACT on the document the input reaches (interact.go), then the
//     credits for what the call declared (grants.go);
//  5. the call's timeout, and a watch on what it sets off, opened before
//     any input is sent (page.Watcher); for click, type_text, press_key and
//     select_option, the action map as it stands (changes.go);
//  6. the tool's own step (actSpec's do), which has page do what is done
//     to the page (page.Click, page.SelectOption, page.Scroll,
//     page.Navigate, ...) and settles or loads with the watcher;
//  7. the answer (finish): dialogs raised, tabs opened, a refusal by the
//     guard, where the tab stands, what changed in the map (changes.go);
//     and the end: unused credits handed back after the release grace,
//     the dialog answer used up (or armed again when the call only asked
//     for consent and will be repeated), handles released.
//
// A tool states only what is its own: an actSpec and its do.

// Acting statuses, the names agents see on the wire.
const (
	StatusNotFound      = "not_found"
	StatusHidden        = "hidden"
	StatusDisabled      = "disabled"
	StatusNotActionable = "element_not_actionable"
)

// How long an action listens, once its input was delivered and the page ran
// the tasks it queued, for effects that come later from the browser's side
// (a popup's tab, a navigation started from an out-of-process frame). A
// click and a key press are what open tabs and send forms; the pointer
// arriving and typed text rarely do, so they listen less.
//
// Typed text with no submit does not linger on lyrad's clock: what its
// handlers set off from the page reaches lyrad before the drain's answer
// does (a navigation's request, window.open's new window), and the
// browser starts nothing of its own for text arriving in a field. What the
// page does a moment later is waited for in the page: its drain's task is
// timed textWait after the text's input event in a main-frame field (the
// event starts it: page.FocusText), else after the input's answer
// (page.DrainAfter), so a message the page times a few milliseconds after
// its input handler ran has been shown when the map is read
// (TestChangesTypedErrorLater). The page's
// thread is often busy that long anyway, drawing the text.
const (
	lingerPress = 10 * time.Millisecond
	lingerLight = 5 * time.Millisecond
	textWait    = 3 * time.Millisecond
)

// maxDialogsReported caps the dialogs a reply lists (a storm is counted).
const maxDialogsReported = 20

// tabActTimeout bounds switching and closing a tab.
const tabActTimeout = 10 * time.Second

// ActOptions are what every acting call takes.
type ActOptions struct {
	Selector string
	Timeout  time.Duration // bounds the action itself; 0 is raised to 1 ms
	Intent   Intent
}

// Intent is what an acting call declares it will set off beyond
// interacting with the page it is on. The guard credits exactly that, once,
// to the origin that acts.
type Intent struct {
	Submit   bool // submits=true (submit=true on type_text): one SUBMIT
	Download bool // download=true: one DOWNLOAD
	Upload   bool
	Publish  bool
	Reason   string // the agent's, shown to the user (quoted) when consent is asked
	Detail   string // lyrad's own line under the question (page text in it quoted)
	Confirm  bool   // legacy consent (confirm=true) from a client that cannot be asked
}

// actsOn says where an acting call's input lands, which is what INTERACT
// is checked on (interact.go).
type actsOn int

const (
	onElement     actsOn = iota // the frame of the element the selector names
	onFocus                     // the focused frame (a key press)
	onPage                      // the tab's own document (a scroll with no target, a history step)
	onTab                       // another tab's document (tabs switch and close)
	onDestination               // nowhere yet: navigate's destination is judged instead
)

// settleKind says what the pipeline makes of the watch after the tool's
// step.
type settleKind int

const (
	settleNone   settleKind = iota // no watch (tabs)
	settleInput                    // input: what it set off is settled by the step; refusals answered
	settleLoaded                   // a navigation: the step loads and answers refusals itself
)

// actSpec is what a tool states about its call.
type actSpec struct {
	verb   string // the call in messages: "click", "key press", "go_back"
	opts   ActOptions
	usable actKind // the rules a selector's target must meet
	on     actsOn
	index  int    // onTab: the tab acted on
	url    string // onDestination: where navigate goes
	watch  settleKind
	// focusFirst: the step begins by focusing its element as type_text
	// does (page.FocusText); the look that finds it may do so (see
	// act.focusFirst).
	focusFirst bool
	// prepare, when set, reads what the step needs before anyone is asked
	// (it must not change the page): go_back's history entry.
	prepare func(ctx context.Context, a *act) error
	// downloadWait is how long a call that declared a download waits for
	// it to start (downloads.go); downloadGrace how long one that did not
	// looks for a download it set off, which was blocked.
	downloadWait, downloadGrace time.Duration
	// do is the tool's own step, bounded by the call's timeout.
	do func(ctx context.Context, a *act) error
}

// act is one acting call under way.
type act struct {
	m     *Manager
	b     *Browser
	c     Caller
	spec  *actSpec
	tab   cdpguard.Target // the active tab when the call began
	on    cdpguard.Target // the tab acted on: tab, or tabs' index
	sel   parsedSelector
	start time.Time
	group string // object group of the handles this call holds
	// after are the step's reads of how things stand once it settled
	// (the field's value: fieldAfter), which run while finish reads the
	// rest of the answer.
	after sync.WaitGroup

	loc     *located  // the selector's target, once usable
	st      elemState // its state then
	credits []credit
	w       *page.Watcher
	outcome page.Outcome // what Settle found
	before  *treeRead    // the action map before the input (changes.go)
	res     *ActResult
	exp     *download.Expectation // the download the call declared
	// sender is the control that sends the form a declared submission
	// sends, when a tool knows it better than the element acted on
	// (publish's submit); sends is what that form sends, read before
	// anyone is asked (readSends).
	sender *page.Node
	sends  *page.FormSends
	armed  *page.Node       // where the check of what the form sends is armed (armSends)
	frames *page.FrameTrees // the frame trees the reads before the input share
	// queued are the reads settleText queued behind its drain.
	queued struct {
		timer string // the wait FocusText (or focusFirst) armed for the drain (settleText)
		field *page.PendingField
		tree  chan queuedTree
		fresh chan [2]string // the tab's URL and title once drained
	}
	dlFrom policy.Scope // the site its DOWNLOAD grant was approved for
}

// queuedTree is the map read behind a drain (settleText).
type queuedTree struct {
	t   *page.Tree
	err error
}

// act runs one acting call through the pipeline described above.
func (m *Manager) act(ctx context.Context, c Caller, spec actSpec) (res *ActResult, err error) {
	a := &act{m: m, c: c, spec: &spec, start: time.Now(), group: page.NewActGroup(), res: &ActResult{}}
	// A call on an element needs one: selector "" is an argument error
	// before anything is done (a tool whose prepare finds its element,
	// as publish does, may leave it out).
	if spec.opts.Selector != "" || spec.on == onElement && spec.prepare == nil {
		if a.sel, err = parseSelector(spec.opts.Selector); err != nil {
			return nil, err
		}
	}
	b, done, err := m.own.enter(ctx, c, mutate)
	defer done()
	if err != nil {
		return nil, err
	}
	if t := m.takeover.active(b); t != nil {
		return nil, takeoverError(t)
	}
	if spec.on == onDestination {
		if err := m.desk.navigate(ctx, c, spec.url, spec.opts.Intent.Reason); err != nil {
			return nil, err
		}
		if b == nil {
			if _, err := m.Open(ctx, c); err != nil {
				return nil, err
			}
			b = m.own.current()
		}
	}
	if b == nil {
		return nil, notOpen()
	}
	a.b = b
	// Downloads refused while no acting call ran (a page's timer, a
	// handler that outlived the last call's wait) are told with this one,
	// in its hint whether it answers ok or an error; a call that answers
	// nothing yet (consent to ask first) leaves them to the next.
	from := b.lastAnswered(a.start)
	late := b.downloads.BlockedBetween(from, a.start)
	defer func() {
		var e *Error
		switch h := lateDownloadsHint(late); {
		case h == "":
		case err == nil && res != nil:
			res.Hints = append(res.Hints, h)
		case errors.As(err, &e):
			e.Hint = strings.TrimSpace(e.Hint + " " + h)
		default:
			b.untell(from, a.start)
			return
		}
		b.answeredNow()
	}()

	// The armed dialog answer is for the tab acted on. An acting call uses
	// it up, also when it fails; one that only asked for consent did
	// nothing and will be repeated with the answer, so it stays armed.
	terr := a.resolveTab(ctx)
	endDialogs := b.dialogs.use(a.on.ID)
	defer func() {
		var need *ConsentNeeded
		endDialogs(!errors.As(err, &need))
		a.after.Wait()
		a.releaseHandles()
		err = a.withDialogs(err)
	}()
	if terr != nil {
		return nil, terr
	}

	// The reads before the input share the frame trees they ask for
	// (page.FrameTrees): the ref's documents, the element's site, and
	// whether the latest map still stands for the page.
	a.frames = &page.FrameTrees{}
	fctx := page.WithFrameTrees(ctx, a.frames)
	if a.sel.raw != "" {
		if err := a.waitUsable(a.focusFirst(fctx)); err != nil {
			return nil, err
		}
	}
	if spec.prepare != nil {
		if err := spec.prepare(ctx, a); err != nil {
			return nil, a.annotate(ctx, err)
		}
	}
	actsIn, err := a.actsIn(fctx)
	if err != nil {
		return nil, err
	}
	m.sends.calls.begin(a.c.Tool)
	defer m.sends.calls.finish()
	// The declared send of an earlier call is over once another acting
	// call begins: its check, and the credits held to its publish state,
	// go (a late send of it is refused, not sent unchecked).
	m.sends.checks.disarm("")
	m.grants.DropBound(c.ID)
	if spec.on != onDestination {
		if err := m.desk.interact(ctx, c, actsIn, spec.opts.Intent.Reason); err != nil {
			return nil, err
		}
	}
	if spec.opts.Intent.Submit {
		a.readSends(ctx)
	}
	if err := m.desk.credit(ctx, a, actsIn); err != nil {
		return nil, err
	}
	defer m.desk.release(a)
	defer a.disarmSends()
	if in := a.spec.opts.Intent; in.Publish {
		// The form this call sends spends its PUBLISH, not a SUBMIT.
		if o, ok := policy.ScopeOf(actsIn).Origin(); ok {
			m.sends.calls.declare(policy.Declared{Publish: true, Submit: in.Submit, Origin: o})
		}
	}

	if spec.opts.Intent.Download {
		exp, err := b.downloads.Expect(ctx, []target.ID{a.tab.ID}, c.ID, a.dlFrom)
		if err != nil {
			return nil, newError(StatusError, "the browser did not open to the download: "+err.Error(), "Retry.")
		}
		defer exp.Close()
		a.exp = exp
	}

	a.treeBefore(fctx)
	actx, cancel := context.WithTimeout(ctx, spec.opts.Timeout)
	defer cancel()
	if spec.watch != settleNone {
		a.w = page.Watch(b.conn, watchEnv{a}, a.tab.ID, a.tab.SessionID, spec.watch == settleLoaded, a.watchSessions()...)
		defer a.w.Close()
	}
	if err := a.armSends(actx, a.sends); err != nil {
		return nil, a.annotate(actx, err)
	}
	if err := spec.do(actx, a); err != nil {
		return nil, a.annotate(actx, err)
	}
	if err := a.stoppedSend(ctx); err != nil {
		return nil, err
	}
	if res, err = a.finish(ctx); err != nil {
		return nil, err
	}
	if err := a.downloadAnswer(ctx); err != nil {
		err.Result = res
		return nil, err
	}
	return res, nil
}

// focusFirst lets the look that finds the call's text field focus it in
// the same round trip (page.WithFocusFirst) when nothing the pipeline
// judges between the look and the input could stop the call: it declares
// nothing to credit, its caller holds INTERACT on the origin the tab was
// last known at without asking anyone (grantDesk.holdsInteract), and the
// latest map of the tab is recent enough to stand for the map before the
// input (treeBefore reads none after the focus). The page focuses only a
// field of the tab's main frame that is usable and writable, in a document
// of that origin. INTERACT is still asked for in its turn, and the
// declared send of the call before ends first, as for any acting call that
// begins: nothing the page does on the focus spends it.
func (a *act) focusFirst(ctx context.Context) context.Context {
	if !a.spec.focusFirst || a.spec.opts.Intent.Submit || a.spec.opts.Intent.Download ||
		a.spec.opts.Intent.Upload || a.spec.opts.Intent.Publish {
		return ctx
	}
	o, ok := policy.OriginOf(a.tab.URL)
	if !ok || !a.m.desk.holdsInteract(a.c, o.Scope()) {
		return ctx
	}
	if changesTools[a.c.Tool] {
		if last := a.b.reads.trees.latest(a.tab.ID); last == nil || time.Since(last.at) >= reuseBefore {
			return ctx
		}
	}
	a.m.sends.checks.disarm("")
	a.m.grants.DropBound(a.c.ID)
	a.queued.timer = page.TypingTimer()
	return page.WithFocusFirst(ctx, page.FocusFirst{Frame: a.mainFrame(), Origin: o.String(), Timer: a.queued.timer, Wait: textWait})
}

// readSends reads, for a declared submission, where the form of the
// control that sends it goes and the publish state it sends
// (page.FormSendsOf): the question names the destination, and the credit
// pays only for that publish state. Nothing is read for an element in no
// form, or when the page does not answer; the guard still holds whatever
// is sent to what was approved.
func (a *act) readSends(ctx context.Context) {
	n := a.sender
	if n == nil && a.loc != nil {
		n = a.loc.Node
	}
	if n == nil {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, a.spec.opts.Timeout)
	defer cancel()
	if fs, err := page.FormSendsOf(rctx, a.b.conn, &a.b.worlds, n); err == nil {
		a.sends = fs
	}
}

// approvedForm is the publish state the form sends, as the credit holds
// it; nil when it has no publish control.
func approvedForm(fs *page.FormSends) *policy.ApprovedForm {
	if fs == nil || len(fs.Fields) == 0 {
		return nil
	}
	return &policy.ApprovedForm{Fields: fs.Fields}
}

// bindSends holds the call's SUBMIT and PUBLISH credits, and the check in
// the page, to what the form sends now (fs), just before the tool sends it.
func (a *act) bindSends(ctx context.Context, fs *page.FormSends) error {
	a.sends = fs
	form := approvedForm(fs)
	for _, cr := range a.credits {
		if cr.cap == policy.Submit || cr.cap == policy.Publish {
			a.m.grants.Bind(a.c.ID, cr.scope, cr.cap, cr.tab, form)
		}
	}
	return a.armSends(ctx, fs)
}

// armSends arms, in the frame of the control that sends the form, the
// check of what the browser is about to send (page.ArmSendCheck): a
// submission whose publish fields do not hold fs's is stopped there. A
// form with no publish control is not checked. The check cannot be left
// out: a call that cannot arm it sends nothing.
func (a *act) armSends(ctx context.Context, fs *page.FormSends) error {
	if fs == nil || len(fs.Fields) == 0 {
		return nil
	}
	n := a.sender
	if n == nil && a.loc != nil {
		n = a.loc.Node
	}
	if n == nil {
		return nil
	}
	if err := a.m.sends.checks.arm(ctx, a.b, a.tab.ID, n, a.group); err != nil {
		return err
	}
	if err := page.ArmSendCheck(ctx, a.b.conn, &a.b.worlds, n, fs.Fields, a.group); err != nil {
		return err
	}
	a.armed = n
	// disarmSends needs the element's backendNodeId once the call's
	// handles are gone: asked for now, beside the input, not on the
	// answer's path (Node.Backend keeps it).
	go func() {
		bctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, _ = n.Backend(bctx, a.b.conn)
	}()
	return nil
}

// disarmSends takes the check away once the call's credits are gone (the
// release grace after the call): a submission after that needs a call of
// its own, which arms its own. The node is resolved again (the call's
// handles are released by then), by the backendNodeId armSends asked for.
func (a *act) disarmSends() {
	if a.armed == nil {
		return
	}
	group := page.NewActGroup()
	bctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	backend, _ := a.armed.Backend(bctx, a.b.conn)
	cancel()
	n := page.NewNode(a.armed.Session, a.armed.Frame, backend, group)
	m, b, token, grace := a.m, a.b, a.group, a.m.cfg.ReleaseGrace
	time.AfterFunc(grace, func() {
		m.sends.checks.disarm(token)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = page.DisarmSendCheck(ctx, b.conn, &b.worlds, n, token)
		page.ReleaseHandles(b.conn, group, n.Session)
	})
}

// stoppedSend answers not_private when the armed check stopped a send
// whose publish state was not the one approved.
func (a *act) stoppedSend(ctx context.Context) *Error {
	if a.armed == nil {
		return nil
	}
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	what, err := page.SendStopped(qctx, a.b.conn, &a.b.worlds, a.armed)
	if err != nil || what == "" {
		return nil
	}
	if a.res.Sent != nil {
		a.res.Sent.Published = false
	}
	e := a.failure(StatusNotPrivate, "the page changed the publish state of the form as it was sent ("+what+"): lyrad stopped the send before it left, nothing was sent",
		"The page's own script changes the form's publish state when it is sent; read_draft shows the form. Tell the user: this page publishes what it sends, whatever was approved.")
	e.Result = a.res
	return e
}

// resolveTab finds the active tab, and the tab acted on.
func (a *act) resolveTab(ctx context.Context) error {
	t, err := a.b.activePage(ctx)
	if err != nil {
		return newError(StatusPageClosed, err.Error(), "Call open_browser again.")
	}
	a.tab, a.on = t, t
	if a.spec.on == onTab {
		if a.on, err = a.b.tabAt(a.spec.index); err != nil {
			return err
		}
	}
	return nil
}

// actsIn is the URL of the document the call's input reaches (interact.go),
// learnt within the call's timeout; "" for navigate.
func (a *act) actsIn(ctx context.Context) (string, error) {
	sctx, cancel := context.WithTimeout(ctx, a.spec.opts.Timeout)
	defer cancel()
	var site string
	var err error
	switch a.spec.on {
	case onDestination:
		return "", nil
	case onTab:
		return a.on.URL, nil
	case onElement:
		if a.loc == nil || a.loc.Node == nil {
			return "", selectorError(a.sel.raw, "no element to act on: the selector is empty")
		}
		n := a.loc.Node
		site, err = a.b.frameSite(sctx, page.FrameRef{Session: n.Session, Frame: n.Frame})
	case onFocus:
		var f page.FrameRef
		if f, err = a.focusedFrame(sctx); err == nil {
			site, err = a.b.frameSite(sctx, f)
		}
	case onPage:
		site, err = a.b.pageSite(sctx, a.tab)
	}
	switch {
	case err == nil:
		return site, nil
	case sctx.Err() != nil && ctx.Err() == nil:
		// Nothing was done yet, and nothing is done without knowing.
		return "", a.failure(StatusTimeout, fmt.Sprintf("the page did not say which site it belongs to within %v; nothing was done", a.spec.opts.Timeout),
			"The page is busy: retry; where the tool takes timeout_ms, a larger one (at most 30000) gives a slow page longer.")
	}
	return "", a.annotate(ctx, err)
}

// mainFrame is the main frame of the call's tab.
func (a *act) mainFrame() page.FrameRef {
	return page.FrameRef{Session: a.tab.SessionID, Frame: cdp.FrameID(a.tab.ID)}
}

// watchSessions are the sessions besides the tab's whose events count as
// the call's: the element's frame, or for a key any out-of-process frame
// (any of them may hold the focus).
func (a *act) watchSessions() []target.SessionID {
	if a.loc != nil && a.loc.Node != nil {
		return []target.SessionID{a.loc.Node.Session}
	}
	if a.spec.on != onFocus {
		return nil
	}
	var out []target.SessionID
	for _, f := range a.b.guard.Frames(a.tab.ID) {
		out = append(out, f.SessionID)
	}
	return out
}

// watchEnv is the guard's view for a call's watcher.
type watchEnv struct{ a *act }

func (e watchEnv) Refused(tab target.ID) bool {
	return len(e.a.b.refused.since(e.a.start, tab)) > 0
}

func (e watchEnv) Open(id target.ID) bool {
	_, ok := e.a.b.guard.Page(id)
	return ok
}

func (e watchEnv) FrameOf(tab, id target.ID) bool {
	for _, f := range e.a.b.guard.Frames(tab) {
		if f.ID == id {
			return true
		}
	}
	return false
}

// settle lets the page run what the input queued and waits, bounded by
// ctx, for what the action set off (page.Watcher.Settle). n is the element
// the input reached, nil for a key.
func (a *act) settle(ctx context.Context, linger time.Duration, n *page.Node) {
	a.outcome = a.w.Settle(ctx, linger, a.drain(ctx, n, 0))
}

// settleText is settle for typed text: no linger, and a drain timed
// textWait after the input (see textWait; TypeText armed its timer). In the tab's main frame, the
// reads of how things stand after (the field's value, the map) are queued
// in the page behind the drain (page.StartDrain), so that they answer
// with it rather than a round trip after the marker that follows it;
// finish uses them when the call set nothing off (no navigation, no new
// tab), and reads again otherwise.
func (a *act) settleText(ctx context.Context, n *page.Node) {
	if !a.inMainFrame(n) {
		a.outcome = a.w.Settle(ctx, 0, a.drain(ctx, n, textWait))
		return
	}
	dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	d, err := page.StartDrain(dctx, a.b.conn, &a.b.worlds, a.mainFrame(), textWait, a.queued.timer)
	if err != nil {
		a.outcome = a.w.Settle(ctx, 0, a.drain(ctx, n, textWait))
		return
	}
	a.queued.field = d.Field(n)
	if a.before != nil {
		// The rest of the read (the frames, listed after the drain) runs
		// while the marker behind the drain is waited for; finish takes
		// it.
		pt := d.Tree(page.Region{Nest: nestedTools[a.c.Tool]}, a.frames)
		tree := make(chan queuedTree, 1)
		a.queued.tree = tree
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), readAfterBudget)
		go func() {
			defer cancel()
			t, err := page.ReadTreeAfter(rctx, a.b.conn, &a.b.worlds, a.b.pageTab(a.tab), pt)
			tree <- queuedTree{t, err}
		}()
	}
	done := make(chan bool, 1)
	fresh := make(chan [2]string, 1)
	a.queued.fresh = fresh
	go func() {
		defer close(done)
		closing, err := d.Result()
		// Where the tab stands is asked for beside the marker too.
		go func() {
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			url, title := a.b.fresh(fctx, a.tab)
			fresh <- [2]string{url, title}
		}()
		if err == nil && closing {
			done <- true
		}
	}()
	a.outcome = a.w.Settle(ctx, 0, done)
}

// inMainFrame says whether n is an element of the tab's main frame.
func (a *act) inMainFrame(n *page.Node) bool {
	return n != nil && (page.FrameRef{Session: n.Session, Frame: n.Frame}) == a.mainFrame()
}

// drain lets the page run what the input queued (page.Drain), in the
// frame that received it and in the tab's main frame, and closes the
// returned channel when it has. It runs while Settle listens: after input
// the page often renders a frame before it runs a timer, and the two waits
// need not add up.
func (a *act) drain(ctx context.Context, n *page.Node, wait time.Duration) <-chan bool {
	done := make(chan bool, 2)
	go func() {
		defer close(done)
		dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
		defer cancel()
		b := a.b
		main := a.mainFrame()
		if n != nil && (page.FrameRef{Session: n.Session, Frame: n.Frame}) != main {
			// A frame's window.closed is its own, not the tab's.
			_, _ = page.DrainAfter(dctx, b.conn, &b.worlds, page.FrameRef{Session: n.Session, Frame: n.Frame}, wait)
		}
		if closing, err := page.DrainAfter(dctx, b.conn, &b.worlds, main, wait); err == nil && closing {
			done <- true
		}
	}()
	return done
}

// finish turns what the call did and set off into its answer: ok with what
// is known, or blocked_by_policy / page_closed carrying the same fields.
func (a *act) finish(ctx context.Context) (*ActResult, error) {
	b, res, o := a.b, a.res, a.outcome
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if a.sel.raw != "" {
		res.Selector = a.sel.raw
	}
	if a.loc != nil {
		res.Matches = a.loc.Matches
		if a.loc.Matches > 1 {
			res.Hints = append(res.Hints, a.loc.matchesHint())
		}
	}
	a.addDialogs()
	if o.TabClosed {
		e := a.pageClosed(qctx)
		e.Result = res
		return nil, e
	}
	var refusedOn []target.ID
	if a.spec.watch == settleInput {
		newest := a.followPopups(o, &refusedOn)
		if newest != "" {
			res.NewTab = true
			res.Hints = append(res.Hints, "The action opened a new tab, and the session is now on it: read_page reads it. tabs lists the tabs and tabs(action=\"switch\") goes back.")
		}
		res.Navigated = o.Navigated
		if o.NavPending {
			res.Navigating = true
			res.Hints = append(res.Hints, "The page is still loading what the action started; wait_for(load_state=\"load\") waits for it.")
		}
	}
	res.TabCount = len(b.pages())
	answerTab := a.on
	if a.spec.on == onTab {
		// After a switch or a close, where the session now stands.
		if t, err := b.activePage(qctx); err == nil {
			answerTab = t
		}
	}
	changes := a.addChanges(qctx)
	if q := a.queued.fresh; q != nil && answerTab.ID == a.tab.ID && !res.NewTab && !o.Navigated && !o.NavPending {
		// Read once the drain answered: nothing the call set off moved
		// the tab since.
		select {
		case f := <-q:
			res.URL, res.Title = f[0], f[1]
		case <-qctx.Done():
			res.URL, res.Title = answerTab.URL, answerTab.Title
		}
	} else {
		res.URL, res.Title = b.fresh(qctx, answerTab)
	}
	if changes != nil {
		changes()
	}
	// What the step still reads (the field's value) is in before the
	// answer is.
	a.after.Wait()
	if a.spec.watch == settleInput {
		if err := a.blockedWith(qctx, refusedOn...); err != nil {
			err.Result = res
			return nil, err
		}
	}
	return res, nil
}

// followPopups records the tabs the action opened that are still open,
// makes the session follow onto the newest (manager.onTarget does it for a
// tab the active page opened; a popup from an out-of-process frame names
// that frame as its opener), and returns it.
func (a *act) followPopups(o page.Outcome, refusedOn *[]target.ID) target.ID {
	var newest cdpguard.Target
	for _, p := range o.Popups {
		*refusedOn = append(*refusedOn, p.ID)
		if t, ok := a.b.guard.Page(p.ID); ok && !p.Refused && t.Seq > newest.Seq {
			newest = t
		}
	}
	if newest.ID != "" && a.b.activeID() == a.tab.ID {
		a.b.setActive(newest.ID)
	}
	return newest.ID
}

// addDialogs lists the dialogs raised since the call began.
func (a *act) addDialogs() {
	if a.res.Dialogs != nil {
		return
	}
	ds := a.b.dialogs.since(a.start)
	if len(ds) > maxDialogsReported {
		a.res.DialogsMore = len(ds) - maxDialogsReported
		ds = ds[:maxDialogsReported]
	}
	a.res.Dialogs = ds
}

// withDialogs gives an error envelope the dialogs the call raised.
func (a *act) withDialogs(err error) error {
	var se *Error
	if a.b == nil || !errors.As(err, &se) {
		return err
	}
	if se.Result == nil {
		a.addDialogs()
		if len(a.res.Dialogs) > 0 {
			se.Result = &ActResult{Dialogs: a.res.Dialogs, DialogsMore: a.res.DialogsMore}
		}
	}
	return se
}

func (a *act) releaseHandles() {
	if a.b == nil || a.tab.ID == "" {
		return
	}
	sessions := []target.SessionID{a.tab.SessionID}
	for _, f := range a.b.guard.Frames(a.tab.ID) {
		sessions = append(sessions, f.SessionID)
	}
	page.ReleaseHandles(a.b.conn, a.group, sessions...)
}

// failure is an acting error envelope: status, what went wrong, the next
// move, and the selector and url it happened at.
func (a *act) failure(status, msg, hint string) *Error {
	e := newError(status, msg, hint)
	if a.sel.raw != "" {
		e.on(a.sel.raw)
	}
	if a.loc != nil && a.loc.Matches > 0 {
		e.matching(a.loc.Matches)
	}
	return e.at(a.tab.URL)
}

// annotate adds selector and url to an *Error that lacks them, and turns
// other errors into envelopes.
func (a *act) annotate(ctx context.Context, err error) error {
	var se *Error
	var need *ConsentNeeded
	if errors.As(err, &need) {
		return err
	}
	what := a.spec.verb
	if !errors.As(err, &se) {
		var gone *page.NodeGoneError
		switch {
		case errors.As(err, &gone):
			se = newError(StatusNotActionable, "the element was removed from the page (detached) during the "+what,
				"The page replaced it; read the page again (read_page) and retry with a fresh selector or ref.")
		case cdpconn.IsTargetGone(err), errors.Is(err, page.ErrTabGone):
			se = a.pageClosed(ctx)
		default:
			var ok bool
			if se, ok = callError(ctx, err, what).(*Error); !ok {
				se = newError(StatusError, err.Error(), "Retry.")
			}
			if se.Status == StatusTimeout {
				se.Message = "the " + what + " did not finish within timeout_ms"
				se.Hint = "The page did not answer in time. The action may have landed: look at the page (read_page, get_url) before repeating it; a larger timeout_ms (at most 30000) gives a slow page longer."
			}
		}
	}
	if a.sel.raw != "" && se.Selector == nil {
		se.on(a.sel.raw)
	}
	if se.URL == nil {
		se.at(a.tab.URL)
	}
	return se
}

// pageClosed is the answer for a tab that died under the call: where the
// session stands now.
func (a *act) pageClosed(ctx context.Context) *Error {
	e := newError(StatusPageClosed, "the tab closed during the "+a.spec.verb,
		"The session moved to another tab (the one that opened it, else the newest); call get_url or tabs to see where it stands.")
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	// The call saw the tab die before the guard's registry did: let the
	// registry catch up (a moment), so where the session stands is read
	// after it moved, not from the dying tab.
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, alive := a.b.guard.Page(a.tab.ID); !alive {
			break
		}
	}
	if t, err := a.b.activePage(ctx); err == nil {
		url, _ := a.b.fresh(ctx, t)
		e.at(url)
	}
	return e.tabs(len(a.b.pages()))
}

// refused returns the first refusal on the call's tab, or on a tab it
// opened, since the call began.
func (a *act) refused(extraTabs ...target.ID) *Refusal {
	rs := a.b.refused.since(a.start, append([]target.ID{a.tab.ID}, extraTabs...)...)
	if len(rs) == 0 {
		return nil
	}
	return &rs[0]
}

// refusedNavigation is the first refusal, since the call began, of the
// navigation with loader id loader (its redirect hops included) or of one
// the new document started itself (a page moving itself on as it loads),
// as opposed to what the previous document was still doing: what navigate
// answers for. before is the tab's URL when the call began; an empty
// loader matches by issuer only.
func (a *act) refusedNavigation(loader, before string) *Refusal {
	for _, r := range a.b.refused.since(a.start, a.tab.ID) {
		if !r.MainFrame {
			continue
		}
		if (loader != "" && r.NetworkID == loader) || (r.Issuer != "" && r.Issuer != urlKey(before)) {
			return &r
		}
	}
	return nil
}

// blockedWith answers blocked_by_policy when the guard refused a
// navigation of the call's tab (or an iframe of it) or of a tab it opened.
func (a *act) blockedWith(ctx context.Context, extra ...target.ID) *Error {
	r := a.refused(extra...)
	if r == nil {
		return nil
	}
	if r.TabID != a.tab.ID {
		// The refusal was on a tab the action opened (its first
		// navigation).
		url, _ := a.b.fresh(ctx, a.tab)
		return newError(StatusBlocked, "the guard refused the navigation of the tab the action opened, so no tab was opened",
			"Nothing approved covers where the new tab was going; navigate there to be asked for it.").at(url)
	}
	return a.blockedAnswer(ctx, r)
}

// blockedAnswer is the blocked_by_policy answer for refusal r: where the
// tab stands, and for a refused redirect the origin it was sent to (never
// its path or query).
func (a *act) blockedAnswer(ctx context.Context, r *Refusal) *Error {
	url, _ := a.b.fresh(ctx, a.tab)
	if r.Reason == cdpguard.ReasonBodyTooLarge || r.Reason == cdpguard.ReasonBodyNotHandedOver {
		return bodyTooLarge(r).at(url)
	}
	switch {
	case r.Reason == policy.ReasonPublishStateChanged:
		return newError(StatusNotPrivate, "the page changed the publish state of the form as it was sent ("+r.BodyMismatch+"): the guard stopped the send before it left, nothing was sent",
			"The page's own script sets the form's publish state when it sends; read_draft shows it. Tell the user: this page publishes what it sends, whatever save_draft was approved for.").
			at(url).refusing(policy.ScopeOf(r.URL).Loggable())
	case r.Reason == policy.ReasonSendUnchecked:
		return newError(StatusNotPrivate, "the page kept lyrad from checking what its form sends (its own script stopped the formdata event), so the guard stopped the send before it left: nothing was sent",
			"The page hides what it sends; read_draft shows the form. Tell the user: this page's sends cannot be held to what was approved; they can send it themselves (request_takeover).").
			at(url).refusing(policy.ScopeOf(r.URL).Loggable())
	case r.Reason == policy.ReasonBodyUnreadable:
		return newError(StatusBlocked, "the guard could not read the publish state out of what the form sent ("+r.BodyMismatch+"), so it stopped the send before it left: nothing was sent",
			"The form's publish state could not be checked in its body (a file the browser did not hand over, or a text/plain form). Send the item without the attachment, or ask the user to send it themselves (request_takeover).").
			at(url).refusing(policy.ScopeOf(r.URL).Loggable())
	case r.CrossOrigin != "" && r.Capability == string(policy.Navigate):
		return newError(StatusBlocked, "the guard refused a form sent to "+r.CrossOrigin+", another site than the one approved for the send: nothing was sent",
			"The page sent the form somewhere else than its action said when the user was asked. Tell the user; to send there, navigate to "+r.CrossOrigin+" first (the user is asked), then repeat the action.").
			at(url).refusing(r.CrossOrigin)
	}
	e := newError(StatusBlocked, "the guard refused a navigation: nothing approved covers "+policy.ScopeOf(r.URL).Loggable(),
		"The tab has not moved. To go there, call navigate with that site's URL (the user is asked); to send a form, repeat the action with submits=true.").
		at(url)
	if r.RedirectFrom != "" {
		e.redirectedTo(policy.ScopeOf(r.URL).Loggable())
	} else {
		e.refusing(policy.ScopeOf(r.URL).Loggable())
	}
	return e
}

// bodyTooLarge answers for a request whose body the browser could not hand
// to the guard (cdpguard's bodies.go): it was stopped, unsent.
func bodyTooLarge(r *Refusal) *Error {
	var msg string
	if r.MessageBytes > 0 {
		msg = fmt.Sprintf("the browser could not hand the body of a request to %s to the guard: it makes a %.1f MB DevTools message, over Chrome's %d MiB limit, so the request was stopped and nothing was sent",
			policy.ScopeOf(r.URL).Loggable(), float64(r.MessageBytes)/1e6, cdpguard.DevToolsMessageLimit>>20)
	} else {
		msg = fmt.Sprintf("the browser did not hand the body of a request to %s to the guard, so the request was stopped and nothing was sent",
			policy.ScopeOf(r.URL).Loggable())
	}
	e := newError(StatusBodyTooLarge, msg,
		"The tab has not moved. Send a smaller body: compress the file (zip) or split it, then repeat the action. Chrome hands over bodies up to about 35 MB of zero bytes or 110 MB of other data.").
		refusing(policy.ScopeOf(r.URL).Loggable())
	if r.MessageBytes > 0 {
		e.MessageBytes, e.MessageLimit = r.MessageBytes, cdpguard.DevToolsMessageLimit
	}
	return e
}

// clampTimeout applies timeout_ms's rules: default 10 s, at most 30 s, and
// 0 (or less) raised to 1 ms, never "no limit".
func clampTimeout(ms int64, given bool) time.Duration {
	if !given {
		return 10 * time.Second
	}
	if ms < 1 {
		ms = 1
	}
	if ms > 30000 {
		ms = 30000
	}
	return time.Duration(ms) * time.Millisecond
}

// ClampTimeout is clampTimeout for the tools layer.
func ClampTimeout(ms int64, given bool) time.Duration { return clampTimeout(ms, given) }

func callError(ctx context.Context, err error, what string) error {
	if errors.Is(err, cdpconn.ErrClosed) {
		return newError(StatusGuardLost, "the browser connection ended during "+what, "Call close_browser, then open_browser.")
	}
	if ctx.Err() != nil {
		return newError(StatusTimeout, what+" did not finish in time", "Retry, or call get_url to see where the tab stands.")
	}
	if errors.Is(err, cdpconn.ErrDetached) {
		return pageGone()
	}
	return newError(StatusError, what+": "+err.Error(), "Retry; if it persists, call close_browser and open_browser.")
}

func pageGone() *Error {
	return newError(StatusPageClosed, "the tab closed during the call", "Call get_url or tabs to see where the session stands.")
}
