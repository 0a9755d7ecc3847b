package page

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/snapshot"
)

// ErrRegionGone: the region a tree read was limited to is not there (no
// element matches, it was removed, or its frame went away).
var ErrRegionGone = errors.New("the region is not on the page")

// Region limits a tree read to one element's subtree: a CSS or text=
// selector in the main frame, or an element of an earlier read.
type Region struct {
	Selector string
	Ref      *ElementRef
	// Nest asks for the nested form too (Tree.Nest) and the focus.
	Nest bool
}

// Tree is what a tree read saw: the visible items in reading order
// (on-screen first), how many are on screen, and where it spent its time.
type Tree struct {
	Items  []snapshot.Item
	InView int
	Left   int // items not listed: past snapshot.MaxItems
	// Nest is the nested form (asked with Region.Nest): the items in the
	// containers that hold them, frames in their frame elements. The item
	// with the focus has the state "active" then.
	Nest       []snapshot.Node
	Nested     bool // read with Region.Nest
	MainLoader cdp.LoaderID
	Steps      TreeSteps
	frames     map[cdp.FrameID]*treeFrame
	tab        target.ID
}

// TreeSteps is where a tree read spent its time, for the debug log.
type TreeSteps struct {
	Frames   time.Duration // listing the tab's frames
	Root     time.Duration // the walk of the read's root document
	Children time.Duration // the longest walk of another frame, with finding its frame element
	Assemble time.Duration // splicing frames in, ordering
	Docs     int           // documents walked
}

// treeFrame is one document as a tree read walks it.
type treeFrame struct {
	Frame
	res     treeResult
	err     error
	ownerOK bool  // owner is known
	owner   int64 // its frame element's id in its parent's table
	ownerOf string
	cached  bool // owner is the Worlds cache's
}

// findOwner asks for f's frame element and caches it.
func (f *treeFrame) findOwner(ctx context.Context, conn *cdpconn.Conn, w *Worlds, frames map[cdp.FrameID]*Frame) {
	f.owner, f.ownerOf, f.ownerOK = frameElement(ctx, conn, w, frames, f.Frame)
	f.cached = false
	if f.ownerOK {
		w.setOwner(f.ID, ownerEntry{id: f.owner, token: f.ownerOf})
	}
}

// treeResult is snapshot.JSTree's answer.
type treeResult struct {
	Token  string      `json:"token"`
	Found  bool        `json:"found"`
	VW     float64     `json:"vw"`
	VH     float64     `json:"vh"`
	Items  [][]any     `json:"items"`
	Frames [][]float64 `json:"frames"`
	Left   int         `json:"left"`   // items past snapshot.MaxItems, not sent
	Nest   [][]any     `json:"nest"`   // with nest: the nested form's records
	Active int64       `json:"active"` // with nest: the focused element's id, 0 for none
}

// ReadTree reads the tab's action map. The tab's frames are listed while
// the root document is walked (snapshot.JSTree: one call in lyrad's
// isolated world); every other frame is walked side by side, and spliced in
// where its frame element stands when that element is shown. A read limited
// to a region walks the region's element only, and the frames inside it.
func ReadTree(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, region Region) (*Tree, error) {
	rootFrame, rootSession := rootOf(tab, region)
	return readTree(ctx, conn, w, tab, region, func(ctx context.Context, out *treeResult) error {
		return walkDoc(ctx, conn, w, rootSession, rootFrame, rootArg(region), out)
	}, nil)
}

// rootOf is the document a read of region walks first: the ref's, else the
// tab's main frame.
func rootOf(tab Tab, region Region) (cdp.FrameID, target.SessionID) {
	if region.Ref != nil {
		return region.Ref.FrameID, region.Ref.SessionID
	}
	return tab.Main(), tab.Session
}

// rootArg is JSTree's argument for the root document of a read of region.
func rootArg(region Region) any {
	switch {
	case region.Ref != nil:
		return map[string]any{"id": region.Ref.Node, "token": region.Ref.Token, "nest": region.Nest}
	case region.Selector != "":
		return map[string]any{"sel": region.Selector, "nest": region.Nest}
	case region.Nest:
		return map[string]any{"nest": true}
	}
	return nil
}

