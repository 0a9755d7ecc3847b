package page

import (
	"context"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// FindNode runs a JSFind-like function in a frame's isolated world and
// returns the backendNodeId of the element it returns; 0 when it returned
// null.
func FindNode(ctx context.Context, conn *cdpconn.Conn, w *Worlds, s target.SessionID, frame cdp.FrameID, fn string, args ...any) (cdp.BackendNodeID, error) {
	callArgs, err := JSArgs(args)
	if err != nil {
		return 0, err
	}
	sess := conn.Session(s)
	for attempt := 0; ; attempt++ {
		id, err := w.Get(ctx, sess, frame, attempt > 0)
		if err != nil {
			return 0, err
		}
		t := true
		res, err := cdp.Call(ctx, sess, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: fn, ExecutionContextID: id, Arguments: callArgs,
			AwaitPromise: &t, Silent: &t, ObjectGroup: WorldName,
		})
		if cdpconn.IsContextGone(err) && attempt == 0 {
			w.Forget(frame)
			continue
		}
		if err != nil {
			return 0, err
		}
		if err := DecodeResult(nil, res.ExceptionDetails, nil); err != nil {
			return 0, err
		}
		if res.Result == nil || res.Result.ObjectID == "" {
			return 0, nil
		}
		defer cdp.Call(ctx, sess, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: res.Result.ObjectID})
		d, err := cdp.Call(ctx, sess, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID})
		if err != nil {
			return 0, err
		}
		if d.Node == nil {
			return 0, nil
		}
		return d.Node.BackendNodeID, nil
	}
}
