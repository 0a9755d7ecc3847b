// Package download keeps a browser's downloads behind the guard. The
// tracker (Tracker, tracker.go) lets a file through only when the acting
// call under way declared it, and cancels or refuses every other; the
// store (Store) keeps what it let through: where the files go, what they
// are called, and how many are kept. The tracker takes what it needs of
// its owner (tabs, frames, the audit trail, the takeover) as Hooks.
//
//	<dir>/                  0700 (LYRA_BROWSER_DOWNLOAD_DIR, default <data_dir>/downloads)
//	  <name>                the kept files, 0600, named by SanitizeName
//	  .<random>.part        a file being moved into place
//	  .incoming-<pid>/      where the browser of lyrad <pid> writes (0700); never listed
//	  .lyrad-downloads.json the ledger: what lyrad kept, oldest first
package download

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/lyrad/lyrad/internal/proc"
)

const (
	ledgerName     = ".lyrad-downloads.json"
	incomingPrefix = ".incoming"
	// SessionMax bounds what List reports: a session's newest files.
	SessionMax = 200
	// maxTaken is how many "name (n).ext" are tried before giving up.
	maxTaken = 10000
)

// partName matches the temporary names Keep makes, and only those: a
// leftover of a crash is removed at Open, a user's file never.
var partName = regexp.MustCompile(`^\.[0-9a-f]{16}\.part$`)

// Entry is one kept file.
type Entry struct {
	Filename  string `json:"filename"`
	Path      string `json:"path"`
	Bytes     int64  `json:"bytes"`
	URLOrigin string `json:"url_origin"`
}

// record is an Entry as the ledger holds it: enough to tell that the file
// on disk is still the one lyrad wrote before it is pruned.
type record struct {
	Filename  string `json:"filename"`
	Bytes     int64  `json:"bytes"`
	URLOrigin string `json:"url_origin"`
	Saved     int64  `json:"saved_unix_nano"`
	ModTime   int64  `json:"mtime_unix_nano"`
}

// Store is one download directory. Two lyrads may share it (a second one
// runs on a throwaway profile): each has its own incoming directory.
type Store struct {
	dir      string
	keep     int // 0: keep all
	incoming string

	mu      sync.Mutex
	session []Entry // what this process kept, oldest first, at most SessionMax
}

// ErrNoDir is Open's answer when no directory is configured.
var ErrNoDir = errors.New("download: no directory given")

// Open creates dir (0700) and its incoming directory, removes what an
// earlier run left half done (the incoming files and Keep's own .part
// files), and returns the store. keep is how many kept files the ledger
// holds before the oldest are pruned; 0 keeps all.
func Open(dir string, keep int) (*Store, error) {
	if dir == "" {
		return nil, ErrNoDir
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("download: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("download: create the download directory: %w (set LYRA_BROWSER_DOWNLOAD_DIR to a writable directory)", err)
	}
	_ = os.Chmod(abs, 0o700)
	s := &Store{dir: abs, keep: keep, incoming: filepath.Join(abs, incomingPrefix+"-"+strconv.Itoa(os.Getpid()))}
	if err := s.clearIncoming(); err != nil {
		return nil, err
	}
	s.clearLeftovers()
	return s, nil
}

// clearLeftovers removes what a lyrad that is gone left behind: its
// incoming directory, and .part files older than a minute (a live one's
// are renamed within milliseconds).
func (s *Store) clearLeftovers() {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		p := filepath.Join(s.dir, e.Name())
		switch {
		case partName.MatchString(e.Name()) && e.Type().IsRegular():
			if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > time.Minute {
				_ = os.Remove(p)
			}
		case e.IsDir() && p != s.incoming && strings.HasPrefix(e.Name(), incomingPrefix+"-"):
			pid, err := strconv.Atoi(strings.TrimPrefix(e.Name(), incomingPrefix+"-"))
			if err == nil && pid > 0 && !proc.Alive(pid) {
				_ = os.RemoveAll(p)
			}
		}
	}
}

// Dir is the download directory.
func (s *Store) Dir() string { return s.dir }

// Incoming is the private directory the browser writes into. Only the
// browser's own files are ever there.
func (s *Store) Incoming() string { return s.incoming }

// clearIncoming makes the incoming directory, empty and 0700.
func (s *Store) clearIncoming() error {
	in := s.Incoming()
	if st, err := os.Lstat(in); err == nil && !st.IsDir() {
		if err := os.Remove(in); err != nil {
			return fmt.Errorf("download: %s is not a directory: %w", in, err)
		}
	}
	if err := os.MkdirAll(in, 0o700); err != nil {
		return fmt.Errorf("download: %w", err)
	}
	_ = os.Chmod(in, 0o700)
	ents, _ := os.ReadDir(in)
	for _, e := range ents {
		_ = os.RemoveAll(filepath.Join(in, e.Name()))
	}
	return nil
}

