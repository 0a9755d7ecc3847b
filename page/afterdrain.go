package page

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/snapshot"
)

// Reads queued behind a drain. What an acting call reads once its input
// settled (the field's value, the map after) must come after the drain:
// the page ran what the input queued by then. Sent after the drain's
// answer, each costs a round trip more; sent right behind the drain, in
// the same frame's world, each waits in the page for the drain's task
// (its gate) and runs as soon as it has, so the answers follow the drain's
// own by the time the reads take. A read that finds no gate of its drain
// (the world was made again in between, or another drain came first)
// answers so, and is made again after the drain, the ordinary way.

// drainGates numbers the gates.
var drainGates atomic.Int64

// TypingTimer names a new wait for FocusText and StartDrain.
func TypingTimer() string { return "t" + strconv.FormatInt(drainGates.Add(1), 10) }

// Drained is a drain under way in one frame (StartDrain), with the reads
// queued behind it.
type Drained struct {
	conn  *cdpconn.Conn
	w     *Worlds
	f     FrameRef
	s     *cdpconn.Session
	ctxID runtime.ExecutionContextID
	token string
	wait  time.Duration

	done    chan struct{} // closed once the drain answered
	closing bool
	err     error
}

// StartDrain sends a drain of frame f timed wait after the call
// (DrainAfter), or after the input event that started timer
// (FocusText), with a gate for the reads queued behind it, and returns
// without waiting for it. It fails only when the frame's world cannot be
// had; the caller then drains the ordinary way.
func StartDrain(ctx context.Context, conn *cdpconn.Conn, w *Worlds, f FrameRef, wait time.Duration, timer string) (*Drained, error) {
	s := conn.Session(f.Session)
	id, err := w.Get(ctx, s, f.Frame, false)
	if err != nil {
		return nil, err
	}
	d := &Drained{conn: conn, w: w, f: f, s: s, ctxID: id, token: "g" + strconv.FormatInt(drainGates.Add(1), 10), wait: wait, done: make(chan struct{})}
	p, err := d.send(jsDrain, "", wait.Milliseconds(), d.token, timer)
	if err != nil {
		return nil, err
	}
	go func() {
		defer close(d.done)
		var r runtime.CallFunctionOnResult
		err := p.Wait(ctx, &r)
		if cdpconn.IsContextGone(err) {
			// Its world went with its document; drain the new one.
			w.Forget(f.Frame)
			d.closing, d.err = DrainAfter(ctx, conn, w, f, wait)
			return
		}
		if err == nil {
			err = DecodeResult(r.Result, r.ExceptionDetails, &d.closing)
		}
		d.err = err
	}()
	return d, nil
}

// Done is closed once the drain answered.
func (d *Drained) Done() <-chan struct{} { return d.done }

// Result is the drain's answer once Done is closed: whether the window is
// closing.
func (d *Drained) Result() (closing bool, err error) {
	<-d.done
	return d.closing, d.err
}

// send sends fn in the drain's world: on the object obj when given, else
// in the frame's context.
func (d *Drained) send(fn string, obj runtime.RemoteObjectID, args ...any) (*cdpconn.Pending, error) {
	callArgs, err := scriptArgs(args)
	if err != nil {
		return nil, err
	}
	t, f := true, false
	p := runtime.CallFunctionOnParams{FunctionDeclaration: fn, Arguments: callArgs,
		ReturnByValue: &t, AwaitPromise: &t, Silent: &t, UserGesture: &f}
	if obj != "" {
		p.ObjectID = obj
	} else {
		p.ExecutionContextID = d.ctxID
	}
	return d.s.Send(runtime.CommandCallFunctionOn, p)
}

// gated wraps fn so that it runs once the gate its first argument names
// has opened, with the other arguments; it answers {r: fn's answer}, or
// {ungated: true} when the world holds no such gate.
func gated(fn string) string {
	return `async function(gate, ...args) {
  const g = globalThis.__lyradGate;
  if (!g || g.token !== gate) return {ungated: true};
  await g.p;
  return {r: await (` + fn + `).apply(this, args)};
}`
}

var (
	jsFieldValueGated = gated(jsFieldValue)
	jsTreeAgainGated  = gated(snapshot.JSTreeAgain)
)

// gatedReply is a gated read's answer.
type gatedReply struct {
	Ungated bool         `json:"ungated"`
	R       jsonv2.Value `json:"r"`
}

// gatedRead is one read queued behind a drain.
type gatedRead struct {
	p   *cdpconn.Pending
	err error
}

// queue sends fn gated behind the drain; a read that could not be sent
// answers as ungated.
func (d *Drained) queue(fn string, obj runtime.RemoteObjectID, args ...any) *gatedRead {
	p, err := d.send(fn, obj, append([]any{d.token}, args...)...)
	return &gatedRead{p: p, err: err}
}

