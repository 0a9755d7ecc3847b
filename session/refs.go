package session

import (
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
)

// elementRef is what an aria-ref=eN token of the latest tree read points at.
type elementRef struct {
	TabID     target.ID        // the tab the read was made on
	SessionID target.SessionID // CDP session of the frame's target (the tab, or an out-of-process iframe)
	FrameID   cdp.FrameID
	Backend   cdp.BackendNodeID
	Role      string
	Name      string
}

// refStore holds the refs of the latest tree read. A ref is a handle into
// that read, not a query over the live page: a newer read, a navigation of
// the tab, or the element's removal ends it.
type refStore struct {
	mu   sync.Mutex
	tab  target.ID
	refs map[string]elementRef
}

// lookup returns the element a ref names in the latest read.
func (r *refStore) lookup(ref string) (elementRef, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.refs[ref]
	return e, ok
}

// replace makes refs the latest read, ending every earlier ref.
func (r *refStore) replace(tab target.ID, refs map[string]elementRef) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tab, r.refs = tab, refs
}

// invalidate ends the refs of a tab (it navigated or closed).
func (r *refStore) invalidate(tab target.ID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tab == tab {
		r.refs = nil
	}
}
