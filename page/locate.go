package page

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// InvalidSelectorError: the page's selector engine rejected the selector;
// Text is the first line of its message.
type InvalidSelectorError struct{ Text string }

func (e *InvalidSelectorError) Error() string { return "the selector is not valid: " + e.Text }

// Node is an element to act on: the CDP session and frame it lives in and
// its backendNodeId; while a call runs, also its object in lyrad's isolated
// world (in the call's object group, released when the call ends).
type Node struct {
	Session target.SessionID
	Frame   cdp.FrameID
	object  runtime.RemoteObjectID
	group   string

	mu      sync.Mutex
	backend cdp.BackendNodeID // 0 until asked for, for an element found by its object
}

// Backend is the element's backendNodeId; 0 when it is gone. An element
// found by a script is reached by its object, and its backendNodeId is
// asked for (DOM.describeNode) only when a call needs it: the object is
// gone (then so is, most often, the element), or a DOM command that takes
// no object.
func (n *Node) Backend(ctx context.Context, conn *cdpconn.Conn) (cdp.BackendNodeID, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.backend != 0 || n.object == "" {
		return n.backend, nil
	}
	d, err := cdp.Call(ctx, conn.Session(n.Session), dom.DescribeNode, dom.DescribeNodeParams{ObjectID: n.object})
	switch {
	case ctx.Err() != nil:
		return 0, err
	case err != nil || d.Node == nil:
		return 0, nil // its object is gone, and so is the element
	}
	n.backend = d.Node.BackendNodeID
	return n.backend, nil
}

// domParams names the node in a DOM command's parameters: by its object
// while it holds one, else by its backendNodeId.
func (n *Node) domParams(ctx context.Context, conn *cdpconn.Conn, obj *runtime.RemoteObjectID, backend *cdp.BackendNodeID) error {
	if n.object != "" {
		*obj = n.object
		return nil
	}
	b, err := n.Backend(ctx, conn)
	if err != nil {
		return err
	}
	if b == 0 {
		return &NodeGoneError{Err: errors.New("the element is gone")}
	}
	*backend = b
	return nil
}

// actGroups names the object group of each acting call's handles: each
// call releases its own, in the background, when it ends.
var actGroups atomic.Int64

// NewActGroup names a new acting call's object group.
func NewActGroup() string { return fmt.Sprintf("lyrad-act-%d", actGroups.Add(1)) }

// FrameRef is one frame and the session that reaches it.
type FrameRef struct {
	Session target.SessionID
	Frame   cdp.FrameID
}

// Found is what a selector names: how many elements matched, the one to
// act on (nil when none did), and, when several matched and one was
// preferred over the first visible for a reason, that reason (jsLocate).
type Found struct {
	Count int
	Node  *Node
	Why   string
	// State, when set, is Node's state read as it was found
	// (FindElement): WaitActionable does not read it again.
	State *ElementState
}

// locateFrame runs jsLocate in one frame for a selector of kind (css, text,
// xpath) and body: the match count, and the match to act on as a Node held
// in group. A selector the page's engine rejects is an
// *InvalidSelectorError.
func locateFrame(ctx context.Context, conn *cdpconn.Conn, w *Worlds, f FrameRef, kind, body, group string) (Found, error) {
	var st ElementState
	count, n, why, err := locateIn(ctx, conn, w, f, kind, body, group, &st)
	found := Found{Count: count, Node: n, Why: why}
	if n != nil {
		found.State = &st
	}
	return found, err
}

// locateKeys name where a look leaves its count for the call behind it.
var locateKeys atomic.Int64

// jsLocateElement is jsLocate answering its match as the result, and its
// count, why and the match under key, which jsLocated takes.
var jsLocateElement = "function(kind, sel, key) {\n  const r = (" + jsLocate + ").call(this, kind, sel);\n  globalThis[key] = {count: r.count, why: r.why, el: r.el};\n  return r.el;\n}"

// jsLocated answers what jsLocateElement left under key: the count, why,
// and the match's state (jsState), null when none matched; jsLocatedFocus,
// given ff, then its focus (jsStateFocus).
var jsLocated, jsLocatedFocus = locatedJS(jsStateOf), locatedJS(jsStateFocus)

func locatedJS(state string) string {
	return "function(key, ff) {\n  const v = globalThis[key];\n  delete globalThis[key];\n  if (!v) return {count: 0, why: ''};\n  return {count: v.count, why: v.why, state: v.el ? (" + state + ")(v.el, ff) : null};\n}"
}

