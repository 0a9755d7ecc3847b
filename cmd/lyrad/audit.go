package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/lyrad/lyrad/audit"
)

// auditFilter is what `lyrad audit` keeps of the trail.
type auditFilter struct {
	session string   // the row's session exactly; ending in *, its first characters
	kinds   []string // any of; empty keeps all
	status  []string // any of; empty keeps all
	since   time.Time
}

func (f auditFilter) keep(r auditRow) bool {
	if f.session != "" && !matchSession(str(r.m["session"]), f.session) {
		return false
	}
	if len(f.kinds) > 0 && !oneOf(str(r.m["kind"]), f.kinds) {
		return false
	}
	if len(f.status) > 0 && !oneOf(str(r.m["status"]), f.status) {
		return false
	}
	if !f.since.IsZero() {
		ts, ok := r.time()
		if !ok || ts.Before(f.since) {
			return false
		}
	}
	return true
}

// matchSession: id is want, or starts with want's characters before a
// final *. mcp-1 is not mcp-10.
func matchSession(id, want string) bool {
	if p, ok := strings.CutSuffix(want, "*"); ok {
		return strings.HasPrefix(id, p)
	}
	return id == want
}

func oneOf(s string, set []string) bool {
	for _, v := range set {
		if s == v {
			return true
		}
	}
	return false
}

// splitList reads "a,b" (a flag given once) as a set.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// parseSince reads --since: a duration back from now (90s, 1m, 2h) or an
// RFC3339 instant.
func parseSince(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return time.Time{}, fmt.Errorf("--since %q: give a positive duration (1m) or an RFC3339 time", s)
		}
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--since %q: give a duration back from now (90s, 1m, 2h) or an RFC3339 time (2026-12-01T08:00:00Z)", s)
}

// auditPoll is how often -f looks for new rows; a variable for tests.
var auditPoll = 200 * time.Millisecond

func cmdAudit(args []string, stdout, stderr io.Writer) int {
	var (
		jsonOut, follow      bool
		session, kind, state string
		since                string
	)
	o, code := parse("audit", args, stderr, false, func(fs *flag.FlagSet) {
		fs.BoolVar(&jsonOut, "json", false, "print the rows as JSON lines, as written")
		fs.StringVar(&session, "session", "", "only this session: its id exactly, or its first characters followed by * (mcp-1*)")
		fs.StringVar(&kind, "kind", "", "only these kinds, comma-separated (tool, guard, session, browser, consent, ...)")
		fs.StringVar(&state, "status", "", "only these statuses, comma-separated (ok, blocked, ...)")
		fs.StringVar(&since, "since", "", "only rows from this long ago (1m, 2h) or from this RFC3339 time on")
		fs.BoolVar(&follow, "f", false, "follow: keep printing rows as they are appended, until interrupted")
		fs.BoolVar(&follow, "follow", false, "same as -f")
	})
	if o == nil {
		return code
	}
	t, err := parseSince(since, time.Now())
	if err != nil {
		fmt.Fprintln(stderr, "lyrad audit:", err)
		return 2
	}
	f := auditFilter{session: session, kinds: splitList(kind), status: splitList(state), since: t}
	for _, k := range f.kinds {
		if !oneOf(k, audit.Kinds) {
			fmt.Fprintf(stderr, "lyrad audit: warning: no row is of kind %q (the kinds: %s)\n", k, strings.Join(audit.Kinds, ", "))
		}
	}
	ctx, stop := signals()
	defer stop()
	return runAudit(ctx, o.data().Audit(), f, jsonOut, follow, stdout, stderr)
}

// runAudit prints the rows of the trail at path that f keeps; with follow,
// it then waits for more until ctx ends.
func runAudit(ctx context.Context, path string, f auditFilter, jsonOut, follow bool, stdout, stderr io.Writer) int {
	tl := &auditTail{path: path}
	defer tl.close()
	out := auditPrinter{w: stdout, json: jsonOut}
	first := true
	for {
		rows, err := tl.next()
		if err != nil && !(follow && errors.Is(err, fs.ErrNotExist)) {
			if errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(stderr, "lyrad audit: no audit trail at %s: no daemon has served this data directory yet (or give --data-dir)\n", path)
			} else {
				fmt.Fprintln(stderr, "lyrad audit:", err)
			}
			return 1
		}
		if first {
			out.header()
			first = false
		}
		for _, r := range rows {
			if f.keep(r) {
				out.row(r)
			}
		}
		if !follow {
			return 0
		}
		select {
		case <-ctx.Done():
			return 0
		case <-time.After(auditPoll):
		}
	}
}
