package e2e

import (
	"bytes"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// `lyrad approve`: a client that cannot ask its user is refused with an id,
// the user answers at the terminal, and the agent's repeat of the same
// call goes ahead (or is refused). Each test runs the real verb as a
// subprocess against the daemon's admin socket.

// approveRun is `lyrad approve args...` on dataDir: its exit code, stdout
// and stderr.
func approveRun(t *testing.T, dataDir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := execLyrad(dataDir, append([]string{"approve"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("lyrad approve %v: %v", args, err)
	}
	return code, out.String(), errb.String()
}

// approvalCommand is the command a refusal's hint tells the user to run:
// `lyrad approve [--data-dir DIR] ID`, as its arguments after lyrad.
var approvalCommand = regexp.MustCompile(`run: lyrad (approve (?:--data-dir \S+ )?([2-9A-Z]{6})) \(within`)

// pendingApproval checks env is approval_required with an id, and that the
// hint names the command that answers it; it answers the id and the
// command's arguments.
func pendingApproval(t *testing.T, env map[string]any) (string, []string) {
	t.Helper()
	id, _ := env["approval_id"].(string)
	m := approvalCommand.FindStringSubmatch(fmt.Sprint(env["hint"]))
	if env["status"] != "approval_required" || id == "" || m == nil || m[2] != id {
		t.Fatalf("want approval_required with an id its hint names: %v", env)
	}
	return id, strings.Fields(m[1])
}

// TestApproveFromTheTerminal: navigate on a client with no elicitation is
// refused with an id; --list shows it; the command the hint names approves
// it; the repeat loads the page, once; the id is spent; every step is in
// the audit trail.
func TestApproveFromTheTerminal(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	dir := t.TempDir()
	cs := connectAsking(t, dir, proto2026, nil)
	args := map[string]any{"url": s.URL + "/", "reason": "read the front page"}
	env := call(t, cs, "navigate", args)
	id, command := pendingApproval(t, env)
	if env["capability"] != "NAVIGATE" || env["origin"] != s.URL || !strings.Contains(fmt.Sprint(env["hint"]), "confirm=true") {
		t.Errorf("the refusal: %v", env)
	}
	// Asked again before the user answers: the same id, nothing sent.
	if again, _ := pendingApproval(t, call(t, cs, "navigate", args)); again != id {
		t.Errorf("the repeat before an answer got id %s, want %s", again, id)
	}
	if n := s.count("/"); n != 0 {
		t.Fatalf("the site was reached %d times before approval", n)
	}

	code, out, errOut := approveRun(t, dir, "--list")
	if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "pending") || !strings.Contains(out, "navigate") ||
		!strings.Contains(out, "NAVIGATE "+s.URL) || !strings.Contains(out, "read the front page") {
		t.Errorf("--list: exit %d\n%s%s", code, out, errOut)
	}
	if code, _, errOut := approveRun(t, dir, "ZZZZZZ"); code == 0 || !strings.Contains(errOut, "ZZZZZZ") {
		t.Errorf("an unknown id: exit %d: %s", code, errOut)
	}

	code, out, errOut = approveRun(t, dir, command[1:]...)
	if code != 0 || !strings.Contains(out, "Approved "+id) || !strings.Contains(out, s.URL) {
		t.Fatalf("%v: exit %d\n%s%s", command, code, out, errOut)
	}
	wantStatus(t, call(t, cs, "navigate", args), "ok")
	if n := s.count("/"); n != 1 {
		t.Errorf("the site was reached %d times, want the approved load once", n)
	}
	// What the yes bought is what a yes through the client buys: the site,
	// for the grant's time.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": s.URL + "/next"}), "ok")
	if code, _, _ := approveRun(t, dir, id); code == 0 {
		t.Errorf("the spent id %s was approved again", id)
	}
	rows := auditRows(t, dir)
	if len(rowsWhere(rows, has{"kind": "tool", "tool": "navigate", "status": "approval_required", "approval_id": id})) != 2 ||
		len(rowsWhere(rows, has{"kind": "consent", "status": "approval_pending", "approval_id": id, "capability": "NAVIGATE", "origin": s.URL})) != 1 {
		t.Error("the refusals and the pending approval are not in the audit trail under the id")
	}
	if len(rowsWhere(rows, has{"kind": "consent", "status": "approved", "approval_id": id, "via": "lyrad approve", "consent_channel": "cli", "tool": "navigate"})) != 1 {
		t.Error("no audit row of the approval at the terminal")
	}
	if len(rowsWhere(rows, has{"kind": "consent", "status": "accepted", "approval_id": id, "consent_channel": "cli", "origin": s.URL})) != 1 {
		t.Error("no consent row of the repeat on the terminal's answer")
	}
	if len(rowsWhere(rows, has{"kind": "consent", "status": "no_such_approval", "via": "lyrad approve"})) < 2 {
		t.Error("the unknown and the spent id are not in the audit trail")
	}
}

// TestApproveDeny: --deny refuses the repeat without asking, and nothing
// reaches the site; the next repeat asks again, under a new id. Through
// `lyrad serve` and an HTTP client: the verb talks to the daemon.
func TestApproveDeny(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	dir := t.TempDir()
	cs := startServe(t, dir, "LYRA_BROWSER_CONSENT_CHANNEL=auto").connectHTTP(t, proto2026)
	args := map[string]any{"url": s.URL + "/"}
	id, _ := pendingApproval(t, call(t, cs, "navigate", args))
	if code, out, errOut := approveRun(t, dir, "--deny", strings.ToLower(id)); code != 0 || !strings.Contains(out, "Denied "+id) {
		t.Fatalf("--deny: exit %d\n%s%s", code, out, errOut)
	}
	env := call(t, cs, "navigate", args)
	if env["status"] != "denied" || env["consent"] != "declined" {
		t.Errorf("the repeat after --deny: %v", env)
	}
	if again, _ := pendingApproval(t, call(t, cs, "navigate", args)); again == id {
		t.Errorf("the denied id %s was handed out again", id)
	}
	if n := s.count("/"); n != 0 {
		t.Errorf("a denied navigation reached the site %d times", n)
	}
	if len(rowsWhere(auditRows(t, dir), has{"kind": "consent", "status": "denied", "approval_id": id, "via": "lyrad approve"})) != 1 {
		t.Error("no audit row of the denial")
	}
}

// TestApproveOnlyWhatWasAsked: a form on P posts to A. The id answers the
// questions that call asked (SUBMIT from P, NAVIGATE on A, one id) and the
// post reaches A exactly once. A page that changes its form after the
// question, to post to B, gets a new question, not the yes; and a page
// that changes it during the approved click gets nothing to B: the yes was
// for A.
func TestApproveOnlyWhatWasAsked(t *testing.T) {
	parallel(t)
	needBrowser(t)
	p := newSite(t, "127.0.0.1")
	a := newSite(t, "127.0.0.2")
	b := newSite(t, "127.0.0.3")
	for _, x := range []*site{a, b} {
		x.handle("/landing", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<!doctype html><title>landed %s</title>", r.Method)
		})
	}
	form := `<!doctype html><title>%s</title><form id=f method=post action="%s/landing"><input name=q value=1><button id=go %s>Send</button></form>%s`
	p.page("/", fmt.Sprintf(form, "honest", a.URL, "", ""))
	// Turns the form to B as the button is pressed: after lyrad read it.
	p.page("/press", fmt.Sprintf(form, "press", a.URL, fmt.Sprintf(`onmousedown="this.form.action='%s/landing'"`, b.URL), ""))
	// Turns the form to B when its server says so: between the question
	// and the repeat.
	var turn atomic.Bool
	p.handle("/mode", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if turn.Load() {
			fmt.Fprint(w, "B")
		}
	})
	p.page("/later", fmt.Sprintf(form, "later", a.URL, "",
		fmt.Sprintf(`<script>setInterval(async () => { if (await (await fetch("/mode")).text() === "B") document.getElementById("f").action = "%s/landing" }, 50)</script>`, b.URL)))

	dir := t.TempDir()
	cs := connectAsking(t, dir, proto2026, nil, "LYRA_BROWSER_TRUSTED_ORIGINS="+p.URL)
	click := map[string]any{"selector": "#go", "submits": true, "reason": "send the form"}

	// The honest form: one id for the round, the post once.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": p.URL + "/"}), "ok")
	env := call(t, cs, "click", click)
	id, _ := pendingApproval(t, env)
	if !strings.Contains(fmt.Sprint(env["error"]), "goes to "+a.URL) {
		t.Errorf("the question does not say where the form goes: %v", env)
	}
	_, out, _ := approveRun(t, dir, "--list")
	t.Logf("lyrad approve --list:\n%s", out)
	if !strings.Contains(out, "SUBMIT "+p.URL) || !strings.Contains(out, "NAVIGATE "+a.URL) {
		t.Errorf("--list does not show both questions of the call:\n%s", out)
	}
	if code, out, errOut := approveRun(t, dir, id); code != 0 {
		t.Fatalf("approve %s: %d\n%s%s", id, code, out, errOut)
	}
	wantStatus(t, call(t, cs, "click", click), "ok")
	waitFor(t, "the approved post on A", 10*time.Second, func() bool { return a.count("/landing") == 1 })

	// The form changed after the question: the yes does not answer the
	// new one, and B sees nothing.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": p.URL + "/later"}), "ok")
	id2, _ := pendingApproval(t, call(t, cs, "click", click))
	turn.Store(true)
	seen := p.count("/mode")
	waitFor(t, "the page to turn its form to B", 10*time.Second, func() bool { return p.count("/mode") >= seen+2 })
	if code, _, _ := approveRun(t, dir, id2); code != 0 {
		t.Fatalf("approve %s: %d", id2, code)
	}
	env = call(t, cs, "click", click)
	id3, _ := pendingApproval(t, env)
	if id3 == id2 || !strings.Contains(fmt.Sprint(env["error"]), "goes to "+b.URL) {
		t.Errorf("the form turned to B after the yes for A: %v", env)
	}

	// The form turns to B as the approved click presses it: the guard holds
	// the post, since the yes was for A.
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": p.URL + "/press"}), "ok")
	id4, _ := pendingApproval(t, call(t, cs, "click", click))
	if code, _, _ := approveRun(t, dir, id4); code != 0 {
		t.Fatalf("approve %s: %d", id4, code)
	}
	env = call(t, cs, "click", click)
	waitFor(t, "the guard's refusal of the post to B", 10*time.Second, func() bool {
		return len(rowsWhere(refusals(t, dir, "/landing"), has{"request_url": func(v any) bool { return strings.HasPrefix(fmt.Sprint(v), b.URL) }})) > 0
	})
	if n := b.count("/landing"); n != 0 {
		t.Errorf("B saw %d posts; the yes was for A (click: %v)", n, env)
	}
	if n := a.count("/landing"); n != 1 {
		t.Errorf("A saw %d posts, want the one approved", n)
	}
}

