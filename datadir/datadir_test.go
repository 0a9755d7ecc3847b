package datadir

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPaths pins the layout: README documents these names, and a daemon
// of an older build must find the same files.
func TestPaths(t *testing.T) {
	d := New("/data/x/")
	for got, want := range map[string]string{
		d.Root():        "/data/x",
		d.DaemonLock():  "/data/x/lyrad.lock",
		d.Socket():      "/data/x/lyrad.sock",
		d.Token():       "/data/x/http-token",
		d.HTTPInfo():    "/data/x/http.json",
		d.Audit():       "/data/x/audit.jsonl",
		d.BrowserUA():   "/data/x/browser-ua.json",
		d.ProfileLock(): "/data/x/profile.lock",
		d.Profile():     "/data/x/profile",
		d.BrowserPID():  "/data/x/browser.pid",
		d.Captures():    "/data/x/captures",
		d.Instances():   "/data/x-instances",
	} {
		if got != filepath.FromSlash(want) {
			t.Errorf("got %s, want %s", got, want)
		}
	}
	if New("").Root() != "" {
		t.Errorf("New(\"\") = %q", New("").Root())
	}
	// The zero Dir's paths are the bare names, for messages.
	if got := (Dir{}).Token(); got != "http-token" {
		t.Errorf("Dir{}.Token() = %q", got)
	}
}

func TestInstanceProfiles(t *testing.T) {
	d := New(filepath.Join(t.TempDir(), "data"))
	if got := d.InstanceProfiles(); len(got) != 0 {
		t.Fatalf("none yet: %q", got)
	}
	a := filepath.Join(d.Instances(), "12", "profile")
	b := filepath.Join(d.Instances(), "12-2", "profile")
	for _, p := range []string{a, b, filepath.Join(d.Instances(), "13", "other")} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if got := d.InstanceProfiles(); len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("InstanceProfiles = %q", got)
	}
}

// TestCreate: the directory is made 0700, and an existing looser one is
// tightened to 0700.
func TestCreate(t *testing.T) {
	d := New(filepath.Join(t.TempDir(), "a", "data"))
	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(d.Root()); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("created: %v %v", fi.Mode(), err)
	}
	if err := os.Chmod(d.Root(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := d.Create(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(d.Root()); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("existing 0755: now %v %v", fi.Mode(), err)
	}
}

// TestDefaultIn: ~/.lyra-browser, unless only ~/.vega-browser exists.
func TestDefaultIn(t *testing.T) {
	home := t.TempDir()
	lyra, vega := filepath.Join(home, ".lyra-browser"), filepath.Join(home, ".vega-browser")
	if got := DefaultIn(home); got != lyra {
		t.Fatalf("empty home: %s", got)
	}
	// A file named .vega-browser is not a data directory.
	if err := os.WriteFile(vega, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := DefaultIn(home); got != lyra {
		t.Fatalf("a file .vega-browser: %s", got)
	}
	os.Remove(vega)
	if err := os.Mkdir(vega, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := DefaultIn(home); got != vega {
		t.Fatalf("only .vega-browser: %s", got)
	}
	if err := os.Mkdir(lyra, 0o700); err != nil {
		t.Fatal(err)
	}
	if got := DefaultIn(home); got != lyra {
		t.Fatalf("both: %s", got)
	}
	t.Setenv("HOME", home)
	if got, err := Default(); err != nil || got != lyra {
		t.Fatalf("Default = %s, %v", got, err)
	}
}
