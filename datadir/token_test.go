package datadir

import (
	"os"
	"strings"
	"testing"
)

func TestLoadTokenCreatesPrivateFileOnce(t *testing.T) {
	d := New(t.TempDir())
	tok, err := d.LoadToken()
	if err != nil || len(tok) != 64 {
		t.Fatalf("token %q, %v", tok, err)
	}
	st, err := os.Stat(d.Token())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v, %v", st.Mode().Perm(), err)
	}
	again, _ := d.LoadToken()
	if again != tok {
		t.Errorf("token changed between loads")
	}
	if read, err := d.ReadToken(); err != nil || read != tok {
		t.Errorf("ReadToken = %q, %v; want what LoadToken made", read, err)
	}
}

// TestRewrittenTokenIsPrivate: a token file too short to use is replaced,
// and the new token is 0600 whatever mode the old file had.
func TestRewrittenTokenIsPrivate(t *testing.T) {
	dir := t.TempDir()
	d := New(dir)
	path := d.Token()
	if err := os.WriteFile(path, []byte("short\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o644) // in spite of umask
	tok, err := d.LoadToken()
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

// TestReadTokenChangesNothing: ReadToken neither creates, replaces nor
// tightens a token file.
func TestReadTokenChangesNothing(t *testing.T) {
	d := New(t.TempDir())
	path := d.Token()
	if _, err := d.ReadToken(); !os.IsNotExist(err) {
		t.Fatalf("missing: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("ReadToken created the file: %v", err)
	}
	if err := os.WriteFile(path, []byte("short\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o644) // in spite of umask
	if tok, err := d.ReadToken(); err == nil {
		t.Fatalf("short token read as %q", tok)
	}
	long := strings.Repeat("ab", 32)
	if err := os.WriteFile(path, []byte(long+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if tok, err := d.ReadToken(); err != nil || tok != long {
		t.Fatalf("ReadToken = %q, %v", tok, err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("mode after ReadToken: %v, %v", st.Mode().Perm(), err)
	}
}
