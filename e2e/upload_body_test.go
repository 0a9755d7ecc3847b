package e2e

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestUploadBodyTooLarge: Chrome hands a form's body to the guard inside one
// DevTools message, and drops any message over 256 MiB without a word; 40 MB
// of zero bytes makes ~300 MB (a zero byte is "\u0000" in it). Such a
// request used to stay paused for ever: nothing reached the server, no audit
// row, and the click answered ok ("navigating") after its whole timeout. Now
// it is refused with body_too_large, naming the size, within the click's
// timeout, with an audit row, and the server sees nothing; undeclared it
// reaches the server 0 times too. An 8 MB zero-filled body, declared,
// arrives whole: the sink does count what arrives.
func TestUploadBodyTooLarge(t *testing.T) {
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	var got atomic.Int64
	a.handle("/sink", func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Add(n)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>received</title>")
	})
	a.page("/upload", `<!doctype html><title>building</title>
<form method=post enctype="multipart/form-data" action="/sink"><input type=file name=file id=file><button id=send>Send</button></form>
<script>
const mb = Number(new URLSearchParams(location.search).get("mb"));
const dt = new DataTransfer();
dt.items.add(new File([new Uint8Array(mb * 1024 * 1024)], "disk.img"));
document.getElementById("file").files = dt.files;
document.title = "ready";
</script>`)
	a.page("/after", `<title>after</title>still guarded`)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)

	open := func(mb int) {
		t.Helper()
		env := call(t, cs, "navigate", map[string]any{"url": fmt.Sprintf("%s/upload?mb=%d", a.URL, mb)})
		wantStatus(t, env, "ok")
		if env["title"] != "ready" {
			t.Fatalf("upload page: %v", env)
		}
	}
	// The guard is still up and the tab usable after each.
	after := func() {
		t.Helper()
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/after"}), "ok")
	}

	// Declared, 8 MB of zero bytes (a 61 MB message) arrives whole.
	open(8)
	start := time.Now()
	env := call(t, cs, "click", map[string]any{"selector": "#send", "submits": true, "timeout_ms": 30000})
	wantStatus(t, env, "ok")
	waitFor(t, "8 MB to arrive", 30*time.Second, func() bool { return got.Load() > 8<<20 })
	t.Logf("declared 8 MB of zeros: %v, %d bytes at the server in %v", env["status"], got.Load(), time.Since(start).Round(time.Millisecond))
	after()

	// Declared, 40 MB of zero bytes: refused, naming the size, within the
	// click's timeout; the server sees nothing.
	hits := a.count("/sink")
	got.Store(0)
	open(40)
	start = time.Now()
	env = call(t, cs, "click", map[string]any{"selector": "#send", "submits": true, "timeout_ms": 30000})
	took := time.Since(start)
	if env["status"] == "ok" {
		// Delivered whole is the other acceptable outcome.
		waitFor(t, "40 MB to arrive", 60*time.Second, func() bool { return got.Load() > 40<<20 })
		t.Logf("declared 40 MB of zeros arrived whole: %d bytes in %v", got.Load(), took)
	} else {
		wantStatus(t, env, "body_too_large")
		msg := fmt.Sprint(env["error"])
		size, _ := env["message_bytes"].(float64)
		if size < 256<<20 || !strings.Contains(msg, "MB DevTools message") || env["url"] != fmt.Sprintf("%s/upload?mb=40", a.URL) {
			t.Errorf("the refusal does not name the size or the tab moved: %v", env)
		}
		if took > 35*time.Second {
			t.Errorf("answered after %v, past the click's 30 s", took)
		}
		row := waitRefusal(t, dir, "body_too_large")
		if row["method"] != "POST" || row["has_body"] != true || row["message_bytes"] == nil {
			t.Errorf("audit row: %v", row)
		}
		// The row is written once the navigation was stopped: the request
		// is cancelled in the browser, and nothing can arrive later.
		if a.count("/sink") != hits || got.Load() != 0 {
			t.Fatalf("a refused body reached the server: %d requests, %d bytes", a.count("/sink")-hits, got.Load())
		}
		t.Logf("declared 40 MB of zeros: %v in %v: %s", env["status"], took.Round(time.Millisecond), msg)
	}
	after()

	// Undeclared, 40 MB of zero bytes: nothing reaches the server.
	hits = a.count("/sink")
	rows := len(auditRows(t, dir))
	open(40)
	env = call(t, cs, "click", map[string]any{"selector": "#send", "timeout_ms": 30000})
	if env["status"] != "body_too_large" && env["status"] != "blocked_by_policy" {
		t.Errorf("undeclared 40 MB: %v", env)
	}
	waitFor(t, "the refusal's audit row", 30*time.Second, func() bool {
		return len(rowsWhere(auditRows(t, dir)[rows:], has{"kind": "guard", "verdict": "deny", "request_url": pathEnds("/sink")})) > 0
	})
	if a.count("/sink") != hits {
		t.Fatalf("an undeclared 40 MB body reached the server")
	}
	t.Logf("undeclared 40 MB of zeros: %v, server reached %d times", env["status"], a.count("/sink")-hits)
	after()
}

// waitRefusal waits for the guard's refusal row with this reason.
func waitRefusal(t *testing.T, dir, reason string) map[string]any {
	t.Helper()
	var row map[string]any
	waitFor(t, "a "+reason+" audit row", 30*time.Second, func() bool {
		if rows := rowsWhere(auditRows(t, dir), has{"kind": "guard", "verdict": "deny", "reason": reason}); len(rows) > 0 {
			row = rows[0]
		}
		return row != nil
	})
	return row
}
