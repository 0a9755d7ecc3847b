package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lyrad/lyrad/datadir"
)

func TestCheckUpload(t *testing.T) {
	root := t.TempDir()
	m := &Manager{cfg: Config{UploadRoots: []string{root}, Data: datadir.New(t.TempDir())}}
	write := func(rel, body string) string {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("docs/report.txt", "report")
	key := write(".ssh/id_test", "KEY")
	keychain := write("Library/Keychains/login.keychain-db", "KEYCHAIN")
	linked := filepath.Join(root, "docs/innocent.txt")
	if err := os.Link(key, linked); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(root, "docs/pipe")
	if err := mkfifo(fifo); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{ok, ""},
		{key, "refused"},
		{keychain, "refused"},
		{linked, "linked"},
		{fifo, "missing"}, // and does not hang
		{filepath.Join(root, "docs"), "missing"},
		{"docs/report.txt", "missing"},
	} {
		f, got := uploadsOf(m.cfg).checkUpload(c.path)
		if got != c.want {
			t.Errorf("checkUpload(%s) = %q, want %q", c.path, got, c.want)
		}
		if f.f != nil {
			f.f.Close()
		}
	}
}

// The copy handed to the browser is of the file checked, whatever its path
// names afterwards.
func TestStageUploadsCopiesTheCheckedFile(t *testing.T) {
	root := t.TempDir()
	data := t.TempDir()
	m := &Manager{cfg: Config{UploadRoots: []string{root}, Data: datadir.New(data)}}
	dir := filepath.Join(root, "docs")
	os.MkdirAll(dir, 0o700)
	p := filepath.Join(dir, "photo.txt")
	os.WriteFile(p, []byte("PHOTO"), 0o600)
	files, err := uploadsOf(m.cfg).checkUploads([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	defer closeUploads(files)
	// The folder is swapped for a link to a secret after the check.
	secret := filepath.Join(root, ".ssh")
	os.MkdirAll(secret, 0o700)
	os.WriteFile(filepath.Join(secret, "photo.txt"), []byte("PRIVATE KEY"), 0o600)
	if err := os.Rename(dir, dir+"-old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, dir); err != nil {
		t.Fatal(err)
	}
	staged, err := uploadsOf(m.cfg).stageUploads(files)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(staged[0])
	if err != nil || string(got) != "PHOTO" || filepath.Base(staged[0]) != "photo.txt" {
		t.Errorf("staged %s = %q, %v; want photo.txt holding PHOTO", staged[0], got, err)
	}
	if rel, err := filepath.Rel(data, staged[0]); err != nil || filepath.IsAbs(rel) || rel[:2] == ".." {
		t.Errorf("staged outside the data dir: %s", staged[0])
	}
	uploadsOf(m.cfg).clear()
	if _, err := os.Stat(staged[0]); !os.IsNotExist(err) {
		t.Errorf("clear left %s", staged[0])
	}
}
