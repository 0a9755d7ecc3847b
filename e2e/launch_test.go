package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lyrad/lyrad/internal/testenv"
)

// TestMissingBrowserIsAnEnvelope: no browser is an answer naming what to
// install, not a crash.
func TestMissingBrowserIsAnEnvelope(t *testing.T) {
	dir := t.TempDir()
	cs := connectStdio(t, dir, proto2026, "LYRA_BROWSER_CHANNEL="+filepath.Join(dir, "no-such-chrome"))
	for _, tool := range []string{"open_browser", "navigate"} {
		args := map[string]any{}
		if tool == "navigate" {
			args["url"] = "http://127.0.0.1:9/"
		}
		env := call(t, cs, tool, args)
		if env["status"] != "browser_unavailable" || !strings.Contains(env["hint"].(string), "install") || !strings.Contains(env["error"].(string), "no-such-chrome") {
			t.Errorf("%s without a browser: %v", tool, env)
		}
	}
	// The server is still there.
	wantStatus(t, call(t, cs, "get_url", nil), "browser_not_open")
}

// TestInstanceProfileWhenHeld: when another process holds the persistent
// profile, lyrad opens a private one and says so.
func TestInstanceProfileWhenHeld(t *testing.T) {
	needBrowser(t)
	testenv.Tool(t, "flock", "(util-linux) to hold the profile from another process")
	dir := t.TempDir()
	holder := exec.Command("flock", "--exclusive", filepath.Join(dir, "profile.lock"), "sleep", "60")
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	waitFor(t, "the lock to be taken", 5*time.Second, func() bool {
		_, err := os.Stat(filepath.Join(dir, "profile.lock"))
		return err == nil
	})
	time.Sleep(100 * time.Millisecond)
	cs := connectStdio(t, dir, proto2026)
	env := call(t, cs, "open_browser", nil)
	wantStatus(t, env, "ok")
	if env["profile"] != "instance" || !strings.Contains(env["note"].(string), "no saved logins") {
		t.Errorf("open_browser with the profile held elsewhere: %v", env)
	}
	wantStatus(t, call(t, cs, "close_browser", nil), "ok")
	if ents, _ := filepath.Glob(dir + "-instances/*"); len(ents) != 0 {
		t.Errorf("instance profile left behind: %v", ents)
	}
}

// TestPortNeverDisclosed: the debugging port and the WebSocket path appear
// in no log line, audit row or reply.
func TestPortNeverDisclosed(t *testing.T) {
	needBrowser(t)
	s := friendly(t)
	l := startServe(t, "", "LYRA_BROWSER_LOG_LEVEL=debug")
	cs := l.connectHTTP(t, proto2026)
	var replies []string
	for _, c := range []struct {
		tool string
		args map[string]any
	}{{"open_browser", nil}, {"navigate", map[string]any{"url": s.URL + "/"}}, {"get_url", nil}} {
		env := call(t, cs, c.tool, c.args)
		replies = append(replies, strings.ToLower(jsonString(env)))
	}
	pids := browserPIDs(t, l.dataDir)
	if len(pids) != 1 {
		t.Fatalf("browser pids %v", pids)
	}
	port := strconv.Itoa(debugPort(t, pids[0]))
	wantStatus(t, call(t, cs, "close_browser", nil), "ok")
	l.stop(t)
	audit, _ := os.ReadFile(filepath.Join(l.dataDir, "audit.jsonl"))
	for name, text := range map[string]string{"log": l.stderr.String(), "audit": string(audit), "replies": strings.Join(replies, "\n")} {
		if strings.Contains(text, ":"+port) || strings.Contains(text, "devtools/browser") {
			t.Errorf("the debugging port or ws path appears in the %s", name)
		}
	}
	if _, err := os.Stat(filepath.Join(l.dataDir, "profile", "DevToolsActivePort")); !os.IsNotExist(err) {
		t.Errorf("DevToolsActivePort left in the profile: %v", err)
	}
	if st, err := os.Stat(filepath.Join(l.dataDir, "profile")); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("profile mode %v %v", st.Mode().Perm(), err)
	}
}
