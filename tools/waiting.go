package tools

import (
	"context"
	"strings"
	"time"

	"github.com/lyrad/lyrad/session"
)

// Bounds of wait_for's timeout_ms.
const (
	defaultWaitMS = 10000
	maxWaitMS     = 30000
)

// waitReply is how long wait_for waited; last_seen is told with a timeout.
type waitReply struct {
	WaitedMS int64  `json:"waited_ms"`
	LastSeen string `json:"last_seen,omitempty" desc:"timeout: a page excerpt, or the URL"`
}

func waitingTools(d Deps) []*tool {
	m := d.Session
	return []*tool{
		{
			name:  "wait_for",
			title: "Wait until the page is ready",
			description: "Wait, instead of sleeping, for exactly one of text (state=hidden: until gone), selector (CSS or text=), url (a glob: **/checkout**) or load_state. " +
				"timeout is an answer, with last_seen. A read.",
			readOnly:   true,
			idempotent: true,
			params: []Param{
				{Name: "text", Kind: "string", Description: "A phrase of the visible text (case counts)."},
				{Name: "selector", Kind: "string", Description: "CSS or text=... (not an aria-ref)."},
				{Name: "url", Kind: "string", Description: "Glob: ** any characters, * any but /."},
				{Name: "load_state", Kind: "string", Description: "A load state.", Enum: session.LoadStates},
				{Name: "state", Kind: "string", Description: "Default visible; text takes visible or hidden.", Enum: []string{"visible", "hidden", "attached", "detached"}},
				{Name: "timeout_ms", Kind: "integer", Description: "At most 30000.", Default: defaultWaitMS},
			},
			output: outOf[waitReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				o, err := waitOptions(c)
				if err != nil {
					return nil, err
				}
				waited, err := m.WaitFor(ctx, c.caller, o)
				if err != nil {
					return nil, err
				}
				return waitReply{WaitedMS: waited.Milliseconds()}, nil
			},
		},
	}
}

// waitOptions checks wait_for's arguments: exactly one condition, and a
// state that fits it.
func waitOptions(c *call) (session.WaitOptions, error) {
	o := session.WaitOptions{State: c.str("state")}
	var given []string
	for _, name := range []string{"text", "selector", "url", "load_state"} {
		if !argGiven(c, name) {
			continue
		}
		if strings.TrimSpace(c.str(name)) == "" {
			return o, badArg(name, name+" is empty", "Give what to wait for, e.g. text=\"Order confirmed\".")
		}
		given = append(given, name)
	}
	switch len(given) {
	case 0:
		return o, badArg("text", "give exactly one condition: text, selector, url or load_state", "For example wait_for(text=\"Welcome\") or wait_for(load_state=\"load\").")
	case 1:
	default:
		return o, badArg(given[1], "give exactly one condition, not "+strings.Join(given, " and "), "Call wait_for once per condition.")
	}
	cond := given[0]
	switch cond {
	case "text":
		o.Text = c.str("text")
		if o.State != "" && o.State != "visible" && o.State != "hidden" {
			return o, badArg("state", "with text, state is visible or hidden, not "+o.State, "Use state=\"hidden\" to wait for the text to go, or leave state out.")
		}
	case "selector":
		o.Selector = c.str("selector")
		if session.IsRef(o.Selector) {
			return o, badArg("selector", "wait_for takes a CSS or text= selector, not an aria-ref", "A ref names an element of the latest read, which cannot appear later; wait for a CSS selector or text instead.")
		}
	case "url":
		o.URL = c.str("url")
	case "load_state":
		o.LoadState = c.str("load_state")
	}
	if (cond == "url" || cond == "load_state") && o.State != "" {
		return o, badArg("state", "state applies to text and selector waits, not "+cond, "Leave state out.")
	}
	ms := argInt(c, "timeout_ms")
	if ms < 0 {
		return o, badArg("timeout_ms", "timeout_ms must be 0 or more", "Leave it out for 10000, or give at most 30000.")
	}
	ms = max(1, min(ms, maxWaitMS))
	o.Timeout = time.Duration(ms) * time.Millisecond
	return o, nil
}