// locateIn is locateFrame's look; the match's state is read into st
// beside the question for its backendNodeId (both need only its object).
func locateIn(ctx context.Context, conn *cdpconn.Conn, w *Worlds, f FrameRef, kind, body, group string, st *ElementState) (int, *Node, string, error) {
	s := conn.Session(f.Session)
	for attempt := 0; ; attempt++ {
		id, err := w.Get(ctx, s, f.Frame, attempt > 0)
		if err != nil {
			return 0, nil, "", err
		}
		// The match comes back as an object, and its count (and why it
		// was taken) and state by value, from a second call sent behind
		// the first: the page runs the two in turn, so they cost one
		// round trip. Its backendNodeId is asked for after, and waited for
		// only when needed (Node.Backend).
		key := "__lyradLocated" + strconv.FormatInt(locateKeys.Add(1), 10)
		args, _ := scriptArgs([]any{kind, body, key})
		ff := focusFirstIn(ctx, f.Session, f.Frame)
		locatedFn := jsLocated
		if ff != nil {
			locatedFn = jsLocatedFocus
		}
		keyArg, _ := scriptArgs([]any{key, ff})
		t := true
		call, err := s.Send(runtime.CommandCallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: jsLocateElement, ExecutionContextID: id, Arguments: args,
			ObjectGroup: group, Silent: &t,
		})
		if err != nil {
			return 0, nil, "", err
		}
		info, err := s.Send(runtime.CommandCallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: locatedFn, ExecutionContextID: id, Arguments: keyArg,
			ReturnByValue: &t, Silent: &t,
		})
		if err != nil {
			return 0, nil, "", err
		}
		var res, ires runtime.CallFunctionOnResult
		err = call.Wait(ctx, &res)
		ierr := info.Wait(ctx, &ires)
		if cdpconn.IsContextGone(err) && attempt == 0 {
			w.Forget(f.Frame)
			continue
		}
		if err != nil {
			return 0, nil, "", err
		}
		if res.ExceptionDetails != nil {
			se := &ScriptError{Text: res.ExceptionDetails.Text}
			if res.ExceptionDetails.Exception != nil && res.ExceptionDetails.Exception.Description != "" {
				se.Text = res.ExceptionDetails.Exception.Description
			}
			if i := strings.IndexByte(se.Text, '\n'); i > 0 {
				se.Text = se.Text[:i]
			}
			return 0, nil, "", &InvalidSelectorError{Text: se.Text}
		}
		if ierr != nil {
			return 0, nil, "", ierr
		}
		var located struct {
			Count int           `json:"count"`
			Why   string        `json:"why"`
			State *ElementState `json:"state"`
		}
		if err := DecodeResult(ires.Result, ires.ExceptionDetails, &located); err != nil {
			return 0, nil, "", err
		}
		count, why := located.Count, located.Why
		var el runtime.RemoteObjectID
		if res.Result != nil {
			el = res.Result.ObjectID
		}
		if count == 0 || el == "" {
			return count, nil, "", nil
		}
		// The element's frame is the one searched.
		n := &Node{Session: f.Session, Frame: f.Frame, object: el, group: group}
		if located.State != nil {
			*st = *located.State
		} else if err := callNode(ctx, conn, w, n, jsState, st); err != nil {
			return 0, nil, "", err
		}
		return count, n, why, nil
	}
}

// callNode runs fn with `this` bound to the node in lyrad's isolated world and
// decodes its JSON result into out. The node's object is resolved from its
// backendNodeId on first use, and again once if its context went away.
func callNode(ctx context.Context, conn *cdpconn.Conn, w *Worlds, n *Node, fn string, out any, args ...any) error {
	s := conn.Session(n.Session)
	callArgs, err := scriptArgs(args)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		if n.object == "" || attempt > 0 {
			if err := resolveNode(ctx, w, s, n, attempt > 0); err != nil {
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
		return DecodeResult(res.Result, res.ExceptionDetails, out)
	}
}

func resolveNode(ctx context.Context, w *Worlds, s *cdpconn.Session, n *Node, fresh bool) error {
	backend, err := n.Backend(ctx, s.Conn())
	if err != nil {
		return err
	}
	if backend == 0 {
		return &NodeGoneError{Err: errors.New("the element is gone")}
	}
	for attempt := 0; ; attempt++ {
		id, err := w.Get(ctx, s, n.Frame, fresh || attempt > 0)
		if err != nil {
			return err
		}
		obj, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: backend, ExecutionContextID: id, ObjectGroup: n.group})
		if cdpconn.IsContextGone(err) && attempt == 0 {
			w.Forget(n.Frame)
			continue
		}
		if err != nil {
			return &NodeGoneError{Err: err}
		}
		if obj.Object == nil || obj.Object.ObjectID == "" {
			return &NodeGoneError{Err: errors.New("node has no object")}
		}
		n.object = obj.Object.ObjectID
		return nil
	}
}

// ReleaseHandles lets go of the objects an acting call held in the frames
// it touched. It costs the call nothing: it runs on its own.
func ReleaseHandles(conn *cdpconn.Conn, group string, sessions ...target.SessionID) {
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
		}(conn.Session(sid))
	}
}

// NewNode is the element backend in frame, reached through session sid,
// whose object will be held in group once resolved.
func NewNode(sid target.SessionID, frame cdp.FrameID, backend cdp.BackendNodeID, group string) *Node {
	return &Node{Session: sid, Frame: frame, backend: backend, group: group}
}

// Locate runs locateFrame for a selector of kind and body on the tab: the
// main frame first, and only when nothing there matches, each of its
// iframes (ChildFrames), adding up their matches; the node is the first
// match found. A frame that went away while we looked holds nothing. A
// selector the page's engine rejects is an *InvalidSelectorError.
func Locate(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, kind, body, group string) (Found, error) {
	main := FrameRef{Session: tab.Session, Frame: tab.Main()}
	found, err := locateFrame(ctx, conn, w, main, kind, body, group)
	if err != nil || found.Count > 0 {
		return found, err
	}
	frames, err := ChildFrames(ctx, conn, tab)
	if err != nil {
		return Found{}, err
	}
	var all Found
	for _, f := range frames {
		in, err := locateFrame(ctx, conn, w, f, kind, body, group)
		if err != nil {
			var bad *InvalidSelectorError
			if errors.As(err, &bad) {
				return Found{}, err
			}
			continue
		}
		all.Count += in.Count
		if all.Node == nil && in.Node != nil {
			all.Node, all.Why, all.State = in.Node, in.Why, in.State
		}
	}
	return all, nil
}
