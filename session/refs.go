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
	name := refName(ref)
	e, ok := b.refs.Lookup(name)
	if !ok {
		return page.ElementRef{}, staleRef(ref, "was not given by a read_page(mode=\"tree\") of this page")
	}
	tab, err := b.activePage(ctx)
	if err != nil {
		return page.ElementRef{}, newError(StatusPageClosed, err.Error(), "Call open_browser again.")
	}
	if tab.ID != e.TabID {
		return page.ElementRef{}, staleRef(ref, "was read on another tab")
	}
	// The tab's document: a navigation ends every ref read before it.
	if main := b.refs.MainLoader(); main != "" {
		cur, err := page.FrameLoaders(ctx, b.conn, tab.SessionID)
		if err != nil {
			return page.ElementRef{}, callError(ctx, err, "resolving "+name)
		}
		if cur[cdp.FrameID(tab.ID)] != main {
			return page.ElementRef{}, staleRef(ref, "was read before the page navigated")
		}
		if e.SessionID == tab.SessionID && e.Loader != "" && cur[e.FrameID] != e.Loader {
			return page.ElementRef{}, staleRef(ref, "was read in a frame that has since loaded another document or gone")
		}
	}
	if e.SessionID != tab.SessionID && e.Loader != "" {
		// An out-of-process iframe: its own target holds its frame tree.
		cur, err := page.FrameLoaders(ctx, b.conn, e.SessionID)
		if err != nil || cur[e.FrameID] != e.Loader {
			return page.ElementRef{}, staleRef(ref, "was read in a frame that has since loaded another document or gone")
		}
	}
	// The node itself: removed from the document, it is gone for good.
	backend, err := page.ResolveRef(ctx, b.conn, &b.worlds, e)
	if err != nil {
		return page.ElementRef{}, callError(ctx, err, "resolving "+name)
	}
	if backend == 0 {
		return page.ElementRef{}, staleRef(ref, "names an element that was removed from the page")
	}
	e.Backend = backend
	return e, nil
}
