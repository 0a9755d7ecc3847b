package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/transport"
)

// driverNote says why status cannot name the driver: the daemon keeps who
// drives, its tabs, grants and takeover in memory and answers for them only
// to the session concerned. Naming them needs a read-only admin query on
// the socket (see README, lyrad status).
const driverNote = "the daemon did not answer on its admin socket: who drives, its tabs, live grants and takeover are unknown; `recent` is the audit trail's latest events, a record and not the live state"

// statusReport is `lyrad status --json`.
type statusReport struct {
	daemonState
	// Driver, Tabs, Grants and Takeover are the daemon's live state, asked
	// over its admin socket (null when it does not answer).
	Driver     any    `json:"driver"`
	Held       any    `json:"held,omitempty"` // a disconnected driver's window, kept for its client through the reconnect grace
	Tabs       any    `json:"tabs,omitempty"`
	Grants     any    `json:"grants,omitempty"`
	Takeover   any    `json:"takeover"`
	DriverNote string `json:"driver_note,omitempty"`
	// Goroutines and FDs are the daemon's own (its open file descriptors),
	// asked over the admin socket with the rest of the live state.
	Goroutines any                       `json:"goroutines,omitempty"`
	FDs        any                       `json:"fds,omitempty"`
	Recent     map[string]map[string]any `json:"recent,omitempty"` // kind → its latest row in the trail
}

// recentKinds are the trail's rows that tell the most about the state.
var recentKinds = []string{"session", "browser", "takeover", "consent", "tool"}

// recentTail bounds how far back status looks in the trail.
const recentTail = 500

func readStatus(d datadir.Dir) statusReport {
	r := statusReport{daemonState: readDaemonState(d), DriverNote: driverNote}
	rows, _ := audit.Tail(d.Audit(), recentTail)
	for i := len(rows) - 1; i >= 0; i-- {
		k := str(rows[i]["kind"])
		if !oneOf(k, recentKinds) || r.Recent[k] != nil {
			continue
		}
		if r.Recent == nil {
			r.Recent = map[string]map[string]any{}
		}
		delete(rows[i], "args") // what a call was given is the trail's, not a status line's
		r.Recent[k] = rows[i]
	}
	return r
}

// cmdStatus exits 0 when a daemon holds the data directory, 3 when none
// does (as systemctl status and LSB scripts do).
func cmdStatus(args []string, stdout, stderr io.Writer) int {
	var jsonOut bool
	o, code := parse("status", args, stderr, false, func(fs *flag.FlagSet) {
		fs.BoolVar(&jsonOut, "json", false, "print one JSON object instead of text")
	})
	if o == nil {
		return code
	}
	r := readStatus(o.data())
	if r.Running {
		askLive(o.data(), &r)
	}
	if jsonOut {
		b, _ := json.MarshalIndent(r, "", "  ")
		fmt.Fprintf(stdout, "%s\n", b)
	} else {
		writeStatus(stdout, r, time.Now())
	}
	if !r.Running {
		return 3
	}
	return 0
}

