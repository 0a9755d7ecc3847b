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
			description: "Launch or focus the browser the user shares with you; call it first. " +
				"attended=false: headless, nobody watching. profile=instance: a private, empty profile, no saved logins. " +
				"The first call that changes the browser makes your session its driver; others get session_conflict. " +
				"browser_unavailable: relay it so the user can install Chrome.",
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
			description: "Close the browser window and end your turn as its driver; every approval your session earned is dropped. Only the driver may close it. " +
				"After guard_lost this acknowledges it. Closing a closed browser is ok.",
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
			description: "The active tab's url and title, and tab_count. A read: asks nothing, claims nothing.",
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
