package session

import (
	"context"
	"strconv"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
)

// readCache keeps the whole output of the latest read of each mode, so
// that a later page of it (offset > 0) is cut from the same snapshot the
// first page was: not rebuilt (a large tree costs its whole read again),
// and not shifted when the page changed in between (lines would be lost or
// repeated at the seam). A read at offset 0 always reads the page afresh.
//
// One entry per mode, not per tab: refs are handles into the latest tree
// read only, so only that read's later pages may be served; any newer
// tree read replaces the entry.
//
// A text read keeps no text here: the page's world keeps the text its first
// page read (page.ReadText), under the entry's key, and later pages are cut
// there. A tree read's output is kept only up to maxCachedRead bytes; a
// larger one's later pages are read afresh.
type readCache struct {
	mu      sync.Mutex
	entries map[string]*readEntry // by mode
	keys    int                   // text reads so far, for their keys

	// trees are the whole-page tree reads kept to say what changed since
	// (changes.go): the last few per tab, each under its read_id.
	trees treeReads
}

// readEntry is one read's whole output, and what it was read of.
type readEntry struct {
	tab    target.ID
	loader cdp.LoaderID // the tab's document when it was read
	sel    string
	links  bool
	hide   bool   // values hidden (ReadOptions.HideValues)
	nested bool   // the nested form (ReadOptions.Nested)
	depth  int    // and its depth
	out    string // tree mode
	key    string // text mode: the read's key in the page's world
	url    string
	title  string
	res    ReadResult // Elements, InViewport, Links, LinksTruncated
}

// maxCachedRead bounds the output a read's cache entry keeps, in bytes.
const maxCachedRead = 4 << 20

func (c *readCache) put(mode string, e *readEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[string]*readEntry{}
	}
	if len(e.out) > maxCachedRead {
		delete(c.entries, mode)
		return
	}
	c.entries[mode] = e
}

// newKey names a new text read in the page's world.
func (c *readCache) newKey() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.keys++
	return "r" + strconv.Itoa(c.keys)
}

// get is the entry a later page of this read may be cut from: same tab,
// mode, selector and links, and the tab still shows the document that was
// read (a navigation ends the snapshot, as it ends its refs).
func (b *Browser) cachedRead(ctx context.Context, tab cdpguard.Target, o ReadOptions) *readEntry {
	if o.Offset <= 0 {
		return nil
	}
	c := &b.reads
	c.mu.Lock()
	e := c.entries[o.Mode]
	c.mu.Unlock()
	if e == nil || e.tab != tab.ID || e.sel != o.Selector || e.links != o.Links || e.hide != o.HideValues || e.nested != o.Nested || e.depth != o.Depth {
		return nil
	}
	cur, err := page.FrameLoaders(ctx, b.conn, tab.SessionID)
	if err != nil || cur[cdp.FrameID(tab.ID)] != e.loader || e.loader == "" {
		return nil
	}
	return e
}

// mainLoader is the tab's current document, "" when it cannot be told.
func (b *Browser) mainLoader(ctx context.Context, tab cdpguard.Target) cdp.LoaderID {
	cur, err := page.FrameLoaders(ctx, b.conn, tab.SessionID)
	if err != nil {
		return ""
	}
	return cur[cdp.FrameID(tab.ID)]
}
