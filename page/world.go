package page

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// WorldName names lyrad's isolated world. Our JavaScript runs there and
// never in the page's own world: it shares the DOM, not the page's globals,
// and needs no Runtime.enable (which anti-bot scripts detect).
const WorldName = "lyrad"

// Worlds caches one isolated-world execution context per frame. A
// navigation destroys the context; without Runtime.enable no event says so,
// so a call that finds its context gone makes a new one and tries once more.
//
// Frames end without telling the cache either (a tab closed, an iframe
// removed or navigated away with its document): with Live set, the entries
// of frames that are gone are dropped by Prune and whenever the cache has
// doubled since it was last pruned, so it follows the frames that exist and
// not every frame a long day of use has seen.
type Worlds struct {
	// Live says whether frame, reached over session sid, is still there.
	// Set before first use; nil keeps every entry.
	Live func(sid target.SessionID, frame cdp.FrameID) bool

	mu      sync.Mutex
	ctx     map[cdp.FrameID]worldEntry
	owners  map[cdp.FrameID]ownerEntry // a frame's frame element, by the frame
	pruneAt int                        // prune when the cache grows past this
}

// ownerEntry is a frame's frame element: its id in the table of its
// parent's world, and that table's token. A frame keeps its element for its
// life (an iframe moved or replaced is a new frame), so a tree read asks
// again only when the parent's world is another one.
type ownerEntry struct {
	id    int64
	token string
}

type worldEntry struct {
	id  runtime.ExecutionContextID
	sid target.SessionID
}

// minPrune is the size below which the cache is never pruned on its own.
const minPrune = 64

func (w *Worlds) Get(ctx context.Context, s *cdpconn.Session, frame cdp.FrameID, fresh bool) (runtime.ExecutionContextID, error) {
	w.mu.Lock()
	e, ok := w.ctx[frame]
	w.mu.Unlock()
	if ok && !fresh {
		return e.id, nil
	}
	res, err := cdp.Call(ctx, s, cdppage.CreateIsolatedWorld, cdppage.CreateIsolatedWorldParams{FrameID: frame, WorldName: WorldName})
	if err != nil {
		return 0, err
	}
	w.put(frame, s.ID(), res.ExecutionContextID)
	return res.ExecutionContextID, nil
}

// put caches frame's context and prunes the cache when it has grown enough.
func (w *Worlds) put(frame cdp.FrameID, sid target.SessionID, id runtime.ExecutionContextID) {
	w.mu.Lock()
	if w.ctx == nil {
		w.ctx = map[cdp.FrameID]worldEntry{}
	}
	w.ctx[frame] = worldEntry{id: id, sid: sid}
	grown := w.Live != nil && len(w.ctx) > max(w.pruneAt, minPrune)
	w.mu.Unlock()
	if grown {
		w.Prune()
	}
}

// Prune drops the contexts of frames Live says are gone. Live is asked
// without the cache's lock held.
func (w *Worlds) Prune() {
	if w.Live == nil {
		return
	}
	type key struct {
		frame cdp.FrameID
		e     worldEntry
	}
	w.mu.Lock()
	all := make([]key, 0, len(w.ctx))
	for f, e := range w.ctx {
		all = append(all, key{f, e})
	}
	w.mu.Unlock()
	var gone []key
	for _, k := range all {
		if !w.Live(k.e.sid, k.frame) {
			gone = append(gone, k)
		}
	}
	w.mu.Lock()
	for _, k := range gone {
		if w.ctx[k.frame] == k.e { // not made again meanwhile
			delete(w.ctx, k.frame)
		}
	}
	for f := range w.owners {
		if _, ok := w.ctx[f]; !ok {
			delete(w.owners, f)
		}
	}
	w.pruneAt = 2 * len(w.ctx)
	w.mu.Unlock()
}

// owner is frame's frame element as cached by setOwner.
func (w *Worlds) owner(frame cdp.FrameID) (ownerEntry, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	o, ok := w.owners[frame]
	return o, ok
}

