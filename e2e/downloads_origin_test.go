package e2e

import (
	"bytes"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestDownloadGrantIsForItsSite: a declared download ("save a file from
// A", DOWNLOAD approved for A) whose click handler swaps in C's attachment
// through a frame, through a frame that A redirects to C, or through a
// top-level redirect from A to C (C approved for navigation) answers
// download_blocked naming C, and nothing of C's file is kept; C served each
// (so the test could fail). A's own file through the same frame is saved,
// and so is a data: file A's page makes.
func TestDownloadGrantIsForItsSite(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	c := newSite(t, "127.0.0.2")
	cBody := bytes.Repeat([]byte("C-INVOICE-MARK-"), 2000)
	c.handle("/invoice", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="invoice.pdf.exe"`)
		w.Write(cBody)
	})
	a.handle("/own", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="invoice.pdf"`)
		w.Write(dlBody)
	})
	a.handle("/hop", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, c.URL+"/invoice", http.StatusFound)
	})
	frame := func(src string) string {
		return `const f=document.createElement('iframe');f.src='` + src + `';document.body.append(f)`
	}
	a.page("/", `<!doctype html><title>Invoices</title>
<button id=frame onclick="`+frame(c.URL+"/invoice")+`">invoice</button>
<button id=framehop onclick="`+frame(a.URL+"/hop")+`">invoice</button>
<button id=tophop onclick="location.href='/hop'">invoice</button>
<button id=own onclick="`+frame(a.URL+"/own")+`">invoice</button>
<a id=data download="notes.txt" href="data:text/plain,A-NOTES">notes</a>`)

	dir := t.TempDir()
	home, tmp, env := dlEnv(t)
	cs := connectStdio(t, dir, proto2026, env...)
	// C approved for navigation (a NAVIGATE grant), so that the guard lets
	// the top-level redirect to it go; not for a download.
	c.page("/", `<title>C</title>`)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": c.URL + "/"}), "ok")
	store := filepath.Join(dir, "downloads")
	served := 0
	for _, sel := range []string{"#frame", "#framehop", "#tophop"} {
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/"}), "ok")
		env := call(t, cs, "click", map[string]any{"selector": sel, "download": true, "reason": "save the invoice from A"})
		served++
		if n := c.count("/invoice"); n != served {
			t.Fatalf("%s: C served its file %d times, want %d: the swap did not happen (%v)", sel, n, served, env)
		}
		if env["status"] != "download_blocked" {
			t.Errorf("%s: status %v, want download_blocked: %v", sel, env["status"], env)
		}
		if bd, _ := env["blocked_download"].(map[string]any); bd["url_origin"] != c.URL || bd["filename"] != "invoice.pdf.exe" {
			t.Errorf("%s: blocked_download %v, want C's invoice.pdf.exe", sel, env)
		}
		if env["approved_origin"] != a.URL {
			t.Errorf("%s: approved_origin %v, want %s", sel, env["approved_origin"], a.URL)
		}
	}
	if kept := keptFiles(t, store); len(kept) != 0 {
		t.Errorf("C's file was kept: %v", kept)
	}
	for _, root := range []string{store, home, tmp} {
		if got := filesHolding(t, root, cBody[:600]); len(got) != 0 {
			t.Errorf("C's bytes are on disk: %v", got)
		}
	}
	rows := downloadRows(t, dir, "blocked")
	foreign := 0
	for _, r := range rows {
		if r["url_origin"] == c.URL && r["approved_for"] == a.URL {
			foreign++
		}
	}
	if foreign != 3 {
		t.Errorf("%d blocked rows naming C and the approval for A, want 3: %v", foreign, rows)
	}

	// A's own file, through the same kind of frame: the grant pays for it.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/"}), "ok")
	own := call(t, cs, "click", map[string]any{"selector": "#own", "download": true})
	wantStatus(t, own, "ok")
	if dl, _ := own["download"].(map[string]any); dl["filename"] != "invoice.pdf" || dl["url_origin"] != a.URL {
		t.Errorf("A's own file: %v", own)
	}
	// A data: URL is the file of the document that made it, A's here.
	notes := call(t, cs, "click", map[string]any{"selector": "#data", "download": true})
	wantStatus(t, notes, "ok")
	kept := keptFiles(t, store)
	if len(kept) != 2 || kept["invoice.pdf"] != int64(len(dlBody)) || kept["notes.txt"] != int64(len("A-NOTES")) {
		t.Errorf("kept %v, want only A's invoice.pdf and notes.txt", kept)
	}
	for name := range kept {
		if strings.HasSuffix(name, ".exe") {
			t.Errorf("kept %s", name)
		}
	}
}
