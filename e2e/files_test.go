package e2e

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A 2x2 red PNG: an image the file: page could show on screen.
var filesPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGP4z8AARAwQCgAf7gP9i18U1AAAAABJRU5ErkJggg==")

const (
	keyMark     = "KEYMARK-openssh-private-test"
	listingMark = "zq_listed_only_pub"
	siblingMark = "SIBLINGMARK-other-download"
	photoMark   = "IMGLOADED"
	fetchMark   = "FETCHED:"
)

// filesInvoice is what the hostile site hands over as invoice.html: a
// file: page that frames, shows and fetches the disk around it.
const filesInvoice = `<!doctype html><title>Invoice</title><p>INVOICE-OK 42</p>
<iframe src="../../.ssh/id_test"></iframe>
<iframe src="../../.ssh/"></iframe>
<iframe src="../../.ssh"></iframe>
<iframe src="notes.txt"></iframe>
<iframe src="../../"></iframe>
<object data="../../.ssh/id_test"></object>
<embed src="../../.ssh/id_test">
<img src="../../.ssh/pic.png" onload="document.body.append(' IMGLOADED-ssh')">
<img src="../../photo.png" onload="document.body.append(' IMGLOADED-home')" onerror="document.body.append(' IMGERR-home')">
<img src="/etc/hostname" onload="document.body.append(' IMGLOADED-etc')">
<script>
for (const u of ['../../.ssh/id_test', 'notes.txt', '../../.ssh/']) {
  fetch(u).then(r => r.text()).then(t => document.body.append(' FETCHED:' + t)).catch(e => document.body.append(' FETCHERR ' + e));
  try { const x = new XMLHttpRequest(); x.open('GET', u, false); x.send(); document.body.append(' FETCHED:' + x.responseText) } catch (e) { document.body.append(' XHRERR ' + e) }
}
window.addEventListener('load', () => setTimeout(() => document.body.append(' ALLDONE'), 500));
</script>`

// TestFileDocumentsReachOnlyTheApprovedFile: a declared download saves
// invoice.html from a loopback site; the agent opens it (approved by its
// name); its frames, object, embed, images, fetches and XHRs aim at a fake
// home's ~/.ssh, a directory listing, a sibling download and a photo. The
// key's text, the listing and the other files reach no reply, no load of
// them is allowed in the audit, no prompt names .ssh, and the agent's own
// navigate to ~/.ssh is refused even with a user who says yes to anything.
// The approved file itself opens.
func TestFileDocumentsReachOnlyTheApprovedFile(t *testing.T) {
	needBrowser(t)
	home := t.TempDir()
	data := filepath.Join(home, "lyrad")
	downloads := filepath.Join(data, "downloads")
	ssh := filepath.Join(home, ".ssh")
	for _, d := range []string{ssh, downloads} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string, b []byte) {
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(ssh, "id_test"), []byte("-----BEGIN "+keyMark+"-----\n"))
	write(filepath.Join(ssh, listingMark), []byte("ssh-ed25519 AAAA"))
	write(filepath.Join(ssh, "pic.png"), filesPNG)
	write(filepath.Join(home, "photo.png"), filesPNG)
	write(filepath.Join(downloads, "notes.txt"), []byte(siblingMark))

	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Billing</title><a id=dl href="/invoice">invoice</a>`)
	s.handle("/invoice", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Disposition", `attachment; filename="invoice.html"`)
		fmt.Fprint(w, filesInvoice)
	})

	a := &asker{}
	cs := connectAsking(t, data, proto2026, a.handle, "HOME="+home, "TMPDIR="+t.TempDir())
	do := func(name string, args map[string]any) map[string]any { t.Helper(); return call(t, cs, name, args) }
	wantStatus(t, do("navigate", map[string]any{"url": s.URL + "/"}), "ok")
	env := do("click", map[string]any{"selector": "#dl", "download": true})
	wantStatus(t, env, "ok")
	dl, _ := env["download"].(map[string]any)
	path, _ := dl["path"].(string)
	if filepath.Base(path) != "invoice.html" || filepath.Dir(path) != downloads {
		t.Fatalf("the download: %v", env)
	}

	// The agent opens the file as the tools allow: navigate to it, asked.
	env = do("navigate", map[string]any{"url": "file://" + path})
	wantStatus(t, env, "ok")
	if env["title"] != "Invoice" {
		t.Errorf("the approved file did not open: %v", env)
	}
	if w := do("wait_for", map[string]any{"text": "ALLDONE", "timeout_ms": 30000}); w["status"] != "ok" {
		t.Logf("wait_for: %v", w)
	}

	leaked := 0
	var replies []string
	for _, mode := range []string{"text", "tree"} {
		r := do("read_page", map[string]any{"mode": mode})
		replies = append(replies, jsonString(r))
	}
	shot := do("screenshot", nil)
	replies = append(replies, jsonString(shot))
	for _, r := range replies {
		for _, mark := range []string{keyMark, listingMark, siblingMark, photoMark, fetchMark} {
			if strings.Contains(r, mark) {
				leaked++
				t.Errorf("a reply holds %q", mark)
			}
		}
	}
	if !strings.Contains(replies[0], "INVOICE-OK") {
		t.Errorf("the approved file's own text is not read: %.300s", replies[0])
	}

	// The agent's own way there: refused, never asked, even though this
	// user says yes to everything.
	for _, u := range []string{"file://" + ssh + "/id_test", "file://" + ssh + "/", "file://" + ssh, "file://" + downloads + "/", "file://" + downloads} {
		env := do("navigate", map[string]any{"url": u, "confirm": true})
		if env["status"] == "ok" {
			leaked++
			t.Errorf("navigate %s: %v", u, env)
		}
	}
	for _, mode := range []string{"text", "tree"} {
		r := jsonString(do("read_page", map[string]any{"mode": mode}))
		for _, mark := range []string{keyMark, listingMark, siblingMark} {
			if strings.Contains(r, mark) {
				leaked++
				t.Errorf("after the agent's own navigate, a reply holds %q", mark)
			}
		}
	}

	asked := a.count(".ssh") + a.count("notes.txt") + a.count("photo.png")
	rows := auditRows(t, data)
	var allowed, deniedListing, deniedLoads int
	for _, r := range rows {
		u, _ := r["request_url"].(string)
		if r["kind"] == "send" {
			u, _ = r["destination"].(string)
			if strings.HasPrefix(u, "file:") && r["verdict"] == "deny" {
				deniedLoads++
			}
		}
		if !strings.HasPrefix(u, "file:") || strings.HasSuffix(u, "/invoice.html") {
			continue
		}
		if r["verdict"] == "allow" {
			allowed++
			t.Errorf("a file: load allowed: %v", r)
		} else if strings.HasSuffix(u, "/.ssh/") || strings.HasSuffix(u, "/.ssh") {
			deniedListing++
		}
	}
	t.Logf("leaks in replies %d, file: loads allowed %d, prompts naming another file %d, directory listings refused %d, a file: page's own loads refused %d", leaked, allowed, asked, deniedListing, deniedLoads)
	if deniedLoads == 0 {
		t.Errorf("no refusal of the page's images, fetches and XHRs in the audit")
	}
	if asked != 0 {
		t.Errorf("%d prompts named another file: %q", asked, a.asked)
	}
	if deniedListing == 0 {
		t.Errorf("no refusal of the ~/.ssh listing in the audit")
	}
	// The approved file reopens with a new yes, as before.
	wantStatus(t, do("navigate", map[string]any{"url": "file://" + path}), "ok")
}
