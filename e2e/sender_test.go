package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// senderSites: A is the page the agent is on (NAVIGATE only), B the
// destination the operator trusts for sends, C a cross-site frame on A.
// Every POST to B is counted by path.
func senderSites(t *testing.T) (a, b, c *site) {
	a = newSite(t, "127.0.0.1")
	b = newSite(t, "127.0.0.2")
	c = newSite(t, "127.0.0.3")
	for _, p := range []string{"/srcdoc", "/data", "/blank", "/named", "/top", "/declared", "/framed"} {
		b.handle("/sink"+p, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<title>sink %s</title>received", r.Method)
		})
	}
	form := func(path, target string) string {
		return fmt.Sprintf(`<form id=f method=post action="%s/sink%s" target="%s"><input name=card value=4111></form>`, b.URL, path, target)
	}
	// A document with no origin of its own sends: srcdoc inherits A's, a
	// data: frame has an opaque one.
	a.page("/srcdoc", fmt.Sprintf(`<!doctype html><title>srcdoc</title><iframe srcdoc='%s<script>f.submit()</script>'></iframe>`, form("/srcdoc", "_self")))
	a.page("/data", fmt.Sprintf(`<!doctype html><title>data</title><iframe src="data:text/html,%s<script>f.submit()</script>"></iframe>`,
		strings.ReplaceAll(form("/data", "_self"), `"`, `'`)))
	// A popup's first load, posted by its opener.
	a.page("/blank", `<!doctype html><title>blank</title>`+form("/blank", "_blank")+`<button id=go onclick="f.submit()">Next</button>`)
	// A named window the page opened empty, then posted into.
	a.page("/named", `<!doctype html><title>named</title>`+form("/named", "w1")+
		`<button id=go onclick="window.open('about:blank','w1'); setTimeout(()=>f.submit(), 100)">Next</button>`)
	// A cross-site iframe posting into the top frame.
	a.page("/top", fmt.Sprintf(`<!doctype html><title>top</title><iframe src="%s/frame" width=400 height=200></iframe>`, c.URL))
	c.page("/frame", `<!doctype html><title>frame</title>`+form("/top", "_top")+`<button id=cgo onclick="f.submit()">Continue</button>`+
		fmt.Sprintf(`<form method=post action="%s/sink/framed"><input name=x value=1><button id=csend>Send</button></form>`, b.URL))
	// The agent's own, declared, target=_blank post.
	a.page("/declared", `<!doctype html><title>declared</title>`+strings.Replace(form("/declared", "_blank"), "</form>", "<button id=send>Send</button></form>", 1))
	return a, b, c
}

