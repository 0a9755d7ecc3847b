package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
)

// Target resolution: what a selector names on the active tab.
//
//	aria-ref=e12      an element of the latest read_page(mode="tree")
//	text=Save         visible text (see page.JSLocate for the three forms)
//	xpath=//a, //a    XPath
//	css=a.b, a.b      CSS, document-wide, open shadow roots included
//
// CSS, text and XPath are looked up by our own script in lyrad's isolated
// world: one call answers the match count and the element to act on, which
// is then addressed by its object there (and its backendNodeId, which
// survives worlds). The main frame is searched first; only when nothing
// there matches are the tab's iframes searched, same-process ones through
// the tab's session and out-of-process ones through their own.

type selectorKind string

const (
	selCSS   selectorKind = "css"
	selText  selectorKind = "text"
	selXPath selectorKind = "xpath"
	selRef   selectorKind = "ref"
)

// parsedSelector is a selector split into its engine and its body.
type parsedSelector struct {
	kind selectorKind
	body string
	raw  string
}

// selectorError is a selector that cannot be used: an error envelope that
// names the argument.
func selectorError(sel, msg string) *Error {
	return newError(StatusError, msg,
		`Pass a CSS selector (button.save, #email), text=Visible text (text="Exact text" for a whole-text match), xpath=//a, or an aria-ref=eN from read_page(mode="tree").`).
		with("argument", "selector").with("selector", sel)
}

func parseSelector(raw string) (parsedSelector, error) {
	s := strings.TrimSpace(raw)
	p := parsedSelector{raw: s}
	if s == "" {
		return p, selectorError(raw, "selector is empty")
	}
	lower := strings.ToLower(s)
	switch {
	case IsRef(s):
		p.kind, p.body = selRef, s
	case strings.HasPrefix(lower, "text="):
		p.kind, p.body = selText, s[len("text="):]
	case strings.HasPrefix(lower, "css="):
		p.kind, p.body = selCSS, s[len("css="):]
	case strings.HasPrefix(lower, "xpath="):
		p.kind, p.body = selXPath, s[len("xpath="):]
	case strings.HasPrefix(s, "//") || strings.HasPrefix(s, "(//"):
		p.kind, p.body = selXPath, s
	case strings.HasPrefix(lower, "role=") || strings.HasPrefix(lower, "internal:"):
		return p, selectorError(raw, "the "+s[:strings.IndexByte(s, '=')+1]+" selector engine is not supported")
	default:
		p.kind, p.body = selCSS, s
	}
	if strings.TrimSpace(p.body) == "" {
		return p, selectorError(raw, "selector "+s+" names nothing")
	}
	return p, nil
}

// node is an element to act on: the CDP session and frame it lives in and
// its backendNodeId; while a call runs, also its object in lyrad's isolated
// world (in the call's object group, released when the call ends).
type node struct {
	Session target.SessionID
	Frame   cdp.FrameID
	Backend cdp.BackendNodeID
	object  runtime.RemoteObjectID
	group   string
}

// located is what a selector names now.
type located struct {
	Matches int
	Node    *node // the element to act on; nil when nothing matched
}

// actGroups names the object group of each acting call's handles: each
// call releases its own, in the background, when it ends.
var actGroups atomic.Int64

func newActGroup() string { return fmt.Sprintf("lyrad-act-%d", actGroups.Add(1)) }

// locate resolves a selector on the tab. A syntax error is an *Error
// naming the selector argument; an aria-ref that names nothing is
// resolveRef's not_found.
func (b *Browser) locate(ctx context.Context, tab cdpguard.Target, sel parsedSelector, group string) (*located, error) {
	if sel.kind == selRef {
		e, err := b.resolveRef(ctx, sel.body)
		if err != nil {
			return nil, err
		}
		return &located{Matches: 1, Node: &node{Session: e.SessionID, Frame: e.FrameID, Backend: e.Backend, group: group}}, nil
	}
	main := frameRef{session: tab.SessionID, frame: cdp.FrameID(tab.ID)}
	count, n, err := b.locateIn(ctx, main, sel, group)
	if err != nil || count > 0 {
		return &located{Matches: count, Node: n}, err
	}
	frames, err := b.childFrames(ctx, tab)
	if err != nil {
		return nil, err
	}
	out := &located{}
	for _, f := range frames {
		c, n, err := b.locateIn(ctx, f, sel, group)
		if err != nil {
			var se *Error
			if errors.As(err, &se) {
				return nil, err
			}
			// A frame that went away while we looked holds nothing.
			continue
		}
		out.Matches += c
		if out.Node == nil && n != nil {
			out.Node = n
		}
	}
	return out, nil
}

// frameRef is one frame and the session that reaches it.
type frameRef struct {
	session target.SessionID
	frame   cdp.FrameID
}

