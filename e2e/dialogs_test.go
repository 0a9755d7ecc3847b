package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Native dialogs are answered the moment they open, on every tab, popup
// and frame: by default (alerts and beforeunload accepted, confirm false,
// prompt null), or as handle_dialog armed it for the next browser-acting
// call only. The page reports what its dialogs returned in its title.

const dialogPage = `<!doctype html><title>dialogs</title>
<button id=alert onclick="alert('Saved!'); document.title = 'after alert'">Alert</button>
<button id=confirm onclick="document.title = 'confirm=' + confirm('Delete this?')">Confirm</button>
<button id=prompt onclick="document.title = 'prompt=' + prompt('Your name?', 'default name')">Prompt</button>
<button id=noop onclick="document.title = 'noop'">Nothing</button>
<button id=late onclick="setTimeout(() => document.title = 'late=' + confirm('Later?'), 300)">Later</button>
<button id=storm onclick="for (let i = 0; i < 30; i++) { alert('storm ' + i); } document.title = 'storm over'">Storm</button>`

func dialogList(t *testing.T, env map[string]any) []map[string]any {
	t.Helper()
	raw, _ := env["dialogs"].([]any)
	var out []map[string]any
	for _, d := range raw {
		out = append(out, d.(map[string]any))
	}
	return out
}

