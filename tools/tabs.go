package tools

import (
	"context"

	"github.com/lyrad/lyrad/session"
)

func tabTools(d Deps) []*tool {
	m := d.Session
	return []*tool{
		{
			name:  "tabs",
			title: "List, switch or close tabs",
			description: "List the tabs (action=list, the default; a read), or switch to or close the tab at index (asks INTERACT once). " +
				"Indexes shift: list again first. Tabs a page opens are followed.",
			params: []param{
				{name: "action", kind: "string", description: "", enum: []string{"list", "switch", "close"}, def: "list"},
				{name: "index", kind: "integer", description: "From the list; 0 is the first."},
				reasonParam, confirmParam,
			},
			output: merge(actOut, map[string]any{
				"tabs": sArr("index, url, title, active"), "active_index": sInt(""), "closed": sObj("close: url, title"),
			}),
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
