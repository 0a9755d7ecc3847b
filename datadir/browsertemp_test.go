package datadir

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

func TestClearDeadBrowserTemps(t *testing.T) {
	data := t.TempDir()
	d := New(data)
	own := d.BrowserTemp()
	if own != filepath.Join(data, ".tmp-"+strconv.Itoa(os.Getpid())) {
		t.Errorf("BrowserTemp = %s", own)
	}
	dead := filepath.Join(data, ".tmp-999999999")
	alive := filepath.Join(data, ".tmp-1") // init
	odd := filepath.Join(data, ".tmp-x")
	for _, dir := range []string{own, dead, alive, odd} {
		if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.ClearDeadBrowserTemps(); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{own: true, dead: false, alive: true, odd: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s kept = %v, want %v", filepath.Base(dir), err == nil, want)
		}
	}
	if (Dir{}).BrowserTemp() != "" || (Dir{}).ClearDeadBrowserTemps() != nil {
		t.Errorf("the zero Dir has a browser temporary directory")
	}
}
