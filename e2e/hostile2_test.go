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

// TestServiceWorkerCannotAnswerUnjudged: a service worker registered in the
// profile in an earlier session would answer a navigation without a request
// the guard could see; lyrad turns workers off for every page it guards, so
// the navigation goes to the network and is judged.
func TestServiceWorkerCannotAnswerUnjudged(t *testing.T) {
	needBrowser(t)
	// Control: in Chromium with none of lyrad's settings the worker answers
	// the navigation itself. Its page loads an image the site counts, and
	// the site never sees the navigation. So the judged navigation below is
	// lyrad's doing, not a worker that never ran.
	c := swSite(t)
	stop := rawChromium(t, c.URL+"/register?then=/sw-only")
	waitFor(t, "plain Chromium to show the page the worker made", 60*time.Second, func() bool { return c.count("/sw-beacon") > 0 })
	stop()
	if c.count("/sw-only") != 0 {
		t.Fatalf("control: the navigation reached the site %d times: the worker did not answer it", c.count("/sw-only"))
	}

	a := swSite(t)
	a.page("/sw-only", `<!doctype html><title>from-network</title>judged`)

	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/register"}), "ok")
	waitFor(t, "the worker to be registered", 10*time.Second, func() bool {
		return call(t, cs, "get_url", nil)["title"] == "registered"
	})
	wantStatus(t, call(t, cs, "close_browser", nil), "ok")

	// A new browser on the same profile: the worker is installed there.
	env := call(t, cs, "navigate", map[string]any{"url": a.URL + "/sw-only"})
	wantStatus(t, env, "ok")
	if env["title"] != "from-network" || a.count("/sw-only") != 1 {
		t.Errorf("the worker answered the navigation: title %v, site reached %d times", env["title"], a.count("/sw-only"))
	}
	if len(guardRows(auditRows(t, dir), "/sw-only")) != 1 {
		t.Errorf("the navigation was not judged")
	}
}

// TestLargeUploads: 3, 12 and 40 MB multipart POSTs are refused when
// nothing allows sending (the server sees nothing) and delivered whole when
// the site may send; the guard stays up after each.
func TestLargeUploads(t *testing.T) {
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
						for _, r := range auditRows(t, dir) {
							if r["kind"] == "guard" && r["verdict"] == "deny" && strings.HasSuffix(fmt.Sprint(r["request_url"]), sink) && r["has_body"] == true {
								return true
							}
						}
						return false
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

// swSite serves a page that installs a service worker answering /sw-only
// itself (its page loads /sw-beacon from the network), and then, with
// ?then=PATH, goes to PATH.
func swSite(t *testing.T) *site {
	a := newSite(t, "127.0.0.1")
	a.handle("/sw.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `self.addEventListener("install", e => self.skipWaiting());
self.addEventListener("activate", e => e.waitUntil(clients.claim()));
self.addEventListener("fetch", e => {
  if (new URL(e.request.url).pathname === "/sw-only")
    e.respondWith(new Response("<title>from-sw</title>served by the worker<img src=/sw-beacon>", {headers: {"Content-Type": "text/html"}}));
});`)
	})
	a.page("/register", `<!doctype html><title>registering</title><script>
navigator.serviceWorker.register("/sw.js").then(() => navigator.serviceWorker.ready).then(() => {
  document.title = "registered";
  const then = new URLSearchParams(location.search).get("then");
  if (then) location.href = then;
});
</script>`)
	a.page("/sw-beacon", "")
	return a
}
