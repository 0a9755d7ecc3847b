package tools

import (
	"context"

	"github.com/lyrad/lyrad/session"
)

func historyTools(d Deps) []*tool {
	m := d.Session
	params := []param{
		{name: "wait_until", kind: "string", enum: session.WaitUntil, def: "domcontentloaded"},
		reasonParam, confirmParam,
		{name: "download", kind: "boolean", description: "Not taken here: navigate(url, download=true)."},
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
			description: "Go back one entry in the active tab's history and wait (wait_until); needs INTERACT on the page (asked once). Answers http_status and content_type like navigate. " +
				"Where it leads is judged: a page no grant covers answers blocked_by_policy and the tab stays. No earlier page: not_found. " +
				"beforeunload is answered yes unless handle_dialog said no (stayed).",
			params: params,
			output: loadOut,
			run:    run(true),
		},
		{
			name:  "reload_page",
			title: "Reload the page",
			description: "Reload the active tab and wait (wait_until); what the page did not save is lost. Needs INTERACT on the page (asked once). Answers like navigate. " +
				"beforeunload is answered yes unless handle_dialog said no (stayed).",
			params: params,
			output: loadOut,
			run:    run(false),
		},
	}
}
