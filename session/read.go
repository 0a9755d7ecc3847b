package session

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/snapshot"
)

// ReadOptions is what read_page asks for.
type ReadOptions struct {
	Mode     string // "text" or "tree"
	Links    bool   // text mode: add the visible links
	Selector string // limit the read to one region (CSS, text=, or aria-ref=eN)
	Offset   int
	MaxChars int
}

// Link is one visible link of a text read.
type Link struct {
	Text string `json:"text"`
	Href string `json:"href"`
}

// ReadResult is one page of a read.
type ReadResult struct {
	URL, Title string
	Page       snapshot.Page
	Offset     int
	// Tree mode.
	Elements   int
	InViewport int
	// Text mode with links.
	Links          []Link
	LinksTruncated bool
}

// MaxLinks bounds the links a text read adds.
const MaxLinks = 100

// ReadPage answers read_page. It is a read: it never claims the browser.
func (m *Manager) ReadPage(ctx context.Context, c Caller, o ReadOptions) (*ReadResult, error) {
	b, tab, done, err := m.enterTab(ctx, c, read)
	defer done()
	if err != nil {
		return nil, err
	}
	res := &ReadResult{Offset: o.Offset}
	var out string
	if o.Mode == "tree" {
		start := time.Now()
		var took treeTimes
		items, inView, refs, err := b.readTree(ctx, tab, o.Selector, &took)
		if err != nil {
			return nil, err
		}
		m.log.Debug("read_page tree", zap.Int("elements", len(items)), zap.Duration("took", time.Since(start)),
			zap.Duration("fetch", took.fetch), zap.Duration("build", took.build))
		res.Elements, res.InViewport = len(items), inView
		pageURL, _ := url.Parse(tab.URL)
		lines := make([]string, len(items))
		for i, it := range items {
			lines[i] = snapshot.Line(refs[i], it, pageURL)
		}
		out = strings.Join(lines, "\n")
	} else {
		out, err = b.readText(ctx, tab, o.Selector)
		if err != nil {
			return nil, err
		}
		if o.Links {
			res.Links, res.LinksTruncated, err = b.readLinks(ctx, tab, o.Selector)
			if err != nil {
				return nil, err
			}
		}
	}
	res.Page = snapshot.Cut(out, o.Offset, o.MaxChars)
	res.URL, res.Title = b.fresh(ctx, tab)
	return res, nil
}

func (b *Browser) readText(ctx context.Context, tab cdpguard.Target, sel string) (string, error) {
	if IsRef(sel) {
		e, err := b.resolveRef(ctx, sel)
		if err != nil {
			return "", err
		}
		var text string
		err = b.worlds.CallOnNode(ctx, b.conn.Session(e.SessionID), e.FrameID, e.Backend,
			`function(){ return String(this.innerText ?? this.textContent ?? ''); }`, &text)
		return text, readErr(ctx, err, sel)
	}
	var r struct {
		Found bool   `json:"found"`
		Text  string `json:"text"`
	}
	err := b.worlds.CallFunction(ctx, b.conn.Session(tab.SessionID), cdp.FrameID(tab.ID), snapshot.JSText, &r, sel)
	if err != nil {
		return "", readErr(ctx, err, sel)
	}
	if !r.Found {
		return "", noMatch(sel)
	}
	return r.Text, nil
}

func (b *Browser) readLinks(ctx context.Context, tab cdpguard.Target, sel string) ([]Link, bool, error) {
	var r struct {
		Found     bool   `json:"found"`
		Links     []Link `json:"links"`
		Truncated bool   `json:"truncated"`
	}
	var err error
	if IsRef(sel) {
		// A ref names one element, in whichever frame: its links.
		e, rerr := b.resolveRef(ctx, sel)
		if rerr != nil {
			return nil, false, rerr
		}
		err = b.worlds.CallOnNode(ctx, b.conn.Session(e.SessionID), e.FrameID, e.Backend, snapshot.JSLinksOn, &r, MaxLinks)
	} else {
		err = b.worlds.CallFunction(ctx, b.conn.Session(tab.SessionID), cdp.FrameID(tab.ID), snapshot.JSLinks, &r, sel, MaxLinks)
	}
	if err != nil {
		return nil, false, readErr(ctx, err, sel)
	}
	if !r.Found {
		return nil, false, noMatch(sel)
	}
	if r.Links == nil {
		r.Links = []Link{}
	}
	return r.Links, r.Truncated, nil
}

func noMatch(sel string) *Error {
	return newError("not_found", "nothing on the page matches the selector", "Check the selector against read_page(mode=\"tree\"), or call wait_for(selector=...) if the page draws it late.").with("selector", sel)
}

