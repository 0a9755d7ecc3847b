package tools

import (
	"context"

	"github.com/lyrad/lyrad/session"
)

// tabsList is the open tabs, as tabs lists them.
type tabsList struct {
	Tabs        []tabReply `json:"tabs" desc:"index, url, title, active"`
	TabCount    int        `json:"tab_count"`
	ActiveIndex int        `json:"active_index"`
}

func tabList(l *session.TabList) tabsList {
	t := tabsList{Tabs: make([]tabReply, 0, len(l.Tabs)), ActiveIndex: l.Active}
	for _, x := range l.Tabs {
		t.Tabs = append(t.Tabs, tabReply{Index: x.Index, URL: x.URL, Title: x.Title, Active: x.Active})
	}
	t.TabCount = len(t.Tabs)
	return t
}

// tabsReply is what a switch or a close answers: an acting call's reply
// and the tabs after it.
type tabsReply struct {
	actBase
	Tabs        *[]tabReply  `json:"tabs,omitempty"`
	ActiveIndex *int         `json:"active_index,omitempty"`
	Closed      *closedReply `json:"closed,omitempty" desc:"close: url, title"`
}

func tabTools(d Deps) []*tool {
	m := d.Session
	return []*tool{
		{
			name:  "tabs",
			title: "List, switch or close tabs",
			description: "List the tabs (action=list, the default; a read), or switch to or close the tab at index (asks INTERACT once). " +
				"Indexes shift: list again first. Tabs a page opens are followed.",
			params: []Param{
				{Name: "action", Kind: "string", Description: "", Enum: []string{"list", "switch", "close"}, Default: "list"},
				{Name: "index", Kind: "integer", Description: "From the list; 0 is the first."},
				reasonParam, confirmParam,
			},
			output: outs(outOf[tabsReply](), outOf[tabsList]()),
			run: func(ctx context.Context, c *call) (any, error) {
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
					if l == nil {
						return struct{}{}, nil
					}
					return tabList(l), nil
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
				return actReply(res, err, func(r *session.ActResult, out *tabsReply) {
					if r.Tabs != nil {
						l := tabList(r.Tabs)
						out.Tabs, out.TabCount, out.ActiveIndex = &l.Tabs, l.TabCount, &l.ActiveIndex
					}
					if r.Closed != nil {
						out.Closed = &closedReply{URL: r.Closed.URL, Title: r.Closed.Title}
					}
				})
			},
		},
	}
}
