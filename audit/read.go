package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"
)

// parseLine decodes one line (without its '\n'). Blank, torn or garbage
// lines, and JSON that is not an object, yield nil: the trail is append-only
// and a crash may leave debris, which readers must step over, not fail on.
func parseLine(line []byte) map[string]any {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(line, &m) != nil {
		return nil
	}
	return m
}

// ReadAll returns every good row of the trail at path, the rotated files
// (path.N ... path.1) first, in file order. A final line without '\n' is
// treated as torn (a writer may still be mid-write, or crashed) and
// skipped. A missing path is an error only when no rotated file exists.
func ReadAll(path string) ([]map[string]any, error) {
	var rows []map[string]any
	rot := Rotated(path)
	for i := len(rot) - 1; i >= 0; i-- {
		r, err := readFile(rot[i])
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return rows, err
		}
		rows = append(rows, r...)
	}
	r, err := readFile(path)
	if err != nil && !(len(rot) > 0 && errors.Is(err, os.ErrNotExist)) {
		return append(rows, r...), err
	}
	return append(rows, r...), nil
}

func readFile(path string) ([]map[string]any, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var rows []map[string]any
	r := bufio.NewReaderSize(f, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if err == io.EOF {
			return rows, nil // line holds the unterminated tail, if any
		}
		if err != nil {
			return rows, err
		}
		if m := parseLine(line[:len(line)-1]); m != nil {
			rows = append(rows, m)
		}
	}
}

// tailChunk is the backward read size; a variable so tests can force lines
// to straddle many chunks.
var tailChunk = 64 << 10

// Tail returns the last n good rows of the trail in file order, reading
// backwards from the end of path and on into the rotated files, so cost is
// proportional to what is returned, not to file size. Like ReadAll it
// skips a final unterminated line and unparseable lines.
func Tail(path string, n int) ([]map[string]any, error) {
	rows, err := tailFile(path, n)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return rows, err
	}
	missing := err != nil
	rot := Rotated(path)
	if missing && len(rot) == 0 {
		return nil, err
	}
	for _, p := range rot {
		if len(rows) >= n {
			break
		}
		older, err := tailFile(p, n-len(rows))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return rows, err
		}
		rows = append(older, rows...)
	}
	return rows, nil
}

func tailFile(path string, n int) ([]map[string]any, error) {
	if n <= 0 {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}

	var rows []map[string]any // newest first
	pos := fi.Size()          // pending holds file bytes [pos, pos+len(pending))
	var pending []byte
	trimmed := false // torn tail (bytes after the last '\n') dropped yet?
	for pos > 0 && len(rows) < n {
		// Read at least as much as we already hold, so a huge line costs
		// amortised O(len) copying rather than O(len²).
		size := int64(max(tailChunk, len(pending)))
		size = min(size, pos)
		pos -= size
		buf := make([]byte, int(size)+len(pending))
		if _, err := f.ReadAt(buf[:size], pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		copy(buf[size:], pending)
		pending = buf

		if !trimmed {
			i := bytes.LastIndexByte(pending, '\n')
			if i < 0 {
				continue // still inside the torn tail
			}
			pending, trimmed = pending[:i+1], true
		}
		// pending ends with '\n'. Peel complete lines off the end; the first
		// line in pending is only complete once we reach the file start.
		for len(pending) > 0 && len(rows) < n {
			body := pending[:len(pending)-1]
			j := bytes.LastIndexByte(body, '\n')
			if j < 0 && pos > 0 {
				break // line may start before pos; read more
			}
			if m := parseLine(body[j+1:]); m != nil {
				rows = append(rows, m)
			}
			pending = pending[:j+1]
		}
	}
	slices.Reverse(rows)
	return rows, nil
}
