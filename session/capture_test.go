package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestPruneCaptures(t *testing.T) {
	dir := t.TempDir()
	base := time.Now().Add(-time.Hour)
	names := []string{
		"page-20260101T000000Z-00000001.png", "image-20260101T000001Z-00000002.png",
		"page-20260101T000002Z-00000003.png", "page-20260101T000003Z-00000004.png",
	}
	for i, n := range names {
		p := filepath.Join(dir, n)
		os.WriteFile(p, []byte("x"), 0o600)
		os.Chtimes(p, base.Add(time.Duration(i)*time.Minute), base.Add(time.Duration(i)*time.Minute))
	}
	os.WriteFile(filepath.Join(dir, "notes.png"), []byte("mine"), 0o600)
	pruneCaptures(dir, 2)
	for i, n := range names {
		_, err := os.Stat(filepath.Join(dir, n))
		if kept := err == nil; kept != (i >= 2) {
			t.Errorf("%s kept=%v", n, kept)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.png")); err != nil {
		t.Error("a file that is not a capture was pruned")
	}
}
