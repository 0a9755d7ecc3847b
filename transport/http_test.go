package transport

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestHTTPFrontDoor(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	const tok = "0123456789abcdef0123456789abcdef"
	port := 8765
	h := HTTPHandler(srv, tok, port, 0)
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	cases := []struct {
		name   string
		host   string
		origin string
		auth   string
		want   int
	}{
		{"no token", "127.0.0.1:8765", "", "", 401},
		{"wrong token", "127.0.0.1:8765", "", "Bearer nope", 401},
		{"foreign origin", "127.0.0.1:8765", "http://evil.example", "Bearer " + tok, 403},
		{"origin on another port", "127.0.0.1:8765", "http://127.0.0.1:9999", "Bearer " + tok, 403},
		{"foreign host (DNS rebinding)", "evil.example:8765", "", "Bearer " + tok, 403},
		{"token, loopback host", "127.0.0.1:8765", "", "Bearer " + tok, 200},
		{"lower-case scheme", "127.0.0.1:8765", "", "bearer " + tok, 200},
		{"token without a scheme", "127.0.0.1:8765", "", tok, 401},
		{"another scheme", "127.0.0.1:8765", "", "Basic " + tok, 401},
		{"token, localhost, own origin", "localhost:8765", "http://localhost:8765", "Bearer " + tok, 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/mcp", strings.NewReader(body))
			r.Host = c.host
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			if c.origin != "" {
				r.Header.Set("Origin", c.origin)
			}
			if c.auth != "" {
				r.Header.Set("Authorization", c.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != c.want {
				t.Errorf("status %d, want %d: %s", w.Code, c.want, w.Body.String())
			}
		})
	}
}

func TestSocketIsPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	os.WriteFile(path, []byte("stale"), 0o644) // a crashed daemon's leftover
	ln, err := ListenSocket(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 || st.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket mode %v, %v", st.Mode(), err)
	}
}
