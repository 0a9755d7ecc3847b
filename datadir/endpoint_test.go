package datadir

import (
	"os"
	"strings"
	"testing"
)

func TestEndpointFile(t *testing.T) {
	dir := t.TempDir()
	d := New(dir)
	path := d.HTTPInfo()
	if _, err := d.ReadEndpoint(); !os.IsNotExist(err) {
		t.Fatalf("missing file: %v", err)
	}
	rm, err := d.WriteEndpoint("http://127.0.0.1:8765/mcp")
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("http.json: %v %v", st, err)
	}
	if u, err := d.ReadEndpoint(); err != nil || u != "http://127.0.0.1:8765/mcp" {
		t.Fatalf("read back %q %v", u, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	rm()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("not removed: %v", err)
	}
	for _, bad := range []string{`{`, `{"url":"ws://127.0.0.1:1/mcp"}`, `{"url":""}`} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if u, err := d.ReadEndpoint(); err == nil || !strings.HasPrefix(err.Error(), "http.json: ") {
			t.Errorf("%s: %q, %v", bad, u, err)
		}
	}
}
