package session

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap"

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
	// ChangesSince (tree mode, whole page): answer what changed since the
	// read of that read_id instead of the whole map (changes.go).
	ChangesSince string
	// HideValues: tree mode shows a filled field as [filled], not its value.
	HideValues bool
	// Nested: tree mode answers the map in the containers that hold its
	// items, as aria-snapshot YAML, the focused item [active]
	// (snapshot.NestedYAML): the Playwright surface's snapshot.
	Nested bool
	// Depth (Nested): what is nested deeper than this is left out; 0 for all.
	Depth int
}

// Link is one visible link of a text read.
type Link = page.Link

// ReadResult is one page of a read.
type ReadResult struct {
	URL, Title string
	Page       snapshot.Page
	Offset     int
	// Tree mode.
	Elements   int
	InViewport int
	Unlisted   int    // elements past the read's cap (snapshot.MaxItems), not listed
	ReadID     string // a whole-page read's id, for changes_since
	Changes    string // changes_since: what changed
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
	if o.ChangesSince != "" {
		return b.readChanges(ctx, tab, o)
	}
	if e := b.cachedRead(ctx, tab, o); e != nil {
		res := e.res
		res.Offset, res.URL, res.Title = o.Offset, e.url, e.title
		if o.Mode == "tree" {
			res.Page = snapshot.Cut(e.out, o.Offset, o.MaxChars)
			return &res, nil
		}
		// A text read's later page is cut, in the page, from the text its
		// first page kept there.
		sl, err := b.readText(ctx, tab, o, e.key, true)
		if err != nil {
			return nil, err
		}
		res.Page = sl.Page(o.Offset, o.MaxChars)
		return &res, nil
	}
	// The URL and title are asked of the browser while the page is read.
	var pageURL, title string
	freshDone := make(chan struct{})
	go func() {
		defer close(freshDone)
		pageURL, title = b.fresh(ctx, tab)
	}()
	res := &ReadResult{Offset: o.Offset}
	entry := &readEntry{tab: tab.ID, sel: o.Selector, links: o.Links, hide: o.HideValues, nested: o.Nested, depth: o.Depth}
	var out string
	if o.Mode == "tree" {
		start := time.Now()
		t, refs, refsTook, err := b.readTree(ctx, tab, o.Selector, o.Nested)
		if err != nil {
			<-freshDone
			return nil, err
		}
		items := t.Items
		res.Elements, res.InViewport, res.Unlisted = len(items), t.InView, t.Left
		linesStart := time.Now()
		tabURL, _ := url.Parse(tab.URL)
		shown := items
		if o.HideValues {
			shown = make([]snapshot.Item, len(items))
			for i, it := range items {
				if it.Value != "" {
					it.Value = ""
					it.States = append(it.States[:len(it.States):len(it.States)], "filled")
				}
				shown[i] = it
			}
		}
		if o.Nested {
			out = snapshot.NestedYAML(t.Nest, shown, refs, tabURL, o.Depth)
		} else {
			lines := make([]string, len(shown))
			for i, it := range shown {
				lines[i] = snapshot.Line(refs[i], it, tabURL)
			}
			out = strings.Join(lines, "\n")
		}
		entry.loader = t.MainLoader
		if o.Selector == "" {
			res.ReadID = b.reads.trees.keep(tab.ID, t).id
		}
		st := t.Steps
		m.log.Debug("read_page tree", zap.Int("elements", len(items)), zap.Duration("took", time.Since(start)),
			zap.Duration("frames", st.Frames), zap.Duration("root", st.Root), zap.Duration("children", st.Children),
			zap.Duration("assemble", st.Assemble), zap.Duration("refs", refsTook),
			zap.Duration("lines", time.Since(linesStart)), zap.Int("docs", st.Docs))
	} else {
		// The document read, told before reading it: a navigation during
		// the read leaves a loader its later pages will not match.
		entry.loader = b.mainLoader(ctx, tab)
		entry.key = b.reads.newKey()
		var sl page.TextSlice
		sl, err = b.readText(ctx, tab, o, entry.key, false)
		res.Page = sl.Page(o.Offset, o.MaxChars)
		if err == nil && o.Links {
			res.Links, res.LinksTruncated, err = b.readLinks(ctx, tab, o.Selector)
		}
		if err != nil {
			<-freshDone
			return nil, err
		}
	}
	<-freshDone
	if o.Mode == "tree" {
		res.Page = snapshot.Cut(out, o.Offset, o.MaxChars)
	}
	res.URL, res.Title = pageURL, title
	entry.out, entry.url, entry.title, entry.res = out, pageURL, title, *res
	b.reads.put(o.Mode, entry)
	return res, nil
}

