package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestDownloadsDeclared: download=true keeps exactly one file, byte for
// byte, in the download directory, asked like any grant; without approval
// nothing is kept; the next undeclared one is blocked again; a taken name
// is numbered; navigate(download=true) to a file saves it and to a page
// answers download_not_started; a reload and a step back that turn into a
// download, and Enter on a download link, answer download_blocked, and
// Enter declared saves; a popup's download is the call's. At the end no
// .part is left and list_downloads is what is on disk.
func TestDownloadsDeclared(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := downloadSite(t)
	s.page("/key", `<!doctype html><title>Key</title><a id=kdl download="evil.bin" href="/file?token=`+dlSecret+`">get</a><script>document.getElementById('kdl').focus()</script>`)
	var flip atomic.Bool // /flip is a page, then a file
	s.handle("/flip", func(w http.ResponseWriter, r *http.Request) {
		if flip.Load() {
			w.Header().Set("Content-Disposition", `attachment; filename="flipped.bin"`)
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(dlBody)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Cache-Control", "no-store")
		fmt.Fprint(w, `<!doctype html><title>Flip</title>`)
	})
	dir := t.TempDir()
	store := filepath.Join(dir, "downloads")
	_, _, env := dlEnv(t)

	// Without approval (a client that cannot be asked, no confirm):
	// nothing is kept.
	unasked := connectAsking(t, t.TempDir(), proto2026, nil, env...)
	wantStatus(t, call(t, unasked, "navigate", map[string]any{"url": s.URL + "/", "confirm": true}), "ok")
	if e := call(t, unasked, "click", map[string]any{"selector": "#dl", "download": true}); e["status"] == "ok" {
		t.Fatalf("a download with no approval: %v", e)
	}
	unasked.Close()

	cs := connectStdio(t, dir, proto2026, env...) // approval off: a declared grant is given
	do := func(name string, args map[string]any) map[string]any { t.Helper(); return call(t, cs, name, args) }
	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/"}), "ok")
	saved := func(env map[string]any, name string) {
		t.Helper()
		wantStatus(t, env, "ok")
		dl, _ := env["download"].(map[string]any)
		if dl["filename"] != name || dl["bytes"] != float64(len(dlBody)) || dl["url_origin"] != s.URL {
			t.Fatalf("download: %v", env)
		}
		b, err := os.ReadFile(dl["path"].(string))
		if err != nil || !bytes.Equal(b, dlBody) || filepath.Dir(dl["path"].(string)) != store {
			t.Fatalf("the kept file %v: %v, exact %v", dl["path"], err, bytes.Equal(b, dlBody))
		}
	}
	saved(do("click", map[string]any{"selector": "#dl", "download": true}), "evil.bin")
	wantStatus(t, do("click", map[string]any{"selector": "#dl"}), "download_blocked")
	saved(do("click", map[string]any{"selector": "#dl", "download": true}), "evil (1).bin")

	saved(do("navigate", map[string]any{"url": s.URL + "/file?token=" + dlSecret, "download": true}), "evil (2).bin")
	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/", "download": true}), "download_not_started")

	// A reload and a step back that turn into a download.
	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/flip"}), "ok")
	flip.Store(true)
	wantStatus(t, do("reload_page", nil), "download_blocked")
	flip.Store(false)
	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/flip"}), "ok")
	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/"}), "ok")
	flip.Store(true)
	wantStatus(t, do("go_back", nil), "download_blocked")
	if e := do("go_back", map[string]any{"download": true}); e["status"] != "error" || e["argument"] != "download" {
		t.Errorf("go_back(download=true): %v", e)
	}

	// Enter on a focused download link, undeclared then declared.
	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/key"}), "ok")
	wantStatus(t, do("press_key", map[string]any{"key": "Enter"}), "download_blocked")
	saved(do("press_key", map[string]any{"key": "Enter", "download": true}), "evil (3).bin")

	// A popup's download is the call's.
	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/"}), "ok")
	saved(do("click", map[string]any{"selector": "#pop", "download": true}), "evil (4).bin")

	kept := keptFiles(t, store)
	list := do("list_downloads", nil)
	items, _ := list["downloads"].([]any)
	if len(kept) != 5 || len(items) != len(kept) {
		t.Fatalf("on disk %v, list_downloads %v", kept, list)
	}
	for _, it := range items {
		m := it.(map[string]any)
		if size, ok := kept[m["filename"].(string)]; !ok || float64(size) != m["bytes"] {
			t.Errorf("list_downloads has %v, the disk %v", m, kept)
		}
	}
	noSecretInAudit(t, dir)
}

// TestDownloadCaps: through the tools, a declared download over
// LYRA_BROWSER_DOWNLOAD_MAX_BYTES answers download_failed too_large and the
// server saw the transfer cut early; an endless stream past
// LYRA_BROWSER_DOWNLOAD_TIMEOUT answers timeout and is stopped; a transfer
// the server cuts answers error. Nothing half done is kept.
func TestDownloadCaps(t *testing.T) {
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	var bigSent atomic.Int64
	endlessStopped := make(chan struct{})
	attach := func(w http.ResponseWriter, name string) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`"`)
	}
	stream := func(w http.ResponseWriter, r *http.Request, limit, size int, sent *atomic.Int64) {
		chunk := bytes.Repeat([]byte("x"), size)
		for i := 0; limit == 0 || i < limit; i++ {
			n, err := w.Write(chunk)
			if sent != nil {
				sent.Add(int64(n))
			}
			if err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	s.page("/", `<!doctype html><title>caps</title><a id=big href="/big">big</a><a id=endless href="/endless">endless</a><a id=cut href="/cut">cut</a>`)
	s.handle("/big", func(w http.ResponseWriter, r *http.Request) { attach(w, "big.bin"); stream(w, r, 100, 10000, &bigSent) })
	s.handle("/endless", func(w http.ResponseWriter, r *http.Request) {
		defer close(endlessStopped)
		attach(w, "endless.bin")
		stream(w, r, 0, 500, nil) // 25 KB/s: under MAX_BYTES before the timeout
	})
	s.handle("/cut", func(w http.ResponseWriter, r *http.Request) {
		attach(w, "cut.bin")
		w.Header().Set("Content-Length", "100000")
		w.Write(bytes.Repeat([]byte("y"), 5000))
		w.(http.Flusher).Flush()
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
	})
	dir := t.TempDir()
	_, _, env := dlEnv(t)
	cs := connectStdio(t, dir, proto2026, append(env, "LYRA_BROWSER_DOWNLOAD_MAX_BYTES=100000", "LYRA_BROWSER_DOWNLOAD_TIMEOUT=2")...)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	failed := func(sel, reason string) {
		t.Helper()
		e := call(t, cs, "click", map[string]any{"selector": sel, "download": true})
		wantStatus(t, e, "download_failed")
		if e["reason"] != reason {
			t.Errorf("%s: %v, want reason %s", sel, e, reason)
		}
	}
	failed("#big", "too_large")
	if n := bigSent.Load(); n >= 1000000 {
		t.Errorf("the server sent all %d bytes: the transfer was not stopped at the cap", n)
	}
	failed("#endless", "timeout")
	select {
	case <-endlessStopped:
	case <-time.After(20 * time.Second):
		t.Error("the endless stream was never stopped")
	}
	failed("#cut", "error")
	if kept := keptFiles(t, filepath.Join(dir, "downloads")); len(kept) != 0 {
		t.Errorf("failed downloads were kept: %v", kept)
	}
}
