package page

import (
	"context"
	"errors"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// Moving a tab (Navigate, StopLoading, its history) and telling which
// document a frame shows and which frame holds the focus.

// Navigation is what the browser answered a navigation: the loader of the
// document it loads ("" for a move within the document, a fragment), or
// why it failed (ErrorText; a navigation that turned into a download is
// aborted too).
type Navigation struct {
	Loader    cdp.LoaderID
	ErrorText string
}

// Navigate sends tab to url (Page.navigate). Waiting for the load is the
// Watcher's (Load).
func Navigate(ctx context.Context, conn *cdpconn.Conn, tab Tab, url string) (Navigation, error) {
	nav, err := cdp.Call(ctx, conn.Session(tab.Session), cdppage.Navigate, cdppage.NavigateParams{URL: url})
	if err != nil {
		return Navigation{}, err
	}
	return Navigation{Loader: nav.LoaderID, ErrorText: nav.ErrorText}, nil
}

// StopLoading stops what tab is still loading.
func StopLoading(ctx context.Context, conn *cdpconn.Conn, tab Tab) error {
	_, err := cdp.Call(ctx, conn.Session(tab.Session), cdppage.StopLoading, cdp.Empty{})
	return err
}

// Reload reloads tab.
func Reload(ctx context.Context, conn *cdpconn.Conn, tab Tab) error {
	_, err := cdp.Call(ctx, conn.Session(tab.Session), cdppage.Reload, cdppage.ReloadParams{})
	return err
}

// HistoryEntry is one entry of a tab's history.
type HistoryEntry struct {
	ID  int64
	URL string
}

// History is a tab's history: its entries and the one it shows.
type History struct {
	Current int
	Entries []HistoryEntry
}

// Back is the entry before the current one; ok is false when there is
// none.
func (h History) Back() (HistoryEntry, bool) {
	if h.Current <= 0 || h.Current > len(h.Entries) {
		return HistoryEntry{}, false
	}
	return h.Entries[h.Current-1], true
}

// TabHistory reads tab's history.
func TabHistory(ctx context.Context, conn *cdpconn.Conn, tab Tab) (History, error) {
	h, err := cdp.Call(ctx, conn.Session(tab.Session), cdppage.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return History{}, err
	}
	out := History{Current: int(h.CurrentIndex), Entries: make([]HistoryEntry, len(h.Entries))}
	for i, e := range h.Entries {
		if e != nil {
			out.Entries[i] = HistoryEntry{ID: e.ID, URL: e.URL}
		}
	}
	return out, nil
}

// GoToEntry moves tab to the history entry id.
func GoToEntry(ctx context.Context, conn *cdpconn.Conn, tab Tab, id int64) error {
	_, err := cdp.Call(ctx, conn.Session(tab.Session), cdppage.NavigateToHistoryEntry, cdppage.NavigateToHistoryEntryParams{EntryID: id})
	return err
}

// FrameDocument is the URL of the document frame f shows, as its renderer
// has it committed, and its security origin. A frame that is gone is a
// *NodeGoneError. The tree is ctx's FrameTrees' when it carries one.
func FrameDocument(ctx context.Context, conn *cdpconn.Conn, f FrameRef) (url, securityOrigin string, err error) {
	tree, err := frameTree(ctx, conn, f.Session)
	if err != nil {
		return "", "", err
	}
	fr := findFrame(tree, f.Frame)
	if fr == nil {
		return "", "", &NodeGoneError{Err: errors.New("its frame went away")}
	}
	return fr.URL, fr.SecurityOrigin, nil
}

// FrameOwnerIn is the backendNodeId of the element that holds frame in
// the document session sid reaches (DOM.getFrameOwner).
func FrameOwnerIn(ctx context.Context, conn *cdpconn.Conn, sid target.SessionID, frame cdp.FrameID) (cdp.BackendNodeID, error) {
	r, err := cdp.Call(ctx, conn.Session(sid), dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: frame})
	if err != nil {
		return 0, err
	}
	return r.BackendNodeID, nil
}

// FocusedFrame is the frame a key press reaches: from the tab's main
// frame, down through each document whose focused element is a frame,
// same-process or not. Handles are held in group.
func FocusedFrame(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, group string) (FrameRef, error) {
	oopif := map[cdp.FrameID]target.SessionID{}
	for _, f := range tab.oopifs() {
		oopif[f.Frame] = f.Session
	}
	f := FrameRef{Session: tab.Session, Frame: tab.Main()}
	for depth := 0; depth < 8; depth++ {
		child, err := focusedChild(ctx, conn, w, f, group)
		if err != nil || child == "" {
			return f, err
		}
		if sid, ok := oopif[child]; ok {
			f = FrameRef{Session: sid, Frame: child}
		} else {
			f = FrameRef{Session: f.Session, Frame: child}
		}
	}
	return f, nil
}

// focusedChild is the frame inside frame f that holds the focus, or "".
func focusedChild(ctx context.Context, conn *cdpconn.Conn, w *Worlds, f FrameRef, group string) (cdp.FrameID, error) {
	s := conn.Session(f.Session)
	for attempt := 0; ; attempt++ {
		id, err := w.Get(ctx, s, f.Frame, attempt > 0)
		if err != nil {
			return "", err
		}
		t := true
		res, err := cdp.Call(ctx, s, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: jsFocusedFrame, ExecutionContextID: id, ObjectGroup: group, Silent: &t,
		})
		if cdpconn.IsContextGone(err) && attempt == 0 {
			w.Forget(f.Frame)
			continue
		}
		if err != nil {
			return "", err
		}
		if res.ExceptionDetails != nil || res.Result == nil || res.Result.ObjectID == "" {
			return "", nil
		}
		d, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: res.Result.ObjectID})
		if err != nil || d.Node == nil {
			return "", err
		}
		if d.Node.FrameID == f.Frame {
			return "", nil
		}
		return d.Node.FrameID, nil
	}
}

// SetFiles gives the file input n the files at paths (DOM.setFileInputFiles).
func SetFiles(ctx context.Context, conn *cdpconn.Conn, n *Node, paths []string) error {
	p := dom.SetFileInputFilesParams{Files: paths}
	if err := n.domParams(ctx, conn, &p.ObjectID, &p.BackendNodeID); err != nil {
		return err
	}
	_, err := cdp.Call(ctx, conn.Session(n.Session), dom.SetFileInputFiles, p)
	return err
}

// BringToFront focuses the tab session sid reaches, as a person's click on
// it does (Target.activateTarget selects a tab without focusing it).
func BringToFront(ctx context.Context, conn *cdpconn.Conn, sid target.SessionID) error {
	_, err := cdp.Call(ctx, conn.Session(sid), cdppage.BringToFront, cdp.Empty{})
	return err
}

// ReportLifecycle asks the page a Sender reaches to report its lifecycle
// events (the load states a navigation waits for).
func ReportLifecycle(q Sender) {
	q.Send(cdppage.SetLifecycleEventsEnabled.Method, cdppage.SetLifecycleEventsEnabledParams{Enabled: true})
}