// TestSendsChargedToTheirSender: a send is paid by the frame that started
// it (the browser's Origin header, kept over redirect hops), never by the
// document of the frame it navigates or by its destination. With B on the
// trusted send list and only NAVIGATE on A, none of the five ways a page on A
// or in its frames posts to B reaches B; the agent's declared target=_blank
// post reaches it exactly once.
func TestSendsChargedToTheirSender(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a, b, _ := senderSites(t)
	dir := t.TempDir()
	cs := connectAsking(t, dir, proto2026, nil,
		"LYRA_BROWSER_CONSENT_CHANNEL=legacy", "LYRA_BROWSER_TRUSTED_SEND_ORIGINS="+b.URL)
	wantStatus(t, call(t, cs, "open_browser", nil), "ok")

	attacks := []struct {
		page string
		act  func()
	}{
		{"/srcdoc", nil},
		{"/data", nil},
		{"/blank", func() { call(t, cs, "click", map[string]any{"selector": "#go", "confirm": true}) }},
		{"/named", func() { call(t, cs, "click", map[string]any{"selector": "#go", "confirm": true}) }},
		{"/top", func() { call(t, cs, "click", map[string]any{"selector": "#cgo", "confirm": true}) }},
	}
	for _, at := range attacks {
		call(t, cs, "tabs", map[string]any{"action": "switch", "index": 0, "confirm": true})
		wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + at.page, "confirm": true}), "ok")
		if at.act != nil {
			at.act()
		}
		// The refusal is in the trail before the browser hears it.
		deadline := time.Now().Add(15 * time.Second)
		for len(refusals(t, dir, "/sink"+at.page)) == 0 {
			if time.Now().After(deadline) {
				for _, r := range auditRows(t, dir) {
					t.Log(jsonString(r))
				}
				t.Fatalf("no refusal of %s", at.page)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if n := b.count("/sink" + at.page); n != 0 {
			t.Errorf("%s: B received %d posts", at.page, n)
		}
		row := refusals(t, dir, "/sink"+at.page)[0]
		t.Logf("%s: refused, reason %v, sender %v, origin %v", at.page, row["reason"], row["sender"], row["origin"])
		if row["consent_channel"] == "trusted" {
			t.Errorf("%s: the trusted send list answered for a send B did not make: %v", at.page, row)
		}
	}
	// The opaque sender is refused as such; the iframe is charged itself.
	if r := refusals(t, dir, "/sink/data")[0]; r["reason"] != "no_sender" {
		t.Errorf("data: frame: reason %v, want no_sender", r["reason"])
	}
	if r := refusals(t, dir, "/sink/top")[0]; !strings.HasPrefix(fmt.Sprint(r["sender"]), "http://127.0.0.3:") {
		t.Errorf("target=_top from a cross-site frame: sender %v, want the frame's origin", r["sender"])
	}

	// The agent's own target=_blank post: the credit bought on A's tab
	// pays for the popup's first load, once.
	call(t, cs, "tabs", map[string]any{"action": "switch", "index": 0, "confirm": true})
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/declared", "confirm": true}), "ok")
	env := call(t, cs, "click", map[string]any{"selector": "#send", "submits": true, "confirm": true})
	waitFor(t, "the declared post", 15*time.Second, func() bool { return b.count("/sink/declared") == 1 })
	t.Logf("declared target=_blank post: %v %v, B received %d", env["status"], env["new_tab"], b.count("/sink/declared"))
	time.Sleep(500 * time.Millisecond)
	if n := b.count("/sink/declared"); n != 1 {
		t.Errorf("declared post reached B %d times, want 1", n)
	}

	// A declared send from a form in the cross-site frame is the frame's:
	// the credit is bought on C, where the click lands, and pays once.
	call(t, cs, "tabs", map[string]any{"action": "switch", "index": 0, "confirm": true})
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/top", "confirm": true}), "ok")
	env = call(t, cs, "click", map[string]any{"selector": "#csend", "submits": true, "confirm": true})
	waitFor(t, "the framed declared post", 15*time.Second, func() bool { return b.count("/sink/framed") == 1 })
	t.Logf("declared post from the cross-site frame: %v, B received %d", env["status"], b.count("/sink/framed"))
}

// TestCreditBoundToItsTab: a single-use credit bought for an action on one
// tab cannot be spent by another tab of the same site. A background tab on A
// posts into its own frames once a second while the agent's declared send
// on the first tab waits (a page that submits 4 s after the click: a
// background tab runs its timers once a second, so it tries a few times
// even on a loaded machine); only the agent's send goes through.
func TestCreditBoundToItsTab(t *testing.T) {
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	a.handle("/sink", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<title>sink</title>received")
	})
	a.handle("/sink-other", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "received") })
	a.page("/start", `<!doctype html><title>start</title><a id=open href="/poster" target=_blank>open</a>`)
	// The poster sends into rotating frames, so a post that got through
	// would not stop it.
	a.page("/poster", `<!doctype html><title>poster</title><script>
let n = 0;
setInterval(() => {
  const name = "f" + (n++);
  const fr = document.createElement("iframe"); fr.name = name; document.body.appendChild(fr);
  const f = document.createElement("form"); f.method = "post"; f.action = "/sink-other"; f.target = name;
  const i = document.createElement("input"); i.name = "n"; i.value = n; f.appendChild(i);
  document.body.appendChild(f); f.submit();
}, 200);
</script>`)
	a.page("/slow", `<!doctype html><title>slow</title><form id=f method=post action="/sink"><input name=x value=1></form>
<button id=go onclick="setTimeout(() => f.submit(), 4000)">Send</button>`)
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026, "LYRA_BROWSER_RELEASE_GRACE=15")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/start"}), "ok")
	call(t, cs, "click", map[string]any{"selector": "#open"})
	waitFor(t, "the poster tab to post", 15*time.Second, func() bool {
		return len(refusals(t, dir, "/sink-other")) > 0
	})
	wantStatus(t, call(t, cs, "tabs", map[string]any{"action": "switch", "index": 0}), "ok")
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/slow"}), "ok")
	before := len(refusals(t, dir, "/sink-other"))
	call(t, cs, "click", map[string]any{"selector": "#go", "submits": true})
	waitFor(t, "the agent's send", 20*time.Second, func() bool { return a.count("/sink") == 1 })
	after := len(refusals(t, dir, "/sink-other"))
	t.Logf("while the credit was live the other tab tried %d posts; %d reached the server", after-before, a.count("/sink-other"))
	if after-before == 0 {
		t.Fatal("the other tab made no post while the credit was live: the test proves nothing")
	}
	if n := a.count("/sink-other"); n != 0 {
		t.Errorf("the other tab spent the credit: %d posts reached the server", n)
	}
}