// wait decodes the read's answer into out; ok is false when it did not run
// behind the drain (it must be made again).
func (g *gatedRead) wait(ctx context.Context, out any) (ok bool, err error) {
	if g.err != nil || g.p == nil {
		return false, nil
	}
	var r runtime.CallFunctionOnResult
	if err := g.p.Wait(ctx, &r); err != nil {
		if ctx.Err() != nil {
			return false, err
		}
		return false, nil // its object or world is gone: read again
	}
	var rep gatedReply
	if err := DecodeResult(r.Result, r.ExceptionDetails, &rep); err != nil {
		return false, err
	}
	if rep.Ungated {
		return false, nil
	}
	if out == nil || len(rep.R) == 0 || string(rep.R) == "null" {
		return true, nil
	}
	return true, jsonv2.Unmarshal(rep.R, out)
}

// PendingField is a field's value read behind a drain (Drained.Field).
type PendingField struct {
	d *Drained
	n *Node
	g *gatedRead
}

// Field queues the read of what the field n holds (FieldValue) behind the
// drain; n must be of the drain's frame, its object held.
func (d *Drained) Field(n *Node) *PendingField {
	pf := &PendingField{d: d, n: n}
	if n.object != "" && n.Session == d.f.Session && n.Frame == d.f.Frame {
		pf.g = d.queue(jsFieldValueGated, n.object)
	}
	return pf
}

// Read is what the field holds once the drain ran: the read queued behind
// it, or, when that did not run there, a read made now.
func (pf *PendingField) Read(ctx context.Context) (Field, error) {
	var f Field
	if pf.g != nil {
		if ok, err := pf.g.wait(ctx, &f); ok || err != nil {
			return f, err
		}
	}
	select {
	case <-pf.d.done:
	case <-ctx.Done():
		return f, ctx.Err()
	}
	return FieldValue(ctx, pf.d.conn, pf.d.w, pf.n)
}

// PendingTree is a whole-page tree read whose walk of the main frame is
// queued behind a drain of the main frame (Drained.Tree).
type PendingTree struct {
	d      *Drained
	region Region
	g      *gatedRead
	before *cdppage.FrameTree // the tab's frames before the input, when held
}

// Tree queues the walk of the main frame's document for a whole-page read
// (region: only Nest counts) behind the drain, which must be of the tab's
// main frame. ft holds the frame trees the call read before its input, or
// is nil.
func (d *Drained) Tree(region Region, ft *FrameTrees) *PendingTree {
	region = Region{Nest: region.Nest}
	return &PendingTree{d: d, region: region, g: d.queue(jsTreeAgainGated, "", rootArg(region)), before: ft.held(d.f.Session)}
}

// ReadTreeAfter is ReadTree of the whole page once pt's drain ran. Its
// main frame's walk is the one queued behind the drain (walked again when
// it did not run there, or found no read function left by an earlier
// walk). The frames are listed after the drain's answer; a page that had
// no frame but its main one before the input, and whose walk finds no
// frame element, is read as that one frame, without waiting for the list.
func ReadTreeAfter(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, pt *PendingTree) (*Tree, error) {
	select {
	case <-pt.d.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	var queued *treeResult
	ok, err := false, error(nil)
	walked := make(chan struct{})
	go func() {
		defer close(walked)
		ok, err = pt.g.wait(ctx, &queued)
	}()
	walkRoot := func(ctx context.Context, out *treeResult) error {
		<-walked
		switch {
		case err != nil:
			return err
		case ok && queued != nil:
			*out = *queued
			return nil
		case ok:
			return w.CallFunction(ctx, conn.Session(tab.Session), tab.Main(), snapshot.JSTree, out, rootArg(pt.region))
		}
		return walkDoc(ctx, conn, w, tab.Session, tab.Main(), rootArg(pt.region), out)
	}
	if b := pt.before; b != nil && b.Frame != nil && b.Frame.ID == tab.Main() && len(b.ChildFrames) == 0 && len(tab.oopifs()) == 0 {
		<-walked
		if err == nil && ok && queued != nil && len(queued.Frames) == 0 {
			// One document, as before the input: its frame is the one the
			// tree held then (a document loaded since is the watcher's
			// navigation, whose answer reads no map).
			main := &Frame{ID: tab.Main(), Session: tab.Session, Loader: b.Frame.LoaderID}
			return readTree(ctx, conn, w, tab, pt.region, walkRoot, map[cdp.FrameID]*Frame{main.ID: main})
		}
	}
	return readTree(ctx, conn, w, tab, pt.region, walkRoot, nil)
}
