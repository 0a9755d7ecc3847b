package page

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
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

func newTreeFetch(conn *cdpconn.Conn) *treeFetch {
	return &treeFetch{conn: conn, layouts: map[target.SessionID]*LayoutSnapshot{},
		ax: map[cdp.FrameID][]snapshot.AXNode{}, asked: map[string]bool{}}
}

// ask starts fn once per key.
func (tf *treeFetch) ask(key string, fn func()) {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if tf.asked[key] {
		return
	}
	tf.asked[key] = true
	tf.wg.Add(1)
	go func() {
		defer tf.wg.Done()
		fn()
	}()
}

func (tf *treeFetch) fail(err error) {
	tf.mu.Lock()
	defer tf.mu.Unlock()
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
	tf.ask("l"+string(sid), func() {
		start := time.Now()
		l, st, err := captureLayout(ctx, tf.conn.Session(sid))
		if err != nil {
			tf.fail(err)
			return
		}
		tf.mu.Lock()
		defer tf.mu.Unlock()
		tf.layouts[sid] = l
		tf.steps.Layout = max(tf.steps.Layout, time.Since(start))
		tf.steps.LayoutDecode += st.decode
		tf.steps.LayoutBytes += st.bytes
	})
}

// axTree asks for one frame's accessibility tree. A frame that went away
// meanwhile reads as empty.
func (tf *treeFetch) axTree(ctx context.Context, sid target.SessionID, frame cdp.FrameID) {
	tf.ask("a"+string(frame), func() {
		start := time.Now()
		var raw jsonv2.Value
		err := tf.conn.Session(sid).Call(ctx, "Accessibility.getFullAXTree", map[string]any{"frameId": frame}, &raw)
		if err != nil && !cdpconn.IsTargetGone(err) && !cdpconn.IsContextGone(err) {
			tf.fail(err)
			return
		}
		called := time.Now()
		var r struct {
			Nodes []snapshot.AXNode `json:"nodes"`
		}
		if err == nil {
			if err := jsonv2.Unmarshal(raw, &r, jsonv2.AllowInvalidUTF8(true)); err != nil {
				tf.fail(fmt.Errorf("getFullAXTree: %w", err))
				return
			}
		}
		tf.mu.Lock()
		defer tf.mu.Unlock()
		tf.ax[frame] = r.Nodes
		tf.steps.AX = max(tf.steps.AX, called.Sub(start))
		tf.steps.AXDecode += time.Since(called)
		tf.steps.AXBytes += len(raw)
	})
}

// metrics asks for the tab's viewport.
func (tf *treeFetch) metrics(ctx context.Context, sid target.SessionID) {
	tf.ask("m", func() {
		start := time.Now()
		lm, err := cdp.Call(ctx, tf.conn.Session(sid), cdppage.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			tf.fail(err)
			return
		}
		tf.mu.Lock()
		defer tf.mu.Unlock()
		tf.vp = lm.CSSLayoutViewport
		tf.steps.Metrics = time.Since(start)
	})
}
