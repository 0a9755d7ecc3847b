// Package audit is lyrad's append-only audit trail: one JSON object per line
// in <data_dir>/audit.jsonl, recording every tool call and guard decision.
//
// Durability/atomicity model: each row is marshalled completely in memory and
// handed to the kernel in a single write(2) on an O_APPEND descriptor. On a
// local filesystem (ext4, xfs, apfs, ntfs) an O_APPEND write of a regular
// file is positioned and performed atomically, so concurrent goroutines never
// interleave bytes. (NFS and similar network filesystems do not give that
// guarantee.) A crash can only leave a torn final line, which the readers
// skip, and which the next Open ends.
//
// One process writes the trail: the daemon, which holds the data
// directory's lock while the Log is open (cmd/lyrad openDaemon). Rotation
// depends on it: the Log counts the current file's size itself and renames
// files with no lock of their own, so a second writer would not be counted
// and would go on appending to a file that has been rotated away. Readers
// (`lyrad audit`) may run alongside.
package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"
)

// Row is one audit record. Extra is merged into the top-level JSON object so
// guard-specific fields (origin, capability, verdict, ...) sit next to the
// common ones and can be grepped/jq'ed without nesting.
type Row struct {
	Time       time.Time      `json:"ts"` // UTC, RFC3339Nano; set by Write when zero
	Kind       string         `json:"kind"`
	Session    string         `json:"session,omitempty"`
	Tool       string         `json:"tool,omitempty"`
	Args       map[string]any `json:"args,omitempty"`
	Status     string         `json:"status,omitempty"`
	DurationMS *float64       `json:"duration_ms,omitempty"`
	URLBefore  string         `json:"url_before,omitempty"`
	URLAfter   string         `json:"url_after,omitempty"`
	Extra      Fields         `json:"-"` // merged flat; keys colliding with the fields above are ignored
}

// Fields are a row's extra columns (Row.Extra): the audit file's, merged
// flat into the row's JSON object beside its fixed fields, keys sorted.
// Values are what encoding/json writes; Write redacts them as it does Args.
type Fields map[string]any

// Kinds are the kinds of row lyrad writes (Row.Kind), for readers that
// filter on them; a test keeps the list whole.
var Kinds = []string{"tool", "guard", "send", "session", "browser", "consent", "takeover", "download", "ask_user", "suppressed", "guard_lost", "audit"}

// rowFields has Row's layout without its methods, so MarshalJSON can use the
// default encoder for the fixed fields without recursing into itself.
type rowFields Row

// reservedKeys are the JSON names of Row's own fields, derived from the struct
// tags so the collision rule can never drift from the struct.
var reservedKeys = func() map[string]bool {
	m := map[string]bool{}
	t := reflect.TypeFor[rowFields]()
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			m[name] = true
		}
	}
	return m
}()

