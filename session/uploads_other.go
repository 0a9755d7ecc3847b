//go:build !unix

package session

import "os"

func openNoBlock(p string) (*os.File, error) { return os.Open(p) }

// openedPath is p with its symlinks resolved, which must still be the file
// f holds.
func openedPath(f *os.File, p string, st os.FileInfo) (string, error) {
	return resolvedSame(p, st)
}

// hardLinks: not told on this platform.
func hardLinks(os.FileInfo) uint64 { return 1 }
