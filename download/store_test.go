package download

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// arrive puts a file in the incoming directory as the browser would.
func arrive(t *testing.T, s *Store, guid, body string) string {
	t.Helper()
	p := filepath.Join(s.Incoming(), guid)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestKeepNamesAndConfines(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "dl")
	s, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v, want 0700", st.Mode().Perm())
	}
	e1, err := s.Keep(arrive(t, s, "g1", "one"), "report.csv", "http://127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	e2, err := s.Keep(arrive(t, s, "g2", "two!"), "report.csv", "http://127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	if e1.Filename != "report.csv" || e2.Filename != "report (1).csv" || e2.Bytes != 4 {
		t.Fatalf("kept %+v and %+v", e1, e2)
	}
	// A dangling symlink takes its name.
	if err := os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	e3, err := s.Keep(arrive(t, s, "g3", "three"), "link.txt", "")
	if err != nil {
		t.Fatal(err)
	}
	if e3.Filename != "link (1).txt" {
		t.Fatalf("beside a dangling symlink: %q", e3.Filename)
	}
	if _, err := os.Lstat(filepath.Join(root, "nowhere")); err == nil {
		t.Fatal("a byte was written through the symlink")
	}
	for _, hostile := range []string{"../../evil.txt", "CON.txt", strings.Repeat("x", 300) + "\u202e.txt"} {
		e, err := s.Keep(arrive(t, s, "h", "h"), hostile, "")
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Dir(e.Path) != s.Dir() {
			t.Fatalf("%q kept at %s, outside %s", hostile, e.Path, s.Dir())
		}
	}
	if got := names(t, root); len(got) != 1 || got[0] != "dl" {
		t.Fatalf("outside the directory: %v", got)
	}
	for _, n := range names(t, dir) {
		if strings.HasSuffix(n, ".part") {
			t.Fatalf("a .part file was left: %s", n)
		}
	}
	if got := len(s.List()); got != 6 {
		t.Fatalf("List has %d entries, want 6", got)
	}
	if len(names(t, s.Incoming())) != 0 {
		t.Fatal("incoming not emptied")
	}
}

func TestPruneKeepsOthersFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine-not.txt"), []byte("user"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.Keep(arrive(t, s, "a", "a"), "a.txt", "")
	b, _ := s.Keep(arrive(t, s, "b", "b"), "b.txt", "")
	// The user replaced b.txt with their own file: it is not lyrad's any more.
	if err := os.WriteFile(b.Path, []byte("the user's own"), 0o600); err != nil {
		t.Fatal(err)
	}
	s.Keep(arrive(t, s, "c", "c"), "c.txt", "")
	s.Keep(arrive(t, s, "d", "d"), "d.txt", "")
	for _, n := range []string{"mine-not.txt", "b.txt", "c.txt", "d.txt"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s was deleted: %v", n, err)
		}
	}
	if _, err := os.Stat(a.Path); err == nil {
		t.Error("a.txt, the oldest of lyrad's, was not pruned")
	}
	if got := len(s.readLedger()); got != 2 {
		t.Errorf("ledger holds %d, want 2", got)
	}
}

func TestOpenClearsLeftovers(t *testing.T) {
	dir := t.TempDir()
	dead := filepath.Join(dir, ".incoming-999999999")
	os.MkdirAll(dead, 0o700)
	os.WriteFile(filepath.Join(dead, "x.crdownload"), []byte("x"), 0o600)
	old := time.Now().Add(-2 * time.Minute)
	os.WriteFile(filepath.Join(dir, ".0123456789abcdef.part"), []byte("x"), 0o600)
	os.Chtimes(filepath.Join(dir, ".0123456789abcdef.part"), old, old)
	os.WriteFile(filepath.Join(dir, ".fedcba9876543210.part"), []byte("x"), 0o600) // another lyrad's, in flight
	os.WriteFile(filepath.Join(dir, "user.part"), []byte("x"), 0o600)
	s, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(s.Incoming()); err != nil || !st.IsDir() {
		t.Fatalf("no incoming directory of its own: %v", err)
	}
	if _, err := os.Stat(dead); err == nil {
		t.Fatal("the incoming directory of a lyrad that is gone was kept")
	}
	if _, err := os.Stat(filepath.Join(dir, ".fedcba9876543210.part")); err != nil {
		t.Fatal("a fresh .part (another lyrad's, in flight) was removed")
	}
	if _, err := os.Stat(filepath.Join(dir, ".0123456789abcdef.part")); err == nil {
		t.Fatal("a .part left by a crash was kept")
	}
	if _, err := os.Stat(filepath.Join(dir, "user.part")); err != nil {
		t.Fatal("a user's file was removed")
	}
}