// TestApproveExpired: an id not answered within
// LYRA_BROWSER_APPROVAL_TIMEOUT is gone: --list no longer shows it,
// approving it is an error, and the repeat is asked anew.
func TestApproveExpired(t *testing.T) {
	needBrowser(t)
	s := friendly(t)
	dir := t.TempDir()
	cs := connectAsking(t, dir, proto2026, nil, "LYRA_BROWSER_APPROVAL_TIMEOUT=1")
	args := map[string]any{"url": s.URL + "/"}
	id, _ := pendingApproval(t, call(t, cs, "navigate", args))
	waitFor(t, "the approval to expire", 20*time.Second, func() bool {
		_, out, _ := approveRun(t, dir, "--list")
		return strings.Contains(out, "Nothing waits")
	})
	code, _, errOut := approveRun(t, dir, id)
	if code == 0 || !strings.Contains(errOut, "expired") {
		t.Errorf("approving an expired id: exit %d: %s", code, errOut)
	}
	if again, _ := pendingApproval(t, call(t, cs, "navigate", args)); again == id {
		t.Errorf("the expired id came back")
	}
	if n := s.count("/"); n != 0 {
		t.Errorf("the site was reached %d times", n)
	}
}

// TestPlaywrightApprove: the Playwright surface names the id and the
// command in its error; the approved repeat loads the page once.
func TestPlaywrightApprove(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Bank</title><h1>Bank</h1>`)
	dir := t.TempDir()
	cs := connectPW(t, dir, nil, nil, "LYRA_BROWSER_CONSENT_CHANNEL=auto")
	nav := map[string]any{"url": s.URL + "/"}
	ans := pwCall(t, cs, "browser_navigate", nav)
	m := approvalCommand.FindStringSubmatch(ans.text)
	if !ans.isError || m == nil || !strings.Contains(ans.text, "approval_id="+m[2]) || !strings.Contains(ans.text, "--allowed-origins "+s.URL) {
		t.Fatalf("a client that cannot be asked:\n%s", ans)
	}
	id := m[2]
	if _, out, _ := approveRun(t, dir, "--list"); !strings.Contains(out, id) || !strings.Contains(out, "browser_navigate") {
		t.Errorf("--list:\n%s", out)
	}
	if code, out, errOut := approveRun(t, dir, strings.Fields(m[1])[1:]...); code != 0 {
		t.Fatalf("approve: %d\n%s%s", code, out, errOut)
	}
	ans = pwCall(t, cs, "browser_navigate", nav)
	if ans.isError || !strings.Contains(ans.section("Page"), "- Page Title: Bank") {
		t.Errorf("the approved repeat:\n%s", ans)
	}
	if n := s.count("/"); n != 1 {
		t.Errorf("the site was reached %d times, want once", n)
	}
	if len(rowsWhere(auditRows(t, dir), has{"kind": "consent", "status": "approved", "approval_id": id, "tool": "browser_navigate"})) != 1 {
		t.Error("no audit row of the approval naming the surface's tool")
	}
}
