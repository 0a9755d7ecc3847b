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

// readReply is a page of a read: text or the tree, or what changed.
type readReply struct {
	URL            string       `json:"url"`
	Title          string       `json:"title"`
	Mode           string       `json:"mode"`
	Text           *string      `json:"text,omitempty" desc:"mode=text"`
	Tree           *string      `json:"tree,omitempty" desc:"mode=tree"`
	TotalChars     int          `json:"total_chars" desc:"whole length"`
	Offset         int          `json:"offset"`
	Truncated      bool         `json:"truncated" desc:"more at next_offset"`
	NextOffset     *int         `json:"next_offset,omitempty"`
	Elements       *int         `json:"elements,omitempty" desc:"mode=tree: lines in the whole map"`
	InViewport     *int         `json:"in_viewport,omitempty" desc:"of them on screen, listed first"`
	Unlisted       int          `json:"unlisted,omitempty" desc:"elements past the map's cap, not listed"`
	Refs           bool         `json:"refs,omitempty"`
	ReadID         string       `json:"read_id,omitempty"`
	Changes        *string      `json:"changes,omitempty"`
	Links          *[]linkReply `json:"links,omitempty" desc:"links=true: {text, href}, at most 100"`
	LinksTruncated *bool        `json:"links_truncated,omitempty"`
}

// linkReply is a visible link.
type linkReply struct {
	Text string `json:"text"`
	Href string `json:"href"`
}

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
			params: []Param{
				{Name: "mode", Kind: "string", Description: "text, or tree: the action map with refs.", Enum: []string{"text", "tree"}, Default: "text"},
				{Name: "links", Kind: "boolean", Description: "mode=text: add the visible links.", Default: false},
				{Name: "selector", Kind: "string", Description: "Read only this region: CSS, text=... or aria-ref=eN."},
				{Name: "offset", Kind: "integer", Description: "Where to start (next_offset).", Default: 0},
				{Name: "max_chars", Kind: "integer", Description: fmt.Sprintf("At most %d.", maxMaxChars), Default: defaultMaxChars},
				{Name: "changes_since", Kind: "string", Description: "A read_id: what changed since."},
				{Name: "hide_values", Kind: "boolean", Description: "mode=tree: show filled fields as [filled], not their values.", Default: false},
			},
			output: outOf[readReply](),
			run: func(ctx context.Context, c *call) (any, error) {
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
				out := readReply{URL: r.URL, Title: r.Title, Mode: o.Mode, TotalChars: r.Page.Total, Offset: o.Offset, Truncated: r.Page.Truncated,
					ReadID: r.ReadID}
				if r.Page.Truncated {
					out.NextOffset = ptr(r.Page.Next)
				}
				switch {
				case o.ChangesSince != "":
					out.Changes, out.Elements, out.InViewport, out.Refs = ptr(r.Changes), ptr(r.Elements), ptr(r.InViewport), true
				case o.Mode == "tree":
					out.Tree, out.Elements, out.InViewport, out.Refs = ptr(r.Page.Text), ptr(r.Elements), ptr(r.InViewport), true
					out.Unlisted = r.Unlisted
				default:
					out.Text = ptr(r.Page.Text)
					if o.Links {
						links := make([]linkReply, 0, len(r.Links))
						for _, l := range r.Links {
							links = append(links, linkReply{Text: l.Text, Href: l.Href})
						}
						out.Links, out.LinksTruncated = &links, ptr(r.LinksTruncated)
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
