package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
)

// Profile kinds.
const (
	KindPersistent = "persistent" // <dir>/profile: logins and cookies survive restarts
	KindInstance   = "instance"   // a throwaway profile, removed on release
)

// Profile is a browser profile directory this process may use.
type Profile struct {
	Dir    string // the --user-data-dir to use
	Kind   string // KindPersistent or KindInstance
	Holder int    // for KindInstance: pid holding <dir>/profile.lock (0 if unknown)
	// PIDFile is where the browser running on Dir is recorded
	// (chrome.LaunchOptions.PIDFile): beside Dir, under the same lock.
	PIDFile string
}

// instanceSeq keeps instance directories unique within this process.
var instanceSeq atomic.Int64

// EndStale ends whatever a pid file names as running on a profile directory
// (a browser left by a dead process), and returns once it is gone.
type EndStale func(pidFile, profileDir string) error

// AcquireProfile locks ProfileLock and returns Profile. Chrome runs only one
// browser per profile, so when another holder has it this run gets a private
// profile at <dir>-instances/<pid>/profile (or <pid>-N for the Nth instance
// in this process) instead of failing. An instance directory left by a dead
// process that had our pid is cleared first, after endStale (if not nil) has
// ended the browser its pid file names. release unlocks, and for an instance
// removes its directory: stop the browser first.
func (d Dir) AcquireProfile(endStale EndStale) (p Profile, release func(), err error) {
	if d.root == "" {
		return Profile{}, nil, errors.New("datadir: no data directory given")
	}
	if err := os.MkdirAll(d.root, 0o700); err != nil {
		return Profile{}, nil, fmt.Errorf("datadir: data directory: %w", err)
	}
	unlockFn, err := Lock(d.ProfileLock())
	if err == nil {
		dir := d.Profile()
		if err := os.MkdirAll(dir, 0o700); err != nil {
			unlockFn()
			return Profile{}, nil, fmt.Errorf("datadir: profile directory: %w", err)
		}
		return Profile{Dir: dir, Kind: KindPersistent, PIDFile: d.BrowserPID()}, unlockFn, nil
	}
	var held *HeldError
	if !errors.As(err, &held) {
		return Profile{}, nil, fmt.Errorf("datadir: %w", err)
	}

	name := strconv.Itoa(os.Getpid())
	if n := instanceSeq.Add(1); n > 1 {
		name += "-" + strconv.FormatInt(n, 10)
	}
	root := d.Instances()
	inst := filepath.Join(root, name)
	// The name carries our pid and is unique within this process, so an
	// existing directory is left over from a dead process that had our pid,
	// and so is a browser still running on it.
	pidFile := filepath.Join(inst, pidFileName)
	dir := filepath.Join(inst, "profile")
	if endStale != nil {
		if err := endStale(pidFile, dir); err != nil {
			return Profile{}, nil, fmt.Errorf("datadir: stale instance profile: %w", err)
		}
	}
	if err := os.RemoveAll(inst); err != nil {
		return Profile{}, nil, fmt.Errorf("datadir: stale instance profile: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return Profile{}, nil, fmt.Errorf("datadir: instance profile: %w", err)
	}
	var once sync.Once
	return Profile{Dir: dir, Kind: KindInstance, Holder: held.PID, PIDFile: pidFile}, func() {
		once.Do(func() {
			_ = os.RemoveAll(inst)
			_ = os.Remove(root) // only succeeds once no other instance is left
		})
	}, nil
}
