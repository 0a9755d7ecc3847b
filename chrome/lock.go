package chrome

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"
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
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// Profile kinds.
const (
	KindPersistent = "persistent" // <dataDir>/profile: logins and cookies survive restarts
	KindInstance   = "instance"   // a throwaway profile, removed on release
)

// Profile is a browser profile directory this process may use.
type Profile struct {
	Dir    string // the --user-data-dir to use
	Kind   string // KindPersistent or KindInstance
	Holder int    // for KindInstance: pid holding <dataDir>/profile.lock (0 if unknown)
	// PIDFile is where the browser running on Dir is recorded
	// (LaunchOptions.PIDFile): beside Dir, under the same lock.
	PIDFile string
}

// instanceSeq keeps instance directories unique within this process.
var instanceSeq atomic.Int64

// AcquireProfile locks <dataDir>/profile.lock and returns <dataDir>/profile.
// Chrome runs only one browser per profile, so when another holder has it
// this run gets a private profile at <dataDir>-instances/<pid>/profile (or
// <pid>-N for the Nth instance in this process) instead of failing.
// release unlocks, and for an instance removes its directory: stop the
// browser first.
func AcquireProfile(dataDir string) (p Profile, release func(), err error) {
	if dataDir == "" {
		return Profile{}, nil, errors.New("chrome: no data directory given")
	}
	dataDir = filepath.Clean(dataDir)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return Profile{}, nil, fmt.Errorf("chrome: data directory: %w", err)
	}
	unlockFn, err := Lock(filepath.Join(dataDir, "profile.lock"))
	if err == nil {
		dir := filepath.Join(dataDir, "profile")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			unlockFn()
			return Profile{}, nil, fmt.Errorf("chrome: profile directory: %w", err)
		}
		return Profile{Dir: dir, Kind: KindPersistent, PIDFile: filepath.Join(dataDir, PIDFileName)}, unlockFn, nil
	}
	var held *HeldError
	if !errors.As(err, &held) {
		return Profile{}, nil, fmt.Errorf("chrome: %w", err)
	}

	name := strconv.Itoa(os.Getpid())
	if n := instanceSeq.Add(1); n > 1 {
		name += "-" + strconv.FormatInt(n, 10)
	}
	root := dataDir + "-instances"
	inst := filepath.Join(root, name)
	// The name carries our pid and is unique within this process, so an
	// existing directory is left over from a dead process that had our pid,
	// and so is a browser still running on it.
	pidFile := filepath.Join(inst, PIDFileName)
	dir := filepath.Join(inst, "profile")
	if _, err := killOrphan(pidFile, dir, zap.NewNop()); err != nil {
		return Profile{}, nil, fmt.Errorf("chrome: stale instance profile: %w", err)
	}
	if err := os.RemoveAll(inst); err != nil {
		return Profile{}, nil, fmt.Errorf("chrome: stale instance profile: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Profile{}, nil, fmt.Errorf("chrome: instance profile: %w", err)
	}
	var once sync.Once
	return Profile{Dir: dir, Kind: KindInstance, Holder: held.PID, PIDFile: pidFile}, func() {
		once.Do(func() {
			_ = os.RemoveAll(inst)
			_ = os.Remove(root) // only succeeds once no other instance is left
		})
	}, nil
}