// readText reads one slice of the text a read names (the page's, a
// region's or a ref's): the characters o.Offset on, o.MaxChars of them, and
// the total; the rest of the text never leaves the page. key names the read
// in the page's world; again asks for the text its first page kept there.
func (b *Browser) readText(ctx context.Context, tab cdpguard.Target, o ReadOptions, key string, again bool) (page.TextSlice, error) {
	sel := o.Selector
	if IsRef(sel) {
		e, err := b.resolveRef(ctx, sel)
		if err != nil {
			return page.TextSlice{}, err
		}
		sl, err := page.NodeText(ctx, b.conn, &b.worlds, e, key, o.Offset, o.MaxChars, again)
		return sl, readErr(ctx, err, sel)
	}
	sl, err := page.ReadText(ctx, b.conn, &b.worlds, b.pageTab(tab), key, sel, o.Offset, o.MaxChars, again)
	if err != nil {
		return sl, readErr(ctx, err, sel)
	}
	if !sl.Found {
		return sl, noMatch(sel)
	}
	return sl, nil
}

func (b *Browser) readLinks(ctx context.Context, tab cdpguard.Target, sel string) ([]Link, bool, error) {
	var on *page.ElementRef
	if IsRef(sel) {
		// A ref names one element, in whichever frame: its links.
		e, err := b.resolveRef(ctx, sel)
		if err != nil {
			return nil, false, err
		}
		on = &e
	}
	links, truncated, found, err := page.Links(ctx, b.conn, &b.worlds, b.pageTab(tab), sel, on, MaxLinks)
	if err != nil {
		return nil, false, readErr(ctx, err, sel)
	}
	if !found {
		return nil, false, noMatch(sel)
	}
	return links, truncated, nil
}

func noMatch(sel string) *Error {
	return newError("not_found", "nothing on the page matches the selector", "Check the selector against read_page(mode=\"tree\"), or call wait_for(selector=...) if the page draws it late.").on(sel)
}

// readErr turns what our page-side code or the browser answered into an
// envelope: a selector the browser cannot parse is the caller's argument.
func readErr(ctx context.Context, err error, sel string) error {
	if err == nil {
		return nil
	}
	if page.IsBadSelector(err) {
		return &Error{Status: StatusError, Message: "selector is not a valid CSS selector: " + sel,
			Hint:     "Pass a CSS selector (#id, .class, tag[attr=value]), text=..., or an aria-ref=eN token from read_page(mode=\"tree\").",
			Argument: "selector"}
	}
	var ne *page.NodeGoneError
	if errors.As(err, &ne) {
		return newError("not_found", "the element is gone from the page", RefHint).on(sel)
	}
	var se *page.ScriptError
	if errors.As(err, &se) {
		return newError(StatusError, se.Error(), "Retry; the page may have been changing under the read.")
	}
	return callError(ctx, err, "reading the page")
}

// readTree reads the tab's action map (page.ReadTree): the visible items
// in reading order (on-screen first), how many are on screen, and their
// refs, which become the latest read.
//
// nested asks for the nested form too (page.Region's Nest).
func (b *Browser) readTree(ctx context.Context, tab cdpguard.Target, sel string, nested bool) (*page.Tree, []string, time.Duration, error) {
	region := page.Region{Nest: nested}
	if IsRef(sel) {
		e, err := b.resolveRef(ctx, sel)
		if err != nil {
			return nil, nil, 0, err
		}
		region.Ref = &e
	} else {
		region.Selector = sel
	}
	t, err := page.ReadTree(ctx, b.conn, &b.worlds, b.pageTab(tab), region)
	return b.treeRead(ctx, tab, sel, t, err)
}

// treeRead gives a tree read's items their refs, or turns its error into
// an envelope.
func (b *Browser) treeRead(ctx context.Context, tab cdpguard.Target, sel string, t *page.Tree, err error) (*page.Tree, []string, time.Duration, error) {
	switch {
	case errors.Is(err, page.ErrTabGone):
		return nil, nil, 0, pageGone()
	case errors.Is(err, page.ErrRegionGone):
		return nil, nil, 0, noMatch(sel)
	case err != nil:
		return nil, nil, 0, readErr(ctx, err, sel)
	}
	start := time.Now()
	refs := b.refs.Assign(tab.ID, t.MainLoader, t.Items, t.Ref)
	return t, refs, time.Since(start), nil
}
