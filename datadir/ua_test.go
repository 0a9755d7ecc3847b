package datadir

import (
	"errors"
	"io/fs"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestUAFile(t *testing.T) {
	d := New(t.TempDir())
	if _, err := d.ReadUA(); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("ReadUA of no file = %v, want fs.ErrNotExist", err)
	}
	want := UA{Executable: "/usr/bin/chromium", Stamp: "1-2", Product: "Chrome/156.0.8078.114",
		UserAgent: "Mozilla/5.0 X", ClientHints: &ClientHints{Brands: []Brand{{"Chromium", "156"}}, Platform: "Linux"}}
	if err := d.WriteUA(want); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadUA()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back %+v, want %+v", got, want)
	}
	// The names older lyrads wrote and read.
	b, _ := os.ReadFile(d.BrowserUA())
	for _, key := range []string{`"executable"`, `"executable_stamp"`, `"product"`, `"user_agent"`, `"client_hints"`, `"fullVersionList"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("browser-ua.json lacks %s:\n%s", key, b)
		}
	}
	if runtime.GOOS != "windows" {
		if fi, err := os.Stat(d.BrowserUA()); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("browser-ua.json mode %v (%v), want 0600", fi.Mode().Perm(), err)
		}
	}
	// Replaced whole, no temporary file left beside it.
	if err := d.WriteUA(UA{Executable: "/x", AskWithoutSwitch: true}); err != nil {
		t.Fatal(err)
	}
	if got, _ := d.ReadUA(); got.ClientHints != nil || !got.AskWithoutSwitch {
		t.Errorf("second write read back as %+v", got)
	}
	ents, _ := os.ReadDir(d.Root())
	if len(ents) != 1 {
		t.Errorf("the data dir holds %d entries after two writes, want browser-ua.json alone", len(ents))
	}
	if err := os.WriteFile(d.BrowserUA(), []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadUA(); err == nil {
		t.Error("a truncated file read without error")
	}
}