func writeStatus(w io.Writer, r statusReport, now time.Time) {
	fmt.Fprintf(w, "data dir:  %s\n", r.DataDir)
	switch {
	case r.Running:
		fmt.Fprintf(w, "daemon:    running, pid %d", r.PID)
		if r.Goroutines != nil {
			fmt.Fprintf(w, " (%v goroutines, %v open fds)", r.Goroutines, r.FDs)
		}
		fmt.Fprintln(w)
	case r.Stale:
		fmt.Fprintf(w, "daemon:    not running (the lock names pid %d, which is gone: killed?)\n", r.PID)
	default:
		fmt.Fprintln(w, "daemon:    not running (lyrad serve, or lyrad service install)")
	}
	if r.Socket != "" {
		fmt.Fprintf(w, "socket:    %s\n", r.Socket)
	}
	if r.HTTP != "" {
		fmt.Fprintf(w, "http:      %s (lyrad mcp-config --http for the token)\n", r.HTTP)
	} else if r.Running {
		fmt.Fprintln(w, "http:      off")
	}
	switch {
	case r.Browser:
		fmt.Fprintf(w, "browser:   running, pid %d\n", r.BrowserPID)
	case r.BrowserPID > 0:
		fmt.Fprintf(w, "browser:   not running (browser.pid names pid %d, which is gone)\n", r.BrowserPID)
	default:
		fmt.Fprintln(w, "browser:   not open on the persistent profile")
	}
	if r.DriverNote == "" {
		writeLive(w, r)
		return
	}
	why := "driver:    none: no daemon runs"
	if r.Running {
		why = "driver:    unknown: the daemon did not answer on its admin socket"
	}
	if len(r.Recent) == 0 {
		fmt.Fprintln(w, why+"; the audit trail records no event yet")
		return
	}
	fmt.Fprintln(w, why+"; the trail's latest events:")
	for _, k := range recentKinds {
		if m := r.Recent[k]; m != nil {
			fmt.Fprintf(w, "last %-9s%s\n", k+":", recentLine(m, now))
		}
	}
}

func recentLine(m map[string]any, now time.Time) string {
	ago := ""
	if t, err := time.Parse(time.RFC3339Nano, str(m["ts"])); err == nil {
		ago = now.Sub(t).Round(time.Second).String() + " ago"
	}
	s := fmt.Sprintf("%s, session %s", ago, cut(str(m["session"]), 16))
	for _, k := range []string{"tool", "status", "client", "front_door", "origin", "capability"} {
		if v := str(m[k]); v != "" {
			s += " " + k + "=" + v
		}
	}
	return s
}

// askLive asks the running daemon for its live state over the admin
// socket: a read that takes nothing and drives nothing.
func askLive(d datadir.Dir, r *statusReport) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	out, err := transport.AskAdmin(ctx, d.AdminSocket(), map[string]any{"verb": "status"})
	if err != nil || out["status"] != "ok" {
		return
	}
	r.Driver, r.Held, r.Tabs, r.Grants, r.Takeover, r.DriverNote = out["driver"], out["held"], out["tabs"], out["grants"], out["takeover"], ""
	r.Goroutines, r.FDs = out["goroutines"], out["fds"]
}

func writeLive(w io.Writer, r statusReport) {
	d, driving := r.Driver.(map[string]any)
	h, held := r.Held.(map[string]any)
	switch {
	case driving:
		fmt.Fprintf(w, "driver:    %v via %v (session %v), idle %vs\n", d["client"], d["front_door"], cut(str(d["session"]), 16), d["idle_s"])
	case held:
		fmt.Fprintf(w, "driver:    none, but the window is held for %v via %v (session %v ended %vs ago): it comes back to its tabs if it reconnects within the reconnect grace (%vs), which ends in %vs; until then other clients get session_conflict\n",
			h["client"], h["front_door"], cut(str(h["session"]), 16), h["ended_s_ago"], h["grace_s"], h["closes_in_s"])
	default:
		fmt.Fprintln(w, "driver:    none")
	}
	if t, ok := r.Takeover.(map[string]any); ok {
		fmt.Fprintf(w, "takeover:  the user holds the browser since %v (%v)\n", t["since"], t["reason"])
	}
	tabs, _ := r.Tabs.([]any)
	for _, x := range tabs {
		t, _ := x.(map[string]any)
		mark := " "
		if t["active"] == true {
			mark = "*"
		}
		fmt.Fprintf(w, "tab %v%s     %v  %v\n", t["index"], mark, t["url"], cut(str(t["title"]), 60))
	}
	grants, _ := r.Grants.([]any)
	for _, x := range grants {
		g, _ := x.(map[string]any)
		fmt.Fprintf(w, "grant:     %v %v (%v)\n", g["capability"], g["origin"], g["channel"])
	}
}
