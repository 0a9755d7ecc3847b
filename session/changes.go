package session

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/snapshot"
)

// What changed: an acting call that may change what the page shows (click,
// type_text, press_key, select_option) answers the lines of the action map
// that appeared, went or changed (snapshot.Diff), against the map as it
// stood before the input; read_page(changes_since=rN) answers the same
// against an earlier read. Every whole-page tree read is kept under an id
// (read_id), the last few per tab.

// changesTools are the acting calls that answer changes, by the name the
// caller's surface gives them (Caller.Tool): lyrad's own, and Playwright
// MCP's, whose acting calls answer what changed in place of the whole
// snapshot.
var changesTools = map[string]bool{
	"click": true, "type_text": true, "press_key": true, "select_option": true,
	"browser_click": true, "browser_type": true, "browser_press_key": true,
	"browser_select_option": true, "browser_hover": true, "browser_evaluate": true,
}

// nestedTools are the acting calls whose surface shows the map nested:
// they read it nested, the focus marked, and answer ChangesNested too.
var nestedTools = map[string]bool{
	"browser_click": true, "browser_type": true, "browser_press_key": true,
	"browser_select_option": true, "browser_hover": true, "browser_evaluate": true,
}

// reuseBefore is how old the latest read of the tab's document may be to
// stand for the map before an action; an older one is read again first.
// What changed on the page since that read is then part of the answer too:
// the agent had not seen it either.
const reuseBefore = 30 * time.Second

// How long the map is read for, before the input and after it settled.
const (
	readBeforeBudget = 2 * time.Second
	readAfterBudget  = 2 * time.Second
)

// Bounds of the reads kept to compare against.
const (
	maxTreesPerTab = 4
	maxTrees       = 12
	maxTreeItems   = 40000 // lines in all the reads kept (a line is about 200 bytes)
)

// treeRead is one whole-page tree read, kept to compare later reads to.
type treeRead struct {
	id     string
	tab    target.ID
	loader cdp.LoaderID // the tab's document
	at     time.Time
	items  []snapshot.Item
	tokens map[string]string // frame -> its document's table token
	nested bool              // read nested: the focused item has the state "active"
	nest   []snapshot.Node   // the nested form, when nested
}

// treeReads are the reads kept, oldest first.
type treeReads struct {
	mu   sync.Mutex
	next int
	list []*treeRead
}

// keep records a whole-page read and returns its id.
func (s *treeReads) keep(tab target.ID, t *page.Tree) *treeRead {
	r := newTreeRead(tab, t)
	s.mu.Lock()
	s.next++
	r.id = "r" + strconv.Itoa(s.next)
	s.list = append(s.list, r)
	s.mu.Unlock()
	s.trim(tab)
	return r
}

// trim drops the tab's oldest reads beyond its share, then the oldest of all.
func (s *treeReads) trim(tab target.ID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for i := len(s.list) - 1; i >= 0; i-- {
		if s.list[i].tab != tab {
			continue
		}
		if n++; n > maxTreesPerTab {
			s.list = append(s.list[:i], s.list[i+1:]...)
		}
	}
	if len(s.list) > maxTrees {
		s.list = append([]*treeRead(nil), s.list[len(s.list)-maxTrees:]...)
	}
	// The newest read is always kept, however large.
	total := 0
	for i := len(s.list) - 1; i >= 0; i-- {
		if total += len(s.list[i].items); total > maxTreeItems && i < len(s.list)-1 {
			s.list = append([]*treeRead(nil), s.list[i+1:]...)
			break
		}
	}
}

func newTreeRead(tab target.ID, t *page.Tree) *treeRead {
	r := &treeRead{tab: tab, loader: t.MainLoader, at: time.Now(), items: t.Items, tokens: map[string]string{}, nested: t.Nested, nest: t.Nest}
	for _, it := range t.Items {
		if _, ok := r.tokens[it.Frame]; !ok {
			r.tokens[it.Frame] = t.Ref(it).Token
		}
	}
	return r
}

// byID is the read kept under id, or nil.
func (s *treeReads) byID(id string) *treeRead {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.list {
		if r.id == id {
			return r
		}
	}
	return nil
}

// latest is the tab's newest read, or nil.
func (s *treeReads) latest(tab target.ID) *treeRead {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.list) - 1; i >= 0; i-- {
		if s.list[i].tab == tab {
			return s.list[i]
		}
	}
	return nil
}

