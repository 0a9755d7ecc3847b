package tools

import (
	"context"
	"errors"
	"net/url"
	"strings"

	"github.com/lyrad/lyrad/audit"
	"github.com/lyrad/lyrad/session"
)

// loadReply is what a call that loads a document answers (navigate,
// go_back, reload_page): http_status and content_type are null when no
// HTTP response was involved.
type loadReply struct {
	actBase
	HTTPStatus  *int64  `json:"http_status" desc:"null: no HTTP response"`
	ContentType *string `json:"content_type"`
	FromCache   bool    `json:"from_cache,omitempty"`
	Stayed      bool    `json:"stayed,omitempty"`
}

// loadFields are what navigate and the history steps add.
func loadFields(r *session.ActResult, out *loadReply) {
	if l := r.Load; l != nil {
		out.HTTPStatus, out.ContentType = l.HTTPStatus, l.ContentType
		out.FromCache, out.Stayed = l.FromCache, l.Stayed
	}
}

func navigationTools(d Deps) []*tool {
	m := d.Session
	return []*tool{
		{
			name:  "navigate",
			title: "Go to a URL",
			description: "Load url in the active tab and wait (wait_until). Asks NAVIGATE for a site not granted (reason is shown). " +
				"ok means it loaded: read http_status. download=true: the URL is a file to keep.",
			params: []Param{
				{Name: "url", Kind: "string", Required: true, Description: "Absolute: https://..., http, file, data or about:blank."},
				{Name: "wait_until", Kind: "string", Enum: session.WaitUntil, Default: "domcontentloaded"},
				reasonParam, confirmParam,
				{Name: "download", Kind: "boolean", Description: "true if the URL is a file to keep (asks DOWNLOAD)."},
			},
			output: outOf[loadReply](),
			run: func(ctx context.Context, c *call) (any, error) {
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
