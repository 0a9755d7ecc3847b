package tools

import (
	"context"

	"github.com/lyrad/lyrad/session"
)

func historyTools(d Deps) []*tool {
	m := d.Session
	params := []Param{
		{Name: "wait_until", Kind: "string", Enum: session.WaitUntil, Default: "domcontentloaded"},
		reasonParam, confirmParam,
		{Name: "download", Kind: "boolean", Description: "Not taken here: navigate(url, download=true)."},
	}
	run := func(back bool) func(context.Context, *call) (any, error) {
		return func(ctx context.Context, c *call) (any, error) {
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
			description: "Go back one history entry and wait (wait_until); answers like navigate. " + actConsent + " " +
				"No earlier page: not_found.",
			params: params,
			output: outOf[loadReply](),
			run:    run(true),
		},
		{
			name:  "reload_page",
			title: "Reload the page",
			description: "Reload the active tab and wait (wait_until); answers like navigate. " +
				actConsent,
			params: params,
			output: outOf[loadReply](),
			run:    run(false),
		},
	}
}
