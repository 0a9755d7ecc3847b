package tools

import (
	"context"
)

// pageReply is where the tab stands.
type pageReply struct {
	URL      string `json:"url"`
	Title    string `json:"title"`
	TabCount int    `json:"tab_count"`
}

type openReply struct {
	Attended    bool   `json:"attended"`
	Profile     string `json:"profile" desc:"persistent or instance"`
	AlreadyOpen bool   `json:"already_open"`
	Channel     string `json:"channel" desc:"chrome, msedge, chromium or explicit"`
	pageReply
	Note string `json:"note,omitempty"`
}

type closeReply struct {
	WasOpen bool `json:"was_open"`
}

func browserTools(d Deps) []*tool {
	m := d.Session
	return []*tool{
		{
			name:  "open_browser",
			title: "Open the shared browser",
			description: "Launch or focus the browser the user shares with you; call it first. attended=false: headless. profile=instance: a fresh profile, no saved logins. " +
				"browser_unavailable: ask the user to install Chrome.",
			idempotent: true,
			output:     outOf[openReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				info, err := m.Open(ctx, c.caller)
				if err != nil {
					return nil, err
				}
				out := openReply{
					Attended: info.Attended, Profile: info.Profile, AlreadyOpen: info.AlreadyOpen, Channel: info.Channel,
					pageReply: pageReply{URL: info.URL, Title: info.Title, TabCount: info.TabCount},
				}
				if info.Profile == "instance" {
					out.Note = "no saved logins in this instance: another lyrad holds the persistent profile"
				}
				return out, nil
			},
		},
		{
			name:  "close_browser",
			title: "Close the shared browser",
			description: "Close the window and end your turn as driver; your grants are dropped. " +
				"After guard_lost it acknowledges it.",
			params:      []Param{{Name: "reason", Kind: "string", Description: "Why; audited."}},
			destructive: true,
			idempotent:  true,
			output:      outOf[closeReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				was, err := m.CloseBrowser(ctx, c.caller)
				if err != nil {
					return nil, err
				}
				return closeReply{WasOpen: was}, nil
			},
		},
		{
			name:        "get_url",
			title:       "Where the browser is",
			description: "The active tab's url, title and tab_count. A read.",
			readOnly:    true,
			idempotent:  true,
			output:      outOf[pageReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				p, err := m.URL(ctx, c.caller)
				if err != nil {
					return nil, err
				}
				return pageReply{URL: p.URL, Title: p.Title, TabCount: p.TabCount}, nil
			},
		},
	}
}
