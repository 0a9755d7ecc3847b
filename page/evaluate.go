package page

import (
	"context"

	"github.com/lyrad/lyrad/cdpconn"
)

// Evaluate runs an agent's function (a JavaScript function expression) in
// lyrad's isolated world, never the page's own: on node when it is set
// (the function's argument), else on the frame f (called with none). It
// answers the JSON of what the function returned (awaited when it is a
// promise), "undefined" when it returned that. The isolated world shares
// the DOM and not the page's globals; what the function sets off (a form
// sent, a location set, a fetch) is a request the guard judges like any.
func Evaluate(ctx context.Context, conn *cdpconn.Conn, w *Worlds, f FrameRef, node *Node, fn string) (string, error) {
	// The function's source is the agent's; the new lines keep a trailing
	// comment in it from swallowing the call.
	var out string
	if node != nil {
		decl := "function() { const f = (\n" + fn + "\n); return Promise.resolve(f(this)).then(" + jsStringify + "); }"
		err := callNode(ctx, conn, w, node, decl, &out)
		return out, err
	}
	decl := "function() { const f = (\n" + fn + "\n); return Promise.resolve(f()).then(" + jsStringify + "); }"
	err := w.CallFunction(ctx, conn.Session(f.Session), f.Frame, decl, &out)
	return out, err
}

// jsStringify is the result as JSON text, in the isolated world: a value
// JSON cannot write (a cycle, a BigInt) says why instead.
const jsStringify = `(v) => { try { const s = JSON.stringify(v); return s === undefined ? "undefined" : s; } catch (e) { return JSON.stringify("(not JSON: " + e.message + ")"); } }`
