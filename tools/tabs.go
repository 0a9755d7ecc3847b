package tools

import (
	"context"

	"github.com/lyrad/lyrad/session"
)

func tabTools(d Deps) []*tool {
	m := d.Session
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	integer := func(desc string) map[string]any { return map[string]any{"type": "integer", "description": desc} }
	return []*tool{
		{
			name:  "tabs",
			title: "List, switch or close tabs",
			description: "List the browser's tabs, switch to one, or close one.\n" +
				"action=\"list\" (default): every open tab with its index, url, title and whether it is the active one (the one you read and act on), plus tab_count and active_index. A read.\n" +
				"action=\"switch\", index=N: make tab N the active one and bring it to the front, so the user sees what you see.\n" +
				"action=\"close\", index=N: close tab N. Closing the active tab returns you to the tab that opened it, else the newest one; closing the last tab leaves a blank one.\n" +
				"Indexes shift whenever a tab opens or closes, so list again before using one; a bad index answers not_found with tab_count. Tabs a page opens are followed automatically, and a popup that closes itself (a sign-in window) returns you to the tab that opened it: this tool is for when you have to choose. Switching and closing are actions: reason is shown to the user when they are asked.",
			params: []param{
				{name: "action", kind: "string", description: "list, switch or close.", enum: []string{"list", "switch", "close"}, def: "list"},
				{name: "index", kind: "integer", description: "The tab to switch to or close, from tabs' list (0 is the first)."},
				{name: "reason", kind: "string", description: "Why; shown to the user when the action needs their approval."},
				{name: "confirm", kind: "boolean", description: "Legacy consent for clients that cannot be asked; never overrides a user's answer."},
			},
			output: map[string]any{
				"tabs": map[string]any{"type": "array", "description": "the open tabs, in the order they were opened",
					"items": map[string]any{"type": "object", "properties": map[string]any{
						"index": integer(""), "url": str(""), "title": str(""), "active": map[string]any{"type": "boolean"}}}},
				"tab_count":    integer("how many tabs are open"),
				"active_index": integer("the index of the active tab"),
				"url":          str("switch and close: where the session now stands"),
				"title":        str("its title"),
				"closed":       map[string]any{"type": "object", "description": "close: the tab that was closed", "properties": map[string]any{"url": str(""), "title": str("")}},
			},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				action := c.str("action")
				idx, hasIndex := c.args["index"].(int64)
				if action == "list" {
					if hasIndex {
						return nil, badArg("index", "index is for action=\"switch\" or \"close\"", "Call tabs with no index to list, or pass action=\"switch\" or \"close\" with it.")
					}
					l, err := m.Tabs(ctx, c.caller)
					if err != nil {
						return nil, err
					}
					out := map[string]any{}
					tabFields(l, out)
					return out, nil
				}
				if !hasIndex {
					return nil, badArg("index", "action=\""+action+"\" needs the index of a tab", "Call tabs (action=\"list\") and pass the index of the tab, e.g. {\"action\": \""+action+"\", \"index\": 1}.")
				}
				in := session.Intent{Reason: c.str("reason"), Confirm: c.boolean("confirm")}
				step := m.CloseTab
				if action == "switch" {
					step = m.SwitchTab
				}
				res, err := step(ctx, c.caller, int(idx), in)
				return actReply(res, err, func(r *session.ActResult, out map[string]any) {
					tabFields(r.Tabs, out)
					if r.Closed != nil {
						out["closed"] = map[string]any{"url": r.Closed.URL, "title": r.Closed.Title}
					}
				})
			},
		},
	}
}
