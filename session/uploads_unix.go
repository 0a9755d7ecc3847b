//go:build unix

package session

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
)

// openNoBlock opens p for reading without waiting on it (a FIFO or a
// device would hold the call otherwise).
func openNoBlock(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// openedPath is the real path of the file f holds: the descriptor's own on
// Linux; elsewhere p with its symlinks resolved, which must still be the
// file f holds.
func openedPath(f *os.File, p string, st os.FileInfo) (string, error) {
	if runtime.GOOS == "linux" {
		if real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil && filepath.IsAbs(real) {
			return real, nil
		}
	}
	return resolvedSame(p, st)
}

// hardLinks is how many names the file has.
func hardLinks(st os.FileInfo) uint64 {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return uint64(s.Nlink)
	}
	return 1
}