func (w *Worlds) setOwner(frame cdp.FrameID, o ownerEntry) {
	w.mu.Lock()
	if w.owners == nil {
		w.owners = map[cdp.FrameID]ownerEntry{}
	}
	w.owners[frame] = o
	w.mu.Unlock()
}

// Len is how many frames' contexts are cached.
func (w *Worlds) Len() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.ctx)
}

func (w *Worlds) Forget(frame cdp.FrameID) {
	w.mu.Lock()
	delete(w.ctx, frame)
	w.mu.Unlock()
}

// ScriptError is an exception our own script threw in the page.
type ScriptError struct{ Text string }

func (e *ScriptError) Error() string { return "script: " + e.Text }

// CallFunction runs fn (a JavaScript function expression) in lyrad's
// isolated world of frame, with args as JSON values, and decodes its
// JSON-serialisable result into out (which may be nil). A frame's id is its
// target id for a tab's main frame.
func (w *Worlds) CallFunction(ctx context.Context, s *cdpconn.Session, frame cdp.FrameID, fn string, out any, args ...any) error {
	callArgs, err := scriptArgs(args)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		id, err := w.Get(ctx, s, frame, attempt > 0)
		if err != nil {
			return err
		}
		t, f := true, true
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: fn, ExecutionContextID: id, Arguments: callArgs,
			ReturnByValue: &t, AwaitPromise: &t, Silent: &t, UserGesture: &f,
		})
		if cdpconn.IsContextGone(err) && attempt == 0 {
			w.Forget(frame)
			continue
		}
		if err != nil {
			return err
		}
		return DecodeResult(res.Result, res.ExceptionDetails, out)
	}
}

// CallOnNode runs fn with `this` bound to the node, in lyrad's isolated
// world of the node's frame. Nodes are addressed by backendNodeId, which
// survives across Worlds and needs no DOM.enable.
func (w *Worlds) CallOnNode(ctx context.Context, s *cdpconn.Session, frame cdp.FrameID, node cdp.BackendNodeID, fn string, out any, args ...any) error {
	callArgs, err := scriptArgs(args)
	if err != nil {
		return err
	}
	for attempt := 0; ; attempt++ {
		id, err := w.Get(ctx, s, frame, attempt > 0)
		if err != nil {
			return err
		}
		obj, err := cdp.Call(ctx, s, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node, ExecutionContextID: id, ObjectGroup: WorldName})
		if cdpconn.IsContextGone(err) && attempt == 0 {
			w.Forget(frame)
			continue
		}
		if err != nil {
			return &NodeGoneError{err}
		}
		if obj.Object == nil || obj.Object.ObjectID == "" {
			return &NodeGoneError{errors.New("node has no object")}
		}
		t := true
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: fn, ObjectID: obj.Object.ObjectID, Arguments: callArgs,
			ReturnByValue: &t, AwaitPromise: &t, Silent: &t,
		})
		_, _ = cdp.Call(ctx, s, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj.Object.ObjectID})
		if err != nil {
			return err
		}
		return DecodeResult(res.Result, res.ExceptionDetails, out)
	}
}

// NodeGoneError: the node no longer exists (removed, or its document gone).
type NodeGoneError struct{ Err error }

func (e *NodeGoneError) Error() string { return "node is gone: " + e.Err.Error() }
func (e *NodeGoneError) Unwrap() error { return e.Err }

func scriptArgs(args []any) ([]*runtime.CallArgument, error) {
	out := make([]*runtime.CallArgument, 0, len(args))
	for _, a := range args {
		b, err := jsonv2.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("script argument: %w", err)
		}
		out = append(out, &runtime.CallArgument{Value: jsonv2.Value(b)})
	}
	return out, nil
}

func DecodeResult(r *runtime.RemoteObject, exc *runtime.ExceptionDetails, out any) error {
	if exc != nil {
		text := exc.Text
		if exc.Exception != nil && exc.Exception.Description != "" {
			text = exc.Exception.Description
		}
		return &ScriptError{Text: text}
	}
	if out == nil || r == nil || len(r.Value) == 0 {
		return nil
	}
	return jsonv2.Unmarshal(r.Value, out)
}