// readErr turns what our page-side code or the browser answered into an
// envelope: a selector the browser cannot parse is the caller's argument.
func readErr(ctx context.Context, err error, sel string) error {
	if err == nil {
		return nil
	}
	var se *page.ScriptError
	if errors.As(err, &se) && strings.Contains(se.Text, "lyrad:badselector") {
		return &Error{Status: StatusError, Message: "selector is not a valid CSS selector: " + sel,
			Hint:   "Pass a CSS selector (#id, .class, tag[attr=value]), text=..., or an aria-ref=eN token from read_page(mode=\"tree\").",
			Fields: map[string]any{"argument": "selector"}}
	}
	var ne *page.NodeGoneError
	if errors.As(err, &ne) {
		return newError("not_found", "the element is gone from the page", RefHint).with("selector", sel)
	}
	if se != nil {
		return newError(StatusError, se.Error(), "Retry; the page may have been changing under the read.")
	}
	return callError(ctx, err, "reading the page")
}

// treeFrame is one document of the tab as a tree read fetches it.
type treeFrame struct {
	id     cdp.FrameID
	sid    target.SessionID
	loader cdp.LoaderID
	parent cdp.FrameID
	ax     []snapshot.AXNode
	layout *page.DocLayout
	out    *snapshot.Frame
}

// treeTimes is where a tree read spent its time: asking Chrome, and
// building the map.
type treeTimes struct{ fetch, build time.Duration }

// readTree reads the tab's action map: the visible items in reading order
// (on-screen first), how many are on screen, and their refs, which become
// the latest read.
func (b *Browser) readTree(ctx context.Context, tab cdpguard.Target, sel string, took *treeTimes) ([]snapshot.Item, int, []string, error) {
	frames, err := b.tabFrames(ctx, tab)
	if err != nil {
		return nil, 0, nil, callError(ctx, err, "reading the page")
	}
	main := frames[cdp.FrameID(tab.ID)]
	if main == nil {
		return nil, 0, nil, pageGone()
	}
	// The region, found before the slow part: no match answers at once.
	var regionFrame cdp.FrameID
	var regionNode cdp.BackendNodeID
	if sel != "" {
		if IsRef(sel) {
			e, err := b.resolveRef(ctx, sel)
			if err != nil {
				return nil, 0, nil, err
			}
			regionFrame, regionNode = e.FrameID, e.Backend
		} else {
			n, err := page.FindNode(ctx, b.conn, &b.worlds, tab.SessionID, main.id, snapshot.JSFind, sel)
			if err != nil {
				return nil, 0, nil, readErr(ctx, err, sel)
			}
			if n == 0 {
				return nil, 0, nil, noMatch(sel)
			}
			regionFrame, regionNode = main.id, n
		}
	}

	startFetch := time.Now()
	// Per target, one layout snapshot; per frame, one accessibility tree.
	// They are independent, so they are asked for all at once.
	sessions := map[target.SessionID]bool{}
	for _, f := range frames {
		sessions[f.sid] = true
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		firstEr error
		layouts = map[target.SessionID]*page.LayoutSnapshot{}
		vp      *cdppage.LayoutViewport
	)
	fail := func(err error) {
		mu.Lock()
		if firstEr == nil {
			firstEr = err
		}
		mu.Unlock()
	}
	for sid := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := page.CaptureLayout(ctx, b.conn.Session(sid))
			if err != nil {
				fail(err)
				return
			}
			mu.Lock()
			layouts[sid] = l
			mu.Unlock()
		}()
	}
	for _, f := range frames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var r struct {
				Nodes []snapshot.AXNode `json:"nodes"`
			}
			err := b.conn.Session(f.sid).Call(ctx, "Accessibility.getFullAXTree", map[string]any{"frameId": f.id}, &r)
			if err != nil && !cdpconn.IsTargetGone(err) && !cdpconn.IsContextGone(err) {
				fail(err)
				return
			}
			f.ax = r.Nodes // a frame that went away meanwhile reads as empty
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		lm, err := cdp.Call(ctx, b.conn.Session(tab.SessionID), cdppage.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			fail(err)
			return
		}
		vp = lm.CSSLayoutViewport
	}()
	wg.Wait()
	fetched := time.Now()
	if firstEr != nil {
		return nil, 0, nil, callError(ctx, firstEr, "reading the page")
	}
	for _, f := range frames {
		if l := layouts[f.sid]; l != nil {
			f.layout = l.Docs[f.id]
		}
	}

	// A frame whose parent its own target does not name (an out-of-process
	// root) is found through its owner element.
	for _, f := range frames {
		if f == main || (f.parent != "" && frames[f.parent] != nil) {
			continue
		}
		f.parent = b.adoptFrame(ctx, frames, f)
	}
	// Where each frame stands in the tab: its iframe element's box.
	for _, f := range frames {
		f.out = &snapshot.Frame{ID: string(f.id), Session: string(f.sid), Loader: string(f.loader), AX: f.ax, Children: map[int64]*snapshot.Frame{}}
		if f.layout != nil && f.layout.HasWordBreaks() {
			f.out.WordBreakText = f.layout.WordBreakText
		}
	}
	var place func(f *treeFrame, dx, dy float64, clip *snapshot.Rect)
	place = func(f *treeFrame, dx, dy float64, clip *snapshot.Rect) {
		l := f.layout
		f.out.Clip = clip
		f.out.Box = func(backend int64) (snapshot.Rect, bool) {
			if l == nil {
				return snapshot.Rect{}, false
			}
			r, ok := l.Boxes[cdp.BackendNodeID(backend)]
			r.X += dx
			r.Y += dy
			return r, ok
		}
		for _, c := range frames {
			if c.parent != f.id || c == f {
				continue
			}
			owner := b.frameOwner(ctx, f, c)
			if owner == 0 {
				continue
			}
			f.out.Children[int64(owner)] = c.out
			box, _ := f.out.Box(int64(owner))
			cclip := box
			if clip != nil {
				cclip = intersect(box, *clip)
			}
			sx, sy := 0.0, 0.0
			if c.layout != nil {
				sx, sy = c.layout.ScrollX, c.layout.ScrollY
			}
			place(c, box.X-sx, box.Y-sy, &cclip)
		}
	}
	place(main, 0, 0, nil)

	if regionNode != 0 {
		rf := frames[regionFrame]
		if rf == nil || rf.layout == nil {
			return nil, 0, nil, noMatch(sel)
		}
		in := rf.layout.Subtree(regionNode)
		rf.out.InRegion = func(backend int64) bool { return in[cdp.BackendNodeID(backend)] }
	}
	view := snapshot.Rect{}
	if vp != nil {
		view = snapshot.Rect{X: float64(vp.PageX), Y: float64(vp.PageY), W: float64(vp.ClientWidth), H: float64(vp.ClientHeight)}
	}
	items := snapshot.Collect(main.out, view, regionNode != 0)
	items, inView := snapshot.Order(items)
	took.fetch, took.build = fetched.Sub(startFetch), time.Since(fetched)

	refs := b.refs.Assign(tab.ID, main.loader, items, func(it snapshot.Item) page.ElementRef {
		f := frames[cdp.FrameID(it.Frame.ID)]
		return page.ElementRef{TabID: tab.ID, SessionID: f.sid, FrameID: f.id, Backend: cdp.BackendNodeID(it.Backend), Role: it.Role, Name: it.Name, Loader: f.loader}
	})
	return items, inView, refs, nil
}