// readTree is ReadTree with the root document walked by walkRoot; the
// tab's frames are listed (treeFrames) unless frames gives them.
func readTree(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, region Region, walkRoot func(context.Context, *treeResult) error, frames map[cdp.FrameID]*Frame) (*Tree, error) {
	start := time.Now()
	rootFrame, _ := rootOf(tab, region)
	var childArg any
	if region.Nest {
		childArg = map[string]any{"nest": true}
	}
	var root treeFrame
	rootDone := make(chan struct{})
	var rootTook time.Duration
	walk := func() {
		go func() {
			defer close(rootDone)
			root.err = walkRoot(ctx, &root.res)
			rootTook = time.Since(start)
		}()
	}
	var err error
	if frames != nil {
		walk()
	} else {
		frames, err = treeFrames(ctx, conn, tab, walk)
	}
	listed := time.Since(start)
	if err != nil {
		<-rootDone
		return nil, err
	}
	main := frames[tab.Main()]
	if main == nil {
		<-rootDone
		return nil, ErrTabGone
	}
	rf := frames[rootFrame]
	if rf == nil {
		<-rootDone
		return nil, ErrRegionGone
	}
	// Every other frame, side by side with the root's walk.
	tfs := make(map[cdp.FrameID]*treeFrame, len(frames))
	var wg sync.WaitGroup
	var childTook time.Duration
	var mu sync.Mutex
	for id, f := range frames {
		if id == rootFrame {
			continue
		}
		tf := &treeFrame{Frame: *f}
		tfs[id] = tf
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := time.Now()
			tf.err = walkDoc(ctx, conn, w, tf.Session, tf.ID, childArg, &tf.res)
			if tf.err == nil {
				if o, ok := w.owner(tf.ID); ok {
					tf.owner, tf.ownerOf, tf.ownerOK, tf.cached = o.id, o.token, true, true
				} else {
					tf.findOwner(ctx, conn, w, frames)
				}
			}
			mu.Lock()
			childTook = max(childTook, time.Since(s))
			mu.Unlock()
		}()
	}
	<-rootDone
	wg.Wait()
	if root.err != nil {
		if region.Ref != nil && (cdpconn.IsContextGone(root.err) || cdpconn.IsTargetGone(root.err)) {
			return nil, ErrRegionGone
		}
		return nil, root.err
	}
	if !root.res.Found || (region.Ref != nil && root.res.Token != region.Ref.Token) {
		return nil, ErrRegionGone
	}
	root.Frame = *rf
	tfs[rootFrame] = &root
	// A cached frame element whose parent's world is another one now is
	// asked for again.
	tokens := make(map[string]bool, len(tfs))
	for _, f := range tfs {
		if f.err == nil {
			tokens[f.res.Token] = true
		}
	}
	for _, f := range tfs {
		if f.cached && !tokens[f.ownerOf] {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f.findOwner(ctx, conn, w, frames)
			}()
		}
	}
	wg.Wait()

	assembleStart := time.Now()
	// The viewport is the main frame's; a region in another frame is
	// placed by its frame's chain of frame elements.
	vw, vh := root.res.VW, root.res.VH
	if m := tfs[tab.Main()]; m != nil && m.err == nil && m != &root {
		vw, vh = m.res.VW, m.res.VH
	}
	dx, dy, clip := 0.0, 0.0, (*snapshot.Rect)(nil)
	if rootFrame != tab.Main() {
		dx, dy, clip = placeOf(tfs, &root, tab.Main())
	}
	view := snapshot.Rect{W: vw, H: vh}
	var items []snapshot.Item
	docs, left := 0, 0
	var emit func(f *treeFrame, dx, dy float64, clip *snapshot.Rect)
	emit = func(f *treeFrame, dx, dy float64, clip *snapshot.Rect) {
		docs++
		left += f.res.Left
		fi := 0
		spliceTo := func(i int) {
			for ; fi < len(f.res.Frames) && int(f.res.Frames[fi][0]) <= i; fi++ {
				e := f.res.Frames[fi]
				if len(e) < 6 {
					continue
				}
				c := childAt(tfs, f, int64(e[5]))
				if c == nil {
					continue
				}
				b := snapshot.Rect{X: e[1] + dx, Y: e[2] + dy, W: e[3], H: e[4]}
				cc := b
				if clip != nil {
					cc = intersect(b, *clip)
				}
				emit(c, b.X, b.Y, &cc)
			}
		}
		for i, raw := range f.res.Items {
			spliceTo(i)
			it, ok := itemOf(raw)
			if !ok {
				continue
			}
			it.Frame = string(f.ID)
			box := snapshot.Rect{X: it.Box.X + dx, Y: it.Box.Y + dy, W: it.Box.W, H: it.Box.H}
			it.InViewport = box.Intersects(view) && (clip == nil || box.Intersects(*clip))
			items = append(items, it)
		}
		spliceTo(len(f.res.Items))
	}
	emit(&root, dx, dy, clip)
	items, inView := snapshot.Order(items)
	if len(items) > snapshot.MaxItems {
		left += len(items) - snapshot.MaxItems
		items = slices.Clip(items[:snapshot.MaxItems])
		inView = min(inView, snapshot.MaxItems)
	}
	var nest []snapshot.Node
	if region.Nest {
		nest = nestOf(tfs, &root, items)
	}
	steps := TreeSteps{Frames: listed, Root: rootTook, Children: childTook, Assemble: time.Since(assembleStart), Docs: docs}
	return &Tree{Items: items, InView: inView, Left: left, Nest: nest, Nested: region.Nest, MainLoader: main.Loader, Steps: steps, frames: tfs, tab: tab.ID}, nil
}

