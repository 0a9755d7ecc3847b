package e2e

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// dlSecret rides in the query of every download URL: no audit row may
// carry it.
const dlSecret = "hunter2-dl-secret"

// dlBody is a download's content: a marker to find on disk wherever the
// browser put a copy.
var dlBody = bytes.Repeat([]byte("LYRAD-DL-MARK-"), 75000) // ~1 MB

// downloadSite offers files every way a page can: an <a download>, an
// attachment response reached by navigation, a timer that navigates to
// one, a popup that opens one, and a blob the page builds.
func downloadSite(t *testing.T) *site {
	s := newSite(t, "127.0.0.1")
	file := "/file?token=" + dlSecret
	s.page("/", `<!doctype html><title>Files</title>
<a id=dl download="evil.bin" href="`+file+`">get</a>
<a id=pop target=_blank href="`+file+`">popup</a>
<button id=blob onclick="makeBlob()">blob</button>
<script>function makeBlob(){const b=new Blob(['LYRAD-BLOB-MARK'.repeat(1000)]);const a=document.createElement('a');a.href=URL.createObjectURL(b);a.download='made.txt';document.body.append(a);a.click()}</script>`)
	s.page("/timer", `<!doctype html><title>Timer</title><script>setTimeout(()=>{location.href='`+file+`'},300)</script>`)
	s.handle("/file", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="evil.bin"`)
		w.Header().Set("Content-Length", fmt.Sprint(len(dlBody)))
		w.Write(dlBody)
	})
	return s
}

// dlEnv points lyrad's browser at a private HOME (its ~/Downloads) and
// TMPDIR (Chrome's temporary files), to be read after.
func dlEnv(t *testing.T) (home, tmp string, env []string) {
	home, tmp = t.TempDir(), t.TempDir()
	return home, tmp, []string{"HOME=" + home, "TMPDIR=" + tmp}
}

// filesHolding lists the regular files under root whose content holds
// mark (a copy, whole or in part, of a download).
func filesHolding(t *testing.T, root string, mark []byte) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, mark) {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// watchDisk reads the files under roots every few milliseconds while a
// test runs and reports each one that ever held mark: Chrome writes the
// opening bytes of a download to a temporary file and deletes it on
// cancel, so a look at the end alone would miss it. stop returns what was
// seen.
func watchDisk(roots []string, mark []byte) (stop func() []string) {
	var mu sync.Mutex
	seen := map[string]bool{}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			for _, root := range roots {
				filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
					if err != nil || !d.Type().IsRegular() {
						return nil
					}
					if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, mark) {
						mu.Lock()
						seen[p] = true
						mu.Unlock()
					}
					return nil
				})
			}
			select {
			case <-quit:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() []string {
		close(quit)
		<-done
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for p := range seen {
			out = append(out, p)
		}
		return out
	}
}

// downloadRows are the audit's download rows with this status.
func downloadRows(t *testing.T, dataDir, status string) []map[string]any {
	var out []map[string]any
	for _, r := range auditRows(t, dataDir) {
		if r["kind"] == "download" && r["status"] == status {
			out = append(out, r)
		}
	}
	return out
}

func waitDownloadRows(t *testing.T, dataDir, status string, n int) []map[string]any {
	t.Helper()
	defer func() {
		if t.Failed() {
			for _, r := range auditRows(t, dataDir) {
				if r["kind"] != "session" {
					t.Logf("audit: %v", r)
				}
			}
		}
	}()
	waitFor(t, fmt.Sprintf("%d download rows %s", n, status), 20*time.Second, func() bool {
		return len(downloadRows(t, dataDir, status)) >= n
	})
	return downloadRows(t, dataDir, status)
}

// keptFiles are the visible files of the download directory, name -> size.
func keptFiles(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	ents, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			if strings.HasSuffix(e.Name(), ".part") {
				t.Errorf("a .part file was left: %s", e.Name())
			}
			continue
		}
		info, _ := e.Info()
		out[e.Name()] = info.Size()
	}
	return out
}

// noSecretInAudit: the query of a download URL reaches no row.
func noSecretInAudit(t *testing.T, dataDir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(dlSecret)) {
		t.Errorf("the secret in a download URL's query reached the audit")
	}
}

// TestDownloadsUndeclaredBlocked: an <a download> clicked, an attachment
// reached by navigate, one a timer starts and one a popup opens, none
// declared: the site served each (so the test could fail), and no byte of
// any is on disk: not in the download directory, not in ~/Downloads, not
// in Chrome's temporary directory (watched while it runs: not even for a
// moment), not in the profile. Each is audited blocked with its origin and
// initiator, never its query.
func TestDownloadsUndeclaredBlocked(t *testing.T) {
	needBrowser(t)
	s := downloadSite(t)
	dir := t.TempDir()
	home, tmp, env := dlEnv(t)
	cs := connectStdio(t, dir, proto2026, env...)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")

	stopWatch := watchDisk([]string{tmp, filepath.Join(home, "Downloads"), filepath.Join(dir, "downloads")}, dlBody[:4096])
	// The calls that set them off answer download_blocked, naming the file.
	wantBlocked := func(env map[string]any) {
		t.Helper()
		wantStatus(t, env, "download_blocked")
		if bd, _ := env["blocked_download"].(map[string]any); bd["filename"] != "evil.bin" || bd["url_origin"] != s.URL {
			t.Errorf("blocked_download: %v", env)
		}
	}
	wantBlocked(call(t, cs, "click", map[string]any{"selector": "#dl"}))
	waitDownloadRows(t, dir, "blocked", 1)

	wantBlocked(call(t, cs, "navigate", map[string]any{"url": s.URL + "/file?token=" + dlSecret}))
	waitDownloadRows(t, dir, "blocked", 2)
	if u := call(t, cs, "get_url", nil)["url"]; u != s.URL+"/" {
		t.Errorf("the tab moved to %v on an attachment", u)
	}

	call(t, cs, "click", map[string]any{"selector": "#pop"})
	waitDownloadRows(t, dir, "blocked", 3)

	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/timer"}), "ok")
	rows := waitDownloadRows(t, dir, "blocked", 4)

	if n := s.count("/file"); n < 4 {
		t.Fatalf("the site served /file %d times, want 4: the downloads never started, so this proves nothing", n)
	}
	for _, r := range rows {
		if r["url_origin"] != s.URL || r["initiator"] != s.URL || r["filename"] != "evil.bin" {
			t.Errorf("blocked row %v: want url_origin and initiator %s, filename evil.bin", r, s.URL)
		}
	}
	// Let a straggler land, if one were coming.
	time.Sleep(500 * time.Millisecond)
	if n := len(downloadRows(t, dir, "blocked")); n != 4 {
		t.Errorf("%d blocked rows, want one per download, 4", n)
	}
	if seen := stopWatch(); len(seen) != 0 {
		t.Errorf("bytes of a blocked download reached the disk while it ran: %v", seen)
	}
	if got := keptFiles(t, filepath.Join(dir, "downloads")); len(got) != 0 {
		t.Errorf("the download directory holds %v", got)
	}
	for _, root := range []string{home, tmp, dir} {
		for _, f := range filesHolding(t, root, dlBody[:4096]) {
			// A navigation's response is in the browser's HTTP cache
			// before the guard holds it (the network service writes the
			// cache as the body arrives); Chrome sometimes keeps that entry
			// after the 204 replaced the response. It is the profile's
			// cache, 0700 inside the data directory, like any page the
			// browser loaded; known and reported, not a saved file.
			if strings.Contains(f, filepath.Join("profile", "Default", "Cache")) {
				t.Logf("the HTTP cache holds a copy: %s", f)
				continue
			}
			t.Errorf("a copy of a blocked download is on disk: %s", f)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "Downloads")); len(ents) != 0 {
		t.Errorf("~/Downloads holds %d entries", len(ents))
	}
	list := call(t, cs, "list_downloads", nil)
	wantStatus(t, list, "ok")
	if list["count"] != float64(0) {
		t.Errorf("list_downloads = %v, want none", list)
	}
	noSecretInAudit(t, dir)
}

// TestDownloadsObserveKeeps: with LYRA_BROWSER_ENFORCEMENT=observe nothing
// is cancelled: the files are kept in the download directory, exact, under
// the same rules, and audited would_block; a blob is the page's that made
// it; list_downloads lists exactly what is on disk; ~/Downloads stays empty.
func TestDownloadsObserveKeeps(t *testing.T) {
	needBrowser(t)
	s := downloadSite(t)
	dir := t.TempDir()
	home, _, env := dlEnv(t)
	cs := connectStdio(t, dir, proto2026, append(env, "LYRA_BROWSER_ENFORCEMENT=observe")...)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")

	call(t, cs, "click", map[string]any{"selector": "#blob"})
	waitDownloadRows(t, dir, "would_block", 1)
	reply := call(t, cs, "click", map[string]any{"selector": "#dl"})
	wantStatus(t, reply, "ok")
	if dl, _ := reply["download"].(map[string]any); dl["observed"] != true || dl["filename"] != "evil.bin" {
		t.Errorf("the click's reply does not say the file was kept by observe mode: %v", reply)
	}
	rows := waitDownloadRows(t, dir, "would_block", 2)

	kept := keptFiles(t, filepath.Join(dir, "downloads"))
	want := map[string]int64{"evil.bin": int64(len(dlBody)), "made.txt": int64(len("LYRAD-BLOB-MARK") * 1000)}
	if fmt.Sprint(kept) != fmt.Sprint(want) {
		t.Fatalf("download directory holds %v, want %v", kept, want)
	}
	got, err := os.ReadFile(filepath.Join(dir, "downloads", "evil.bin"))
	if err != nil || !bytes.Equal(got, dlBody) {
		t.Errorf("evil.bin is not the bytes served (%d bytes, %v)", len(got), err)
	}
	for _, r := range rows {
		if r["initiator"] != s.URL || r["url_origin"] != s.URL {
			t.Errorf("would_block row %v: want url_origin and initiator %s (a blob is its page's)", r, s.URL)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "Downloads")); len(ents) != 0 {
		t.Errorf("~/Downloads holds %d entries", len(ents))
	}

	list := call(t, cs, "list_downloads", nil)
	wantStatus(t, list, "ok")
	if list["download_dir"] != filepath.Join(dir, "downloads") {
		t.Errorf("download_dir = %v", list["download_dir"])
	}
	listed := map[string]int64{}
	var order []string
	for _, d := range list["downloads"].([]any) {
		e := d.(map[string]any)
		listed[e["filename"].(string)] = int64(e["bytes"].(float64))
		order = append(order, e["filename"].(string))
		if e["path"] != filepath.Join(dir, "downloads", e["filename"].(string)) || e["url_origin"] != s.URL {
			t.Errorf("listed %v", e)
		}
	}
	if fmt.Sprint(listed) != fmt.Sprint(kept) || list["count"] != float64(len(kept)) {
		t.Errorf("list_downloads %v, on disk %v", list, kept)
	}
	if len(order) != 2 || order[0] != "made.txt" {
		t.Errorf("list_downloads order %v, want oldest first", order)
	}
	noSecretInAudit(t, dir)
}

// TestDownloadNamesStayInside: the site picks the name, so it is hostile.
// Kept in observe mode (nothing declared needed): a path, a device name, a
// 300-byte name with a bidi override, and a taken name all land inside the
// download directory, sanitised, and nothing lands anywhere else.
func TestDownloadNamesStayInside(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.handle("/named", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		// filename* carries any bytes the site likes, percent-encoded.
		w.Header().Set("Content-Disposition", "attachment; filename*=UTF-8''"+r.URL.Query().Get("n"))
		w.Write([]byte("named:" + r.URL.Query().Get("n")))
	})
	s.page("/", `<title>names</title>`)
	root := t.TempDir()
	dir := filepath.Join(root, "data")
	home, tmp, env := dlEnv(t)
	cs := connectStdio(t, dir, proto2026, append(env, "LYRA_BROWSER_ENFORCEMENT=observe")...)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/"}), "ok")
	// 300 bytes with a bidi override (Chrome itself falls back to the
	// URL's last segment for it, "named"; the sanitiser's own cut is unit
	// tested).
	long := strings.Repeat("a", 300) + "%E2%80%AEvsc.exe"
	names := []string{"..%2F..%2Fevil.txt", "CON.txt", long, "report.csv", "report.csv"}
	for i, n := range names {
		call(t, cs, "navigate", map[string]any{"url": s.URL + "/named?n=" + n})
		waitDownloadRows(t, dir, "would_block", i+1)
	}
	kept := keptFiles(t, filepath.Join(dir, "downloads"))
	if len(kept) != len(names) {
		t.Fatalf("kept %v, want %d files", kept, len(names))
	}
	for _, want := range []string{"report.csv", "report (1).csv"} {
		if _, ok := kept[want]; !ok {
			t.Errorf("no %q among %v", want, kept)
		}
	}
	for name := range kept {
		if strings.ContainsAny(name, "/\\\u202e") || len(name) > 180 || strings.HasPrefix(name, ".") ||
			strings.EqualFold(strings.SplitN(name, ".", 2)[0], "CON") {
			t.Errorf("kept name %q is not sanitised", name)
		}
	}
	// Nothing outside the download directory: the data dir's parent holds
	// only the data dir, and no copy is anywhere else.
	if ents, _ := os.ReadDir(root); len(ents) != 1 {
		t.Errorf("beside the data directory: %d entries", len(ents))
	}
	// (The profile's HTTP cache keeps the response of a download that was
	// let through, as it keeps any page's: it sits below what DevTools can
	// change.)
	for _, where := range []string{home, tmp} {
		if got := filesHolding(t, where, []byte("named:")); len(got) != 0 {
			t.Errorf("a copy outside the download directory: %v", got)
		}
	}
	list := call(t, cs, "list_downloads", nil)
	if list["count"] != float64(len(kept)) {
		t.Errorf("list_downloads count %v, on disk %d", list["count"], len(kept))
	}
}