// since is what changed from before to now, printed with now's refs.
func (now *treeRead) since(before *treeRead, refs []string, pageURL *url.URL) string {
	return snapshot.Summary(now.diff(before), now.refOf(refs), pageURL, snapshot.MaxChangeLines, snapshot.MaxChangeBytes)
}

// diff is what changed from before to now (snapshot.Diff). A frame that
// loaded another document since before counts as all new: its elements'
// ids are another table's. A read with the focus marked (nested) is
// compared to one without as if neither had it.
func (now *treeRead) diff(before *treeRead) []snapshot.Change {
	old, cur := before.items, now.items
	for f, tok := range before.tokens {
		if nt, ok := now.tokens[f]; ok && nt != tok {
			old = make([]snapshot.Item, len(before.items))
			copy(old, before.items)
			for i := range old {
				if nt, ok := now.tokens[old[i].Frame]; ok && nt != before.tokens[old[i].Frame] {
					old[i].Frame = "\x00" + old[i].Frame // another document's ids
				}
			}
			break
		}
	}
	if before.nested != now.nested {
		old, cur = withoutActive(old), withoutActive(cur)
	}
	return snapshot.Diff(old, cur)
}

// withoutActive is items with no "active" state (a copy, when one has it).
func withoutActive(items []snapshot.Item) []snapshot.Item {
	var out []snapshot.Item
	for i, it := range items {
		j := slices.Index(it.States, "active")
		if j < 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(items)
		}
		out[i].States = slices.Delete(slices.Clone(it.States), j, j+1)
	}
	if out == nil {
		return items
	}
	return out
}

// refOf gives an item of now its ref (refs in now's items' order).
func (now *treeRead) refOf(refs []string) func(snapshot.Item) string {
	type key struct {
		frame string
		node  int64
	}
	byKey := make(map[key]string, len(now.items))
	for i, it := range now.items {
		if i < len(refs) {
			byKey[key{it.Frame, it.Node}] = refs[i]
		}
	}
	return func(it snapshot.Item) string { return byKey[key{it.Frame, it.Node}] }
}

// newPage is what changes says when the tab loaded another document.
func newPage(title string) string {
	if title == "" {
		return "new page"
	}
	return "new page: " + title
}

// readWhole reads the tab's whole map (nested: in its nested form too),
// makes it the latest read (its refs resolve) and keeps it.
func (b *Browser) readWhole(ctx context.Context, tab cdpguard.Target, nested bool) (*treeRead, []string, error) {
	t, err := page.ReadTree(ctx, b.conn, &b.worlds, b.pageTab(tab), page.Region{Nest: nested})
	return b.keepRead(ctx, tab, t, err)
}

// keepRead is readWhole's end, also for a whole-page read made already
// (the one queued behind a drain: page.ReadTreeAfter).
func (b *Browser) keepRead(ctx context.Context, tab cdpguard.Target, t *page.Tree, err error) (*treeRead, []string, error) {
	t, refs, _, err := b.treeRead(ctx, tab, "", t, err)
	if err != nil {
		return nil, nil, err
	}
	return b.reads.trees.keep(tab.ID, t), refs, nil
}

// treeBefore is the map as it stands before the call's input: the tab's
// latest read when it is of the same document and recent, else read now.
// Only for the calls that answer changes; a failed read leaves the call
// without them.
func (a *act) treeBefore(ctx context.Context) {
	if !changesTools[a.c.Tool] || a.tab.ID == "" {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, readBeforeBudget)
	defer cancel()
	b := a.b
	if last := b.reads.trees.latest(a.tab.ID); last != nil && time.Since(last.at) < reuseBefore {
		if cur := b.mainLoader(rctx, a.tab); cur != "" && cur == last.loader {
			a.before = last
			return
		}
	}
	t, _, _, err := b.readTree(rctx, a.tab, "", nestedTools[a.c.Tool])
	if err != nil {
		a.m.log.Debug("changes: no map before the action", zap.Error(err))
		return
	}
	a.before = newTreeRead(a.tab.ID, t)
}

