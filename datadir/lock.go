package datadir

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// HeldError says that a lock file is held by another holder.
type HeldError struct {
	Path string
	PID  int // from the lock file; 0 if the holder had not written it yet
}

func (e *HeldError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is held by pid %d", e.Path, e.PID)
	}
	return e.Path + " is held by another process"
}

// LockDaemon takes the daemon's lock (DaemonLock): one lyrad serves a data
// directory at a time. When another holds it, the error is a *HeldError
// naming its pid.
func (d Dir) LockDaemon() (release func(), err error) { return Lock(d.DaemonLock()) }

// DaemonHolder is the pid written in the daemon's lock, 0 when there is
// none. The file is read, never locked: taking the lock, even briefly, could
// turn away a daemon that is starting. Whether that pid still lives is the
// caller's question.
func (d Dir) DaemonHolder() int {
	b, err := os.ReadFile(d.DaemonLock())
	if err != nil {
		return 0
	}
	return parsePID(b)
}

// Lock takes an exclusive non-blocking flock on path (created 0600) and
// writes our pid into it so that a refused second holder can say who has it.
// When the lock is taken it returns *HeldError. The lock is the flock, not
// the file: the file is never removed, which would let two holders lock two
// different inodes. release is idempotent.
func Lock(path string) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	held, err := tryLock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if held {
		pid := readPID(f)
		f.Close()
		return nil, &HeldError{Path: path, PID: pid}
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		unlock(f)
		f.Close()
		return nil, fmt.Errorf("lock %s: write pid: %w", path, err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			// Clear the pid before unlocking so nobody ever reads a stale one.
			_ = f.Truncate(0)
			unlock(f)
			f.Close()
		})
	}, nil
}

func readPID(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	return parsePID(b[:n])
}

func parsePID(b []byte) int {
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}
