package page

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/snapshot"
)

// treeFetch is what a tree read asks Chrome: per target one layout
// snapshot, per frame one accessibility tree, and the viewport. Each is
// asked for as soon as it is known, all side by side: the tab's own target
// and main frame before its frames are even listed, since the list takes a
// round trip of its own and they are always part of the read.
type treeFetch struct {
	conn *cdpconn.Conn
	wg   sync.WaitGroup

	mu      sync.Mutex
	err     error
	layouts map[target.SessionID]*LayoutSnapshot
	ax      map[cdp.FrameID][]snapshot.AXNode
	asked   map[string]bool // "l"+session, "a"+frame, "m"
	vp      *cdppage.LayoutViewport
	steps   TreeSteps
}

// fetchTimeout bounds a tree read's command whose ctx has no deadline.
const fetchTimeout = 60 * time.Second

func newTreeFetch(conn *cdpconn.Conn) *treeFetch {
	return &treeFetch{conn: conn, layouts: map[target.SessionID]*LayoutSnapshot{},
		ax: map[cdp.FrameID][]snapshot.AXNode{}, asked: map[string]bool{}}
}

// ask sends one command, once per key, and reads its reply into result
// on a goroutine of its own, then calls done under the lock. The command is
// written before ask returns: Chrome answers one target's commands in the
// order they arrive, and the order is chosen (see StartTree).
func (tf *treeFetch) ask(ctx context.Context, key string, sid target.SessionID, method string, params, result any, done func(err error, took time.Duration)) {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if tf.asked[key] {
		return
	}
	tf.asked[key] = true
	start := time.Now()
	p, err := tf.conn.Session(sid).Send(method, params)
	if err != nil {
		done(err, 0)
		return
	}
	tf.wg.Add(1)
	go func() {
		defer tf.wg.Done()
		ctx := ctx
		if _, ok := ctx.Deadline(); !ok {
			// As Session.Call: a reply that never comes ends the read.
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, fetchTimeout)
			defer cancel()
		}
		err := p.Wait(ctx, result)
		took := time.Since(start)
		tf.mu.Lock()
		defer tf.mu.Unlock()
		done(err, took)
	}()
}

// failLocked keeps the first error; tf.mu is held.
func (tf *treeFetch) failLocked(err error) {
	if tf.err == nil {
		tf.err = err
	}
}

// wait waits for everything asked so far; the first error, if any.
func (tf *treeFetch) wait() error {
	tf.wg.Wait()
	tf.mu.Lock()
	defer tf.mu.Unlock()
	return tf.err
}

// layout asks for one target's DOMSnapshot.
func (tf *treeFetch) layout(ctx context.Context, sid target.SessionID) {
	raw := &rawSnapshot{}
	tf.ask(ctx, "l"+string(sid), sid, "DOMSnapshot.captureSnapshot", map[string]any{"computedStyles": []string{}}, raw, func(err error, took time.Duration) {
		if err != nil {
			tf.failLocked(fmt.Errorf("DOMSnapshot: %w", err))
			return
		}
		start := time.Now()
		l, err := decodeLayout(raw)
		if err != nil {
			tf.failLocked(err)
			return
		}
		tf.layouts[sid] = l
		tf.steps.Layout = max(tf.steps.Layout, took)
		tf.steps.LayoutDecode += time.Since(start)
	})
}

// axTree asks for one frame's accessibility tree. A frame that went away
// meanwhile reads as empty.
func (tf *treeFetch) axTree(ctx context.Context, sid target.SessionID, frame cdp.FrameID) {
	var r struct {
		Nodes []snapshot.AXNode `json:"nodes"`
	}
	tf.ask(ctx, "a"+string(frame), sid, "Accessibility.getFullAXTree", map[string]any{"frameId": frame}, &r, func(err error, took time.Duration) {
		if err != nil && !cdpconn.IsTargetGone(err) && !cdpconn.IsContextGone(err) {
			tf.failLocked(err)
			return
		}
		tf.ax[frame] = r.Nodes
		tf.steps.AX = max(tf.steps.AX, took)
		tf.steps.AXNodes += len(r.Nodes)
	})
}

// metrics asks for the tab's viewport.
func (tf *treeFetch) metrics(ctx context.Context, sid target.SessionID) {
	var r cdppage.GetLayoutMetricsResult
	tf.ask(ctx, "m", sid, cdppage.CommandGetLayoutMetrics, cdp.Empty{}, &r, func(err error, took time.Duration) {
		if err != nil {
			tf.failLocked(err)
			return
		}
		tf.vp = r.CSSLayoutViewport
		tf.steps.Metrics = took
	})
}
