package page

import (
	"context"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// FrameTrees lets the reads an acting call makes before its input share one
// Page.getFrameTree per session: resolving a ref checks its documents,
// INTERACT is judged on the element's frame, and the map before the input
// is kept only if the tab still shows the document it was read of; all
// three ask the same tree within a few milliseconds, with nothing done to
// the page in between. Carried by a context (WithFrameTrees), it is
// consulted by FrameLoaders and FrameDocument only; WaitActionable forgets
// it at each look, so a target that is waited for is judged on the frames
// as they stood when it was found usable.
type FrameTrees struct {
	mu    sync.Mutex
	trees map[target.SessionID]*frameTreeCall
}

// frameTreeCall is one session's tree, read once: the first asker reads,
// the others (concurrent or later) wait for that read.
type frameTreeCall struct {
	done chan struct{}
	tree *cdppage.FrameTree
	err  error
}

type frameTreesKey struct{}

// WithFrameTrees carries ft in ctx.
func WithFrameTrees(ctx context.Context, ft *FrameTrees) context.Context {
	return context.WithValue(ctx, frameTreesKey{}, ft)
}

// Forget drops what ft holds: the next asker reads again.
func (ft *FrameTrees) Forget() {
	if ft == nil {
		return
	}
	ft.mu.Lock()
	ft.trees = nil
	ft.mu.Unlock()
}

// held is session sid's tree as ft holds it, read already; nil when it
// holds none (or its read failed or is under way).
func (ft *FrameTrees) held(sid target.SessionID) *cdppage.FrameTree {
	if ft == nil {
		return nil
	}
	ft.mu.Lock()
	c := ft.trees[sid]
	ft.mu.Unlock()
	if c == nil {
		return nil
	}
	select {
	case <-c.done:
		return c.tree
	default:
		return nil
	}
}

// lookFrameTrees starts a look of WaitActionable: what ctx's FrameTrees
// holds is dropped, and the tab's tree is asked for at once, beside the
// look (the element's site and the map's document are asked of it next,
// and the ref's check joins the same read).
func lookFrameTrees(ctx context.Context, conn *cdpconn.Conn, sid target.SessionID) {
	ft, _ := ctx.Value(frameTreesKey{}).(*FrameTrees)
	if ft == nil {
		return
	}
	ft.Forget()
	go func() { _, _ = frameTree(ctx, conn, sid) }()
}

// frameTree is session sid's frame tree: the one ctx's FrameTrees holds,
// else read now (and held, when ctx carries one). A failed read is not
// held.
func frameTree(ctx context.Context, conn *cdpconn.Conn, sid target.SessionID) (*cdppage.FrameTree, error) {
	ft, _ := ctx.Value(frameTreesKey{}).(*FrameTrees)
	if ft == nil {
		return readFrameTree(ctx, conn, sid)
	}
	ft.mu.Lock()
	c, ok := ft.trees[sid]
	if !ok {
		c = &frameTreeCall{done: make(chan struct{})}
		if ft.trees == nil {
			ft.trees = map[target.SessionID]*frameTreeCall{}
		}
		ft.trees[sid] = c
	}
	ft.mu.Unlock()
	if !ok {
		c.tree, c.err = readFrameTree(ctx, conn, sid)
		close(c.done)
		if c.err != nil {
			ft.mu.Lock()
			if ft.trees[sid] == c {
				delete(ft.trees, sid)
			}
			ft.mu.Unlock()
		}
		return c.tree, c.err
	}
	select {
	case <-c.done:
		if c.err != nil {
			// The reader's read failed (its ctx may have been another's):
			// read for this asker.
			return readFrameTree(ctx, conn, sid)
		}
		return c.tree, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readFrameTree asks session sid for its frame tree.
func readFrameTree(ctx context.Context, conn *cdpconn.Conn, sid target.SessionID) (*cdppage.FrameTree, error) {
	res, err := cdp.Call(ctx, conn.Session(sid), cdppage.GetFrameTree, cdp.Empty{})
	if err != nil {
		return nil, err
	}
	return res.FrameTree, nil
}
