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

	"github.com/lyrad/lyrad/cdpconn"
)

// WorldName names lyrad's isolated world. Our JavaScript runs there and
// never in the page's own world: it shares the DOM, not the page's globals,
// and needs no Runtime.enable (which anti-bot scripts detect).
const WorldName = "lyrad"

// Worlds caches one isolated-world execution context per frame. A
// navigation destroys the context; without Runtime.enable no event says so,
// so a call that finds its context gone makes a new one and tries once more.
type Worlds struct {
	mu  sync.Mutex
	ctx map[cdp.FrameID]runtime.ExecutionContextID
}

func (w *Worlds) Get(ctx context.Context, s *cdpconn.Session, frame cdp.FrameID, fresh bool) (runtime.ExecutionContextID, error) {
	w.mu.Lock()
	if w.ctx == nil {
		w.ctx = map[cdp.FrameID]runtime.ExecutionContextID{}
	}
	id, ok := w.ctx[frame]
	w.mu.Unlock()
	if ok && !fresh {
		return id, nil
	}
	res, err := cdp.Call(ctx, s, cdppage.CreateIsolatedWorld, cdppage.CreateIsolatedWorldParams{FrameID: frame, WorldName: WorldName})
	if err != nil {
		return 0, err
	}
	w.mu.Lock()
	w.ctx[frame] = res.ExecutionContextID
	w.mu.Unlock()
	return res.ExecutionContextID, nil
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
	callArgs, err := JSArgs(args)
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
	callArgs, err := JSArgs(args)
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

func JSArgs(args []any) ([]*runtime.CallArgument, error) {
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
