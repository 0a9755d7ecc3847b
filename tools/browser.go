package tools

import (
	"context"
)

func browserTools(d Deps) []*tool {
	m := d.Session
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	return []*tool{
		{
			name:  "open_browser",
			title: "Open the shared browser",
			description: "Launch (or focus) the browser window the user shares with you; call it first.\n" +
				"Answers attended (false: headless, nobody is watching), profile (\"persistent\" keeps logins; \"instance\" is a private, empty profile because another lyrad holds the persistent one) and tab_count.\n" +
				"The first call that changes the browser makes your MCP session its driver; another session is answered session_conflict until you call close_browser or go idle.\n" +
				"If no browser is installed this returns a browser_unavailable envelope: relay it so the user can install Chrome.",
			idempotent: true,
			output: map[string]any{
				"attended":     map[string]any{"type": "boolean"},
				"profile":      str("persistent or instance"),
				"already_open": map[string]any{"type": "boolean"},
				"channel":      str("which browser was found: chrome, msedge, chromium or explicit"),
				"url":          str("the active tab's URL"),
				"title":        str("the active tab's title"),
				"tab_count":    map[string]any{"type": "integer"},
			},
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
			description: "Close the browser window and end your turn as its driver.\n" +
				"Every approval your session earned is dropped, and another MCP session may then claim the browser. Only the driving session may close it.\n" +
				"After guard_lost, this is the call that acknowledges it; the next open_browser starts a fresh, guarded browser. Closing an already closed browser is ok.",
			params:      []param{{name: "reason", kind: "string", description: "Why you are closing it; recorded in the audit trail."}},
			destructive: true,
			idempotent:  true,
			output:      map[string]any{"was_open": map[string]any{"type": "boolean"}},
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
			description: "Return the active tab's URL and title, and how many tabs are open (tab_count). A read: it asks no approval and never claims the browser.",
			readOnly:    true,
			idempotent:  true,
			output: map[string]any{
				"url": str("the active tab's URL"), "title": str("its title"), "tab_count": map[string]any{"type": "integer"},
			},
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
