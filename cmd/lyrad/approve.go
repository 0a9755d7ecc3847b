package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/lyrad/lyrad/session"
	"github.com/lyrad/lyrad/transport"
)

// lyrad approve: the user's answer, at a terminal, to a consent question
// the agent's MCP client could not put to them (session/approvals.go). It
// is the user's verb, as the admin socket is theirs: whoever can run it
// as this user (an agent given a shell included) can approve.

// approvalsReply is the daemon's list of approvals, as the admin socket
// answers it.
func approvalsReply(list []session.Approval, now time.Time) map[string]any {
	out := []map[string]any{}
	for _, a := range list {
		qs := []map[string]any{}
		for _, q := range a.Questions {
			qs = append(qs, map[string]any{"capability": q.Capability, "origin": q.Origin, "question": q.Message})
		}
		out = append(out, map[string]any{"id": a.ID, "state": a.State, "session": a.Session, "client": a.Client, "tool": a.Tool,
			"age_s": int(now.Sub(a.Asked).Seconds()), "expires_in_s": max(0, int(a.Expires.Sub(now).Seconds())), "asked": qs})
	}
	return map[string]any{"status": "ok", "approvals": out}
}

// answerApproval answers the admin socket's approve and deny.
func (d *daemon) answerApproval(req map[string]any, approve bool) map[string]any {
	id, _ := req["id"].(string)
	a, err := d.mgr.AnswerApproval(id, approve)
	if errors.Is(err, session.ErrNoApproval) {
		return map[string]any{"status": "not_found", "error": err.Error(), "approval_timeout_s": d.o.approvalTimeout.Seconds()}
	}
	if err != nil {
		return map[string]any{"status": "error", "error": err.Error()}
	}
	out := approvalsReply([]session.Approval{a}, time.Now())
	out["approval"] = out["approvals"].([]map[string]any)[0]
	delete(out, "approvals")
	return out
}

func cmdApprove(args []string, stdout, stderr io.Writer) int {
	var list, deny bool
	var ids []string
	o, code := parseArgs("approve", args, stderr, false, func(fs *flag.FlagSet) {
		fs.BoolVar(&list, "list", false, "list the questions waiting for an answer")
		fs.BoolVar(&deny, "deny", false, "refuse ID instead of approving it")
	}, &ids)
	if o == nil {
		return code
	}
	if list != (len(ids) == 0) || len(ids) > 1 || (list && deny) {
		fmt.Fprintln(stderr, "usage: lyrad approve --list | lyrad approve ID | lyrad approve --deny ID")
		return 2
	}
	req := map[string]any{"verb": "approvals"}
	if !list {
		req = map[string]any{"verb": "approve", "id": ids[0]}
		if deny {
			req["verb"] = "deny"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	out, err := transport.AskAdmin(ctx, o.data().AdminSocket(), req)
	if err != nil {
		fmt.Fprintf(stderr, "lyrad approve: no lyrad daemon answers on %s (%v). Is `lyrad serve` or `lyrad stdio` running with this data directory?\n", o.data().AdminSocket(), err)
		return 1
	}
	switch out["status"] {
	case "ok":
	case "not_found":
		// The daemon's timeout, not this shell's setting.
		within := time.Duration(num(out["approval_timeout_s"]) * float64(time.Second))
		fmt.Fprintf(stderr, "lyrad approve: nothing waits for an answer under %q: the id is unknown, has expired (ids last %s), or was answered already. `lyrad approve --list` shows what waits.\n",
			oneLine(ids[0]), within)
		return 1
	default:
		fmt.Fprintf(stderr, "lyrad approve: %v: %v\n", out["status"], out["error"])
		return 1
	}
	if list {
		items, _ := out["approvals"].([]any)
		if len(items) == 0 {
			fmt.Fprintln(stdout, "Nothing waits for an answer.")
			return 0
		}
		fmt.Fprintf(stdout, "%-7s %-6s %-9s %-22s %s\n", "ID", "AGE", "STATE", "TOOL", "WHAT")
		for _, it := range items {
			writeApproval(stdout, it)
		}
		return 0
	}
	a, _ := out["approval"].(map[string]any)
	if deny {
		fmt.Fprintf(stdout, "Denied %s. The agent's repeat of the call is refused.\n", str(a["id"]))
	} else {
		fmt.Fprintf(stdout, "Approved %s: the agent's next try of the same call (within %s) gets what it asked for:\n", str(a["id"]),
			time.Duration(num(a["expires_in_s"]))*time.Second)
	}
	writeQuestions(stdout, a, "  ")
	return 0
}

// writeApproval is one approval of the list: a line, then its questions.
func writeApproval(w io.Writer, it any) {
	a, _ := it.(map[string]any)
	age := time.Duration(num(a["age_s"])) * time.Second
	var what []string
	asked, _ := a["asked"].([]any)
	for _, q := range asked {
		m, _ := q.(map[string]any)
		what = append(what, oneLine(str(m["capability"]))+" "+oneLine(str(m["origin"])))
	}
	fmt.Fprintf(w, "%-7s %-6s %-9s %-22s %s\n", oneLine(str(a["id"])), age, oneLine(str(a["state"])), cut(oneLine(str(a["tool"])), 22), strings.Join(what, ", "))
	writeQuestions(w, a, "        ")
}

// writeQuestions prints what the user would have been asked, each line of
// each question escaped (page text is in them).
func writeQuestions(w io.Writer, a map[string]any, indent string) {
	asked, _ := a["asked"].([]any)
	for _, q := range asked {
		m, _ := q.(map[string]any)
		for _, l := range strings.Split(str(m["question"]), "\n") {
			fmt.Fprintln(w, indent+oneLine(l))
		}
	}
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}
