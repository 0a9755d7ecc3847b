package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Switches a page can see the effect of, or that only automation sets: none
// may be in lyrad's launch. A plain baseline (plainArgs) would show some of
// them as a difference; this list names them outright, so a switch added to
// the chrome package fails here even where the probe page cannot tell.
// (--disable-blink-features=AutomationControlled keeps navigator.webdriver
// false.)
var tellingSwitches = []string{
	"--enable-automation",         // the "controlled by automated test software" infobar, which takes its height from the page
	"--enable-unsafe-swiftshader", // software WebGL: a renderer the user's own browser does not report
	"--use-gl=swiftshader",
	"--use-angle=swiftshader",
	"--disable-gpu",
	"--headless=old", // the old headless: another browser, HeadlessChrome everywhere
	"--hide-scrollbars",
	"--mute-audio",
	"--remote-debugging-pipe",
	"--disable-web-security",
}

// browserCmdline is the argv of the browser lyrad started on dataDir (its
// main process, read from /proc).
func browserCmdline(t *testing.T, dataDir string) []string {
	t.Helper()
	pids := browserPIDs(t, dataDir)
	if len(pids) != 1 {
		t.Fatalf("browser processes on %s: %v, want one", dataDir, pids)
	}
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pids[0]), "cmdline"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// wantNoTells fails the test for every tell in a browser's argv.
func wantNoTells(t *testing.T, argv []string) {
	t.Helper()
	for _, p := range tells(argv) {
		t.Errorf("lyrad launched the browser %s", p)
	}
}

// tells lists what is wrong with a browser's argv: any of tellingSwitches
// (with or without a value), or navigator.webdriver's switch missing.
func tells(argv []string) []string {
	var out []string
	blink := false
	for _, a := range argv {
		for _, s := range tellingSwitches {
			if a == s || strings.HasPrefix(a, s+"=") || strings.Contains(s, "=") && strings.HasPrefix(a, s) {
				out = append(out, "with "+a)
			}
		}
		if a == "--disable-blink-features=AutomationControlled" {
			blink = true
		}
	}
	if !blink {
		out = append(out, "without --disable-blink-features=AutomationControlled")
	}
	return out
}

// TestTells: the check tells the switches apart.
func TestTells(t *testing.T) {
	good := []string{"/usr/lib/chromium/chromium", "--disable-blink-features=AutomationControlled", "--disable-gpu-sandbox", "--headless", "about:blank"}
	if got := tells(good); len(got) != 0 {
		t.Errorf("a clean command line: %v", got)
	}
	for _, bad := range [][]string{
		append(append([]string{}, good...), "--enable-unsafe-swiftshader"),
		append(append([]string{}, good...), "--use-angle=swiftshader-webgl"),
		append(append([]string{}, good...), "--headless=old"),
		append(append([]string{}, good...), "--enable-automation"),
		{"/usr/lib/chromium/chromium", "--headless", "about:blank"},
	} {
		if got := tells(bad); len(got) != 1 {
			t.Errorf("%q: %v, want one tell", bad, got)
		}
	}
}
