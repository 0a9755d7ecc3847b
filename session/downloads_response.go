package session

import (
	"mime"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/download"
)

// refusedFold is how long after a response was refused the download the
// browser announces for it is taken as the same one.
const refusedFold = 5 * time.Second

// refuseResponse is the guard's look at a document response before its
// body reaches the browser (cdpguard.Options.RefuseResponse). A response
// that is a download (Content-Disposition: attachment, or a request the
// browser's download manager made, <a download>) that no waiting call
// declared is answered with an empty 204: no byte of it is written
// anywhere, the browser's temporary file included. What this cannot see
// (a blob or data: URL, a download decided by its media type) is still
// denied by the browser's download behaviour.
func (d *downloads) refuseResponse(r cdpguard.Response) bool {
	if r.Status < 200 || r.Status >= 300 || !(isAttachment(r.ContentDisposition) || r.NoAccept) {
		return false
	}
	d.mu.Lock()
	if d.rules.observe || d.claimLocked(r.TabID) != nil || (d.userDriven != nil && d.userDriven()) {
		d.mu.Unlock()
		return false
	}
	_, doc, _ := d.frameOf(r.FrameID)
	it := &dlItem{
		filename:     download.SanitizeName(responseFilename(r)),
		origin:       urlOrigin(r.URL),
		initiator:    urlOrigin(doc),
		tab:          r.TabID,
		cancelReason: "blocked",
	}
	if it.initiator == "" && d.opener != nil && r.TabID != "" {
		if op := d.opener(r.TabID); op != "" {
			_, odoc, _ := d.frameOf(cdp.FrameID(op))
			it.initiator = urlOrigin(odoc)
		}
	}
	if d.refused == nil {
		d.refused = map[string]time.Time{}
	}
	for u, at := range d.refused {
		if time.Since(at) > refusedFold {
			delete(d.refused, u)
		}
	}
	d.refused[r.URL] = time.Now()
	d.rememberBlockedLocked(BlockedDownload{At: time.Now(), Tab: r.TabID, Filename: it.filename, URLOrigin: it.origin})
	d.mu.Unlock()
	d.row(it, "blocked", map[string]any{"stopped_at": "response"})
	return true
}

func isAttachment(cd string) bool {
	kind, _, _ := strings.Cut(cd, ";")
	return strings.EqualFold(strings.TrimSpace(kind), "attachment")
}

// responseFilename is the name the site gave (filename* or filename), else
// the last segment of the URL's path, as the browser would suggest it.
func responseFilename(r cdpguard.Response) string {
	if _, params, err := mime.ParseMediaType(r.ContentDisposition); err == nil && params["filename"] != "" {
		return params["filename"]
	}
	if u, err := url.Parse(r.URL); err == nil {
		if base := path.Base(u.Path); base != "/" && base != "." {
			return base
		}
	}
	return ""
}

// refuseResponse is the guard's hook for this browser: nothing is refused
// before its download tracker runs (the launch's blank tab).
func (b *Browser) refuseResponse(r cdpguard.Response) bool {
	b.mu.Lock()
	d := b.downloads
	b.mu.Unlock()
	return d != nil && d.refuseResponse(r)
}
