package download

import (
	"mime"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpguard"
)

// refusedFold is how long after a response was refused the download the
// browser announces for it is taken as the same one.
const refusedFold = 5 * time.Second

// Refuse is the guard's look at a document response before its body
// reaches the browser (cdpguard.Options.RefuseResponse), and reports
// whether to refuse it. A response
// that is a download (Content-Disposition: attachment, or a request the
// browser's download manager made, <a download>) that no waiting call
// declared is answered with an empty 204: no byte of it is written
// anywhere, the browser's temporary file included. What this cannot see
// (a blob or data: URL, a download decided by its media type) is still
// denied by the browser's download behaviour. During a takeover the
// user's own download (its request carried the user's activation) goes
// on, and only it.
func (d *Tracker) Refuse(r cdpguard.Response) bool {
	refuse := d.refuse(r)
	d.answered(r.URL)
	return refuse
}

func (d *Tracker) refuse(r cdpguard.Response) bool {
	if r.Status < 200 || r.Status >= 300 || !(isAttachment(r.ContentDisposition) || r.NoAccept) {
		return false
	}
	d.mu.Lock()
	_, doc, _ := d.frameOf(r.FrameID)
	e := d.claimLocked(r.TabID)
	if e != nil && (d.rules.Observe || e.pays(r.URL, doc)) {
		d.mu.Unlock()
		return false
	}
	if r.UserActivated && d.userDriven != nil && d.userDriven() && d.userHand != nil && d.userHand(r.ActivatedAt) {
		// The user's own during a takeover (a click on a link to a file, a
		// typed URL): let through, and the browser opened to it. One the
		// page started by itself carries no activation and is refused as
		// any undeclared download.
		d.mu.Unlock()
		// On the guard's event loop: the behaviour must be allow before
		// this response goes on, so it waits for the browser's reply.
		d.userStarts(r.URL)
		return false
	}
	if d.rules.Observe {
		d.mu.Unlock()
		return false
	}
	it := &dlItem{
		filename:     SanitizeName(responseFilename(r)),
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
	if e != nil {
		// The call's tab, but another site than its grant names.
		it.foreign = e.from.Loggable()
		e.blockLocked(it.filename, it.origin)
	}
	d.rememberBlockedLocked(Undeclared{At: time.Now(), Tab: r.TabID, Filename: it.filename, URLOrigin: it.origin})
	d.mu.Unlock()
	d.row(it, "blocked", audit.Fields{"stopped_at": "response"})
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

// Requested notes a request the browser's download manager made (no
// Accept header, cdpguard.Request.NoAccept): an acting call that set it
// off waits for its response to be judged before it answers
// (AwaitBlocked), and no other call waits at all.
func (d *Tracker) Requested(r cdpguard.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pendingLocked(r.URL, r.TabID)
}

// pendingLocked notes a download request of tab, to url, under way.
func (d *Tracker) pendingLocked(url string, tab target.ID) {
	if d.pending == nil {
		d.pending = map[string]pendingDownload{}
	}
	for u, p := range d.pending {
		if time.Since(p.at) > pendingKeep {
			delete(d.pending, u)
		}
	}
	if p, ok := d.pending[url]; ok && p.tab == tab {
		return // its request was noted already, at its own time
	}
	d.pending[url] = pendingDownload{tab: tab, at: time.Now()}
}

// answered: the response of url was judged; a call waiting for it looks
// again.
func (d *Tracker) answered(url string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.pending[url]; !ok || d.rules.Observe {
		// Observe mode lets it through: it stays pending until the browser
		// announces the download (began), which the call then reports.
		return
	}
	delete(d.pending, url)
	if d.changed != nil {
		close(d.changed)
		d.changed = nil
	}
}

// pendingKeep bounds how long a download request waits for its response
// to count as under way.
const pendingKeep = 30 * time.Second

// pendingDownload is a download request whose response has not come.
type pendingDownload struct {
	tab target.ID
	at  time.Time
}

// pendingSinceLocked: a download request of one of tabs, made at or after
// since, still waits for its response.
func (d *Tracker) pendingSinceLocked(since time.Time, tabs []target.ID) bool {
	for _, p := range d.pending {
		if p.at.Before(since) || time.Since(p.at) > pendingKeep {
			continue
		}
		for _, t := range tabs {
			if p.tab == t || (p.tab != "" && d.opener != nil && d.opener(p.tab) == t) {
				return true
			}
		}
	}
	return false
}
