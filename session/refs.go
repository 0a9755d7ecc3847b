package session

import (
	"context"
	"strings"

	"github.com/chromedp/cdproto/cdp"

	"github.com/lyrad/lyrad/page"
)

// RefHint is the next move for a ref that names nothing.
const RefHint = `The ref names nothing on this page now: read_page(mode="tree") again and use a ref from that read.`

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
	return newError("not_found", "aria-ref="+refName(ref)+" "+why, RefHint).on("aria-ref=" + refName(ref))
}

// resolveRef returns the element an aria-ref token of a tree read names,
// checked against the live page: the ref must be from a read of the active
// tab's document, its tab and frame must still show the document
// that was read, and the element must still be in it. Otherwise it answers
// an *Error with status not_found and a hint to read the tree again; refs
// get no waiting window, because they cannot appear later.
func (b *Browser) resolveRef(ctx context.Context, ref string) (page.ElementRef, error) {
	e, _, _, err := b.resolveRefNode(ctx, ref, "")
	return e, err
}

// resolveRefNode is resolveRef; with a group (an acting call's), it also
// answers the element with its object held in that group, and its state
// (page.ResolveRefNode), which the call then acts on as it is. The
// element is looked up while its documents are checked, not after: the
// two are reads, and the lookup's answer is used only once the checks
// pass.
func (b *Browser) resolveRefNode(ctx context.Context, ref, group string) (page.ElementRef, *page.Node, *page.ElementState, error) {
	name := refName(ref)
	e, ok := b.refs.Lookup(name)
	if !ok {
		return page.ElementRef{}, nil, nil, staleRef(ref, "was not given by a read_page(mode=\"tree\") of this page")
	}
	tab, err := b.activePage(ctx)
	if err != nil {
		return page.ElementRef{}, nil, nil, newError(StatusPageClosed, err.Error(), "Call open_browser again.")
	}
	if tab.ID != e.TabID {
		return page.ElementRef{}, nil, nil, staleRef(ref, "was read on another tab")
	}
	// The node itself: removed from the document, it is gone for good.
	type found struct {
		backend cdp.BackendNodeID
		n       *page.Node
		st      page.ElementState
		err     error
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lookup := make(chan found, 1)
	go func() {
		var f found
		if group != "" {
			f.n, f.err = page.ResolveRefNode(fctx, b.conn, &b.worlds, e, group, &f.st)
		} else {
			f.backend, f.err = page.ResolveRef(fctx, b.conn, &b.worlds, e)
		}
		lookup <- f
	}()
	// The tab's document: a navigation ends every ref read before it.
	if main := b.refs.MainLoader(); main != "" {
		cur, err := page.FrameLoaders(ctx, b.conn, tab.SessionID)
		if err != nil {
			return page.ElementRef{}, nil, nil, callError(ctx, err, "resolving "+name)
		}
		if cur[cdp.FrameID(tab.ID)] != main {
			return page.ElementRef{}, nil, nil, staleRef(ref, "was read before the page navigated")
		}
		if e.SessionID == tab.SessionID && e.Loader != "" && cur[e.FrameID] != e.Loader {
			return page.ElementRef{}, nil, nil, staleRef(ref, "was read in a frame that has since loaded another document or gone")
		}
	}
	if e.SessionID != tab.SessionID && e.Loader != "" {
		// An out-of-process iframe: its own target holds its frame tree.
		cur, err := page.FrameLoaders(ctx, b.conn, e.SessionID)
		if err != nil || cur[e.FrameID] != e.Loader {
			return page.ElementRef{}, nil, nil, staleRef(ref, "was read in a frame that has since loaded another document or gone")
		}
	}
	var f found
	select {
	case f = <-lookup:
	case <-ctx.Done():
		return page.ElementRef{}, nil, nil, callError(ctx, ctx.Err(), "resolving "+name)
	}
	if f.err != nil {
		return page.ElementRef{}, nil, nil, callError(ctx, f.err, "resolving "+name)
	}
	if group != "" {
		// The element is reached by its object; its backendNodeId is
		// asked for only when needed (page.Node.Backend).
		if f.n == nil {
			return page.ElementRef{}, nil, nil, staleRef(ref, "names an element that was removed from the page")
		}
		return e, f.n, &f.st, nil
	}
	if f.backend == 0 {
		return page.ElementRef{}, nil, nil, staleRef(ref, "names an element that was removed from the page")
	}
	e.Backend = f.backend
	return e, nil, nil, nil
}
