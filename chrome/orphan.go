package chrome

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"
)

// pidRecord names a browser precisely enough that a reused pid is never
// taken for it: the kernel's start time of the process, and the profile.
type pidRecord struct {
	PID     int    `json:"pid"`
	Start   string `json:"start"` // /proc/<pid>/stat field 22, clock ticks after boot
	Profile string `json:"profile"`
}

// orphanWait bounds the wait for a killed orphan and its helpers.
const orphanWait = 5 * time.Second

// EndOrphan ends a browser an earlier lyrad left running on profileDir, as
// Launch does with its PIDFile: for datadir.Dir.AcquireProfile, which
// clears a stale instance profile.
func EndOrphan(pidFile, profileDir string) error {
	_, err := killOrphan(pidFile, profileDir, zap.NewNop())
	return err
}

// killOrphan ends a browser that an earlier lyrad left running on this
// profile (its pid file says which), with every helper, and waits until
// they are gone: the orphan would keep posting unguarded, and holds the
// profile so that the new browser could not start. Only a process that is
// provably that browser or one of its helpers is killed. killed is the
// orphan's pid, 0 when there was none.
func killOrphan(pidFile, profileDir string, log *zap.Logger) (killed int, err error) {
	rec, err := readPIDFile(pidFile)
	if err != nil || rec == nil {
		return 0, err
	}
	if rec.Profile == profileDir {
		if pids := orphanProcs(*rec); len(pids) > 0 {
			log.Warn("killing a browser left running by an earlier lyrad on this profile", zap.Int("pid", rec.PID), zap.Int("processes", len(pids)))
			killProcs(*rec, pids)
			killed = rec.PID
			deadline := time.Now().Add(orphanWait)
			for len(orphanProcs(*rec)) > 0 {
				if time.Now().After(deadline) {
					return killed, fmt.Errorf("a browser left running by an earlier lyrad (pid %d) on %s did not die within %s; end it (kill -9 -%d) and try again", rec.PID, profileDir, orphanWait, rec.PID)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
	if err := os.Remove(pidFile); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return killed, fmt.Errorf("remove stale %s: %w", pidFile, err)
	}
	return killed, nil
}

// readPIDFile returns nil for a missing file. A file that does not parse
// names nobody: it is reported only through being replaced.
func readPIDFile(path string) (*pidRecord, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var rec pidRecord
	if json.Unmarshal(b, &rec) != nil || rec.PID <= 0 || rec.Start == "" {
		return &pidRecord{}, nil
	}
	return &rec, nil
}

// recordBrowser writes the pid file of a browser just started. Where the
// system cannot tell a process's start time, nothing is written: a pid
// alone could name someone else's process by the next launch.
func recordBrowser(pidFile string, pid int, profileDir string) (*pidRecord, error) {
	start, err := procStart(pid)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the browser's start time: %w", err)
	}
	rec := &pidRecord{PID: pid, Start: start, Profile: profileDir}
	b, _ := json.Marshal(rec)
	tmp, err := os.CreateTemp(filepath.Dir(pidFile), "."+filepath.Base(pidFile)+".*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	return rec, os.Rename(tmp.Name(), pidFile)
}

// forgetBrowser removes the pid file once its browser has exited, unless it
// names another browser by now.
func forgetBrowser(pidFile string, rec *pidRecord) {
	if cur, err := readPIDFile(pidFile); err == nil && cur != nil && *cur == *rec {
		_ = os.Remove(pidFile)
	}
}
