package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TestServiceWorkerCannotAnswerUnjudged: a service worker registered in the
// profile in an earlier session would answer a navigation without a request
// the guard could see; lyrad turns workers off for every page it guards, so
// the navigation goes to the network and is judged.
func TestServiceWorkerCannotAnswerUnjudged(t *testing.T) {
	parallel(t)
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
