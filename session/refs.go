package session

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/page"
	"github.com/lyrad/lyrad/snapshot"
)

// elementRef is what an aria-ref=eN token of the latest tree read points at.
type elementRef struct {
	TabID     target.ID        // the tab the read was made on
	SessionID target.SessionID // CDP session of the frame's target (the tab, or an out-of-process iframe)
	FrameID   cdp.FrameID
	Backend   cdp.BackendNodeID
	Role      string
	Name      string
	// Loader is the frame's document (its loader id) when it was read; a
	// frame that loaded another document since holds none of these nodes.
	Loader cdp.LoaderID
}

// refStore holds the refs of the latest tree read. A ref is a handle into
// that read, not a query over the live page: a newer read, a navigation of
// the tab, or the element's removal ends it.
type refStore struct {
	mu   sync.Mutex
	tab  target.ID
	main cdp.LoaderID // the tab's main-frame document at read time
	refs map[string]elementRef

	// assigned remembers every ref given on the current document, so an
	// element keeps its ref across reads; next numbers the new ones.
	assigned map[refKey]string
	next     int
}

// lookup returns the element a ref names in the latest read.
func (r *refStore) lookup(ref string) (elementRef, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.refs[ref]
	return e, ok
}

func (r *refStore) mainLoader() cdp.LoaderID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.main
}

// RefHint is the next move for a ref that names nothing.
const RefHint = `The ref is not from the latest read of this page: read_page(mode="tree") again and use a ref from that read.`

// IsRef reports whether a selector is an aria-ref token ("aria-ref=e12").
func IsRef(selector string) bool {
	s := strings.TrimSpace(selector)
	return strings.HasPrefix(s, "aria-ref=")
}

// refName turns "aria-ref=e12" (or "e12") into "e12".
func refName(ref string) string {
	return strings.TrimPrefix(strings.TrimSpace(ref), "aria-ref=")
}

func staleRef(ref, why string) *Error {
	return newError("not_found", "aria-ref="+refName(ref)+" "+why, RefHint).with("selector", "aria-ref="+refName(ref))
}

// resolveRef returns the element an aria-ref token of the latest tree read
// names, checked against the live page: the ref must be from the latest
// read, of the active tab, its tab and frame must still show the document
// that was read, and the element must still be in it. Otherwise it answers
// an *Error with status not_found and a hint to read the tree again; refs
// get no waiting window, because they cannot appear later.
func (b *Browser) resolveRef(ctx context.Context, ref string) (elementRef, error) {
	name := refName(ref)
	e, ok := b.refs.lookup(name)
	if !ok {
		return elementRef{}, staleRef(ref, "is not in the latest read_page(mode=\"tree\")")
	}
	tab, err := b.activePage(ctx)
	if err != nil {
		return elementRef{}, newError(StatusPageClosed, err.Error(), "Call open_browser again.")
	}
	if tab.ID != e.TabID {
		return elementRef{}, staleRef(ref, "was read on another tab")
	}
	// The tab's document: a navigation ends every ref read before it.
	if main := b.refs.mainLoader(); main != "" {
		cur, err := frameLoaders(ctx, b, tab.SessionID)
		if err != nil {
			return elementRef{}, callError(ctx, err, "resolving "+name)
		}
		if cur[cdp.FrameID(tab.ID)] != main {
			return elementRef{}, staleRef(ref, "was read before the page navigated")
		}
		if e.SessionID == tab.SessionID && e.Loader != "" && cur[e.FrameID] != e.Loader {
			return elementRef{}, staleRef(ref, "was read in a frame that has since loaded another document or gone")
		}
	}
	if e.SessionID != tab.SessionID && e.Loader != "" {
		// An out-of-process iframe: its own target holds its frame tree.
		cur, err := frameLoaders(ctx, b, e.SessionID)
		if err != nil || cur[e.FrameID] != e.Loader {
			return elementRef{}, staleRef(ref, "was read in a frame that has since loaded another document or gone")
		}
	}
	// The node itself: removed from the document, it is gone for good.
	var connected bool
	err = b.worlds.CallOnNode(ctx, b.conn.Session(e.SessionID), e.FrameID, e.Backend, `function(){ return this.isConnected; }`, &connected)
	var gone *page.NodeGoneError
	if errors.As(err, &gone) || (err == nil && !connected) {
		return elementRef{}, staleRef(ref, "names an element that was removed from the page")
	}
	if err != nil {
		return elementRef{}, callError(ctx, err, "resolving "+name)
	}
	return e, nil
}

// frameLoaders maps every frame of a target's frame tree to its current
// document's loader id.
func frameLoaders(ctx context.Context, b *Browser, sid target.SessionID) (map[cdp.FrameID]cdp.LoaderID, error) {
	res, err := cdp.Call(ctx, b.conn.Session(sid), cdppage.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	out := map[cdp.FrameID]cdp.LoaderID{}
	var walk func(t *cdppage.FrameTree)
	walk = func(t *cdppage.FrameTree) {
		if t == nil || t.Frame == nil {
			return
		}
		out[t.Frame.ID] = t.Frame.LoaderID
		for _, c := range t.ChildFrames {
			walk(c)
		}
	}
	walk(res.FrameTree)
	return out, nil
}

// refKey names an element across reads: backend node ids are unique within
// a renderer process, and each target's session is one process.
type refKey struct {
	sid     target.SessionID
	backend cdp.BackendNodeID
}

// assign gives each item of a new read its ref and makes the read the
// latest. Refs count e1, e2, ... in reading order on a fresh document; an
// element read again on the same document keeps the ref it had, so an
// earlier read's ref names the same element or nothing, never another one.
func (r *refStore) assign(tab target.ID, mainLoader cdp.LoaderID, items []snapshot.Item, mk func(snapshot.Item) elementRef) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tab != tab || r.main != mainLoader || r.assigned == nil {
		r.assigned = map[refKey]string{}
		r.next = 0
	}
	out := make([]string, len(items))
	refs := make(map[string]elementRef, len(items))
	for i, it := range items {
		e := mk(it)
		k := refKey{e.SessionID, e.Backend}
		name, ok := r.assigned[k]
		if !ok {
			r.next++
			name = "e" + strconv.Itoa(r.next)
			r.assigned[k] = name
		}
		out[i] = name
		refs[name] = e
	}
	r.tab, r.main, r.refs = tab, mainLoader, refs
	return out
}
