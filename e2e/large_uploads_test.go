package e2e

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// TestLargeUploads: 3, 12 and 40 MB multipart POSTs are refused when
// nothing allows sending (the server sees nothing) and delivered whole when
// the site may send; the guard stays up after each.
func TestLargeUploads(t *testing.T) {
	parallel(t)
	needBrowser(t)
	for _, granted := range []bool{false, true} {
		t.Run(map[bool]string{false: "ungranted", true: "granted"}[granted], func(t *testing.T) {
			a := newSite(t, "127.0.0.1")
			var got atomic.Int64
			// Each round sends to its own path (/sink3, /sink12, /sink40), so
			// each round's refusal is its own audit row.
			sizes := []int{3, 12, 40}
			for _, mb := range sizes {
				a.handle(fmt.Sprintf("/sink%d", mb), func(w http.ResponseWriter, r *http.Request) {
					n, _ := io.Copy(io.Discard, r.Body)
					got.Store(n)
					w.Header().Set("Content-Type", "text/html")
					fmt.Fprint(w, "<title>received</title>")
				})
			}
			a.page("/upload", `<!doctype html><title>upload</title>
<form id=f method=post enctype="multipart/form-data"><input type=file name=file id=file></form>
<script>
const mb = Number(new URLSearchParams(location.search).get("mb"));
document.getElementById("f").action = "/sink" + mb;
const dt = new DataTransfer();
dt.items.add(new File([new Uint8Array(mb * 1024 * 1024).fill(65)], "big.bin"));
document.getElementById("file").files = dt.files;
addEventListener("load", () => document.getElementById("f").submit());
</script>`)
			a.page("/after", `<title>after</title>still guarded`)
			env := []string{"LYRA_BROWSER_TRUSTED_ORIGINS=" + a.URL}
			if granted {
				env = append(env, "LYRA_BROWSER_TRUSTED_SEND_ORIGINS="+a.URL)
			}
			dir := t.TempDir()
			cs := connectAsking(t, dir, proto2026, nil, env...)
			for _, mb := range sizes {
				got.Store(-1)
				sink := fmt.Sprintf("/sink%d", mb)
				// The page sends itself as its load ends: allowed, it lands
				// on the sink; refused, navigate says blocked_by_policy when
				// the refusal came before the load it waited for, else ok.
				env := call(t, cs, "navigate", map[string]any{"url": fmt.Sprintf("%s/upload?mb=%d", a.URL, mb), "wait_until": "load"})
				if env["status"] != "ok" && (granted || env["status"] != "blocked_by_policy") {
					t.Fatalf("%d MB: navigate %v", mb, env)
				}
				if granted {
					waitFor(t, fmt.Sprintf("%d MB to arrive", mb), 30*time.Second, func() bool { return got.Load() > int64(mb)<<20 })
				} else {
					waitFor(t, "the refusal", 30*time.Second, func() bool {
						return len(rowsWhere(refusals(t, dir, sink), has{"has_body": true})) > 0
					})
					time.Sleep(100 * time.Millisecond)
					if a.count(sink) != 0 {
						t.Fatalf("%d MB: an undeclared upload reached the server", mb)
					}
				}
				t.Logf("%d MB multipart POST: granted=%v, server received %d bytes in %d requests", mb, granted, max(got.Load(), 0), a.count(sink))
				// The guard is still up: the connection survived the message.
				wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/after"}), "ok")
			}
		})
	}
}
