package tools

import (
	"context"

	"github.com/lyrad/lyrad/session"
)

func historyTools(d Deps) []*tool {
	m := d.Session
	nullable := func(t, desc string) map[string]any {
		return map[string]any{"type": []string{t, "null"}, "description": desc}
	}
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	output := map[string]any{
		"url":          str("where the tab stands"),
		"title":        str("its title"),
		"http_status":  nullable("integer", "HTTP status of the document, null when no HTTP response was involved (restored from the back/forward cache, about:blank)"),
		"content_type": nullable("string", "media type of the document, null when no HTTP response was involved"),
		"from_cache":   map[string]any{"type": "boolean", "description": "the browser restored the page from its back/forward cache without asking the server"},
		"stayed":       map[string]any{"type": "boolean", "description": "the page asked to stay (beforeunload) and the answer kept it"},
		"tab_count":    map[string]any{"type": "integer"},
		"dialogs":      map[string]any{"type": "array", "description": "native dialogs raised during the call (beforeunload, ...)"},
	}
	params := []param{
		{name: "wait_until", kind: "string", description: "How much of the load to wait for.", enum: session.WaitUntil, def: "domcontentloaded"},
		{name: "reason", kind: "string", description: "Why; shown to the user when the step needs their approval."},
		{name: "confirm", kind: "boolean", description: "Legacy consent for clients that cannot be asked; never overrides a user's answer."},
		{name: "download", kind: "boolean", description: "Not accepted here: navigate(url, download=true) saves a file."},
	}
	run := func(back bool) func(context.Context, *call) (map[string]any, error) {
		return func(ctx context.Context, c *call) (map[string]any, error) {
			if c.boolean("download") {
				return nil, badArg("download", "a history step or a reload cannot declare a download", "To save the file, navigate to its URL with download=true.")
			}
			step := m.Reload
			if back {
				step = m.GoBack
			}
			res, err := step(ctx, c.caller, c.str("wait_until"), session.Intent{Reason: c.str("reason"), Confirm: c.boolean("confirm")})
			return actReply(res, err, loadFields)
		}
	}
	return []*tool{
		{
			name:  "go_back",
			title: "Go back",
			description: "Go back one entry in the active tab's history and wait for it (wait_until: domcontentloaded by default, load, commit, networkidle).\n" +
				"Reports http_status and content_type like navigate; both are null when the browser restored the page from its back/forward cache without asking the server (from_cache: true). Where \"back\" leads is judged when it happens: a page no approval covers answers blocked_by_policy and the tab stays. No earlier page answers not_found.\n" +
				"A page that asks before it is left (beforeunload) is answered yes unless handle_dialog said otherwise; then the reply says stayed.",
			params: params,
			output: output,
			run:    run(true),
		},
		{
			name:  "reload_page",
			title: "Reload the page",
			description: "Reload the active tab and wait for it (wait_until: domcontentloaded by default, load, commit, networkidle). Reports http_status and content_type like navigate (null when no HTTP response was involved).\n" +
				"What the page held that it did not save (a half-filled form) is lost. A page that asks before it is left (beforeunload) is answered yes unless handle_dialog said otherwise; then the reply says stayed.",
			params: params,
			output: output,
			run:    run(false),
		},
	}
}
