package tools

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/session"
)

// collaborationTools are the tools for working with the person at the
// window: request_takeover, resume_after_takeover, ask_user_to_do,
// highlight_element. Headless, there is no one there: they answer
// unattended and lock nothing.
func collaborationTools(d Deps) []*tool {
	m := d.Session
	where := func(i *session.TakeoverInfo, out map[string]any) map[string]any {
		if i.URL != "" {
			out["url"], out["title"] = i.URL, i.Title
		}
		if i.Selector != "" {
			out["selector"], out["matches"] = i.Selector, i.Matches
		}
		return out
	}
	return []*tool{
		{
			name:  "request_takeover",
			title: "Hand the browser to the user",
			description: "Give the user the window for a step you must not do (a password, a CAPTCHA, 2FA, a payment). " +
				"Until resume_after_takeover, acting tools answer takeover_active; reads work. More: lyrad://guide.",
			params: []param{{name: "reason", kind: "string", required: true, description: "What the user should do; shown to them."}},
			output: map[string]any{"reason": sStr(""), "url": sStr(""), "title": sStr("")},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				i, err := m.RequestTakeover(ctx, c.caller, c.str("reason"))
				if err != nil {
					return nil, err
				}
				if c.ss != nil {
					// Logging is deprecated from protocol 2026-07-28 but still
					// delivered; it is the one way to tell the client itself.
					//lint:ignore SA1019 the issue asks for a log notification
					_ = c.ss.Log(ctx, &mcp.LoggingMessageParams{Level: "notice", Logger: "lyrad",
						Data: "The user has control of the browser: " + i.Reason + ". The agent waits for resume_after_takeover."})
				}
				return where(i, map[string]any{"status": session.StatusTakeover, "reason": i.Reason,
					"hint": "The user has control. When they say they are done, call resume_after_takeover; reads work meanwhile."}), nil
			},
		},
		{
			name:        "resume_after_takeover",
			title:       "Take the browser back",
			description: "End a takeover once the user says they are done; they are asked to confirm (a no keeps it).",
			params: []param{
				{name: "reason", kind: "string", description: "What you will do next; shown to the user."},
				confirmParam,
			},
			output: map[string]any{"url": sStr(""), "title": sStr(""), "resumed": sBool("")},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				i, err := m.ResumeAfterTakeover(ctx, c.caller, c.str("reason"))
				if err != nil {
					return nil, err
				}
				return where(i, map[string]any{"resumed": i.Resumed}), nil
			},
		},
		{
			name:  "ask_user_to_do",
			title: "Ask the user to do a step",
			description: "Ask the person at the window to do a step you must not (credentials, CAPTCHA, 2FA, payment); highlights selector if given. " +
				"Answers awaiting_user at once, locks nothing: relay the instruction, re-read later.",
			params: []param{
				{name: "instruction", kind: "string", required: true, description: "What the user should do."},
				{name: "selector", kind: "string", description: "What to point them to."},
			},
			output: map[string]any{"instruction": sStr(""), "url": sStr(""), "selector": sStr(""), "matches": sInt("")},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				i, err := m.AskUser(ctx, c.caller, c.str("instruction"), c.str("selector"))
				if err != nil {
					return nil, err
				}
				return where(i, map[string]any{"status": session.StatusAwaitingUser, "instruction": c.str("instruction"),
					"hint": "Relay the instruction to the user, then read the page again later to see whether it is done."}), nil
			},
		},
		{
			name:        "highlight_element",
			title:       "Point the user to an element",
			description: "Outline the element for 4 s for the user to see; the browser draws it, not the page. Fails like click.",
			params:      []param{selectorParam(true)},
			output:      map[string]any{"selector": sStr(""), "matches": sInt(""), "url": sStr("")},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				i, err := m.Highlight(ctx, c.caller, c.str("selector"))
				if err != nil {
					return nil, err
				}
				return where(i, map[string]any{}), nil
			},
		},
	}
}
