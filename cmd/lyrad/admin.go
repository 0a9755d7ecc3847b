package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"time"

	"go.uber.org/zap"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/session"
	"github.com/lyrad/lyrad/transport"
)

// Operator commands: the person at the terminal, talking to the daemon
// over its admin socket (transport/admin.go).

// serveAdmin answers operator commands until ctx ends.
func (d *daemon) serveAdmin(ctx context.Context) {
	ln, err := transport.ListenSocket(d.data.AdminSocket())
	if err != nil {
		d.log.Warn("no admin socket", zap.Error(err))
		return
	}
	go transport.ServeAdmin(ctx, ln, d.admin, d.log)
}

// admin answers one operator request.
func (d *daemon) admin(ctx context.Context, req map[string]any) map[string]any {
	verb, _ := req["verb"].(string)
	reason, _ := req["reason"].(string)
	var info *session.TakeoverInfo
	var err error
	switch verb {
	case "takeover":
		info, err = d.mgr.OperatorTakeover(ctx, reason)
	case "resume":
		info, err = d.mgr.OperatorResume(ctx)
	case "approvals":
		return approvalsReply(d.mgr.Approvals(), time.Now())
	case "approve", "deny":
		return d.answerApproval(req, verb == "approve")
	case "status":
		if req["gc"] == true {
			// task soak asks for the live heap measured, not as the last
			// collection happened to leave it.
			runtime.GC()
		}
		return statusReply(d.mgr.Status(ctx))
	default:
		return map[string]any{"status": "error", "error": fmt.Sprintf("unknown verb %q", verb), "hint": "takeover, resume, status, approvals, approve or deny"}
	}
	var se *session.Error
	if errors.As(err, &se) {
		out := map[string]any{"status": se.Status, "error": se.Message, "hint": se.Hint}
		return out
	}
	if err != nil {
		return map[string]any{"status": "error", "error": err.Error()}
	}
	out := map[string]any{"status": "ok", "reason": info.Reason, "resumed": info.Resumed}
	if verb == "takeover" {
		out["status"] = session.StatusTakeover
	}
	return out
}

// cmdAdmin runs `lyrad takeover [reason]` and `lyrad resume`.
func cmdAdmin(verb string, args []string, stdout, stderr io.Writer) int {
	var reason string
	o, code := parse(verb, args, stderr, false, func(fs *flag.FlagSet) {
		if verb == "takeover" {
			fs.StringVar(&reason, "reason", "", "what you are doing (shown to the agent)")
		}
	})
	if o == nil {
		return code
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	req := map[string]any{"verb": verb, "reason": reason}
	out, err := transport.AskAdmin(ctx, o.data().AdminSocket(), req)
	if err != nil {
		fmt.Fprintf(stderr, "lyrad %s: no lyrad daemon answers on %s (%v). Is `lyrad serve` or `lyrad stdio` running with this data directory?\n", verb, o.data().AdminSocket(), err)
		return 1
	}
	switch out["status"] {
	case session.StatusTakeover:
		fmt.Fprintln(stdout, "You have control of the browser. Run `lyrad resume` when you are done; the agent's actions wait until then.")
	case "ok":
		if out["resumed"] == true {
			fmt.Fprintln(stdout, "Control is back with the agent.")
		} else {
			fmt.Fprintln(stdout, "No takeover was in force.")
		}
	default:
		// The daemon's hints are written for the agent (call this tool,
		// tell the user): the operator is told in their own terms.
		fmt.Fprintf(stderr, "lyrad %s: %s\n", verb, operatorMessage(out))
		return 1
	}
	return 0
}

// operatorMessage says what a refused takeover means to the person at the
// terminal, and what they can do.
func operatorMessage(out map[string]any) string {
	switch out["status"] {
	case session.StatusNotOpen:
		return "no browser is open, so there is nothing to take over yet. It opens when the agent first uses it; run lyrad takeover once its window is up."
	case session.StatusUnattended:
		return "the browser runs headless: there is no window for you to take over. To share a window, restart lyrad with --no-headless (or LYRA_BROWSER_HEADLESS=false) in a desktop session."
	}
	return fmt.Sprintf("%v: %v", out["status"], out["error"])
}

// statusReply is the daemon's status as the admin socket answers it.
func statusReply(st session.Status) map[string]any {
	out := map[string]any{"status": "ok", "browser_open": st.BrowserOpen, "attended": st.Attended, "guard_lost": st.GuardLost, "driver": nil, "takeover": nil,
		"goroutines": runtime.NumGoroutine(), "fds": openFDs(), "heap_bytes": heapBytes()}
	if d := st.Driver; d != nil {
		out["driver"] = map[string]any{"session": d.Session, "client": d.Client, "front_door": d.Door, "idle_s": int(d.IdleFor.Seconds())}
	}
	if h := st.Held; h != nil {
		out["held"] = map[string]any{"session": h.Session, "client": h.Client, "front_door": h.Door,
			"ended_s_ago": int(time.Since(h.Since).Seconds()), "grace_s": int(h.Until.Sub(h.Since).Round(time.Second).Seconds()),
			"closes_in_s": max(0, int(time.Until(h.Until).Seconds()))}
	}
	tabs := []map[string]any{}
	for _, t := range st.Tabs {
		tabs = append(tabs, map[string]any{"index": t.Index, "url": audit.URL(t.URL), "title": audit.Title(t.Title, t.URL), "active": t.Active})
	}
	out["tabs"] = tabs
	grants := []map[string]any{}
	for _, g := range st.Grants {
		e := map[string]any{"origin": g.Scope, "capability": string(g.Capability), "channel": g.Channel}
		if !g.Expires.IsZero() {
			e["expires_in_s"] = int(time.Until(g.Expires).Seconds())
		}
		grants = append(grants, e)
	}
	out["grants"] = grants
	if t := st.Takeover; t != nil {
		out["takeover"] = map[string]any{"reason": t.Reason, "since": t.Since.UTC().Format(time.RFC3339), "by": t.By}
	}
	return out
}

// openFDs counts the daemon's open file descriptors (-1 where /proc/self/fd
// cannot be read). With the goroutine count it is what `task soak` watches
// for growth.
func openFDs() int {
	f, err := os.Open("/proc/self/fd")
	if err != nil {
		return -1
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return -1
	}
	return len(names) - 1 // the directory being read is one of them
}

// heapBytes is the daemon's live heap as the last garbage collection
// marked it, read without stopping the world.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
