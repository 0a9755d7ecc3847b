package transport

import (
	"os"
	"strings"
	"testing"

	"github.com/lyrad/lyrad/datadir"
)

func TestEndpointFile(t *testing.T) {
	path := datadir.New(t.TempDir()).HTTPInfo()
	if _, err := ReadEndpoint(path); !os.IsNotExist(err) {
		t.Fatalf("missing file: %v", err)
	}
	rm, err := WriteEndpoint(path, "http://127.0.0.1:8765/mcp")
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("http.json: %v %v", st, err)
	}
	if u, err := ReadEndpoint(path); err != nil || u != "http://127.0.0.1:8765/mcp" {
		t.Fatalf("read back %q %v", u, err)
	}
	rm()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("not removed: %v", err)
	}
	for _, bad := range []string{`{`, `{"url":"ws://127.0.0.1:1/mcp"}`, `{"url":""}`} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if u, err := ReadEndpoint(path); err == nil || !strings.HasPrefix(err.Error(), "http.json: ") {
			t.Errorf("%s: %q, %v", bad, u, err)
		}
	}
}
