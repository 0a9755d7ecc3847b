package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/internal/testenv"
)

// uaCollect is what every context of the hints page reports: the UA string,
// navigator.platform, the low-entropy userAgentData and every high-entropy
// value.
const uaCollect = `
async function collect() {
	const u = navigator.userAgentData;
	const r = {ua: navigator.userAgent, platform: navigator.platform, secure: self.isSecureContext};
	if (!u) return r;
	r.brands = u.brands; r.mobile = u.mobile; r.uaPlatform = u.platform;
	try {
		r.high = await u.getHighEntropyValues(['architecture', 'bitness', 'brands', 'formFactors', 'fullVersionList', 'mobile', 'model', 'platform', 'platformVersion', 'uaFullVersion', 'wow64']);
	} catch (e) { r.high = 'error: ' + e; }
	return r;
}
function report(origin, side, part, r) {
	return fetch(origin + '/uareport?side=' + side + '&part=' + part, {method: 'POST', mode: 'no-cors', body: JSON.stringify(r)});
}
`

// acceptCH asks for every UA client hint on later requests to the origin.
const acceptCH = "Sec-CH-UA, Sec-CH-UA-Mobile, Sec-CH-UA-Platform, Sec-CH-UA-Arch, Sec-CH-UA-Bitness, Sec-CH-UA-Full-Version, Sec-CH-UA-Full-Version-List, Sec-CH-UA-Model, Sec-CH-UA-Platform-Version, Sec-CH-UA-WoW64, Sec-CH-UA-Form-Factors"

// uaParts are the reports a visit must deliver: the page, a dedicated
// worker, a same-origin iframe and an out-of-process (127.0.0.2) one, a
// service worker and a shared worker, and the Sec-CH-UA* / User-Agent
// headers of the document requests (page and both iframes) and of a fetch
// from the page and from the dedicated worker after Accept-CH.
var uaParts = []string{"top", "worker", "same", "cross", "hdr-doc", "hdr-top", "hdr-worker", "hdr-same", "hdr-cross", "sw", "shared"}

type uaSite struct {
	a, b *site
	mu   sync.Mutex
	got  map[string]map[string]string // side -> part -> JSON
	// uas: the User-Agent of every request either site got (scripts of
	// workers, favicons, reports and all), with its path.
	uas []string
}

