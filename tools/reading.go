package tools

import (
	"context"
	"fmt"

	"github.com/lyrad/lyrad/session"
)

// Paging bounds of read_page.
const (
	defaultMaxChars = 20000
	maxMaxChars     = 200000
)

func readingTools(d Deps) []*tool {
	m := d.Session
	return []*tool{
		{
			name:  "read_page",
			title: "Read the page",
			description: "Read the page. mode=text (default): its text. mode=tree: a line per thing to act on, with headings and field values: aria-ref=e15 button \"Save\". " +
				"A ref is a selector for any tool, good while its element stays in its document. A read. More: lyrad://guide.",
			readOnly:   true,
			idempotent: true,
			params: []param{
				{name: "mode", kind: "string", description: "text, or tree: the action map with refs.", enum: []string{"text", "tree"}, def: "text"},
				{name: "links", kind: "boolean", description: "mode=text: add the visible links.", def: false},
				{name: "selector", kind: "string", description: "Read only this region: CSS, text=... or aria-ref=eN."},
				{name: "offset", kind: "integer", description: "Where to start (next_offset).", def: 0},
				{name: "max_chars", kind: "integer", description: fmt.Sprintf("At most %d.", maxMaxChars), def: defaultMaxChars},
				{name: "changes_since", kind: "string", description: "A read_id: what changed since."},
				{name: "hide_values", kind: "boolean", description: "mode=tree: show filled fields as [filled], not their values.", def: false},
			},
			output: map[string]any{
				"url": sStr(""), "title": sStr(""), "mode": sStr(""), "text": sStr("mode=text"), "tree": sStr("mode=tree"),
				"total_chars": sInt("whole length"), "offset": sInt(""), "truncated": sBool("more at next_offset"), "next_offset": sInt(""),
				"elements": sInt("mode=tree: lines in the whole map"), "in_viewport": sInt("of them on screen, listed first"), "unlisted": sInt("elements past the map's cap, not listed"), "refs": sBool(""),
				"read_id": sStr(""), "changes": sStr(""),
				"links": sArr("links=true: {text, href}, at most 100"), "links_truncated": sBool(""),
			},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				o := session.ReadOptions{
					Mode: c.str("mode"), Links: c.boolean("links"), Selector: c.str("selector"),
					Offset: int(argInt(c, "offset")), MaxChars: int(argInt(c, "max_chars")), HideValues: c.boolean("hide_values"),
					ChangesSince: c.str("changes_since"),
				}
				if argGiven(c, "changes_since") {
					switch {
					case o.ChangesSince == "":
						return nil, badArg("changes_since", "changes_since is empty", "Pass a read_id from an earlier read_page(mode=\"tree\") or acting call, or leave it out.")
					case o.Selector != "" || o.Offset > 0:
						return nil, badArg("changes_since", "changes_since compares whole-page reads: it takes no selector or offset", "Drop selector and offset.")
					}
					o.Mode = "tree"
				}
				if o.Offset < 0 {
					return nil, badArg("offset", "offset must be 0 or more", "Start at 0, or pass next_offset from the previous page.")
				}
				if o.MaxChars < 1 || o.MaxChars > maxMaxChars {
					return nil, badArg("max_chars", fmt.Sprintf("max_chars must be between 1 and %d", maxMaxChars), "Leave it out for the default 20000.")
				}
				if o.Links && o.Mode == "tree" {
					return nil, badArg("links", "links applies to mode=\"text\"", "Tree lines carry their own href; drop links, or use mode=\"text\".")
				}
				if o.HideValues && o.Mode != "tree" {
					return nil, badArg("hide_values", "hide_values applies to mode=\"tree\"", "Text mode shows no field values; drop hide_values, or use mode=\"tree\".")
				}
				if argGiven(c, "selector") && o.Selector == "" {
					return nil, badArg("selector", "selector is empty", "Leave it out to read the whole page.")
				}
				r, err := m.ReadPage(ctx, c.caller, o)
				if err != nil {
					return nil, err
				}
				out := map[string]any{
					"url": r.URL, "title": r.Title, "mode": o.Mode,
					"total_chars": r.Page.Total, "offset": o.Offset, "truncated": r.Page.Truncated,
				}
				if r.Page.Truncated {
					out["next_offset"] = r.Page.Next
				}
				if r.ReadID != "" {
					out["read_id"] = r.ReadID
				}
				if o.ChangesSince != "" {
					out["changes"] = r.Changes
					out["elements"] = r.Elements
					out["in_viewport"] = r.InViewport
					out["refs"] = true
				} else if o.Mode == "tree" {
					out["tree"] = r.Page.Text
					out["elements"] = r.Elements
					if r.Unlisted > 0 {
						out["unlisted"] = r.Unlisted
					}
					out["in_viewport"] = r.InViewport
					out["refs"] = true
				} else {
					out["text"] = r.Page.Text
					if o.Links {
						out["links"] = r.Links
						out["links_truncated"] = r.LinksTruncated
					}
				}
				return out, nil
			},
		},
	}
}

// argInt is an integer argument (checked by checkArgs), 0 when absent.
func argInt(c *call, name string) int64 {
	switch n := c.args[name].(type) {
	case int64:
		return n
	case int: // a default
		return int64(n)
	}
	return 0
}

// argGiven reports whether the caller passed the argument at all.
func argGiven(c *call, name string) bool {
	_, ok := c.args[name]
	return ok
}
