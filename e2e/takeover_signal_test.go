package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// fixedLink is a link the user's mouse can find: fixed at the viewport's
// top left, large.
const fixedStyle = `<style>.hit{position:fixed;left:0;top:0;width:400px;height:80px;display:block;background:#eee;font:20px sans-serif}</style>`

// TestTakeoverSignalSecFetchUser measures the signal the takeover guard
// relies on, on this machine's Chromium: the Sec-Fetch-User request header
// is "?1" on what the user does at the window (a real mouse click on a
// link and on a form's submit button, Enter in a form, a click on a link
// that opens a popup, their redirect hops, a URL typed in the address bar,
// back from the keyboard) and absent on what a page does by itself (a
// timer's navigation, a meta refresh, a script's form submit, a script's
// <a download> click). A real click on an <a download> link carries none
// either: that request is not a navigation. Headful under Xvfb, the
// user's input through xdotool, never through CDP. The guard's own
// reading of the user's gesture (audited user_activated) agrees with the
// header on each.
func TestTakeoverSignalSecFetchUser(t *testing.T) {
	needBrowser(t)
	display := startXvfb(t)
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	var mu sync.Mutex
	got := map[string][]string{} // "host path" -> Sec-Fetch-User of each request
	record := func(host string) func(r *http.Request) {
		return func(r *http.Request) {
			mu.Lock()
			got[host+" "+r.URL.Path] = append(got[host+" "+r.URL.Path], r.Header.Get("Sec-Fetch-User"))
			mu.Unlock()
		}
	}
	a.seen, b.seen = record("a"), record("b")
	headers := func(key string) []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got[key]...)
	}
	ok := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>ok</title>ok`)
	}
	for _, p := range []string{"/landing", "/form-user", "/form-enter", "/popup", "/timer", "/meta", "/autoform", "/typed"} {
		b.handle(p, ok)
	}
	a.handle("/hop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, b.URL+"/landing", http.StatusFound) })
	file := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="f.bin"`)
		fmt.Fprint(w, "file")
	}
	a.handle("/file-user", file)
	a.handle("/file-auto", file)
	a.handle("/file-nav", file)
	a.page("/", `<!doctype html><title>Home</title>`+fixedStyle+`<a class=hit href="/hop">Continue</a>`)
	a.page("/form", `<!doctype html><title>Form</title>`+fixedStyle+`<form method=post action="`+b.URL+`/form-user"><input name=q value=1><button class=hit>Send</button></form>`)
	a.page("/enter", `<!doctype html><title>Enter</title><form method=post action="`+b.URL+`/form-enter"><input class=hit name=q value=1></form>`)
	a.page("/blank", `<!doctype html><title>Blank</title>`+fixedStyle+`<a class=hit target=_blank href="`+b.URL+`/popup">Open</a>`)
	a.page("/dl", `<!doctype html><title>Dl</title>`+fixedStyle+`<a class=hit download href="/file-user">Get</a>`)
	a.page("/timer", `<!doctype html><title>Timer</title><script>setTimeout(()=>{location.href='`+b.URL+`/timer'},300)</script>`)
	a.page("/meta", `<!doctype html><title>Meta</title><meta http-equiv=refresh content="0;url=`+b.URL+`/meta">`)
	a.page("/autoform", `<!doctype html><title>Autoform</title><form id=f method=post action="`+b.URL+`/autoform"><input name=q value=1></form><script>setTimeout(()=>document.getElementById('f').submit(),300)</script>`)
	a.page("/autodl", `<!doctype html><title>Autodl</title><script>setTimeout(()=>{const x=document.createElement('a');x.href='/file-auto';x.download='f.bin';document.body.append(x);x.click()},300)</script>`)
	a.page("/navdl", `<!doctype html><title>Navdl</title><script>setTimeout(()=>{location.href='/file-nav'},300)</script>`)
	a.handle("/back", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store") // back then asks the site again
		ok(w, r)
	})

	dir := t.TempDir()
	ask := &asker{}
	cs := connectAsking(t, dir, proto2026, ask.handle, "LYRA_BROWSER_HEADLESS=auto", "DISPLAY="+display,
		"LYRA_BROWSER_ENFORCEMENT=observe") // nothing refused: the browser's own headers are measured
	do := func(name string, args map[string]any) map[string]any { t.Helper(); return call(t, cs, name, args) }
	wantStatus(t, do("navigate", map[string]any{"url": a.URL + "/"}), "ok")
	u := newUserHand(t, display, cs)
	wait := func(key string) []string {
		t.Helper()
		waitFor(t, key, 20*time.Second, func() bool { return len(headers(key)) > 0 })
		return headers(key)
	}
	type check struct {
		site        *site
		path, value string
	}
	var checks []check
	want := func(key, value string) {
		t.Helper()
		h := wait(key)
		t.Logf("%-14s Sec-Fetch-User=%q", key, h)
		for _, v := range h {
			if v != value {
				t.Errorf("%s: Sec-Fetch-User %q, want %q on every request", key, h, value)
			}
		}
		s, path, _ := strings.Cut(key, " ")
		checks = append(checks, check{map[string]*site{"a": a, "b": b}[s], path, value})
	}
	// The guard cannot read that header (the network service adds it after
	// the Fetch domain saw the request): it reads the gesture from
	// Network.requestWillBeSent, and must agree with it on every request.
	defer func() {
		rows := auditRows(t, dir)
		for _, c := range checks {
			n := 0
			for _, r := range rowsWhere(rows, has{"kind": "guard", "request_url": c.site.URL + c.path}) {
				n++
				if got := r["user_activated"] == true; got != (c.value == "?1") {
					t.Errorf("%s%s: the guard read user_activated=%v, the site saw Sec-Fetch-User %q", c.site.URL, c.path, got, c.value)
				}
			}
			if n == 0 {
				t.Errorf("%s%s: no guard row", c.site.URL, c.path)
			}
		}
	}()

	// The agent's navigate, for the record (Page.navigate is the browser's).
	t.Logf("agent navigate Sec-Fetch-User=%q", headers("a /"))

	u.click(30, 25)
	want("a /hop", "?1")
	want("b /landing", "?1") // kept over the cross-site hop

	wantStatus(t, do("navigate", map[string]any{"url": a.URL + "/form"}), "ok")
	u.click(30, 25)
	want("b /form-user", "?1")

	wantStatus(t, do("navigate", map[string]any{"url": a.URL + "/enter"}), "ok")
	u.click(30, 25) // into the field
	u.key("Return")
	want("b /form-enter", "?1")

	wantStatus(t, do("navigate", map[string]any{"url": a.URL + "/blank"}), "ok")
	u.click(30, 25)
	want("b /popup", "?1") // a popup's first load, in a new target
	// The popup's request can reach the site before the guard has read
	// the replies of its setup and lists it.
	waitFor(t, "the popup in the tab list", 10*time.Second, func() bool { return do("tabs", nil)["tab_count"] == float64(2) })
	wantStatus(t, do("tabs", map[string]any{"action": "close", "index": 1}), "ok")

	wantStatus(t, do("navigate", map[string]any{"url": a.URL + "/dl"}), "ok")
	u.click(30, 25)
	// The request an <a download> makes is the download manager's, not a
	// navigation: it carries no Sec-Fetch-User, clicked or not.
	want("a /file-user", "")

	// What the page does by itself, no input: no Sec-Fetch-User.
	for _, c := range []struct{ page, reaches string }{
		{"/timer", "b /timer"}, {"/meta", "b /meta"}, {"/autoform", "b /autoform"},
		{"/autodl", "a /file-auto"}, {"/navdl", "a /file-nav"},
	} {
		wantStatus(t, do("navigate", map[string]any{"url": a.URL + c.page}), "ok")
		want(c.reaches, "")
	}

	// The address bar, then back, from the keyboard.
	wantStatus(t, do("navigate", map[string]any{"url": a.URL + "/back"}), "ok")
	n := len(headers("a /back"))
	u.key("ctrl+l")
	time.Sleep(300 * time.Millisecond)
	u.typeText(b.URL + "/typed")
	u.key("Return")
	want("b /typed", "?1")
	waitFor(t, "the typed page", 20*time.Second, func() bool { return do("get_url", nil)["url"] == b.URL+"/typed" })
	time.Sleep(500 * time.Millisecond)
	u.key("alt+Left")
	waitFor(t, "back", 20*time.Second, func() bool { return len(headers("a /back")) > n })
	t.Logf("back (alt+Left) Sec-Fetch-User=%q", headers("a /back")[n:])
	for _, v := range headers("a /back")[n:] {
		if v != "?1" {
			t.Errorf("back from the keyboard: Sec-Fetch-User %q", v)
		}
	}
}
