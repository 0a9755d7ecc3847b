package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
)

// auditPrinter writes rows as a table, one line a row and fixed widths (so
// that rows followed one by one still line up), or as JSON lines.
type auditPrinter struct {
	w    io.Writer
	json bool
}

const auditFormat = "%-20s  %-10s  %-16s  %-16s  %-18s  %7s  %s\n"

func (p auditPrinter) header() {
	if !p.json {
		fmt.Fprintf(p.w, auditFormat, "TIME (UTC)", "KIND", "SESSION", "TOOL", "STATUS", "MS", "DETAIL")
	}
}

func (p auditPrinter) row(r auditRow) {
	if p.json {
		fmt.Fprintf(p.w, "%s\n", r.raw)
		return
	}
	ts := str(r.m["ts"])
	if t, ok := r.time(); ok {
		ts = t.UTC().Format("2006-01-02T15:04:05Z")
	}
	ms := ""
	if d, ok := r.m["duration_ms"].(float64); ok {
		ms = fmt.Sprintf("%.0f", d)
	}
	fmt.Fprintf(p.w, auditFormat, oneLine(ts), oneLine(str(r.m["kind"])), cut(oneLine(str(r.m["session"])), 16),
		oneLine(str(r.m["tool"])), oneLine(str(r.m["status"])), ms, detail(r.m))
}

// oneLine escapes what would break a row over lines or move the cursor: a
// newline is \n, a tab \t, other control characters \xNN or \uNNNN.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x100 && unicode.IsControl(c):
			fmt.Fprintf(&b, `\x%02x`, c)
		case unicode.IsControl(c):
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// shownInColumns are the keys the table has columns for.
var shownInColumns = map[string]bool{"ts": true, "kind": true, "session": true, "tool": true, "status": true, "duration_ms": true, "args": true, "url_before": true}

// detail is the rest of a row on one line: where a call ended, then every
// other key as key=value, cut to a terminal's width. --json has it all.
func detail(m map[string]any) string {
	var parts []string
	if u := str(m["url_after"]); u != "" {
		parts = append(parts, u)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !shownInColumns[k] && k != "url_after" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		parts = append(parts, k+"="+s)
	}
	return cut(oneLine(strings.Join(parts, " ")), 120)
}

func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
