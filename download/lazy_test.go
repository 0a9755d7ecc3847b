package download

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestLazyOpensOnce(t *testing.T) {
	var l Lazy
	if _, err := l.Open("", 0); !errors.Is(err, ErrNoDir) {
		t.Fatalf("no directory: %v, want ErrNoDir", err)
	}
	dir := filepath.Join(t.TempDir(), "downloads")
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s exists before the first use", dir)
	}
	s, err := l.Open(dir, 0)
	if err != nil || s.Dir() != dir {
		t.Fatalf("Open = %v, %v", s, err)
	}
	if again, err := l.Open(filepath.Join(t.TempDir(), "other"), 0); err != nil || again != s {
		t.Errorf("second Open = %p, %v; want the first store %p", again, err, s)
	}
}