func intersect(a, b snapshot.Rect) snapshot.Rect {
	x0, y0 := max(a.X, b.X), max(a.Y, b.Y)
	x1, y1 := min(a.X+a.W, b.X+b.W), min(a.Y+a.H, b.Y+b.H)
	if x1 <= x0 || y1 <= y0 {
		return snapshot.Rect{}
	}
	return snapshot.Rect{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}

// frameOwner finds the iframe element of child in its parent's document.
// A frame in the parent's process is in the parent's layout snapshot; an
// out-of-process one is asked of the parent's target.
func (b *Browser) frameOwner(ctx context.Context, parent, child *treeFrame) cdp.BackendNodeID {
	if parent.layout != nil {
		if n, ok := parent.layout.Owners[child.id]; ok {
			return n
		}
	}
	r, err := cdp.Call(ctx, b.conn.Session(parent.sid), dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: child.id})
	if err != nil {
		return 0
	}
	return r.BackendNodeID
}

// adoptFrame finds the frame whose document holds f's iframe element.
func (b *Browser) adoptFrame(ctx context.Context, frames map[cdp.FrameID]*treeFrame, f *treeFrame) cdp.FrameID {
	tried := map[target.SessionID]bool{f.sid: true}
	for _, g := range frames {
		if tried[g.sid] {
			continue
		}
		tried[g.sid] = true
		r, err := cdp.Call(ctx, b.conn.Session(g.sid), dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: f.id})
		if err != nil || r.BackendNodeID == 0 {
			continue
		}
		for _, h := range frames {
			if h.sid != g.sid || h.layout == nil {
				continue
			}
			for _, be := range h.layout.Backend {
				if be == r.BackendNodeID {
					h.layout.Owners[f.id] = be
					return h.id
				}
			}
		}
	}
	return ""
}

// tabFrames lists the documents of a tab (page.TabFrames), each as a
// treeFrame.
func (b *Browser) tabFrames(ctx context.Context, tab cdpguard.Target) (map[cdp.FrameID]*treeFrame, error) {
	pf, err := page.TabFrames(ctx, b.conn, b.pageTab(tab))
	if err != nil {
		return nil, err
	}
	frames := make(map[cdp.FrameID]*treeFrame, len(pf))
	for id, f := range pf {
		frames[id] = &treeFrame{id: f.ID, sid: f.Session, loader: f.Loader, parent: f.Parent}
	}
	return frames, nil
}
