package tools

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/session"
)

func navigationTools(d Deps) []*tool {
	m := d.Session
	nullable := func(t, desc string) map[string]any {
		return map[string]any{"type": []string{t, "null"}, "description": desc}
	}
	return []*tool{
		{
			name:  "navigate",
			title: "Go to a URL",
			description: "Load a URL in the active tab and wait for it (wait_until: domcontentloaded by default, load, commit, or networkidle, which never settles on a page that keeps polling).\n" +
				"ok means the navigation happened, not that the page is good: http_status (404, 500, ...) and content_type (media type only, e.g. application/pdf) describe the document that answered; both are null when no HTTP response was involved (about:blank, data:).\n" +
				"reason is shown to the user when the step needs their approval. Opens the browser first if it is not open.",
			params: []param{
				{name: "url", kind: "string", required: true, description: "Absolute URL with its scheme: https://example.com/path (http, https, file, data or about:blank)."},
				{name: "wait_until", kind: "string", description: "How much of the load to wait for.", enum: session.WaitUntil, def: "domcontentloaded"},
				{name: "reason", kind: "string", description: "Why you are going there; shown to the user when approval is asked."},
				{name: "confirm", kind: "boolean", description: "Legacy consent for clients that cannot be asked; never overrides a user's answer."},
				{name: "download", kind: "boolean", description: "true when the URL is a file to save: asks for the permission to keep it; download_not_started when it is a page."},
			},
			output: map[string]any{
				"url":          map[string]any{"type": "string", "description": "where the tab stands"},
				"title":        map[string]any{"type": "string"},
				"http_status":  nullable("integer", "HTTP status of the document, null without an HTTP response"),
				"content_type": nullable("string", "media type of the document, null without an HTTP response"),
				"tab_count":    map[string]any{"type": "integer"},
			},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				u, err := checkURL(c.str("url"))
				if err != nil {
					return nil, err
				}
				res, err := m.Navigate(ctx, c.caller, u, c.str("wait_until"), session.Intent{Reason: c.str("reason"), Confirm: c.boolean("confirm"), Download: c.boolean("download")})
				return actReply(res, err, loadFields)
			},
		},
	}
}

// checkURL accepts an absolute URL the browser can load as a document.
func checkURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	const hint = "Pass an absolute URL with its scheme, e.g. https://example.com/path."
	if raw == "" {
		return "", badArg("url", "url is empty", hint)
	}
	// The messages name the URL as the audit writes it: an error lands in
	// the audit row, and the agent knows what it passed.
	shown := audit.URL(raw)
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // without the URL it quotes whole
		}
		return "", badArg("url", "url "+shown+" does not parse: "+err.Error(), hint)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" || u.Hostname() == "" {
			return "", badArg("url", "url has no host: "+shown, hint)
		}
	case "file":
		if u.Path == "" {
			return "", badArg("url", "a file: url needs a path", "Pass file:///absolute/path.")
		}
	case "data":
	case "about":
		if raw != "about:blank" {
			return "", badArg("url", "only about:blank is allowed among about: URLs", hint)
		}
	case "":
		return "", badArg("url", "url has no scheme: "+shown, "Add the scheme, e.g. https://"+shown+".")
	default:
		return "", badArg("url", "unsupported scheme "+u.Scheme+":", "Use http, https, file, data or about:blank.")
	}
	return raw, nil
}
