//go:build !unix

package session

import (
	"errors"
	"os"
	"path/filepath"
)

func openNoBlock(p string) (*os.File, error) { return os.Open(p) }

// openedPath is p with its symlinks resolved, which must still be the file
// f holds.
func openedPath(f *os.File, p string, st os.FileInfo) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	now, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !os.SameFile(now, st) {
		return "", errors.New("the file changed while it was checked")
	}
	return real, nil
}

// hardLinks: not told on this platform.
func hardLinks(os.FileInfo) uint64 { return 1 }
