package tools

import (
	"context"
)

func browserTools(d Deps) []*tool {
	m := d.Session
	return []*tool{
		{
			name:  "open_browser",
			title: "Open the shared browser",
			description: "Launch or focus the browser the user shares with you; call it first. attended=false: headless. profile=instance: a fresh profile, no saved logins. " +
				"browser_unavailable: ask the user to install Chrome.",
			idempotent: true,
			output: merge(pageOut, map[string]any{
				"attended": sBool(""), "profile": sStr("persistent or instance"), "already_open": sBool(""),
				"channel": sStr("chrome, msedge, chromium or explicit"),
			}),
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				info, err := m.Open(ctx, c.caller)
				if err != nil {
					return nil, err
				}
				out := map[string]any{
					"attended": info.Attended, "profile": info.Profile, "already_open": info.AlreadyOpen,
					"channel": info.Channel, "url": info.URL, "title": info.Title, "tab_count": info.TabCount,
				}
				if info.Profile == "instance" {
					out["note"] = "no saved logins in this instance: another lyrad holds the persistent profile"
				}
				return out, nil
			},
		},
		{
			name:  "close_browser",
			title: "Close the shared browser",
			description: "Close the window and end your turn as driver; your grants are dropped. " +
				"After guard_lost it acknowledges it.",
			params:      []param{{name: "reason", kind: "string", description: "Why; audited."}},
			destructive: true,
			idempotent:  true,
			output:      map[string]any{"was_open": sBool("")},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				was, err := m.CloseBrowser(ctx, c.caller)
				if err != nil {
					return nil, err
				}
				return map[string]any{"was_open": was}, nil
			},
		},
		{
			name:        "get_url",
			title:       "Where the browser is",
			description: "The active tab's url, title and tab_count. A read.",
			readOnly:    true,
			idempotent:  true,
			output:      pageOut,
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				p, err := m.URL(ctx, c.caller)
				if err != nil {
					return nil, err
				}
				return map[string]any{"url": p.URL, "title": p.Title, "tab_count": p.TabCount}, nil
			},
		},
	}
}