// walkDoc walks one document (snapshot.JSTree), by the read function an
// earlier walk left in its world when there is one.
func walkDoc(ctx context.Context, conn *cdpconn.Conn, w *Worlds, sid target.SessionID, frame cdp.FrameID, region any, out *treeResult) error {
	var again *treeResult
	if err := w.CallFunction(ctx, conn.Session(sid), frame, snapshot.JSTreeAgain, &again, region); err != nil {
		return err
	}
	if again != nil {
		*out = *again
		return nil
	}
	return w.CallFunction(ctx, conn.Session(sid), frame, snapshot.JSTree, out, region)
}

// childAt is the frame whose frame element is element id of f's table.
func childAt(tfs map[cdp.FrameID]*treeFrame, f *treeFrame, id int64) *treeFrame {
	for _, c := range tfs {
		if c != f && c.err == nil && c.ownerOK && c.owner == id && c.ownerOf == f.res.Token {
			return c
		}
	}
	return nil
}

// placeOf is where a frame's viewport stands in the main frame's, and the
// part of it that shows, by its chain of frame elements up to main.
func placeOf(tfs map[cdp.FrameID]*treeFrame, f *treeFrame, main cdp.FrameID) (dx, dy float64, clip *snapshot.Rect) {
	var chain []*treeFrame
	for c := f; c != nil && c.ID != main && len(chain) < 32; {
		chain = append(chain, c)
		var parent *treeFrame
		for _, p := range tfs {
			if p.err == nil && c.ownerOK && p.res.Token == c.ownerOf {
				parent = p
			}
		}
		c = parent
	}
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		var parent *treeFrame
		for _, p := range tfs {
			if p.err == nil && p.res.Token == c.ownerOf {
				parent = p
			}
		}
		if parent == nil {
			continue
		}
		for _, e := range parent.res.Frames {
			if len(e) >= 6 && int64(e[5]) == c.owner {
				b := snapshot.Rect{X: e[1] + dx, Y: e[2] + dy, W: e[3], H: e[4]}
				if clip != nil {
					b2 := intersect(b, *clip)
					clip = &b2
				} else {
					clip = &b
				}
				dx, dy = b.X, b.Y
			}
		}
	}
	return dx, dy, clip
}

