package page

import (
	"context"
	"encoding/binary"
	"errors"
	"math"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/snapshot"
)

// PNGSize reads a PNG's width and height from its IHDR chunk.
func PNGSize(b []byte) (int, int, bool) {
	if len(b) < 24 || string(b[:8]) != "\x89PNG\r\n\x1a\n" || string(b[12:16]) != "IHDR" {
		return 0, 0, false
	}
	return int(binary.BigEndian.Uint32(b[16:20])), int(binary.BigEndian.Uint32(b[20:24])), true
}

// maxCaptureSide bounds a capture's height and width in CSS pixels: Chrome
// cannot paint a taller surface in one piece.
const maxCaptureSide = 16384

// Screenshot captures the tab's viewport as a PNG, or the whole page
// (clipped reports it was cut to maxCaptureSide).
func Screenshot(ctx context.Context, conn *cdpconn.Conn, tab Tab, fullPage bool) (png []byte, clipped bool, err error) {
	s := conn.Session(tab.Session)
	p := cdppage.CaptureScreenshotParams{Format: cdppage.CaptureScreenshotFormatPng}
	if fullPage {
		lm, err := cdp.Call(ctx, s, cdppage.GetLayoutMetrics, cdp.Empty{})
		if err != nil {
			return nil, false, err
		}
		w, h := lm.CSSContentSize.Width, lm.CSSContentSize.Height
		if h > maxCaptureSide || w > maxCaptureSide {
			clipped = true
			w, h = min(w, maxCaptureSide), min(h, maxCaptureSide)
		}
		t := true
		p.Clip = &cdppage.Viewport{X: 0, Y: 0, Width: math.Ceil(w), Height: math.Ceil(h), Scale: 1}
		p.CaptureBeyondViewport = &t
	}
	shot, err := cdp.Call(ctx, s, cdppage.CaptureScreenshot, p)
	if err != nil {
		return nil, false, err
	}
	return shot.Data, clipped, nil
}

// ElementBox is what an element renders: its tag and its box in its
// frame's viewport.
type ElementBox struct {
	Tag       string  `json:"tag"`
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
	W         float64 `json:"w"`
	H         float64 `json:"h"`
	Connected bool    `json:"connected"`
}

// ElementInfo reads the element's tag and box (snapshot.JSElementInfo).
func ElementInfo(ctx context.Context, conn *cdpconn.Conn, w *Worlds, e ElementRef) (ElementBox, error) {
	var info ElementBox
	err := w.CallOnNode(ctx, conn.Session(e.SessionID), e.FrameID, e.Backend, snapshot.JSElementInfo, &info)
	return info, err
}

// CaptureElement captures the PNG of the w x h box at x, y of the tab's
// document (ToTabCoords), each side cut to maxCaptureSide.
func CaptureElement(ctx context.Context, conn *cdpconn.Conn, tab Tab, x, y, w, h float64) ([]byte, error) {
	w, h = min(w, maxCaptureSide), min(h, maxCaptureSide)
	t := true
	shot, err := cdp.Call(ctx, conn.Session(tab.Session), cdppage.CaptureScreenshot, cdppage.CaptureScreenshotParams{
		Format: cdppage.CaptureScreenshotFormatPng, CaptureBeyondViewport: &t,
		Clip: &cdppage.Viewport{X: x, Y: y, Width: w, Height: h, Scale: 1},
	})
	if err != nil {
		return nil, err
	}
	return shot.Data, nil
}

// ErrFrameGone: the element's frame is no longer among the tab's frames.
var ErrFrameGone = errors.New("the element's frame is gone")

// FramePlaceError: the browser would not name the iframe element of one
// of the frames between the element and the tab.
type FramePlaceError struct{ Err error }

func (e *FramePlaceError) Error() string {
	return "cannot place the element's frame on the page: " + e.Err.Error()
}

func (e *FramePlaceError) Unwrap() error { return e.Err }

// ToTabCoords moves a point from a frame's viewport to the tab's document:
// each frame adds where its iframe element's content stands in its
// parent, then the main frame's scroll. A frame no longer there is
// ErrFrameGone; one whose iframe element cannot be named, a
// *FramePlaceError.
func ToTabCoords(ctx context.Context, conn *cdpconn.Conn, w *Worlds, tab Tab, frame cdp.FrameID, x, y float64) (float64, float64, error) {
	main := tab.Main()
	var frames map[cdp.FrameID]*Frame
	for cur := frame; cur != main; {
		if frames == nil {
			var err error
			if frames, err = TabFrames(ctx, conn, tab); err != nil {
				return 0, 0, err
			}
		}
		f := frames[cur]
		if f == nil {
			return 0, 0, ErrFrameGone
		}
		parent := frames[f.Parent]
		if parent == nil {
			parent = frames[main] // an out-of-process root whose parent its target does not name
		}
		if parent == nil {
			return 0, 0, ErrFrameGone // the main frame itself went away
		}
		owner, err := cdp.Call(ctx, conn.Session(parent.Session), dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: cur})
		if err != nil {
			return 0, 0, &FramePlaceError{Err: err}
		}
		var off struct{ X, Y float64 }
		err = w.CallOnNode(ctx, conn.Session(parent.Session), parent.ID, owner.BackendNodeID,
			jsContentBox, &off)
		if err != nil {
			return 0, 0, err
		}
		x, y = x+off.X, y+off.Y
		cur = parent.ID
	}
	var scroll struct{ X, Y float64 }
	if err := w.CallFunction(ctx, conn.Session(tab.Session), main, jsWindowScroll, &scroll); err != nil {
		return 0, 0, err
	}
	return x + scroll.X, y + scroll.Y, nil
}

// Find is the first element a CSS selector names in frame f, open shadow
// roots included; 0 when none does.
func Find(ctx context.Context, conn *cdpconn.Conn, w *Worlds, f FrameRef, selector string) (cdp.BackendNodeID, error) {
	return FindNode(ctx, conn, w, f.Session, f.Frame, snapshot.JSFind, selector)
}
