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
	integer := func(desc string) map[string]any { return map[string]any{"type": "integer", "description": desc} }
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	return []*tool{
		{
			name:  "read_page",
			title: "Read the page",
			description: "Read the page as text, or as a map of what can be acted on.\n" +
				"mode=\"text\" (default) returns the rendered text (innerText), not HTML. links=true adds the page's visible links as {text, href}: absolute, de-duplicated, at most 100 (links_truncated says there were more).\n" +
				"mode=\"tree\" returns one line per visible thing you can act on (links, buttons, text fields, selects, checkboxes, tabs, menu items), plus headings, with role and name as the browser's accessibility tree has them:\n" +
				"  aria-ref=e12 link \"Pricing\" -> /pricing\n" +
				"  aria-ref=e15 button \"Save\"\n" +
				"  aria-ref=e16 checkbox \"Remember me\" [checked]\n" +
				"Pass the aria-ref=eN token exactly as written as the selector of click, type_text and the other tools. It reaches what a CSS or text selector cannot: icon-only links, several links with the same text, elements in open shadow roots and in iframes (cross-site ones included). A ref is a handle into the latest tree read: a newer read (a region read included) ends the refs it does not list, a navigation ends them all, and so does the element's removal; a stale ref answers not_found, and the fix is to read the tree again. Elements on screen come first (in_viewport counts them). Input values are never shown.\n" +
				"selector limits either mode to one region (CSS, text=..., or an aria-ref; first match) and answers not_found at once when nothing matches. offset and max_chars (default 20000) page through long output: total_chars is its full length, truncated says more follows, next_offset is where to continue; pages end on whole lines, so a ref is never cut in half.\n" +
				"A read: it asks no approval and never claims the browser.",
			readOnly:   true,
			idempotent: true,
			params: []param{
				{name: "mode", kind: "string", description: "text: the rendered text; tree: the action map with refs.", enum: []string{"text", "tree"}, def: "text"},
				{name: "links", kind: "boolean", description: "mode=\"text\" only: add the visible links as {text, href}.", def: false},
				{name: "selector", kind: "string", description: "Limit the read to the first element this names: a CSS selector, text=..., or aria-ref=eN."},
				{name: "offset", kind: "integer", description: "Character offset to start from (next_offset of the previous page).", def: 0},
				{name: "max_chars", kind: "integer", description: fmt.Sprintf("Most characters to return (1 to %d).", maxMaxChars), def: defaultMaxChars},
			},
			output: map[string]any{
				"url":             str("the tab's URL"),
				"title":           str("its title"),
				"mode":            str("text or tree"),
				"text":            str("mode=text: this page of the rendered text"),
				"tree":            str("mode=tree: this page of the action map, one line per element"),
				"total_chars":     integer("length of the whole output, in characters"),
				"offset":          integer("where this page starts"),
				"truncated":       map[string]any{"type": "boolean", "description": "more follows: call again with offset=next_offset"},
				"next_offset":     integer("where the next page starts (when truncated)"),
				"elements":        integer("mode=tree: how many elements the whole map lists"),
				"in_viewport":     integer("mode=tree: how many of them are on screen (they come first)"),
				"refs":            map[string]any{"type": "boolean", "description": "mode=tree: lines carry aria-ref tokens"},
				"links":           map[string]any{"type": "array", "description": "links=true: the visible links", "items": map[string]any{"type": "object", "properties": map[string]any{"text": str(""), "href": str("")}}},
				"links_truncated": map[string]any{"type": "boolean", "description": "links=true: there were more than 100"},
			},
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				o := session.ReadOptions{
					Mode: c.str("mode"), Links: c.boolean("links"), Selector: c.str("selector"),
					Offset: int(argInt(c, "offset")), MaxChars: int(argInt(c, "max_chars")),
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
				if o.Mode == "tree" {
					out["tree"] = r.Page.Text
					out["elements"] = r.Elements
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
