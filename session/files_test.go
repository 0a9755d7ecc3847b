package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/policy"
)

// fileRefusal looks at the disk too: a directory whatever the URL's
// spelling, and where a symbolic link leads.
func TestFileRefusalReadsTheDisk(t *testing.T) {
	home := t.TempDir()
	data := filepath.Join(home, "data")
	dl := filepath.Join(data, "downloads")
	ssh := filepath.Join(home, ".ssh")
	for _, d := range []string{dl, ssh, filepath.Join(home, "docs")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(ssh, "id_test"), filepath.Join(dl, "a.html"), filepath.Join(home, "docs", "b.txt"), filepath.Join(data, "audit.jsonl")} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(ssh, "id_test"), filepath.Join(home, "docs", "key.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ssh, filepath.Join(home, "docs", "keys")); err != nil {
		t.Fatal(err)
	}
	m := &Manager{cfg: Config{Data: datadir.New(data), DownloadDir: dl}}
	for p, want := range map[string]string{
		dl + "/a.html":              "",
		home + "/docs/b.txt":        "",
		home + "/docs/missing":      "",
		home + "/docs":              policy.ReasonFileDirectory,
		dl:                          policy.ReasonFileDirectory,
		home + "/docs/key.txt":      policy.ReasonFileSecret,
		home + "/docs/keys/id_test": policy.ReasonFileSecret,
		data + "/audit.jsonl":       policy.ReasonFileSecret,
		ssh + "/id_test":            policy.ReasonFileSecret,
	} {
		if got := m.fileRefusal("file://" + p); got != want {
			t.Errorf("fileRefusal(%s) = %q, want %q", p, got, want)
		}
	}
}