func newUASite(t *testing.T) *uaSite {
	u := &uaSite{a: newSite(t, "127.0.0.1"), b: newSite(t, "127.0.0.2"), got: map[string]map[string]string{}}
	seen := func(r *http.Request) {
		u.mu.Lock()
		u.uas = append(u.uas, r.URL.Path+": "+r.UserAgent())
		u.mu.Unlock()
	}
	u.a.seen, u.b.seen = seen, seen
	headers := func(r *http.Request) string {
		h := map[string]string{"User-Agent": strings.Replace(r.UserAgent(), "HeadlessChrome/", "Chrome/", 1)}
		for k, v := range r.Header {
			if strings.HasPrefix(strings.ToLower(k), "sec-ch-ua") {
				h[k] = strings.Join(v, ", ")
			}
		}
		b, _ := json.Marshal(h)
		return string(b)
	}
	u.a.handle("/hints", func(w http.ResponseWriter, r *http.Request) {
		side := r.URL.Query().Get("side")
		u.put(side, "hdr-doc", headers(r))
		w.Header().Set("Accept-CH", acceptCH)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>hints</title><p>hints</p>
<iframe src="/uaframe?side=%[1]s&part=same"></iframe>
<iframe src="%[2]s/uaframe?side=%[1]s&part=cross"></iframe>
<script>%[3]s
(async function() {
	const origin = location.origin;
	const w = new Worker('/uaworker.js?side=%[1]s');
	w.onmessage = e => report(origin, '%[1]s', 'worker', e.data);
	await fetch('/uahdr?side=%[1]s&part=hdr-top');
	try { await navigator.serviceWorker.register('/uasw.js?side=%[1]s'); } catch (e) { report(origin, '%[1]s', 'sw', {err: String(e)}); }
	try { new SharedWorker('/uasw.js?side=%[1]s&shared=1'); } catch (e) { report(origin, '%[1]s', 'shared', {err: String(e)}); }
	await report(origin, '%[1]s', 'top', await collect());
})();
</script>`, side, u.b.URL, uaCollect)
	})
	frame := func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		u.put(q.Get("side"), "hdr-"+q.Get("part"), headers(r))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>frame</title><script>%s
collect().then(r => report(%q, %q, %q, r));
</script>`, uaCollect, u.a.URL, q.Get("side"), q.Get("part"))
	}
	u.a.handle("/uaframe", frame)
	u.b.handle("/uaframe", frame)
	u.a.handle("/uaworker.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprintf(w, `%s
(async function() {
	await fetch('/uahdr?side=%s&part=hdr-worker');
	postMessage(await collect());
})();`, uaCollect, r.URL.Query().Get("side"))
	})
	u.a.handle("/uasw.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		part := "sw"
		if r.URL.Query().Get("shared") != "" {
			part = "shared"
		}
		fmt.Fprintf(w, "%s\ncollect().then(r => report(%q, %q, %q, r));", uaCollect, u.a.URL, r.URL.Query().Get("side"), part)
	})
	u.a.handle("/uahdr", func(w http.ResponseWriter, r *http.Request) {
		u.put(r.URL.Query().Get("side"), r.URL.Query().Get("part"), headers(r))
	})
	u.a.handle("/uareport", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.put(r.URL.Query().Get("side"), r.URL.Query().Get("part"), string(b))
	})
	return u
}

func (u *uaSite) put(side, part, v string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.got[side] == nil {
		u.got[side] = map[string]string{}
	}
	u.got[side][part] = v
}

// wait returns every part of a side's visit, normalised: the UA string
// with HeadlessChrome read as Chrome, JSON re-encoded with sorted keys.
func (u *uaSite) wait(t *testing.T, side string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		u.mu.Lock()
		n := len(u.got[side])
		u.mu.Unlock()
		if n == len(uaParts) {
			break
		}
		if time.Now().After(deadline) {
			u.mu.Lock()
			defer u.mu.Unlock()
			t.Fatalf("%s: only parts %v arrived", side, keys(u.got[side]))
		}
		time.Sleep(20 * time.Millisecond)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	out := map[string]string{}
	for k, v := range u.got[side] {
		var x any
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			t.Fatalf("%s %s: %v: %s", side, k, err, v)
		}
		if m, ok := x.(map[string]any); ok {
			if s, ok := m["ua"].(string); ok {
				m["ua"] = strings.Replace(s, "HeadlessChrome/", "Chrome/", 1)
			}
		}
		b, _ := json.Marshal(x)
		out[k] = string(b)
	}
	return out
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// plainHints opens the hints page in plain headless Chromium, with no
// --user-agent switch and no domain enabled.
func plainHints(t *testing.T, u *uaSite, side string) map[string]string {
	t.Helper()
	conn, closePlain := plainChromium(t, true)
	defer closePlain()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := cdp.Call(ctx, conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: u.a.URL + "/hints?side=" + side}); err != nil {
		t.Fatal(err)
	}
	return u.wait(t, side)
}

// TestHeadlessClientHints: under headless lyrad every context of a page
// (the page, same-origin and out-of-process iframes, dedicated, shared and
// service workers)
// answers userAgentData, high-entropy values included, and sends Sec-CH-UA*
// headers exactly as plain headless Chromium on the same host does, save
// for HeadlessChrome in the UA string; on a fresh data dir and on the
// launch after.
func TestHeadlessClientHints(t *testing.T) {
	parallel(t)
	needBrowser(t)
	u := newUASite(t)
	plain := plainHints(t, u, "plain")
	var high struct {
		High map[string]any `json:"high"`
	}
	json.Unmarshal([]byte(plain["top"]), &high)
	// Chrome on Linux reports an empty platformVersion; the others are
	// never empty when it answers in full.
	for _, k := range []string{"fullVersionList", "architecture", "bitness", "platformVersion", "uaFullVersion"} {
		if v, ok := high.High[k]; !ok || (k != "platformVersion" && (v == "" || fmt.Sprint(v) == "[]")) {
			t.Fatalf("plain Chromium reports no %s: the comparison would prove nothing (%s)", k, plain["top"])
		}
	}
	if !strings.Contains(plain["hdr-top"], "Full-Version-List") {
		t.Fatalf("plain Chromium sent no Sec-CH-UA-Full-Version-List after Accept-CH: %s", plain["hdr-top"])
	}

	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026)
	uaPath := filepath.Join(dir, "browser-ua.json")
	checked := 0
	for i, side := range []string{"lyrad-first", "lyrad-second", "lyrad-old-file", "lyrad-upgraded"} {
		switch side {
		case "lyrad-old-file":
			// A browser-ua.json from before lyrad remembered client hints.
			editUAFile(t, uaPath, func(m map[string]any) { delete(m, "client_hints") })
		case "lyrad-upgraded":
			// The binary was upgraded: what lyrad remembers is stale.
			editUAFile(t, uaPath, func(m map[string]any) {
				m["product"] = "Chrome/0.0.0.1"
				m["client_hints"].(map[string]any)["fullVersion"] = "0.0.0.1"
			})
		}
		u.mu.Lock()
		u.uas = nil
		u.mu.Unlock()
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": u.a.URL + "/hints?side=" + side}), "ok")
		got := u.wait(t, side)
		if side != "lyrad-second" {
			// A predicted launch checks its prediction once the page had
			// its time; the file is written then.
			waitUAChecked(t, dir, checked+1, "confirmed")
			checked++
		}
		wantStatus(t, call(t, cs, "close_browser", nil), "ok")
		u.mu.Lock()
		for _, r := range u.uas {
			if strings.Contains(r, "Headless") || !strings.Contains(r, "Chrome/") {
				t.Errorf("%s: a request gave headless away or lost its Chrome token: %s", side, r)
			}
		}
		if i == 0 {
			t.Logf("%s: %d requests, every User-Agent:\n%s", side, len(u.uas), strings.Join(u.uas, "\n"))
		}
		u.mu.Unlock()
		for _, part := range uaParts {
			if i == 0 {
				t.Logf("plain %s: %s", part, plain[part])
			}
			want := plain[part]
			if (part == "hdr-doc" || part == "hdr-same") && i > 0 {
				// The profile remembers the first visit's Accept-CH: the
				// document request now carries every hint.
				want = plain["hdr-top"]
			}
			if got[part] != want {
				t.Errorf("%s %s differs from plain Chromium:\n lyrad %s\n plain %s", side, part, got[part], want)
			}
		}
		u.mu.Lock()
		raw := fmt.Sprint(u.got[side])
		u.mu.Unlock()
		if strings.Contains(raw, "Headless") {
			t.Errorf("%s gave headless away: %s", side, raw)
		}
		// One browser start, save where the binary changed in a way its
		// stamp (size and mtime) did not show.
		// Where the hints came from: worked out from the version, then
		// checked, when nothing (or nothing current) was remembered.
		var starts []float64
		var source []string
		for _, r := range auditRows(t, dir) {
			if r["kind"] == "browser" && r["status"] == "opened" {
				n, _ := r["starts"].(float64)
				starts = append(starts, n)
				s, _ := r["ua_hints"].(string)
				source = append(source, s)
			}
		}
		wantSource := map[string]string{"lyrad-first": "predicted", "lyrad-second": "remembered", "lyrad-old-file": "predicted", "lyrad-upgraded": "predicted"}[side]
		if len(source) != i+1 || source[i] != wantSource {
			t.Errorf("%s: client hints from %v, want %s last", side, source, wantSource)
		}
		wantStarts := 1.0
		if side == "lyrad-upgraded" {
			wantStarts = 2
		}
		if len(starts) != i+1 || starts[i] != wantStarts {
			t.Errorf("%s: browser starts per open_browser %v, want %v last", side, starts, wantStarts)
		}
		b, _ := os.ReadFile(uaPath)
		if !strings.Contains(string(b), `"client_hints"`) || strings.Contains(string(b), "0.0.0.1") {
			t.Errorf("after %s browser-ua.json holds no or stale client hints:\n%s", side, b)
		}
		if i == 0 {
			t.Logf("browser-ua.json:\n%s", b)
		}
	}
}

func editUAFile(t *testing.T, path string, edit func(map[string]any)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	b, _ = json.Marshal(m)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// waitUAChecked waits for the n-th browser ua_checked row and wants its
// result.
func waitUAChecked(t *testing.T, dir string, n int, result string) {
	t.Helper()
	var rows []map[string]any
	waitFor(t, "the client hints check", 60*time.Second, func() bool {
		rows = rowsWhere(auditRows(t, dir), has{"kind": "browser", "status": "ua_checked"})
		return len(rows) >= n
	})
	if rows[n-1]["result"] != result {
		t.Fatalf("hints check %v, want %s", rows[n-1], result)
	}
}

// TestHeadlessClientHintsCorrected: when the prediction is not what the
// browser sends (here Debian's Chromium behind a wrapper whose --version
// names it Google Chrome, so lyrad predicts Chrome's three brands), the
// check finds the browser's own, remembers them, and hands them to every
// target: the running tab's next page and the next launch equal plain
// Chromium. The page lyrad asks from is neither a tab nor judged.
func TestHeadlessClientHintsCorrected(t *testing.T) {
	parallel(t)
	bin := needBrowser(t)
	out, err := exec.Command(bin, "--version").Output()
	m := regexp.MustCompile(`\b\d+\.\d+\.\d+\.\d+\b`).Find(out)
	if err == nil && (m == nil || !strings.HasPrefix(string(out), "Chromium ")) {
		err = fmt.Errorf("%s --version says %q", bin, out)
	}
	testenv.Need(t, "Chromium, to pass for Google Chrome", err)
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "google-chrome")
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'Google Chrome %s'; exit 0; fi\nexec %s \"$@\"\n", m, bin)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	u := newUASite(t)
	plain := plainHints(t, u, "plain")
	data := filepath.Join(dir, "data")
	cs := connectStdio(t, data, proto2026, "LYRA_BROWSER_CHANNEL="+wrapper)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": u.a.URL + "/hints?side=predicted"}), "ok")
	wrong := u.wait(t, "predicted")
	if !strings.Contains(wrong["top"], "Google Chrome") {
		t.Fatalf("the prediction did not name Google Chrome, so nothing here is corrected: %s", wrong["top"])
	}
	waitUAChecked(t, data, 1, "corrected")
	tabs := call(t, cs, "tabs", nil)
	if n, _ := tabs["tab_count"].(float64); n != 1 {
		t.Errorf("tabs after the check: %v, want the agent's one", tabs)
	}
	for _, r := range rowsWhere(auditRows(t, data), has{"kind": "guard"}) {
		if url := fmt.Sprint(r["request_url"]); !strings.HasPrefix(url, u.a.URL) && !strings.HasPrefix(url, u.b.URL) {
			t.Errorf("the guard judged a request of lyrad's own page: %v", r)
		}
	}
	for _, side := range []string{"corrected", "relaunched"} {
		if side == "relaunched" {
			wantStatus(t, call(t, cs, "close_browser", nil), "ok")
		}
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": u.a.URL + "/hints?side=" + side}), "ok")
		got := u.wait(t, side)
		for _, part := range uaParts {
			want := plain[part]
			if part == "hdr-doc" || part == "hdr-same" {
				want = plain["hdr-top"] // Accept-CH remembered from the first visit
			}
			if got[part] != want {
				t.Errorf("%s %s differs from plain Chromium:\n lyrad %s\n plain %s", side, part, got[part], want)
			}
		}
	}
	rows := rowsWhere(auditRows(t, data), has{"kind": "browser", "status": "opened"})
	if len(rows) != 2 || rows[0]["ua_hints"] != "predicted" || rows[1]["ua_hints"] != "remembered" {
		t.Errorf("opened rows %v, want predicted then remembered", rows)
	}
}
