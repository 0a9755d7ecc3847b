package transport

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/datadir"
)

func TestLoadTokenCreatesPrivateFileOnce(t *testing.T) {
	dir := t.TempDir()
	path := datadir.New(dir).Token()
	tok, err := LoadToken(path)
	if err != nil || len(tok) != 64 {
		t.Fatalf("token %q, %v", tok, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, %v", st.Mode().Perm(), err)
	}
	again, _ := LoadToken(path)
	if again != tok {
		t.Errorf("token changed between loads")
	}
}

// TestRewrittenTokenIsPrivate: a token file too short to use is replaced,
// and the new token is 0600 whatever mode the old file had.
func TestRewrittenTokenIsPrivate(t *testing.T) {
	dir := t.TempDir()
	path := datadir.New(dir).Token()
	if err := os.WriteFile(path, []byte("short\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o644) // in spite of umask
	tok, err := LoadToken(path)
	if err != nil || len(tok) != 64 {
		t.Fatalf("token %q, %v", tok, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("rewritten token file mode %v, %v; want 0600", st.Mode().Perm(), err)
	}
	if b, _ := os.ReadFile(path); strings.TrimSpace(string(b)) != tok {
		t.Errorf("file holds %q, want the token", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

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

// TestReadTokenChangesNothing: ReadToken neither creates, replaces nor
// tightens a token file.
func TestReadTokenChangesNothing(t *testing.T) {
	path := datadir.New(t.TempDir()).Token()
	if _, err := ReadToken(path); !os.IsNotExist(err) {
		t.Fatalf("missing: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("ReadToken created the file: %v", err)
	}
	if err := os.WriteFile(path, []byte("short\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o644) // in spite of umask
	if tok, err := ReadToken(path); err == nil {
		t.Fatalf("short token read as %q", tok)
	}
	long := strings.Repeat("ab", 32)
	if err := os.WriteFile(path, []byte(long+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if tok, err := ReadToken(path); err != nil || tok != long {
		t.Fatalf("ReadToken = %q, %v", tok, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("mode after ReadToken: %v, %v", st.Mode().Perm(), err)
	}
}