// MarshalJSON encodes the fixed fields in declaration order followed by the
// Extra keys in sorted order (deterministic output). It does not redact;
// Write does that before marshalling.
func (r Row) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(rowFields(r))
	if err != nil {
		return nil, err
	}
	if len(r.Extra) == 0 {
		return b, nil
	}
	keys := make([]string, 0, len(r.Extra))
	for k := range r.Extra {
		if !reservedKeys[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	buf := bytes.NewBuffer(b[:len(b)-1]) // drop the closing '}'
	for _, k := range keys {
		kb, _ := json.Marshal(k) // strings always marshal
		vb, err := json.Marshal(r.Extra[k])
		if err != nil {
			return nil, fmt.Errorf("audit: extra %q: %w", k, err)
		}
		buf.WriteByte(',')
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// MaxRowBytes bounds one line. A larger row is rewritten with its Args (and if
// still too large, its Extra) replaced by a size note: the row still lands,
// one write(2) stays realistic, and Tail never has to buffer a giant line.
const MaxRowBytes = 4 << 20

// ErrClosed is returned by Write and Sync after Close.
var ErrClosed = errors.New("audit: log is closed")

// Log appends rows to an audit file. The zero value is not usable; use Open
// or Nop. A nil *Log behaves like Nop so optional wiring needs no checks.
type Log struct {
	mu     sync.Mutex // serialises writes against Close; the fd is shared
	f      *os.File   // nil for Nop
	path   string
	closed bool
	opt    Options
	size   int64 // bytes in the current file
}

// Options bound the trail on disk.
type Options struct {
	// MaxFileBytes: when a row would take audit.jsonl past it, the file is
	// rotated (audit.jsonl -> audit.jsonl.1 -> audit.jsonl.2 ...) and a new
	// one begun. 0: DefaultMaxFileBytes.
	MaxFileBytes int64
	// MaxTotalBytes bounds the current file and the rotated ones together:
	// at a rotation the oldest files go until the rest fits, and the new
	// file begins with a row saying what was dropped. 0: DefaultMaxTotalBytes.
	MaxTotalBytes int64
}

const (
	DefaultMaxFileBytes  = 64 << 20
	DefaultMaxTotalBytes = 1 << 30
)

func (o Options) resolved() Options {
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.MaxTotalBytes < o.MaxFileBytes {
		o.MaxTotalBytes = o.MaxFileBytes
	}
	return o
}

// Open opens (creating if needed) the audit file at path for appending,
// with the default Options.
func Open(path string) (*Log, error) { return OpenWith(path, Options{}) }

// OpenWith opens (creating if needed) the audit file at path for appending.
// The parent directory is created 0700 and the file is forced to 0600, even
// if it already existed with looser permissions: rows can contain URLs and
// page content the user would not want other local users to read. A torn
// last line (a crash mid-write) is ended first, so the first row appended
// starts a line of its own and reads back.
func OpenWith(path string, opt Options) (*Log, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	f, size, err := openFile(path)
	if err != nil {
		return nil, err
	}
	return &Log{f: f, path: path, opt: opt.resolved(), size: size}, nil
}

func openFile(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("audit: %w", err)
	}
	fi, err := f.Stat()
	if err == nil && fi.Mode().Perm()&0o077 != 0 {
		err = f.Chmod(0o600)
	}
	var size int64
	if err == nil {
		var torn bool
		size, torn, err = tornEnd(f)
		if err == nil && torn {
			_, err = f.Write([]byte{'\n'})
			size++
		}
	}
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("audit: %w", err)
	}
	return f, size, nil
}

// Rotated returns the rotated files of the trail at path, newest first
// (path.1, path.2, ...): those that exist, up to the first gap.
func Rotated(path string) []string {
	var out []string
	for i := 1; ; i++ {
		p := fmt.Sprintf("%s.%d", path, i)
		if _, err := os.Lstat(p); err != nil {
			return out
		}
		out = append(out, p)
	}
}

// rotate moves the current file to path.1 (and each older one up by one),
// begins a new file, and drops the oldest files while all of them would
// exceed MaxTotalBytes; the new file's first row says what was dropped.
// Called with l.mu held.
func (l *Log) rotate() error {
	old := Rotated(l.path)
	for i := len(old); i >= 1; i-- {
		if err := os.Rename(old[i-1], fmt.Sprintf("%s.%d", l.path, i+1)); err != nil {
			return err
		}
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return err
	}
	l.f.Close()
	f, size, err := openFile(l.path)
	if err != nil {
		l.closed = true // nothing to write to; fail closed rather than lose silently
		return err
	}
	l.f, l.size = f, size
	rot := Rotated(l.path)
	var total int64
	sizes := make([]int64, len(rot))
	for i, p := range rot {
		if fi, err := os.Lstat(p); err == nil {
			sizes[i] = fi.Size()
		}
		total += sizes[i]
	}
	var dropped []string
	var droppedBytes int64
	// Room for the new file to grow to MaxFileBytes.
	for len(rot) > 0 && total+l.opt.MaxFileBytes > l.opt.MaxTotalBytes {
		last := len(rot) - 1
		if err := os.Remove(rot[last]); err != nil {
			break
		}
		dropped = append(dropped, filepath.Base(rot[last]))
		droppedBytes += sizes[last]
		total -= sizes[last]
		rot, sizes = rot[:last], sizes[:last]
	}
	if len(dropped) > 0 {
		line, err := encode(Row{Kind: "audit", Status: "dropped", Extra: Fields{
			"files": dropped, "bytes": droppedBytes, "max_total_bytes": l.opt.MaxTotalBytes,
			"note": "the oldest rows were removed to keep the trail within its size cap",
		}})
		if err == nil {
			n, _ := l.f.Write(line)
			l.size += int64(n)
		}
	}
	return nil
}

// Nop returns a Log that discards everything (tests, no data dir).
func Nop() *Log { return &Log{} }

// Path returns the file path ("" for Nop).
func (l *Log) Path() string {
	if l == nil {
		return ""
	}
	return l.path
}

// Write redacts r.Args and r.Extra (secret keys, and URLs as URL writes
// them), and r.URLBefore and r.URLAfter, stamps the time if unset, and appends the
// row as one line with a single write(2). Safe for concurrent use.
func (l *Log) Write(r Row) error {
	if l == nil {
		return nil
	}
	if l.f == nil { // Nop: discard, but keep the closed contract
		if l.isClosed() {
			return ErrClosed
		}
		return nil
	}
	line, err := encode(r)
	if err != nil {
		return err
	}
	return l.write(line)
}

// Line is a row encoded as Write would write it (redacted, stamped, with
// its newline), so that its size is known before it is written.
type Line struct{ b []byte }

// Encode prepares r for WriteLine.
func Encode(r Row) (Line, error) {
	b, err := encode(r)
	return Line{b}, err
}

// Len is the bytes the line takes in the file.
func (ln Line) Len() int { return len(ln.b) }

// WriteLine appends a line made by Encode, as Write appends a row.
func (l *Log) WriteLine(ln Line) error {
	if l == nil {
		return nil
	}
	if l.f == nil {
		if l.isClosed() {
			return ErrClosed
		}
		return nil
	}
	if len(ln.b) == 0 {
		return nil
	}
	return l.write(ln.b)
}

func (l *Log) write(line []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	// os.File.Write issues one write(2) for the whole buffer; it only loops
	// if the kernel wrote short, which for a regular file means an error
	// such as ENOSPC — the line is torn at that point anyway.
	if l.size > 0 && l.size+int64(len(line)) > l.opt.MaxFileBytes {
		if err := l.rotate(); err != nil {
			return fmt.Errorf("audit: rotate: %w", err)
		}
	}
	n, err := l.f.Write(line)
	l.size += int64(n)
	if err != nil {
		if n > 0 && n < len(line) {
			// Terminate the fragment so the next row starts on a fresh
			// line: the damage stays one skipped line, not two.
			if k, _ := l.f.Write([]byte{'\n'}); k == 1 {
				l.size++
			}
		}
		return fmt.Errorf("audit: write: %w", err)
	}
	return nil
}

func (l *Log) isClosed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed
}

