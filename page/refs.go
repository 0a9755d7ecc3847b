package page

import (
	"context"
	"strconv"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/snapshot"
)

// ElementRef is what an aria-ref=eN token of the latest tree read points at.
type ElementRef struct {
	TabID     target.ID        // the tab the read was made on
	SessionID target.SessionID // CDP session of the frame's target (the tab, or an out-of-process iframe)
	FrameID   cdp.FrameID
	// Node and Token name the element in its document's table (jsTree):
	// a read gives them; Backend is found from them when the ref is used
	// (ResolveRef), and is what acting on the element goes by.
	Node    int64
	Token   string
	Backend cdp.BackendNodeID
	Role    string
	Name    string
	// Loader is the frame's document (its loader id) when it was read; a
	// frame that loaded another document since holds none of these nodes.
	Loader cdp.LoaderID
}

// RefStore holds the refs of the tree reads of a tab's document. A ref is a
// handle on one element, not a query over the live page: it lasts while its
// element stays in its document. Later reads keep it (a read of one region
// too, and one that no longer lists the element); a navigation of the tab
// or a tree read of another tab ends every ref, the element's removal its
// own (ResolveRef finds nothing).
type RefStore struct {
	mu   sync.Mutex
	tab  target.ID
	main cdp.LoaderID // the tab's main-frame document at read time
	refs map[string]ElementRef

	// assigned remembers every ref given on the current document, so an
	// element keeps its ref across reads; next numbers the new ones.
	assigned map[refKey]string
	next     int
}

// Lookup returns the element a ref names, from any read of the current
// document.
func (r *RefStore) Lookup(ref string) (ElementRef, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.refs[ref]
	return e, ok
}

// MainLoader is the tab's main-frame document of the latest read.
func (r *RefStore) MainLoader() cdp.LoaderID {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.main
}

// FrameLoaders maps every frame of a target's frame tree to its current
// document's loader id (from ctx's FrameTrees when it carries one).
func FrameLoaders(ctx context.Context, conn *cdpconn.Conn, sid target.SessionID) (map[cdp.FrameID]cdp.LoaderID, error) {
	tree, err := frameTree(ctx, conn, sid)
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
	walk(tree)
	return out, nil
}

// refKey names an element across reads: its id in its document's table,
// whose token is that document's alone.
type refKey struct {
	token string
	node  int64
}

// Assign gives each item of a new read its ref and makes the read the
// latest. Refs count e1, e2, ... in reading order on a fresh document; an
// element read again on the same document keeps the ref it had, so an
// earlier read's ref names the same element or nothing, never another one.
func (r *RefStore) Assign(tab target.ID, mainLoader cdp.LoaderID, items []snapshot.Item, mk func(snapshot.Item) ElementRef) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tab != tab || r.main != mainLoader || r.assigned == nil {
		r.assigned = map[refKey]string{}
		r.next = 0
	}
	out := make([]string, len(items))
	refs := make(map[string]ElementRef, len(items))
	if len(r.assigned) > 0 {
		// The same document: the refs of earlier reads stay served.
		for name, e := range r.refs {
			refs[name] = e
		}
	}
	for i, it := range items {
		e := mk(it)
		k := refKey{e.Token, e.Node}
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
