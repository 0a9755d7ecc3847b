package e2e

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestURLSecretsStayOutOfTheRecord: a secret in a query, in a fragment, in a
// redirect's Location and in a GET form's typed value reaches the pages (the
// agent navigated there), but no audit row, no log line (at debug level) and
// no reply field other than where the tab stands. URLs in the record keep
// scheme, host, port, path and query keys, and a page's 1 MB URL is written
// cut.
func TestURLSecretsStayOutOfTheRecord(t *testing.T) {
	parallel(t)
	needBrowser(t)
	a := newSite(t, "127.0.0.1")
	b := newSite(t, "127.0.0.2")
	form := `<title>P</title><form action="/search" method="get"><input id="q" name="q"></form>`
	a.page("/p", form)
	a.page("/landing", form)
	a.page("/search", `<title>Results</title>results`)
	a.page("/big", fmt.Sprintf(`<title>Big</title><body><script>
const f = document.createElement("iframe");
f.src = %q + "/frame/" + "x".repeat(1 << 20) + "?tail=SECRET6";
document.body.appendChild(f);
</script>`, b.URL))
	a.handle("/go", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/landing?code=SECRET3&state=x", http.StatusFound)
	})
	a.handle("/out", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, b.URL+"/landing?code=SECRET3", http.StatusFound)
	})
	b.page("/landing", `<title>B</title>unapproved`)
	// Path secrets: a reset link's segment after its keyword, and a
	// generated token as a segment of its own.
	// The token's page has no title: Chrome gives it its URL as one.
	resetURL := a.URL + "/account/reset/SECRET7"
	tokenURL := a.URL + "/account/files/SECRET8q7Zx2Lm9Vb4Nc1Rt5Ky3Wd"
	a.page("/account/reset/SECRET7", `<title>Account</title>set a new password`)
	a.handle("/account/files/SECRET8q7Zx2Lm9Vb4Nc1Rt5Ky3Wd", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "your file")
	})
	secrets := []string{"SECRET1", "SECRET2", "SECRET3", "SECRET4", "SECRET5", "SECRET6", "SECRET7", "SECRET8"}

	l := startServe(t, "", "LYRA_BROWSER_LOG_LEVEL=debug")
	cs := l.connectHTTP(t, proto2026)
	var replies []map[string]any
	do := func(tool string, args map[string]any, status string) map[string]any {
		t.Helper()
		env := call(t, cs, tool, args)
		wantStatus(t, env, status)
		replies = append(replies, env)
		return env
	}

	env := do("navigate", map[string]any{"url": a.URL + "/p?token=SECRET1#frag-SECRET2", "wait_until": "load"}, "ok")
	if env["url"] != a.URL+"/p?token=SECRET1#frag-SECRET2" {
		t.Errorf("navigate answers url %v, want where the tab stands, secrets and all", env["url"])
	}
	withUser := strings.Replace(a.URL, "://", "://user:SECRET5@", 1) + "/landing"
	do("navigate", map[string]any{"url": withUser, "wait_until": "load"}, "ok")
	env = do("navigate", map[string]any{"url": a.URL + "/go", "wait_until": "load"}, "ok")
	if env["url"] != a.URL+"/landing?code=SECRET3&state=x" {
		t.Errorf("after the redirect the tab stands at %v", env["url"])
	}
	env = do("navigate", map[string]any{"url": a.URL + "/out", "wait_until": "load"}, "blocked_by_policy")
	if env["redirected_to"] != b.URL {
		t.Errorf("refused redirect: redirected_to = %v, want the origin %s", env["redirected_to"], b.URL)
	}
	if n := b.count("/landing"); n != 0 {
		t.Errorf("the unapproved destination was reached %d times", n)
	}
	env = do("type_text", map[string]any{"selector": "#q", "text": "SECRET4", "submit": true}, "ok")
	if env["url"] != a.URL+"/search?q=SECRET4" {
		t.Errorf("the GET form went to %v", env["url"])
	}
	if u := do("get_url", nil, "ok"); u["url"] != a.URL+"/search?q=SECRET4" {
		t.Errorf("get_url = %v, want the page's own URL", u["url"])
	}
	do("navigate", map[string]any{"url": a.URL + "/big", "wait_until": "load"}, "ok")
	waitFor(t, "the 1 MB iframe judged", 20*time.Second, func() bool {
		return len(rowsWhere(auditRows(t, l.dataDir), has{"kind": "guard", "request_url": urlHas("/frame/")})) > 0
	})
	do("navigate", map[string]any{"url": tokenURL, "wait_until": "load"}, "ok")
	if env := do("navigate", map[string]any{"url": resetURL, "wait_until": "load"}, "ok"); env["url"] != resetURL {
		t.Errorf("navigate answers url %v, want where the tab stands: %s", env["url"], resetURL)
	}
	if n := a.count("/account/reset/SECRET7"); n != 1 {
		t.Errorf("the reset page was reached %d times, want 1", n)
	}
	// The operator's views of a live session, while the tab stands at
	// the reset link: status (text and JSON) and the audit table.
	var views []string
	for _, args := range [][]string{{"status"}, {"status", "--json"}, {"audit"}, {"audit", "--json"}} {
		out, errOut, code := runOps(t, lyradBin, l.dataDir, args...)
		if code != 0 {
			t.Errorf("lyrad %s exited %d: %s", strings.Join(args, " "), code, errOut)
		}
		views = append(views, out+errOut)
		if s := leaked(out+errOut, secrets); s != "" {
			t.Errorf("lyrad %s prints %s: %.600s", strings.Join(args, " "), s, out+errOut)
		}
	}
	if !strings.Contains(views[1], strings.TrimPrefix(a.URL, "http://")+"/account/reset/[redacted]") {
		t.Errorf("status --json does not show the tab at the redacted reset link: %.600s", views[1])
	}
	l.stop(t)

	// Replies: only where the tab stands may carry the secrets.
	for _, env := range replies {
		// A title that is Chrome's stand-in (the URL without its scheme)
		// is where the tab stands too.
		if u, _ := env["url"].(string); env["title"] != nil && strings.Contains(u, fmt.Sprint(env["title"])) {
			delete(env, "title")
		}
		delete(env, "url")
		if s := leaked(jsonString(env), secrets); s != "" {
			t.Errorf("a reply carries %s outside its url: %v", s, env)
		}
	}

	raw, err := os.ReadFile(filepath.Join(l.dataDir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(strings.NewReader(string(raw)))
	sc.Buffer(make([]byte, 8<<20), 8<<20)
	longest := 0
	for sc.Scan() {
		line := sc.Text()
		longest = max(longest, len(line))
		if s := leaked(line, secrets); s != "" {
			t.Errorf("audit row carries %s: %.600s", s, line)
		}
	}
	t.Logf("audit.jsonl: %d bytes, longest row %d bytes", len(raw), longest)
	if longest > 8<<10 {
		t.Errorf("longest audit row is %d bytes: a page's 1 MB URL was written uncut", longest)
	}
	logs := l.stderr.String()
	for _, line := range strings.Split(logs, "\n") {
		if s := leaked(line, secrets); s != "" {
			t.Errorf("log line carries %s: %.600s", s, line)
		}
		if len(line) > 16<<10 {
			t.Errorf("log line of %d bytes", len(line))
		}
	}
	t.Logf("lyrad stderr at debug: %d lines", strings.Count(logs, "\n"))

	// What is kept: scheme, host, port, path and query keys.
	want := map[string]bool{
		a.URL + "/landing?code=[redacted]&state=[redacted]": false, // the allowed redirect hop
		b.URL + "/landing?code=[redacted]":                  false, // the refused one
		a.URL + "/p?token=[redacted]#[redacted]":            false, // the first load, args.url, url_after
		a.URL + "/search?q=[redacted]":                      false, // the GET form's request and url_after
		a.URL + "/account/reset/[redacted]":                 false, // after its keyword
		a.URL + "/account/files/[redacted]":                 false, // a token of its own
	}
	for _, r := range auditRows(t, l.dataDir) {
		for _, v := range []any{r["request_url"], r["url_before"], r["url_after"], argURL(r)} {
			if s, ok := v.(string); ok {
				if _, ok := want[s]; ok {
					want[s] = true
				}
			}
		}
	}
	for u, seen := range want {
		if !seen {
			t.Errorf("no audit row records %s", u)
		}
	}
	for _, r := range rowsWhere(auditRows(t, l.dataDir), has{"kind": "guard", "request_url": urlHas("/frame/")}) {
		u := fmt.Sprint(r["request_url"])
		if len(u) > 2048 || !strings.HasPrefix(u, b.URL+"/frame/xxx") || !strings.HasSuffix(u, "[cut]") {
			t.Errorf("the 1 MB iframe URL is recorded as %d bytes: %.80s...", len(u), u)
		}
	}
}

func leaked(s string, secrets []string) string {
	for _, x := range secrets {
		if strings.Contains(s, x) {
			return x
		}
	}
	return ""
}

func argURL(r map[string]any) any {
	args, _ := r["args"].(map[string]any)
	return args["url"]
}
