package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNothingLoadsBeforeTheGuard: a profile set (by a person in the window,
// here by hand) to restore the last session or to open given pages at
// startup loads none of them when lyrad opens the browser: the browser
// starts on one blank tab, and the site gets no request before the guard.
func TestNothingLoadsBeforeTheGuard(t *testing.T) {
	needBrowser(t)
	cases := []struct {
		name  string
		prefs func(session map[string]any, a *site)
	}{
		{"restore-last-session", func(s map[string]any, a *site) { s["restore_on_startup"] = 1 }},
		{"startup-urls", func(s map[string]any, a *site) {
			s["restore_on_startup"] = 4
			s["startup_urls"] = []any{a.URL + "/startup"}
		}},
	}
	for _, tc := range cases {
		for _, headful := range []bool{false, true} {
			name := tc.name + "-headless"
			if headful {
				name = tc.name + "-headful"
			}
			t.Run(name, func(t *testing.T) {
				var env []string
				if headful {
					env = []string{"LYRA_BROWSER_HEADLESS=false", "DISPLAY=" + startXvfb(t)}
				}
				startupCase(t, env, tc.prefs)
			})
		}
	}
}

func startupCase(t *testing.T, env []string, setPrefs func(session map[string]any, a *site)) {
	a := newSite(t, "127.0.0.1")
	// Never from the cache: a load is a request the site counts.
	for _, path := range []string{"/restored", "/startup"} {
		a.handle(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Cache-Control", "no-store")
			fmt.Fprintf(w, "<!doctype html><title>%s</title><p>a page the browser may not open by itself", r.URL.Path)
		})
	}
	dir := t.TempDir()
	t.Cleanup(func() { killProfileProcs(dir) })

	// An earlier session on the same data dir, left on a page of A and
	// ended by a crash once the browser has saved its session.
	cs := connectStdio(t, dir, proto2026, env...)
	wantStatus(t, call(t, cs, "navigate", map[string]any{"url": a.URL + "/restored"}), "ok")
	waitFor(t, "a session file naming the page", 30*time.Second, func() bool {
		files, _ := filepath.Glob(filepath.Join(dir, "profile", "Default", "Sessions", "*"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); strings.Contains(string(b), "/restored") {
				return true
			}
		}
		return false
	})
	killProfileProcs(dir)
	waitFor(t, "the earlier browser to die", 15*time.Second, func() bool { return len(profileProcs(dir)) == 0 })
	cs.Close()

	prefsPath := filepath.Join(dir, "profile", "Default", "Preferences")
	b, err := os.ReadFile(prefsPath)
	if err != nil {
		t.Fatal(err)
	}
	var prefs map[string]any
	if err := json.Unmarshal(b, &prefs); err != nil {
		t.Fatal(err)
	}
	session, _ := prefs["session"].(map[string]any)
	if session == nil {
		session = map[string]any{}
	}
	setPrefs(session, a)
	prefs["session"] = session
	if b, err = json.Marshal(prefs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prefsPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	restored, startup := a.count("/restored"), a.count("/startup")

	cs = connectStdio(t, dir, proto2026, env...)
	wantStatus(t, call(t, cs, "open_browser", nil), "ok")
	list := call(t, cs, "tabs", nil)
	wantStatus(t, list, "ok")
	tabs, _ := list["tabs"].([]any)
	for _, tab := range tabs {
		if u := fmt.Sprint(tab.(map[string]any)["url"]); u != "about:blank" {
			t.Errorf("a tab was open on %s when the browser came up, want only about:blank", u)
		}
	}
	if len(tabs) != 1 {
		t.Errorf("%d tabs when the browser came up, want 1 blank one: %v", len(tabs), tabs)
	}
	if got := a.count("/restored") - restored; got != 0 {
		t.Errorf("the last session's page was loaded %d times at startup", got)
	}
	if got := a.count("/startup") - startup; got != 0 {
		t.Errorf("the startup page was loaded %d times at startup", got)
	}
	wantStatus(t, call(t, cs, "close_browser", nil), "ok")
}
