package cdpguard

// The registry of what the guard holds: page and iframe targets, the
// frames they reported, and whose document issues a request.

import (
	"net/url"
	"strings"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
)

// TargetEvent reports a change to the set of page targets.
type TargetEvent struct {
	Kind   string // "attached", "changed", "detached"
	Target Target
}

// Target is a page (tab or popup) the guard holds.
type Target struct {
	ID        target.ID
	TabID     target.ID // the page this target belongs to: itself for a page
	SessionID target.SessionID
	Type      string
	OpenerID  target.ID
	// OpenerFrame is the frame that opened this page, when it has an opener.
	OpenerFrame cdp.FrameID
	URL         string
	Title       string
	Seq         int64 // attach order; higher is newer
	// ParentFrame is the frame an out-of-process iframe sits in.
	ParentFrame cdp.FrameID
	// ready: Fetch and the worker bypass are in place. Until then the
	// target is not handed out: a navigation started on it could leave
	// unjudged.
	ready bool
}

// frame is what the guard knows of a frame: its document, its parent, and
// the target session that reported it (the frame is forgotten with it).
type frame struct {
	url     string
	parent  cdp.FrameID
	session target.SessionID
}

// worker is a worker target: its sends are recorded, their sender is the
// origin of its script.
type worker struct {
	id     target.ID
	typ    string
	origin string
}

// Pages lists the page targets (tabs and popups) in attach order.
func (g *Guard) Pages() []Target {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Target
	for _, t := range g.targets {
		if t.Type == "page" && t.ready {
			out = append(out, *t)
		}
	}
	sortTargets(out)
	return out
}

// Page returns the page target with this id.
func (g *Guard) Page(id target.ID) (Target, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, t := range g.targets {
		if t.ID == id && t.Type == "page" && t.ready {
			return *t, true
		}
	}
	return Target{}, false
}

// Held returns the page target with this id, ready or still being set up:
// a popup's first load can be judged before its setup replies are read.
func (g *Guard) Held(id target.ID) (Target, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if t := g.pageLocked(id); t != nil && t.Type == "page" {
		return *t, true
	}
	return Target{}, false
}

// Frames lists the out-of-process iframe targets of a tab, in attach order.
// Each has its own session; its ID is the id of the frame it renders.
func (g *Guard) Frames(tab target.ID) []Target {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []Target
	for _, t := range g.targets {
		if t.Type == "iframe" && t.TabID == tab {
			out = append(out, *t)
		}
	}
	sortTargets(out)
	return out
}

// HasFrame says whether frame, reached over the target session sid, is
// still there as far as the guard knows: the session's target is held and
// the frame is its main frame or one the guard has seen attach or navigate
// and not detach.
func (g *Guard) HasFrame(sid target.SessionID, f cdp.FrameID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.targets[sid]
	if t == nil {
		return false
	}
	if string(t.ID) == string(f) {
		return true
	}
	_, ok := g.frames[f]
	return ok
}

// FrameOf names the tab a frame belongs to and the URL of its document as
// last seen (a tab's main frame has the tab's id; an out-of-process
// iframe's frame has its target's). ok is false for a frame the guard
// never saw.
func (g *Guard) FrameOf(f cdp.FrameID) (tab target.ID, url string, ok bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, t := range g.targets {
		if string(t.ID) == string(f) && (t.Type == "page" || t.Type == "iframe") {
			url = t.URL
			if fr, seen := g.frames[f]; seen && fr.url != "" {
				url = fr.url
			}
			return t.TabID, url, true
		}
	}
	if fr, seen := g.frames[f]; seen {
		if t := g.targets[fr.session]; t != nil {
			return t.TabID, fr.url, true
		}
	}
	return "", "", false
}

func sortTargets(ts []Target) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Seq < ts[j-1].Seq; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// pageLocked returns the page or iframe target whose main frame is id.
func (g *Guard) pageLocked(id target.ID) *Target {
	for _, t := range g.targets {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// issuerLocked finds the document that issues a request of frame f in
// target t, and whether f is an iframe of the tab. A frame with no document
// of its own (none yet, about:blank, about:srcdoc, data:) is its creator's:
// the parent frame, or for a popup's main frame the frame that opened it.
// creator reports that f itself had no document.
func (g *Guard) issuerLocked(t *Target, f cdp.FrameID) (inSubframe bool, issuer string, creator bool) {
	main := cdp.FrameID(t.ID)
	inSubframe = f != main || t.Type == "iframe"
	cur := t // the target whose main frame id is being walked
	for i, id := 0, f; i < 32 && id != ""; i++ {
		fr, ok := g.frames[id]
		if ok && ownDocument(fr.url) {
			return inSubframe, fr.url, i > 0
		}
		if !ok && id == cdp.FrameID(cur.ID) && ownDocument(cur.URL) {
			return inSubframe, cur.URL, i > 0
		}
		switch {
		case ok && fr.parent != "":
			id = fr.parent
		case id == cdp.FrameID(cur.ID) && cur.Type == "iframe":
			id = cur.ParentFrame
		case id == cdp.FrameID(cur.ID) && cur.OpenerFrame != "":
			id = cur.OpenerFrame
		case id == cdp.FrameID(cur.ID) && cur.OpenerID != "":
			id = cdp.FrameID(cur.OpenerID)
		default:
			return inSubframe, "", true
		}
		if next := g.pageLocked(target.ID(id)); next != nil {
			cur = next
		}
	}
	return inSubframe, "", true
}

// ownDocument reports whether a frame at url has a document of its own
// rather than one its creator made: about:blank, about:srcdoc and data:
// documents are written by whoever created the frame.
func ownDocument(url string) bool {
	if url == "" || strings.HasPrefix(url, "about:") {
		return false
	}
	return !strings.HasPrefix(strings.ToLower(url), "data:")
}

// forgetLocked drops a target and everything known of its frames and
// requests.
func (g *Guard) forgetLocked(sid target.SessionID) {
	delete(g.targets, sid)
	delete(g.workers, sid)
	for id, fr := range g.frames {
		if fr.session == sid {
			delete(g.frames, id)
		}
	}
	for id, h := range g.hops {
		if h.session == sid {
			delete(g.hops, id)
		}
	}
}

// maxURL is how much of a URL the guard keeps in its registries. A page
// can make URLs of megabytes; what is kept is only ever read for its origin
// and its path.
const maxURL = 2048

// clip bounds a URL kept in memory: query, fragment and userinfo go first,
// then the path is cut. The origin is kept whole.
func clip(raw string) string {
	if len(raw) <= maxURL {
		return raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.Host == "" {
		return raw[:maxURL]
	}
	u.User, u.RawQuery, u.Fragment, u.RawFragment, u.ForceQuery = nil, "", "", "", false
	out := u.String()
	if len(out) > maxURL {
		out = out[:maxURL]
	}
	return out
}

func clipTitle(s string) string {
	if len(s) > 1024 {
		return s[:1024]
	}
	return s
}
