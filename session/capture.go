package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
)

// Capture is a PNG that screenshot or read_image wrote.
type Capture struct {
	Path   string
	Width  int // pixels
	Height int
	Bytes  int
	Data   []byte // the PNG, for inline=true
	Tag    string // read_image: the element's tag
}

// Screenshot captures the viewport, or the whole page. A read.
func (m *Manager) Screenshot(ctx context.Context, c Caller, fullPage bool) (*Capture, bool, error) {
	b, tab, done, err := m.enterTab(ctx, c, read)
	defer done()
	if err != nil {
		return nil, false, err
	}
	png, clipped, err := page.Screenshot(ctx, b.conn, b.pageTab(tab), fullPage)
	if err != nil {
		return nil, false, callError(ctx, err, "screenshot")
	}
	capt, err := saveCapture(m.cfg, "page", png)
	return capt, clipped, err
}

// ReadImage captures the pixels one element renders (an img, a canvas, an
// svg, a chart). Nothing is fetched: it is a crop of what the page painted.
func (m *Manager) ReadImage(ctx context.Context, c Caller, selector string) (*Capture, error) {
	b, tab, done, err := m.enterTab(ctx, c, read)
	defer done()
	if err != nil {
		return nil, err
	}
	e := page.ElementRef{TabID: tab.ID, SessionID: tab.SessionID, FrameID: cdp.FrameID(tab.ID)}
	if IsRef(selector) {
		if e, err = b.resolveRef(ctx, selector); err != nil {
			return nil, err
		}
	} else {
		n, err := page.Find(ctx, b.conn, &b.worlds, page.FrameRef{Session: tab.SessionID, Frame: cdp.FrameID(tab.ID)}, selector)
		if err != nil {
			return nil, readErr(ctx, err, selector)
		}
		if n == 0 {
			return nil, noMatch(selector)
		}
		e.Backend = n
	}
	info, err := page.ElementInfo(ctx, b.conn, &b.worlds, e)
	if err != nil {
		return nil, readErr(ctx, err, selector)
	}
	if info.W < 1 || info.H < 1 {
		return nil, newError("hidden", fmt.Sprintf("the %s has no size on the page (%.0fx%.0f)", info.Tag, info.W, info.H),
			"It is not rendered right now: wait_for(selector=..., state=\"visible\"), or scroll to it, then try again.").on(selector)
	}
	// Into the tab's document coordinates: each frame adds where its
	// iframe element stands in its parent, then the main frame's scroll.
	x, y, err := b.toTabCoords(ctx, tab, e.FrameID, info.X, info.Y)
	if err != nil {
		return nil, err
	}
	png, err := page.CaptureElement(ctx, b.conn, b.pageTab(tab), x, y, info.W, info.H)
	if err != nil {
		return nil, callError(ctx, err, "read_image")
	}
	capt, err := saveCapture(m.cfg, "image", png)
	if capt != nil {
		capt.Tag = info.Tag
	}
	return capt, err
}

// toTabCoords moves a point from a frame's viewport to the tab's document
// (page.ToTabCoords).
func (b *Browser) toTabCoords(ctx context.Context, tab cdpguard.Target, frame cdp.FrameID, x, y float64) (float64, float64, error) {
	x, y, err := page.ToTabCoords(ctx, b.conn, &b.worlds, b.pageTab(tab), frame, x, y)
	var pe *page.FramePlaceError
	switch {
	case err == nil:
		return x, y, nil
	case errors.Is(err, page.ErrFrameGone):
		return 0, 0, newError("not_found", "the element's frame is gone", RefHint)
	case errors.As(err, &pe):
		return 0, 0, newError(StatusError, pe.Error(), "Capture the frame's element with screenshot instead.")
	}
	return 0, 0, callError(ctx, err, "read_image")
}

// captureName is how lyrad names its captures; pruning touches nothing
// else in the directory.
var captureName = regexp.MustCompile(`^(page|image)-\d{8}T\d{6}Z-[0-9a-f]{8}\.png$`)

// saveCapture writes a PNG into cfg's CaptureDir atomically (a temporary
// file renamed into place, so a reader never sees half a picture), then
// prunes the oldest captures beyond CaptureKeep.
func saveCapture(cfg Config, kind string, data []byte) (*Capture, error) {
	w, h, ok := page.PNGSize(data)
	if !ok {
		return nil, newError(StatusError, "the browser returned no PNG", "Try again.")
	}
	dir := cfg.CaptureDir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, newError(StatusError, "cannot create the capture directory: "+err.Error(), "Check LYRA_BROWSER_CAPTURE_DIR.")
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	name := fmt.Sprintf("%s-%s-%s.png", kind, time.Now().UTC().Format("20060102T150405Z"), hex.EncodeToString(rnd[:]))
	path := filepath.Join(dir, name)
	if err := writeFileAtomic(path, data, 0o600); err != nil {
		return nil, newError(StatusError, "cannot write the capture: "+err.Error(), "Check LYRA_BROWSER_CAPTURE_DIR and free space.")
	}
	pruneCaptures(dir, cfg.CaptureKeep)
	return &Capture{Path: path, Width: w, Height: h, Bytes: len(data), Data: data}, nil
}

// pruneCaptures removes lyrad's oldest captures beyond keep.
func pruneCaptures(dir string, keep int) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range ents {
		if !e.Type().IsRegular() || !captureName.MatchString(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, file{e.Name(), info.ModTime()})
	}
	if len(files) <= keep {
		return
	}
	// Oldest first; the name's timestamp breaks a tie within a second.
	sort.Slice(files, func(i, j int) bool {
		if !files[i].mod.Equal(files[j].mod) {
			return files[i].mod.Before(files[j].mod)
		}
		return files[i].name < files[j].name
	})
	for _, f := range files[:len(files)-keep] {
		_ = os.Remove(filepath.Join(dir, f.name))
	}
}

// writeFileAtomic writes data to a new file beside path, with mode, and
// renames it over path: a reader never sees half a file.
func writeFileAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
