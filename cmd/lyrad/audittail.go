package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/lyrad/lyrad/audit"
	"io"
	"os"
	"time"
)

// auditRow is one good line of the trail: its bytes as written (for --json)
// and what they say.
type auditRow struct {
	raw []byte
	m   map[string]any
}

func (r auditRow) time() (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, str(r.m["ts"]))
	return t, err == nil
}

func str(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// auditTail reads the trail from where it last stopped: at first the
// rotated files (audit.jsonl.N ... .1), oldest first, then audit.jsonl, and
// on from there; when the daemon rotates audit.jsonl while it is followed,
// the rest of the old file is read before the new one. Only lines that end
// in '\n' are consumed: a torn last line (a writer mid-write, or one that
// crashed) is left for the next read, where it is either whole or, with a
// row appended after it, garbage that is skipped. Lines that do not parse
// are skipped, as audit.ReadAll does.
type auditTail struct {
	path    string
	off     int64
	f       *os.File // the file being read, kept open across rotations
	started bool
}

func (t *auditTail) next() ([]auditRow, error) {
	var rows []auditRow
	if !t.started {
		rot := audit.Rotated(t.path)
		for i := len(rot) - 1; i >= 0; i-- {
			if b, err := os.ReadFile(rot[i]); err == nil {
				if end := bytes.LastIndexByte(b, '\n'); end >= 0 {
					rows = append(rows, parseRows(b[:end])...)
				}
			}
		}
	}
	if t.f == nil {
		f, err := os.Open(t.path)
		if err != nil {
			if len(rows) > 0 {
				t.started = true
				return rows, nil
			}
			return nil, err
		}
		t.f, t.off = f, 0
	}
	t.started = true
	for {
		more, err := t.read()
		rows = append(rows, more...)
		if err != nil {
			return rows, err
		}
		// Rotated since it was opened: read what is left of the old file
		// (done above), then go on with the new one.
		cur, err1 := os.Stat(t.path)
		old, err2 := t.f.Stat()
		if err1 != nil || err2 != nil || os.SameFile(cur, old) {
			if err2 == nil && old.Size() < t.off {
				t.off = 0 // truncated by hand: start over
			}
			return rows, nil
		}
		f, err := os.Open(t.path)
		if err != nil {
			return rows, nil
		}
		t.f.Close()
		t.f, t.off = f, 0
	}
}

// read returns the whole lines of t.f past t.off.
func (t *auditTail) read() ([]auditRow, error) {
	if _, err := t.f.Seek(t.off, io.SeekStart); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(t.f)
	if err != nil {
		return nil, err
	}
	end := bytes.LastIndexByte(b, '\n')
	if end < 0 {
		return nil, nil
	}
	t.off += int64(end + 1)
	return parseRows(b[:end]), nil
}

func (t *auditTail) close() {
	if t.f != nil {
		t.f.Close()
	}
}

func parseRows(b []byte) []auditRow {
	var rows []auditRow
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		rows = append(rows, auditRow{raw: line, m: m})
	}
	return rows
}