// Discard removes what the browser wrote for the download guid in the
// incoming directory (its .crdownload and its finished file). A guid that
// is not one plain name removes nothing.
func (s *Store) Discard(guid string) {
	if guid == "" || guid != filepath.Base(guid) || guid == "." || guid == ".." {
		return
	}
	for _, n := range []string{guid, guid + ".crdownload"} {
		_ = os.Remove(filepath.Join(s.Incoming(), n))
	}
}

// Keep moves src (a finished file in the incoming directory) into the
// download directory under the sanitised suggested name, made unique, and
// records it. It goes through .<random>.part, so a half-moved file never
// carries a real name, and a name is taken with link(2), which never
// replaces a file (nor follows a symlink) that appeared meanwhile.
func (s *Store) Keep(src, suggested, urlOrigin string) (Entry, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	part, err := s.partPath()
	if err != nil {
		return Entry{}, err
	}
	if err := os.Rename(src, part); err != nil {
		return Entry{}, fmt.Errorf("download: move the file into the download directory: %w", err)
	}
	defer os.Remove(part)
	_ = os.Chmod(part, 0o600)
	name, err := s.place(part, SanitizeName(suggested))
	if err != nil {
		return Entry{}, err
	}
	path := filepath.Join(s.dir, name)
	st, err := os.Lstat(path)
	if err != nil {
		return Entry{}, fmt.Errorf("download: %w", err)
	}
	e := Entry{Filename: name, Path: path, Bytes: st.Size(), URLOrigin: urlOrigin}
	s.session = append(s.session, e)
	if len(s.session) > SessionMax {
		s.session = s.session[len(s.session)-SessionMax:]
	}
	recs := s.readLedger()
	recs = append(recs, record{Filename: name, Bytes: e.Bytes, URLOrigin: urlOrigin, Saved: time.Now().UnixNano(), ModTime: st.ModTime().UnixNano()})
	recs = s.prune(recs)
	if err := s.writeLedger(recs); err != nil {
		return e, fmt.Errorf("download: the file was kept but the ledger could not be written: %w", err)
	}
	return e, nil
}

func (s *Store) partPath() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("download: %w", err)
	}
	return filepath.Join(s.dir, "."+hex.EncodeToString(b[:])+".part"), nil
}

// place gives part the first free name of name, "name (1).ext", ...; a
// name that exists in any form (a dangling symlink included) is taken.
func (s *Store) place(part, name string) (string, error) {
	for n := 0; n < maxTaken; n++ {
		cand := name
		if n > 0 {
			cand = numbered(name, n)
		}
		if cand == ledgerName || strings.HasPrefix(cand, incomingPrefix) {
			continue
		}
		dst := filepath.Join(s.dir, cand)
		if _, err := os.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		err := os.Link(part, dst)
		if err == nil {
			return cand, nil
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		// A file system without hard links: rename, after the check above.
		if err := os.Rename(part, dst); err != nil {
			return "", fmt.Errorf("download: %w", err)
		}
		return cand, nil
	}
	return "", fmt.Errorf("download: every name from %q to %q is taken; clear the download directory", name, numbered(name, maxTaken-1))
}

// List is what this process kept that is still on disk, oldest first.
func (s *Store) List() []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Entry{}
	for _, e := range s.session {
		if st, err := os.Lstat(e.Path); err == nil && st.Mode().IsRegular() {
			out = append(out, e)
		}
	}
	return out
}

func (s *Store) readLedger() []record {
	b, err := os.ReadFile(filepath.Join(s.dir, ledgerName))
	if err != nil {
		return nil
	}
	var recs []record
	if json.Unmarshal(b, &recs) != nil {
		return nil
	}
	return recs
}

func (s *Store) writeLedger(recs []record) error {
	b, err := json.MarshalIndent(recs, "", " ")
	if err != nil {
		return err
	}
	tmp, err := s.partPath()
	if err != nil {
		return err
	}
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, filepath.Join(s.dir, ledgerName))
}

// prune drops the oldest records beyond keep, deleting each one's file
// only when it is still the file lyrad wrote: a regular file of the same
// size and modification time. A file that was replaced, or that was never
// lyrad's, stays.
func (s *Store) prune(recs []record) []record {
	if s.keep <= 0 || len(recs) <= s.keep {
		return recs
	}
	drop := len(recs) - s.keep
	for _, r := range recs[:drop] {
		if r.Filename != filepath.Base(r.Filename) || r.Filename == ledgerName || strings.HasPrefix(r.Filename, incomingPrefix) {
			continue
		}
		p := filepath.Join(s.dir, r.Filename)
		st, err := os.Lstat(p)
		if err != nil || !st.Mode().IsRegular() || st.Size() != r.Bytes || st.ModTime().UnixNano() != r.ModTime {
			continue
		}
		_ = os.Remove(p)
	}
	return append([]record(nil), recs[drop:]...)
}
