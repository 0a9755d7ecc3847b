package main

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// auditTail reads the trail from where it last stopped. Only lines that end
// in '\n' are consumed: a torn last line (a writer mid-write, or one that
// crashed) is left for the next read, where it is either whole or, with a
// row appended after it, garbage that is skipped. Lines that do not parse
// are skipped, as audit.ReadAll does.
type auditTail struct {
	path string
	off  int64
}

func (t *auditTail) next() ([]auditRow, error) {
	f, err := os.Open(t.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() < t.off {
		t.off = 0 // the trail was replaced (rotated by hand): start over
	}
	if _, err := f.Seek(t.off, io.SeekStart); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	end := bytes.LastIndexByte(b, '\n')
	if end < 0 {
		return nil, nil
	}
	t.off += int64(end + 1)
	var rows []auditRow
	for _, line := range bytes.Split(b[:end], []byte{'\n'}) {
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
	return rows, nil
}
