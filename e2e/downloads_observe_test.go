package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestObserveSavesUndeclared: with LYRA_BROWSER_ENFORCEMENT=observe an
// undeclared download is saved like a declared one: an
// <a download> click, a navigation to an attachment and a reload that turns
// into one each answer ok with
// download {filename, path, bytes, url_origin, observed: true}, the file is
// at that path, byte for byte, when the reply comes, and its would_block
// row is written by then; the tab does not move.
func TestObserveSavesUndeclared(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := downloadSite(t)
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
	_, _, env := dlEnv(t)
	cs := connectStdio(t, dir, proto2026, append(env, "LYRA_BROWSER_ENFORCEMENT=observe")...)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	store := filepath.Join(dir, "downloads")

	saved := func(what string, reply map[string]any, name string, rows int) {
		t.Helper()
		if reply["status"] != "ok" {
			t.Errorf("%s: status %v, want ok: %v", what, reply["status"], reply)
			return
		}
		dl, _ := reply["download"].(map[string]any)
		if dl["observed"] != true || dl["filename"] != name || dl["bytes"] != float64(len(dlBody)) || dl["url_origin"] != s.URL {
			t.Errorf("%s: download %v, want %s, %d bytes, observed", what, dl, name, len(dlBody))
		}
		p, _ := dl["path"].(string)
		if b, err := os.ReadFile(p); err != nil || !bytes.Equal(b, dlBody) || filepath.Dir(p) != store {
			t.Errorf("%s: the file at %q when the reply came: %v, exact %v", what, p, err, bytes.Equal(b, dlBody))
		}
		if n := len(downloadRows(t, dir, "would_block")); n != rows {
			t.Errorf("%s: %d would_block rows when the reply came, want %d", what, n, rows)
		}
	}
	saved("<a download> click", call(t, cs, "click", map[string]any{"selector": "#dl"}), "evil.bin", 1)
	saved("navigate to an attachment", call(t, cs, "navigate", map[string]any{"url": s.URL + "/file?token=" + dlSecret}), "evil (1).bin", 2)
	if u := call(t, cs, "get_url", nil)["url"]; u != s.URL+"/" {
		t.Errorf("the tab moved to %v on an attachment", u)
	}
	if n := s.count("/file"); n != 2 {
		t.Errorf("the site served /file %d times, want 2", n)
	}
	// A reload that turns into a download.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/flip"}), "ok")
	flip.Store(true)
	saved("a reload that is a file", call(t, cs, "reload_page", nil), "flipped.bin", 3)
	if kept := keptFiles(t, store); len(kept) != 3 {
		t.Errorf("kept %v, want the 3 files", kept)
	}
	noSecretInAudit(t, dir)
}
