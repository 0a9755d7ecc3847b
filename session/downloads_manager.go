package session

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"
	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/download"
	"github.com/lyrad/lyrad/internal/proc"
	"github.com/lyrad/lyrad/policy"
)

// dlStore is the manager's download directory, opened on first use: a
// server that never downloads never creates it.
type dlStore struct {
	mu    sync.Mutex
	store *download.Store
}

func (m *Manager) downloadStore() (*download.Store, error) {
	m.dl.mu.Lock()
	defer m.dl.mu.Unlock()
	if m.dl.store != nil {
		return m.dl.store, nil
	}
	if m.cfg.DownloadDir == "" {
		return nil, newError(StatusError, "no download directory is configured", "Set LYRA_BROWSER_DOWNLOAD_DIR or LYRA_BROWSER_DATA_DIR.")
	}
	s, err := download.Open(m.cfg.DownloadDir, m.cfg.DownloadKeep)
	if err != nil {
		return nil, newError(StatusError, err.Error(), "Set LYRA_BROWSER_DOWNLOAD_DIR to a directory lyrad can write.")
	}
	m.dl.store = s
	return s, nil
}

// startDownloads puts a just-guarded browser's downloads behind the guard
// (see downloads.go). It fails when the behaviour cannot be set: the
// browser would otherwise write every file a page offers to ~/Downloads.
func (m *Manager) startDownloads(ctx context.Context, b *Browser) error {
	store, err := m.downloadStore()
	if err != nil {
		return err
	}
	// It starts beside the guard: the guard is asked for once it is set.
	opener := func(id target.ID) target.ID {
		if g := b.guardSet(); g != nil {
			if t, ok := g.Held(id); ok {
				return t.OpenerID
			}
		}
		return ""
	}
	frameOf := func(f cdp.FrameID) (target.ID, string, bool) {
		if g := b.guardSet(); g != nil {
			return g.FrameOf(f)
		}
		return "", "", false
	}
	rules := downloadRules{observe: m.cfg.Enforcement == policy.Observe, maxBytes: m.cfg.DownloadMaxBytes, timeout: m.cfg.DownloadTimeout}
	// What a page sets off on its own (blocked, would_block) is bounded
	// per tab like its other rows; what a call paid for always lands.
	write := func(r audit.Row) {
		tab, _ := r.Extra["tab"].(string)
		if (r.Status == "blocked" || r.Status == "would_block") && tab != "" {
			m.limitedAudit(tab, "download/"+r.Status, r)
			return
		}
		m.audit(r)
	}
	d, err := startDownloads(ctx, b.conn, store, rules, frameOf, opener, write, m.log)
	if err != nil {
		return err
	}
	d.mu.Lock()
	d.userDriven = func() bool { return m.takeover.active(b) != nil }
	d.userHand = func(at time.Time) bool {
		user, _ := m.userHand(m.takeover.active(b), at)
		return user
	}
	d.mu.Unlock()
	b.mu.Lock()
	b.downloads = d
	b.mu.Unlock()
	return nil
}

// DownloadList is what list_downloads answers.
type DownloadList struct {
	Dir   string
	Files []download.Entry
}

// ListDownloads lists the files this server kept that are still on disk,
// oldest first. It only reads: it opens no browser and claims nothing.
func (m *Manager) ListDownloads(c Caller) (*DownloadList, error) {
	_, done, err := m.enter(context.Background(), c, read)
	defer done()
	if err != nil {
		return nil, err
	}
	store, err := m.downloadStore()
	if err != nil {
		return nil, err
	}
	return &DownloadList{Dir: store.Dir(), Files: store.List()}, nil
}

// browserTempDir is the browser's private temporary directory (where it
// stages downloads and blobs), inside the data dir and short, since Chrome
// puts a Unix socket there; one per lyrad, as each has its own browser.
// Empty (chrome's default, inside the profile) with no data dir.
func (m *Manager) browserTempDir() string {
	if m.cfg.Data.Root() == "" {
		return ""
	}
	return filepath.Join(m.cfg.Data.Root(), ".tmp-"+strconv.Itoa(os.Getpid()))
}

// clearDeadTempDirs removes the temporary directories of lyrads that are
// gone (one killed leaves its own; a browser's partial downloads and blobs
// may be in it).
func (m *Manager) clearDeadTempDirs() {
	if m.cfg.Data.Root() == "" {
		return
	}
	dirs, _ := filepath.Glob(filepath.Join(m.cfg.Data.Root(), ".tmp-*"))
	for _, d := range dirs {
		pid, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(d), ".tmp-"))
		if err != nil || pid == os.Getpid() || proc.Alive(pid) {
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			m.log.Warn("could not remove a dead lyrad's temporary directory", zap.String("dir", d), zap.Error(err))
		}
	}
}
