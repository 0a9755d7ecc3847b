package e2e

import (
	"context"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNumericHostSpelling: the browser requests http://2130706433:PORT/ as
// http://127.0.0.1:PORT/. The approval asked for, and the grant given, name
// the site the browser requests, so the navigation lands and a later
// same-site click is not asked again. Before hosts were read the browser's
// way the grant sat on "2130706433" and the guard refused the load.
func TestNumericHostSpelling(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := newSite(t, "127.0.0.1")
	s.page("/", `<!doctype html><title>Home</title><a id=next href="/next">next</a>`)
	s.page("/next", `<!doctype html><title>Next</title>`)
	port := strings.TrimPrefix(s.URL, "http://127.0.0.1:")
	numeric := "http://2130706433:" + port + "/"
	dir := t.TempDir()
	cs := connectAsking(t, dir, proto2026, nil, "LYRA_BROWSER_CONSENT_CHANNEL=legacy")

	env := call(t, cs, "navigate", map[string]any{"url": numeric})
	if env["status"] != "approval_required" || env["origin"] != s.URL || !strings.Contains(env["error"].(string), s.URL) {
		t.Fatalf("the question names %v (%v), want %s", env["origin"], env["error"], s.URL)
	}
	env = call(t, cs, "navigate", map[string]any{"url": numeric, "confirm": true})
	wantStatus(t, env, "ok")
	if env["url"] != s.URL+"/" || s.count("/") != 1 {
		t.Fatalf("landed on %v, site saw %d loads", env["url"], s.count("/"))
	}
	env = call(t, cs, "click", map[string]any{"selector": "#next"})
	wantStatus(t, env, "ok")
	if s.count("/next") != 1 {
		t.Fatalf("the same-site click reached /next %d times: %v", s.count("/next"), env)
	}
	var origins []any
	// The answers: the refusal's pending ask (approval_pending) is no
	// answer.
	for _, r := range rowsWhere(auditRows(t, dir), has{"kind": "consent"}) {
		if r["status"] != "approval_pending" {
			origins = append(origins, r["origin"])
		}
	}
	if len(origins) != 1 || origins[0] != s.URL {
		t.Errorf("consent answers for %v, want one for %s", origins, s.URL)
	}
}

// TestTrustedEntryOtherSpelling: a trusted entry written in another
// spelling of a host (http://127.1:PORT) is dropped with a warning naming
// the spelling to write, and trusts nothing: the site is still asked for.
func TestTrustedEntryOtherSpelling(t *testing.T) {
	parallel(t)
	needBrowser(t)
	s := friendly(t)
	u, _ := url.Parse(s.URL)
	entry := "http://127.1:" + u.Port()
	cmd := exec.Command(lyradBin, "stdio")
	cmd.Env = append(baseEnv(t.TempDir()), "LYRA_BROWSER_CONSENT_CHANNEL=legacy", "LYRA_BROWSER_TRUSTED_ORIGINS="+entry)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-trusted-spelling", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, sessionOpts(proto2026))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, target := range []string{s.URL + "/", entry + "/"} {
		if env := call(t, cs, "navigate", map[string]any{"url": target}); env["status"] != "approval_required" || env["origin"] != s.URL {
			t.Errorf("navigate %s with only %s listed: %v", target, entry, env)
		}
	}
	if s.count("/") != 0 {
		t.Errorf("the site was reached %d times without approval", s.count("/"))
	}
	// The log is JSON: the entry's quotes are escaped there.
	want := entry + `\" dropped: the browser reads this host as the IPv4 address 127.0.0.1; write that`
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("no warning %q in:\n%s", want, stderr.String())
	}
}
