package page

import (
	"context"
	"strconv"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/snapshot"
)

// FindNode runs a JSFind-like function in a frame's isolated world and
// returns the backendNodeId of the element it returns; 0 when it returned
// null.
func FindNode(ctx context.Context, conn *cdpconn.Conn, w *Worlds, s target.SessionID, frame cdp.FrameID, fn string, args ...any) (cdp.BackendNodeID, error) {
	callArgs, err := scriptArgs(args)
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

// FindElement is FindNode for an acting call: the element's object stays
// held in the call's object group (released when the call ends), so the
// calls on it that follow use it as it is, not resolved again; nil when fn
// returned null. With st, the element's state (State) is read too, by a
// call sent right behind the question, which takes the element fn left in
// the world under a key: the page runs the two in turn, so they cost one
// round trip. The element's backendNodeId is asked for once its object is
// known, and waited for only when needed (Node.Backend).
func FindElement(ctx context.Context, conn *cdpconn.Conn, w *Worlds, s target.SessionID, frame cdp.FrameID, group string, st *ElementState, fn string, args ...any) (*Node, error) {
	decl, key := fn, ""
	if st != nil {
		// The element is left for the state's call only when one follows.
		key = "__lyradFound" + strconv.FormatInt(locateKeys.Add(1), 10)
		args = append([]any{key}, args...)
		decl = "function(key, ...args) {\n  const el = (" + fn + ").apply(this, args);\n  globalThis[key] = el;\n  return el;\n}"
	}
	callArgs, err := scriptArgs(args)
	if err != nil {
		return nil, err
	}
	ff := focusFirstIn(ctx, s, frame)
	foundState := jsFoundState
	if ff != nil {
		foundState = jsFoundStateFocus
	}
	keyArg, _ := scriptArgs([]any{key, ff})
	sess := conn.Session(s)
	for attempt := 0; ; attempt++ {
		id, err := w.Get(ctx, sess, frame, attempt > 0)
		if err != nil {
			return nil, err
		}
		t := true
		find, err := sess.Send(runtime.CommandCallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: decl, ExecutionContextID: id, Arguments: callArgs,
			AwaitPromise: &t, Silent: &t, ObjectGroup: group,
		})
		if err != nil {
			return nil, err
		}
		var state *cdpconn.Pending
		if st != nil {
			if state, err = sess.Send(runtime.CommandCallFunctionOn, runtime.CallFunctionOnParams{
				FunctionDeclaration: foundState, ExecutionContextID: id, Arguments: keyArg,
				ReturnByValue: &t, AwaitPromise: &t, Silent: &t,
			}); err != nil {
				return nil, err
			}
		}
		var res runtime.CallFunctionOnResult
		err = find.Wait(ctx, &res)
		var sr runtime.CallFunctionOnResult
		var serr error
		if state != nil {
			serr = state.Wait(ctx, &sr)
		}
		if cdpconn.IsContextGone(err) && attempt == 0 {
			w.Forget(frame)
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := DecodeResult(nil, res.ExceptionDetails, nil); err != nil {
			return nil, err
		}
		if res.Result == nil || res.Result.ObjectID == "" {
			return nil, nil
		}
		n := &Node{Session: s, Frame: frame, object: res.Result.ObjectID, group: group}
		if state == nil {
			return n, nil
		}
		var found struct {
			Missing bool          `json:"missing"`
			State   *ElementState `json:"state"`
		}
		if serr == nil {
			serr = DecodeResult(sr.Result, sr.ExceptionDetails, &found)
		}
		if serr != nil || found.Missing || found.State == nil {
			// Not read behind the question (its world was made again in
			// between): read it on the object now.
			if err := callNode(ctx, conn, w, n, jsState, st); err != nil {
				return nil, err
			}
			return n, nil
		}
		*st = *found.State
		return n, nil
	}
}

// jsFoundState is jsState of the element a FindElement question left
// under key: {state}, {state: null} when it found none, {missing: true}
// when the world holds no such key; jsFoundStateFocus, given ff, then its
// focus (jsStateFocus).
var jsFoundState, jsFoundStateFocus = foundStateJS(jsStateOf), foundStateJS(jsStateFocus)

func foundStateJS(state string) string {
	return "function(key, ff) {\n  if (!(key in globalThis)) return {missing: true};\n  const el = globalThis[key];\n  delete globalThis[key];\n  return {state: el ? (" + state + ")(el, ff) : null};\n}"
}

// Link is one visible link of a text read.
type Link struct {
	Text string `json:"text"`
	Href string `json:"href"`
}

// TextSlice is one page of a text read as the page sends it: the
// characters [offset, offset+max) of the text, and how many it has.
type TextSlice struct {
	Found bool   `json:"found"`
	Total int    `json:"total"`
	Text  string `json:"text"`
}

// Page is the page of the text the slice is, as snapshot.Cut would cut it
// from the whole text.
func (t TextSlice) Page(offset, max int) snapshot.Page {
	return snapshot.CutSlice(t.Text, offset, t.Total, max)
}

// ReadText is one slice of the visible text of the tab's main frame, or of
// the region a CSS or text= selector names there (snapshot.JSTextSlice):
// the whole text stays in the page, only the characters [offset,
// offset+max) are sent. key names the read in the page's world; again asks
// for the text the last read of that key kept (a later page of the same
// read). Found is false when the selector matches nothing.
func ReadText(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, key, sel string, offset, max int, again bool) (TextSlice, error) {
	var r TextSlice
	offset, max = sliceArgs(offset, max)
	err := w.CallFunction(ctx, conn.Session(tab.Session), tab.Main(), snapshot.JSTextSlice, &r, key, sel, offset, max, again)
	return r, err
}

// NodeText is ReadText of one element's rendered text.
func NodeText(ctx context.Context, conn *cdpconn.Conn, w *Worlds, e ElementRef, key string, offset, max int, again bool) (TextSlice, error) {
	var r TextSlice
	offset, max = sliceArgs(offset, max)
	err := w.CallOnNode(ctx, conn.Session(e.SessionID), e.FrameID, e.Backend, snapshot.JSTextSliceOn, &r, key, offset, max, again)
	r.Found = true
	return r, err
}

func sliceArgs(offset, max int) (int, int) {
	return maxInt(offset, 0), maxInt(max, 1)
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// Links are the visible links of a text read, at most maxLinks: of the tab's
// main frame or the region a selector names there (snapshot.JSLinks), or,
// when e is not nil, of that element, in whichever frame
// (snapshot.JSLinksOn). found is false when the selector matches nothing.
func Links(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, sel string, e *ElementRef, maxLinks int) (links []Link, truncated, found bool, err error) {
	var r struct {
		Found     bool   `json:"found"`
		Links     []Link `json:"links"`
		Truncated bool   `json:"truncated"`
	}
	if e != nil {
		err = w.CallOnNode(ctx, conn.Session(e.SessionID), e.FrameID, e.Backend, snapshot.JSLinksOn, &r, maxLinks)
	} else {
		err = w.CallFunction(ctx, conn.Session(tab.Session), tab.Main(), snapshot.JSLinks, &r, sel, maxLinks)
	}
	if err != nil {
		return nil, false, false, err
	}
	if r.Links == nil {
		r.Links = []Link{}
	}
	return r.Links, r.Truncated, r.Found, nil
}