// childFrames lists the tab's iframes in document order, depth first,
// each with the session that reaches it: the tab's for a same-process
// frame, its own for an out-of-process one.
func (b *Browser) childFrames(ctx context.Context, tab cdpguard.Target) ([]frameRef, error) {
	oopif := map[cdp.FrameID]target.SessionID{}
	for _, f := range b.guard.Frames(tab.ID) {
		oopif[cdp.FrameID(f.ID)] = f.SessionID
	}
	var out []frameRef
	seen := map[cdp.FrameID]bool{}
	var walk func(sid target.SessionID, depth int) error
	walk = func(sid target.SessionID, depth int) error {
		res, err := cdp.Call(ctx, b.conn.Session(sid), cdppage.GetFrameTree, cdp.Empty{})
		if err != nil {
			return err
		}
		var kids func(t *cdppage.FrameTree)
		kids = func(t *cdppage.FrameTree) {
			for _, c := range t.ChildFrames {
				if c.Frame == nil || seen[c.Frame.ID] {
					continue
				}
				seen[c.Frame.ID] = true
				if s, ok := oopif[c.Frame.ID]; ok {
					out = append(out, frameRef{session: s, frame: c.Frame.ID})
					if depth < 8 {
						_ = walk(s, depth+1)
					}
					continue
				}
				out = append(out, frameRef{session: sid, frame: c.Frame.ID})
				kids(c)
			}
		}
		kids(res.FrameTree)
		return nil
	}
	if err := walk(tab.SessionID, 0); err != nil {
		return nil, err
	}
	// An out-of-process frame the tree did not show (it is attached but its
	// parent's tree has not caught up yet) is still searched.
	for _, f := range b.guard.Frames(tab.ID) {
		if !seen[cdp.FrameID(f.ID)] {
			out = append(out, frameRef{session: f.SessionID, frame: cdp.FrameID(f.ID)})
		}
	}
	return out, nil
}

// locateIn runs page.JSLocate in one frame.
func (b *Browser) locateIn(ctx context.Context, f frameRef, sel parsedSelector, group string) (int, *node, error) {
	s := b.conn.Session(f.session)
	for attempt := 0; ; attempt++ {
		id, err := b.worlds.Get(ctx, s, f.frame, attempt > 0)
		if err != nil {
			return 0, nil, err
		}
		args, _ := page.JSArgs([]any{string(sel.kind), sel.body})
		t := true
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: page.JSLocate, ExecutionContextID: id, Arguments: args,
			ObjectGroup: group, Silent: &t,
		})
		if cdpconn.IsContextGone(err) && attempt == 0 {
			b.worlds.Forget(f.frame)
			continue
		}
		if err != nil {
			return 0, nil, err
		}
		if res.ExceptionDetails != nil {
			se := &page.ScriptError{Text: res.ExceptionDetails.Text}
			if res.ExceptionDetails.Exception != nil && res.ExceptionDetails.Exception.Description != "" {
				se.Text = res.ExceptionDetails.Exception.Description
			}
			if i := strings.IndexByte(se.Text, '\n'); i > 0 {
				se.Text = se.Text[:i]
			}
			return 0, nil, selectorError(sel.raw, "the selector is not valid: "+se.Text)
		}
		if res.Result == nil || res.Result.ObjectID == "" {
			return 0, nil, errors.New("locate: no result")
		}
		own := true
		props, err := cdp.Call(ctx, s, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: res.Result.ObjectID, OwnProperties: &own})
		if err != nil {
			return 0, nil, err
		}
		count := 0
		var el runtime.RemoteObjectID
		for _, p := range props.Result {
			if p.Value == nil {
				continue
			}
			switch p.Name {
			case "count":
				_ = jsonv2.Unmarshal(p.Value.Value, &count)
			case "el":
				el = p.Value.ObjectID
			}
		}
		if count == 0 || el == "" {
			return count, nil, nil
		}
		d, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: el})
		if err != nil || d.Node == nil {
			return 0, nil, &page.NodeGoneError{Err: errors.New("the element went away as it was found")}
		}
		frame := f.frame
		if d.Node.FrameID != "" {
			frame = d.Node.FrameID
		}
		return count, &node{Session: f.session, Frame: frame, Backend: d.Node.BackendNodeID, object: el, group: group}, nil
	}
}

// call runs fn with `this` bound to the node in lyrad's isolated world and
// decodes its JSON result into out. The node's object is resolved from its
// backendNodeId on first use, and again once if its context went away.
func (b *Browser) call(ctx context.Context, n *node, fn string, out any, args ...any) error {
	s := b.conn.Session(n.Session)
	callArgs, err := page.JSArgs(args)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		if n.object == "" || attempt > 0 {
			if err := b.resolveNode(ctx, s, n, attempt > 0); err != nil {
				return err
			}
		}
		t := true
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: fn, ObjectID: n.object, Arguments: callArgs,
			ReturnByValue: &t, AwaitPromise: &t, Silent: &t,
		})
		if err != nil && attempt == 0 && (cdpconn.IsContextGone(err) || strings.Contains(err.Error(), "Could not find object")) {
			continue
		}
		if err != nil {
			return err
		}
		return page.DecodeResult(res.Result, res.ExceptionDetails, out)
	}
}

func (b *Browser) resolveNode(ctx context.Context, s *cdpconn.Session, n *node, fresh bool) error {
	if n.Backend == 0 {
		return &page.NodeGoneError{Err: errors.New("the element is gone")}
	}
	for attempt := 0; ; attempt++ {
		id, err := b.worlds.Get(ctx, s, n.Frame, fresh || attempt > 0)
		if err != nil {
			return err
		}
		obj, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: n.Backend, ExecutionContextID: id, ObjectGroup: n.group})
		if cdpconn.IsContextGone(err) && attempt == 0 {
			b.worlds.Forget(n.Frame)
			continue
		}
		if err != nil {
			return &page.NodeGoneError{Err: err}
		}
		if obj.Object == nil || obj.Object.ObjectID == "" {
			return &page.NodeGoneError{Err: errors.New("node has no object")}
		}
		n.object = obj.Object.ObjectID
		return nil
	}
}

// releaseHandles lets go of the objects an acting call held in the frames
// it touched. It costs the call nothing: it runs on its own.
func (b *Browser) releaseHandles(group string, sessions ...target.SessionID) {
	seen := map[target.SessionID]bool{}
	for _, sid := range sessions {
		if seen[sid] {
			continue
		}
		seen[sid] = true
		go func(s *cdpconn.Session) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, _ = cdp.Call(ctx, s, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group})
		}(b.conn.Session(sid))
	}
}
