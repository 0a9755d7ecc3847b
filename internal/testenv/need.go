package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run in CI, where nothing they need may be
// missing.
func InCI() bool { return os.Getenv("CI") == "true" }

// Need applies the rule to something the test needs: err == nil goes on;
// otherwise the test fails in CI and skips elsewhere. what names the need
// and how to meet it ("ss (iproute2) to cut the socket").
func Need(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if InCI() {
		t.Fatalf("needs %s, which CI installs: %v", what, err)
		return
	}
	t.Skipf("skipping: needs %s: %v", what, err)
}

// Tool returns the path of a command-line tool the test runs, under the
// rule of Need.
func Tool(t testing.TB, name, why string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	Need(t, name+" "+why, err)
	return p
}

// Browser returns the path of the browser the test starts: find is the
// discovery lyrad itself uses (chrome.Find("", "") in practice). Under
// -short it skips before looking; with no browser found it follows Need.
func Browser(t testing.TB, find func() (string, error)) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser: not with -short")
	}
	p, err := find()
	Need(t, "a Chromium-family browser (Debian: apt-get install chromium)", err)
	return p
}
