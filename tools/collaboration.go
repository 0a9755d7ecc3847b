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
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	integer := func(desc string) map[string]any { return map[string]any{"type": "integer", "description": desc} }
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
			description: "Give the user control of the window for a step you must not do (a password, a CAPTCHA, 2FA, a payment). Until resume_after_takeover, every acting tool answers takeover_active and reads keep working; the user's own navigations are let through and audited as theirs.\n" +
				"Headless there is no one at the window: it answers unattended and locks nothing.",
			params: []param{{name: "reason", kind: "string", required: true, description: "What the user should do; shown to them."}},
			output: map[string]any{"reason": str("why the user has control"), "url": str("where the tab stands"), "title": str("its title")},
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
			description: "End a takeover once the user says they are done: the user is asked to confirm (INTERACT on the current site); a no keeps the takeover. Without a takeover it does nothing. Answers url and title.",
			params: []param{
				{name: "reason", kind: "string", description: "What you will do next; shown to the user."},
				{name: "confirm", kind: "boolean", description: "Legacy consent for clients that cannot be asked; never overrides a user's answer."},
			},
			output: map[string]any{"url": str("where the tab stands"), "title": str("its title"), "resumed": map[string]any{"type": "boolean", "description": "a takeover was ended"}},
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
			description: "Ask the person at the window to do a step you must not (credentials, a CAPTCHA, 2FA, a payment): highlights selector when given and answers awaiting_user at once. Relay the instruction to the user, then re-read the page (read_page, get_url) to see when it is done. It neither blocks nor locks.\n" +
				"Headless: unattended; do not wait for a human.",
			params: []param{
				{name: "instruction", kind: "string", required: true, description: "What the user should do."},
				{name: "selector", kind: "string", description: "The element to point them to: " + selectorHelp},
			},
			output: map[string]any{"instruction": str("as given"), "url": str("where the tab stands"), "selector": str("the element highlighted"), "matches": integer("")},
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
			description: "Scroll the element a selector names to the middle of the view and outline it for 4 s, for the user to see. Drawn by the browser, never written into the page. Fails like click (not_found, hidden). Headless: unattended, and the page is untouched.",
			params:      []param{{name: "selector", kind: "string", required: true, description: "The element: " + selectorHelp}},
			output:      map[string]any{"selector": str("as given"), "matches": integer("how many elements matched"), "url": str("where the tab stands")},
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
