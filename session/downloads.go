package session

import (
	"context"
	"errors"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/download"
	"github.com/lyrad/lyrad/policy"
)

// Downloads are kept behind the guard by package download's tracker, one
// per browser (Browser.downloads); this file only wires it to the session:
// the store, the guard's view of tabs and frames, the audit budget and the
// takeover. act_download.go answers an acting call from it.

// store is the download directory, opened on first use: a server that
// never downloads never creates it.
func (l *launcher) store() (*download.Store, error) {
	s, err := l.dl.Open(l.cfg.DownloadDir, l.cfg.DownloadKeep)
	switch {
	case errors.Is(err, download.ErrNoDir):
		return nil, newError(StatusError, "no download directory is configured", "Set LYRA_BROWSER_DOWNLOAD_DIR or LYRA_BROWSER_DATA_DIR.")
	case err != nil:
		return nil, newError(StatusError, err.Error(), "Set LYRA_BROWSER_DOWNLOAD_DIR to a directory lyrad can write.")
	}
	return s, nil
}

// startDownloads puts a just-guarded browser's downloads behind the guard.
// It fails when the behaviour cannot be set: the browser would otherwise
// write every file a page offers to ~/Downloads.
func (l *launcher) startDownloads(ctx context.Context, b *Browser) error {
	store, err := l.store()
	if err != nil {
		return err
	}
	// It starts beside the guard: the guard is asked for once it is set.
	hooks := download.Hooks{
		FrameOf: func(f cdp.FrameID) (target.ID, string, bool) {
			if g := b.guardSet(); g != nil {
				return g.FrameOf(f)
			}
			return "", "", false
		},
		Opener: func(id target.ID) target.ID {
			if g := b.guardSet(); g != nil {
				if t, ok := g.Held(id); ok {
					return t.OpenerID
				}
			}
			return ""
		},
		// What a page sets off on its own (blocked, would_block) is
		// bounded per tab like its other rows; what a call paid for
		// always lands.
		Audit: func(r audit.Row) {
			tab, _ := r.Extra["tab"].(string)
			if (r.Status == "blocked" || r.Status == "would_block") && tab != "" {
				l.budget.write(tab, "download/"+r.Status, r)
				return
			}
			l.audit(r)
		},
		UserDriven: func() bool { return l.takeover.active(b) != nil },
		UserHand: func(at time.Time) bool {
			user, _ := l.takeover.active(b).userHand(at)
			return user
		},
	}
	rules := download.Rules{Observe: l.cfg.Enforcement == policy.Observe, MaxBytes: l.cfg.DownloadMaxBytes, Timeout: l.cfg.DownloadTimeout}
	d, err := download.Start(ctx, b.conn, store, rules, hooks, l.log)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.downloads = d
	b.mu.Unlock()
	return nil
}

// tracker is b's download tracker; nil until it runs (the launch's blank
// tab), when nothing is refused and no request is noted.
func (b *Browser) tracker() *download.Tracker {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.downloads
}

// refuseResponse is the guard's hook for this browser
// (download.Tracker.Refuse).
func (b *Browser) refuseResponse(r cdpguard.Response) bool {
	if d := b.tracker(); d != nil {
		return d.Refuse(r)
	}
	return false
}

// downloadRequested notes a request the browser's download manager made
// (download.Tracker.Requested).
func (b *Browser) downloadRequested(r cdpguard.Request) {
	if d := b.tracker(); d != nil {
		d.Requested(r)
	}
}

// DownloadList is what list_downloads answers.
type DownloadList struct {
	Dir   string
	Files []download.Entry
}

// ListDownloads lists the files this server kept that are still on disk,
// oldest first. It only reads: it opens no browser and claims nothing.
func (m *Manager) ListDownloads(c Caller) (*DownloadList, error) {
	_, done, err := m.own.enter(context.Background(), c, read)
	defer done()
	if err != nil {
		return nil, err
	}
	store, err := m.launcher.store()
	if err != nil {
		return nil, err
	}
	return &DownloadList{Dir: store.Dir(), Files: store.List()}, nil
}

// dlStore is the download directory (launcher.dl).
type dlStore struct{ download.Lazy }