func TestDialogs(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", dialogPage)
	a := newActor(t)
	if env := a.call("handle_dialog", map[string]any{"accept": true}); env["status"] != "browser_not_open" {
		t.Errorf("handle_dialog before open_browser: %v", env)
	}
	a.open(s.URL + "/")

	// Defaults.
	env := a.call("click", map[string]any{"selector": "#alert"})
	wantStatus(t, env, "ok")
	a.wantTitle("after alert")
	if ds := dialogList(t, env); len(ds) != 1 || ds[0]["type"] != "alert" || ds[0]["message"] != "Saved!" || ds[0]["answer"] != "accepted" || ds[0]["by"] != "default" {
		t.Errorf("alert: dialogs %v", env["dialogs"])
	}
	env = a.call("click", map[string]any{"selector": "#confirm"})
	a.wantTitle("confirm=false")
	if ds := dialogList(t, env); len(ds) != 1 || ds[0]["answer"] != "dismissed" || ds[0]["message"] != "Delete this?" {
		t.Errorf("confirm: dialogs %v", env["dialogs"])
	}
	wantStatus(t, a.call("click", map[string]any{"selector": "#prompt"}), "ok")
	a.wantTitle("prompt=null")
	if env := a.call("click", map[string]any{"selector": "#noop"}); env["dialogs"] != nil {
		t.Errorf("a call that raised no dialog lists %v", env["dialogs"])
	}

	// Armed: for the next acting call only.
	env = a.call("handle_dialog", map[string]any{"accept": true})
	wantStatus(t, env, "ok")
	if n, _ := env["expires_in"].(float64); n < 50 || n > 60 {
		t.Errorf("expires_in = %v", env["expires_in"])
	}
	env = a.call("click", map[string]any{"selector": "#confirm"})
	a.wantTitle("confirm=true")
	if ds := dialogList(t, env); len(ds) != 1 || ds[0]["by"] != "handle_dialog" || ds[0]["answer"] != "accepted" {
		t.Errorf("armed confirm: %v", env["dialogs"])
	}
	wantStatus(t, a.call("click", map[string]any{"selector": "#confirm"}), "ok")
	a.wantTitle("confirm=false")

	// The prompt's text; never in the audit trail.
	const secret = "Grace Hopper s3cr3t"
	wantStatus(t, a.call("handle_dialog", map[string]any{"accept": true, "text": secret}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#prompt"}), "ok")
	a.wantTitle("prompt=" + secret)
	wantStatus(t, a.call("handle_dialog", map[string]any{}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#prompt"}), "ok")
	a.wantTitle("prompt=default name")
	wantStatus(t, a.call("handle_dialog", map[string]any{"accept": false, "text": "ignored"}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#prompt"}), "ok")
	a.wantTitle("prompt=null")
	if strings.Contains(readAudit(t, a.dir), secret) {
		t.Error("the prompt text reached the audit trail")
	}

	// Reads do not use it up.
	wantStatus(t, a.call("handle_dialog", map[string]any{"accept": true}), "ok")
	a.call("get_url", nil)
	a.call("tabs", nil)
	a.call("read_page", nil)
	wantStatus(t, a.call("click", map[string]any{"selector": "#confirm"}), "ok")
	a.wantTitle("confirm=true")

	// An acting call uses it up even when it raised no dialog.
	wantStatus(t, a.call("handle_dialog", map[string]any{"accept": true}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#noop"}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#confirm"}), "ok")
	a.wantTitle("confirm=false")
	// Also when the call failed.
	wantStatus(t, a.call("handle_dialog", map[string]any{"accept": true}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#missing", "timeout_ms": 1500}), "not_found")
	wantStatus(t, a.call("click", map[string]any{"selector": "#confirm"}), "ok")
	a.wantTitle("confirm=false")

	// A dialog raised after the call (a page timer) gets the default.
	wantStatus(t, a.call("handle_dialog", map[string]any{"accept": true}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#late"}), "ok")
	waitFor(t, "the late confirm", 5*time.Second, func() bool { return a.title() == "late=false" })

	// A storm: every dialog answered, the reply lists 20 and counts the rest.
	env = a.call("click", map[string]any{"selector": "#storm"})
	wantStatus(t, env, "ok")
	a.wantTitle("storm over")
	if ds := dialogList(t, env); len(ds) != 20 || env["dialogs_more"] != float64(10) || ds[19]["message"] != "storm 19" {
		t.Errorf("storm: %d listed, dialogs_more %v", len(ds), env["dialogs_more"])
	}

	for _, r := range rowsWhere(auditRows(t, a.dir), has{"tool": "handle_dialog"}) {
		if args, _ := r["args"].(map[string]any); args["text"] != nil && args["text"] != "[redacted]" {
			t.Errorf("handle_dialog's text in the audit: %v", args["text"])
		}
	}
}

// TestDialogsEverywhere: a dialog a page raises on its own (no call under
// way) does not freeze it; dialogs of a popup and of a cross-site frame are
// answered and reported; beforeunload is accepted by default and kept
// with handle_dialog(accept=false).
func TestDialogsEverywhere(t *testing.T) {
	s := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	s.page("/", fmt.Sprintf(`<!doctype html><title>main</title>
<button id=pop onclick="window.open('/popup')">Popup</button>
<iframe src="%s/frame" style="width:400px;height:120px"></iframe>`, b.URL))
	s.page("/popup", `<!doctype html><title>popup</title>`+strings.SplitN(dialogPage, "</title>", 2)[1])
	s.page("/own", `<!doctype html><title>own</title><script>setTimeout(() => { alert('on my own'); document.title = 'not frozen'; }, 200)</script>`)
	s.page("/leave", `<!doctype html><title>leave</title><input id=f>
<script>addEventListener('beforeunload', e => { e.preventDefault(); e.returnValue = ''; });</script>`)
	b.page("/frame", `<!doctype html><button id=fa onclick="document.body.dataset.r = confirm('From the frame?')">Frame confirm</button>`)
	a := newActor(t)

	a.open(s.URL + "/own")
	waitFor(t, "the page's own alert to be answered", 5*time.Second, func() bool { return a.title() == "not frozen" })

	a.open(s.URL + "/")
	env := a.call("click", map[string]any{"selector": "#fa"})
	wantStatus(t, env, "ok")
	if ds := dialogList(t, env); len(ds) != 1 || ds[0]["message"] != "From the frame?" || ds[0]["answer"] != "dismissed" {
		t.Errorf("a cross-site frame's confirm: %v", env["dialogs"])
	}
	env = a.call("click", map[string]any{"selector": "#pop"})
	if env["new_tab"] != true {
		t.Fatalf("popup: %v", env)
	}
	wantStatus(t, a.call("handle_dialog", map[string]any{"accept": true}), "ok")
	wantStatus(t, a.call("click", map[string]any{"selector": "#confirm"}), "ok")
	a.wantTitle("confirm=true")
	wantStatus(t, a.call("tabs", map[string]any{"action": "close", "index": 1}), "ok")

	// beforeunload needs the user to have touched the page.
	a.open(s.URL + "/leave")
	wantStatus(t, a.call("click", map[string]any{"selector": "#f"}), "ok")
	wantStatus(t, a.call("handle_dialog", map[string]any{"accept": false}), "ok")
	env = a.call("reload_page", nil)
	wantStatus(t, env, "ok")
	if env["stayed"] != true || s.count("/leave") != 1 {
		t.Errorf("beforeunload kept: %v (server saw %d)", env, s.count("/leave"))
	}
	if ds := dialogList(t, env); len(ds) != 1 || ds[0]["type"] != "beforeunload" || ds[0]["answer"] != "dismissed" {
		t.Errorf("beforeunload kept: dialogs %v", env["dialogs"])
	}
	env = a.call("reload_page", nil)
	if env["status"] != "ok" {
		t.Fatalf("reload after a kept beforeunload: %v (server saw %d; tab %v)", env, s.count("/leave"), a.call("get_url", nil))
	}
	if env["stayed"] != nil || s.count("/leave") != 2 || env["http_status"] != float64(200) {
		t.Errorf("beforeunload by default: %v (server saw %d)", env, s.count("/leave"))
	}
	if ds := dialogList(t, env); len(ds) != 1 || ds[0]["answer"] != "accepted" {
		t.Errorf("beforeunload by default: dialogs %v", env["dialogs"])
	}
}

// TestDialogArmedForItsTabOnly: handle_dialog(accept, text) arms an answer
// for the tab the next acting call acts on. While that call runs, a prompt
// raised by a background popup gets the default (null), not the text; the
// active tab's own prompt gets it. The pages send what each prompt returned
// to a counting endpoint.
func TestDialogArmedForItsTabOnly(t *testing.T) {
	parallel(t)
	s := newSite(t, "127.0.0.1")
	var mu sync.Mutex
	got := map[string][]string{}
	s.handle("/got", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.URL.Query().Get("who")] = append(got[r.URL.Query().Get("who")], r.URL.Query().Get("v"))
		mu.Unlock()
		w.WriteHeader(204)
	})
	s.page("/", `<!doctype html><title>front</title>
<button id=open onclick="bg = window.open('/bg', 'bg')">Open</button>
<button id=ask onclick="
  const theirs = bg.prompt('From the background?', 'bg default');
  fetch('/got?who=bg&v=' + encodeURIComponent(String(theirs)));
  const mine = prompt('Your name?', 'mine default');
  fetch('/got?who=own&v=' + encodeURIComponent(String(mine)));
  document.title = 'asked';
">Ask</button>`)
	s.page("/bg", `<!doctype html><title>background</title>`)
	a := newActor(t)
	a.open(s.URL + "/")
	if env := a.call("click", map[string]any{"selector": "#open"}); env["new_tab"] != true {
		t.Fatalf("popup: %v", env)
	}
	env := a.call("tabs", map[string]any{"action": "switch", "index": 0})
	wantStatus(t, env, "ok")
	if env["title"] != "front" {
		t.Fatalf("switched to %v", env)
	}
	const secret = "Ada s3cr3t"
	wantStatus(t, a.call("handle_dialog", map[string]any{"accept": true, "text": secret}), "ok")
	env = a.call("click", map[string]any{"selector": "#ask"})
	wantStatus(t, env, "ok")
	a.wantTitle("asked")
	waitFor(t, "both prompts' answers to reach the site", 10*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(got["bg"]) == 1 && len(got["own"]) == 1
	})
	mu.Lock()
	defer mu.Unlock()
	if got["bg"][0] != "null" {
		t.Errorf("the background popup's prompt returned %q, want null (the default)", got["bg"][0])
	}
	if got["own"][0] != secret {
		t.Errorf("the active tab's prompt returned %q, want the armed text", got["own"][0])
	}
	ds := dialogList(t, env)
	if len(ds) != 2 || ds[0]["by"] != "default" || ds[0]["answer"] != "dismissed" || ds[1]["by"] != "handle_dialog" {
		t.Errorf("dialogs reported: %v", env["dialogs"])
	}
}