// encode produces the final, redacted line including the trailing newline.
func encode(r Row) ([]byte, error) {
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	r.Time = r.Time.UTC()
	r.Args = Redact(r.Tool, r.Args)
	r.Extra = Redact(r.Tool, r.Extra)
	r.URLBefore = URL(r.URLBefore)
	r.URLAfter = URL(r.URLAfter)

	b, err := r.MarshalJSON()
	if err == nil && len(b)+1 > MaxRowBytes && len(r.Args) > 0 {
		r.Args = map[string]any{"truncated_bytes": len(b)}
		b, err = r.MarshalJSON()
	}
	if err == nil && len(b)+1 > MaxRowBytes {
		r.Extra = Fields{"truncated_bytes": len(b)}
		b, err = r.MarshalJSON()
	}
	if err != nil {
		// Redact already turned unencodable values into strings, so this
		// is only reachable through e.g. a NaN in a typed field.
		return nil, fmt.Errorf("audit: encode: %w", err)
	}
	if len(b)+1 > MaxRowBytes {
		return nil, fmt.Errorf("audit: row of %d bytes exceeds MaxRowBytes", len(b))
	}
	return append(b, '\n'), nil
}

// Sync flushes the file to stable storage.
func (l *Log) Sync() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if l.f == nil {
		return nil
	}
	return l.f.Sync()
}

// Close fsyncs and closes the file. Later Writes return ErrClosed; a second
// Close is a no-op.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if l.f == nil {
		return nil
	}
	err := l.f.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Since returns the milliseconds elapsed since start, rounded to 3 decimals
// (microsecond resolution), ready for Row.DurationMS.
func Since(start time.Time) *float64 {
	ms := float64(time.Since(start).Microseconds()) / 1000
	return &ms
}

// tornEnd says whether f ends in a torn line (a crash mid-write), and its
// size. A file that does not end in a newline may only be another
// process's row being written (the kernel grows a file page by page within
// one write): a line is torn only when its end stays put for a while.
func tornEnd(f *os.File) (int64, bool, error) {
	last := make([]byte, 1)
	var prev int64 = -1
	stable := 0
	for i := 0; i < 100; i++ {
		fi, err := f.Stat()
		if err != nil {
			return 0, false, err
		}
		size := fi.Size()
		if size == 0 {
			return 0, false, nil
		}
		if _, err := f.ReadAt(last, size-1); err != nil {
			return 0, false, err
		}
		if last[0] == '\n' {
			return size, false, nil
		}
		if size == prev {
			stable++
		} else {
			stable = 0
		}
		if stable >= 5 {
			return size, true, nil
		}
		prev = size
		time.Sleep(10 * time.Millisecond)
	}
	return prev, true, nil
}
