package e2e

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestUploadsAreTheCheckedFile: what the browser sends is the file lyrad
// checked, not whatever its path names when the form goes. A hostile
// local writer swaps the checked file's folder for a symlink into ~/.ssh
// after upload_file answered, then the agent sends the form; a hard link
// to the key placed in an allowed folder, a macOS keychain without a dot in
// its path, and a FIFO are offered too. The server counts what it got.
func TestUploadsAreTheCheckedFile(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	var mu sync.Mutex
	var got []string
	a.page("/form", `<title>Upload</title>
<form method=post enctype="multipart/form-data" action="/sink"><input type=file name=f id=f><button id=send>Send</button></form>`)
	a.handle("/sink", func(w http.ResponseWriter, r *http.Request) {
		if mr, err := r.MultipartReader(); err == nil {
			for {
				p, err := mr.NextPart()
				if err != nil {
					break
				}
				b, _ := io.ReadAll(p)
				mu.Lock()
				got = append(got, string(b))
				mu.Unlock()
			}
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<title>Sent</title>thanks")
	})

	root := t.TempDir()
	docs := filepath.Join(root, "docs")
	must(t, os.MkdirAll(docs, 0o700))
	photo := filepath.Join(docs, "photo.txt")
	must(t, os.WriteFile(photo, []byte("PHOTO-BYTES"), 0o600))
	ssh := filepath.Join(root, ".ssh")
	must(t, os.MkdirAll(ssh, 0o700))
	const secret = "PRIVATE-KEY-BYTES"
	key := filepath.Join(ssh, "id_test")
	must(t, os.WriteFile(key, []byte(secret), 0o600))
	must(t, os.WriteFile(filepath.Join(ssh, "photo.txt"), []byte(secret), 0o600))
	hard := filepath.Join(root, "report.txt")
	must(t, os.Link(key, hard))
	keychain := filepath.Join(root, "Library", "Keychains", "login.keychain-db")
	must(t, os.MkdirAll(filepath.Dir(keychain), 0o700))
	must(t, os.WriteFile(keychain, []byte(secret), 0o600))
	fifo := filepath.Join(root, "pipe.txt")
	must(t, mkfifo(fifo))

	ask := &asker{}
	cs := connectAsking(t, t.TempDir(), proto2026, ask.handle, "LYRA_BROWSER_UPLOAD_ROOTS="+root)
	do := func(name string, args map[string]any) map[string]any { t.Helper(); return call(t, cs, name, args) }
	wantStatus(t, do("navigate", map[string]any{"url": a.URL + "/form"}), "ok")

	for _, c := range []struct {
		path, list string
	}{{hard, "hard_linked"}, {keychain, "refused"}, {key, "refused"}, {fifo, "missing"}} {
		start := time.Now()
		env := do("upload_file", map[string]any{"selector": "#f", "paths": []any{c.path}})
		wantStatus(t, env, "error")
		if l, _ := env[c.list].([]any); len(l) != 1 {
			t.Errorf("upload_file(%s): want it in %s: %v", filepath.Base(c.path), c.list, env)
		}
		t.Logf("upload_file(%s) answered %s in %v", filepath.Base(c.path), c.list, time.Since(start).Round(time.Millisecond))
	}

	env := do("upload_file", map[string]any{"selector": "#f", "paths": []any{photo}})
	wantStatus(t, env, "ok")
	if !strings.Contains(jsonString(env["files"]), `"name":"photo.txt"`) {
		t.Errorf("upload_file answers files %v, want photo.txt", env["files"])
	}
	// The swap, after the check and before the browser reads the file.
	must(t, os.Rename(docs, docs+"-old"))
	must(t, os.Symlink(ssh, docs))
	wantStatus(t, do("click", map[string]any{"selector": "#send", "submits": true}), "ok")
	waitFor(t, "the form at the server", 30*time.Second, func() bool { mu.Lock(); defer mu.Unlock(); return len(got) > 0 })

	mu.Lock()
	defer mu.Unlock()
	leaks := 0
	for _, g := range got {
		if strings.Contains(g, secret) {
			leaks++
		}
	}
	t.Logf("parts at the server: %d, carrying the key: %d", len(got), leaks)
	if leaks != 0 || len(got) != 1 || !bytes.Equal([]byte(got[0]), []byte("PHOTO-BYTES")) {
		t.Errorf("the server got %q, want the checked file's bytes only", got)
	}
}