// itemOf decodes one JSTree item: [id, role, name, states, href, x, y, w,
// h, value, hint], hint null or [kind, text].
func itemOf(raw []any) (snapshot.Item, bool) {
	if len(raw) < 9 {
		return snapshot.Item{}, false
	}
	id, _ := raw[0].(float64)
	role, _ := raw[1].(string)
	name, _ := raw[2].(string)
	href, _ := raw[4].(string)
	it := snapshot.Item{Node: int64(id), Role: role, Name: snapshot.Clean(name), Href: href}
	if st, ok := raw[3].([]any); ok {
		for _, s := range st {
			if s, ok := s.(string); ok {
				it.States = append(it.States, s)
			}
		}
	}
	num := func(v any) float64 { f, _ := v.(float64); return f }
	it.Box = snapshot.Rect{X: num(raw[5]), Y: num(raw[6]), W: num(raw[7]), H: num(raw[8])}
	if len(raw) >= 11 {
		v, _ := raw[9].(string)
		it.Value = snapshot.CutValue(v)
		if h, ok := raw[10].([]any); ok && len(h) == 2 {
			kind, _ := h[0].(string)
			text, _ := h[1].(string)
			if text = snapshot.Clean(text); kind != "" && text != "" {
				it.Hint = kind + " " + strconv.Quote(text)
			}
		}
	}
	return it, id > 0 && role != ""
}

// frameElement finds f's frame element in its parent document: its id in
// the parent's table, and that table's token. A frame whose own target
// does not name its parent (an out-of-process root) is looked for in every
// other target's documents.
func frameElement(ctx context.Context, conn *cdpconn.Conn, w *Worlds, frames map[cdp.FrameID]*Frame, f Frame) (int64, string, bool) {
	try := func(p *Frame) (int64, string, bool) {
		r, err := cdp.Call(ctx, conn.Session(p.Session), dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: f.ID})
		if err != nil || r.BackendNodeID == 0 {
			return 0, "", false
		}
		var id struct {
			Token string `json:"token"`
			ID    int64  `json:"id"`
		}
		if err := w.CallOnNode(ctx, conn.Session(p.Session), p.ID, r.BackendNodeID, snapshot.JSNodeID, &id); err != nil || id.ID == 0 {
			return 0, "", false
		}
		return id.ID, id.Token, true
	}
	if p := frames[f.Parent]; p != nil {
		return try(p)
	}
	for _, p := range frames {
		if p.ID == f.ID || p.Session == f.Session {
			continue
		}
		if id, tok, ok := try(p); ok {
			return id, tok, true
		}
	}
	return 0, "", false
}

// Ref is the handle of one of the tree's items.
func (tr *Tree) Ref(it snapshot.Item) ElementRef {
	f := tr.frames[cdp.FrameID(it.Frame)]
	return ElementRef{TabID: tr.tab, SessionID: f.Session, FrameID: f.ID, Node: it.Node, Token: f.res.Token, Role: it.Role, Name: it.Name, Loader: f.Loader}
}

// ResolveRef finds the element a ref names, as a backend node id: 0 when it
// is gone (removed from its document, or the document is another one).
func ResolveRef(ctx context.Context, conn *cdpconn.Conn, w *Worlds, e ElementRef) (cdp.BackendNodeID, error) {
	n, err := FindNode(ctx, conn, w, e.SessionID, e.FrameID, snapshot.JSRefNode, e.Token, e.Node)
	if err != nil && (cdpconn.IsContextGone(err) || cdpconn.IsTargetGone(err)) {
		return 0, nil
	}
	return n, err
}

// ResolveRefNode is ResolveRef for an acting call: the element, its object
// held in group, and with st its state (FindElement); nil when it is gone.
func ResolveRefNode(ctx context.Context, conn *cdpconn.Conn, w *Worlds, e ElementRef, group string, st *ElementState) (*Node, error) {
	n, err := FindElement(ctx, conn, w, e.SessionID, e.FrameID, group, st, snapshot.JSRefNode, e.Token, e.Node)
	if err != nil && (cdpconn.IsContextGone(err) || cdpconn.IsTargetGone(err)) {
		return nil, nil
	}
	return n, err
}

func intersect(a, b snapshot.Rect) snapshot.Rect {
	x0, y0 := max(a.X, b.X), max(a.Y, b.Y)
	x1, y1 := min(a.X+a.W, b.X+b.W), min(a.Y+a.H, b.Y+b.H)
	if x1 <= x0 || y1 <= y0 {
		return snapshot.Rect{}
	}
	return snapshot.Rect{X: x0, Y: y0, W: x1 - x0, H: y1 - y0}
}