// addChanges reads the map once the call settled and answers what changed
// (finish): a new tab or a new document is said as such, not diffed. The
// read starts at once and runs while the caller asks for the tab's URL and
// title (res.URL and res.Title, which the answer uses): the returned func
// sets the changes once both are in. nil: there is nothing to add.
func (a *act) addChanges(ctx context.Context) func() {
	res := a.res
	if a.before == nil {
		return nil
	}
	switch {
	case res.NewTab:
		return func() {
			// The session is on it now: said by its title, or its address
			// while it has none.
			res.Changes = "new tab"
			if t, err := a.b.activePage(ctx); err == nil {
				u, title := a.b.fresh(ctx, t)
				if title == "" {
					title = u
				}
				res.Changes += ": " + title
			}
		}
	case res.Navigating:
		return func() { res.Changes = "new page loading" }
	case a.outcome.Navigated:
		return func() { res.Changes = newPage(res.Title) }
	}
	start := time.Now()
	type read struct {
		now  *treeRead
		refs []string
		err  error
	}
	done := make(chan read, 1)
	go func() {
		// A page still busy with what the input set off holds the read
		// up: the answer waits for it a moment, not the whole call's
		// budget.
		rctx, cancel := context.WithTimeout(ctx, readAfterBudget)
		defer cancel()
		var r read
		if q := a.queued.tree; q != nil {
			qt := <-q
			r.now, r.refs, r.err = a.b.keepRead(rctx, a.tab, qt.t, qt.err)
		} else {
			r.now, r.refs, r.err = a.b.readWhole(rctx, a.tab, nestedTools[a.c.Tool])
		}
		done <- r
	}()
	return func() {
		r := <-done
		if r.err != nil {
			a.m.log.Debug("changes: no map after the action", zap.Error(r.err))
			res.Hints = append(res.Hints, `The page was too busy to say what changed: read_page(mode="tree") shows it.`)
			return
		}
		if r.now.loader != a.before.loader {
			res.Changes, res.ReadID = newPage(res.Title), r.now.id
			return
		}
		u, _ := url.Parse(res.URL)
		changes := r.now.diff(a.before)
		res.Changes, res.ReadID = snapshot.Summary(changes, r.now.refOf(r.refs), u, snapshot.MaxChangeLines, snapshot.MaxChangeBytes), r.now.id
		if r.now.nested {
			res.ChangesNested = snapshot.NestedChanges(changes, r.now.nest, r.now.items, r.refs, u, snapshot.MaxChangeLines, snapshot.MaxChangeBytes)
		}
		a.m.log.Debug("changes", zap.Int("elements", len(r.now.items)), zap.Duration("took", time.Since(start)))
	}
}

// readChanges answers read_page(changes_since): the tab's map read now,
// against the read named.
func (b *Browser) readChanges(ctx context.Context, tab cdpguard.Target, o ReadOptions) (*ReadResult, error) {
	before := b.reads.trees.byID(o.ChangesSince)
	if before == nil {
		return nil, newError(StatusError, "changes_since "+strconv.Quote(o.ChangesSince)+" names no read kept (the last "+strconv.Itoa(maxTreesPerTab)+" whole-page tree reads of each tab are)",
			`Pass a read_id from a recent read_page(mode="tree") or acting call's answer, or read the whole page with read_page(mode="tree").`).arg("changes_since")
	}
	if before.tab != tab.ID {
		return nil, newError(StatusError, "changes_since "+strconv.Quote(o.ChangesSince)+" is a read of another tab",
			`Pass a read_id of this tab, or read it whole with read_page(mode="tree").`).arg("changes_since")
	}
	var pageURL, title string
	freshDone := make(chan struct{})
	go func() {
		defer close(freshDone)
		pageURL, title = b.fresh(ctx, tab)
	}()
	now, refs, err := b.readWhole(ctx, tab, false)
	<-freshDone
	if err != nil {
		return nil, err
	}
	res := &ReadResult{URL: pageURL, Title: title, Elements: len(now.items), ReadID: now.id}
	for _, it := range now.items {
		if it.InViewport {
			res.InViewport++
		}
	}
	if now.loader != before.loader {
		res.Changes = newPage(title)
	} else {
		u, _ := url.Parse(tab.URL)
		res.Changes = now.since(before, refs, u)
	}
	res.Page = snapshot.Cut(res.Changes, 0, max(o.MaxChars, len(res.Changes)))
	return res, nil
}
