package tools

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/session"
)

func captureTools(d Deps) []*tool {
	m := d.Session
	out := map[string]any{
		"image_path": map[string]any{"type": "string", "description": "the PNG file: attach it to look at it"},
		"mime_type":  map[string]any{"type": "string", "description": "image/png"},
		"width":      map[string]any{"type": "integer", "description": "pixels"},
		"height":     map[string]any{"type": "integer", "description": "pixels"},
		"bytes":      map[string]any{"type": "integer", "description": "file size"},
	}
	inline := param{name: "inline", kind: "boolean", description: "Also return the PNG as an image content block, for a client without access to this machine's files.", def: false}
	// answer is the reply of both tools; the audit gets the path and the
	// size, never the pixels.
	answer := func(c *call, capt *session.Capture) map[string]any {
		c.note("image_path", capt.Path)
		c.note("bytes", capt.Bytes)
		if c.boolean("inline") {
			c.attach(&mcp.ImageContent{Data: capt.Data, MIMEType: "image/png"})
		}
		return map[string]any{"image_path": capt.Path, "mime_type": "image/png", "width": capt.Width, "height": capt.Height, "bytes": capt.Bytes}
	}
	shotOut := map[string]any{"clipped": map[string]any{"type": "boolean", "description": "full_page only: the page is taller or wider than 16384 px and was cut there"}}
	for k, v := range out {
		shotOut[k] = v
	}
	imgOut := map[string]any{"tag": map[string]any{"type": "string", "description": "the element captured (img, canvas, svg, ...)"}}
	for k, v := range out {
		imgOut[k] = v
	}
	return []*tool{
		{
			name:  "screenshot",
			title: "Take a screenshot",
			description: "Capture the page as a PNG file and return its path (image_path, with width, height and bytes).\n" +
				"Use it to see the page: layout, images, charts, anything read_page cannot put into words. full_page=true captures the whole page instead of the visible part. The file is what you look at; inline=true also returns the image itself, only for a client without access to this machine's files.\n" +
				"A read: it asks no approval and never claims the browser. Files are kept in the capture directory, the oldest pruned beyond LYRA_BROWSER_CAPTURE_KEEP.",
			readOnly: true,
			params: []param{
				{name: "full_page", kind: "boolean", description: "Capture the whole page, not only the visible part.", def: false},
				inline,
			},
			output: shotOut,
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				capt, clipped, err := m.Screenshot(ctx, c.caller, c.boolean("full_page"))
				if err != nil {
					return nil, err
				}
				r := answer(c, capt)
				if clipped {
					r["clipped"] = true
				}
				return r, nil
			},
		},
		{
			name:  "read_image",
			title: "Look at one picture on the page",
			description: "Capture one element (an img, a canvas, an svg, a chart, a map) as a PNG file and return its path.\n" +
				"This is how you look at a picture on the page: it captures the pixels the element renders, so it works for anything drawn, not only img. Nothing is fetched: no request leaves the browser.\n" +
				"selector is a CSS selector, text=..., or an aria-ref=eN token from read_page(mode=\"tree\"). Answers not_found when nothing matches, hidden when the element has no size on the page. For the whole view use screenshot.",
			readOnly: true,
			params: []param{
				{name: "selector", kind: "string", required: true, description: "The element: CSS selector, text=..., or aria-ref=eN."},
				inline,
			},
			output: imgOut,
			run: func(ctx context.Context, c *call) (map[string]any, error) {
				sel := c.str("selector")
				if strings.TrimSpace(sel) == "" {
					return nil, badArg("selector", "selector is empty", "Name the element, e.g. selector=\"img.chart\" or an aria-ref from read_page(mode=\"tree\").")
				}
				capt, err := m.ReadImage(ctx, c.caller, sel)
				if err != nil {
					return nil, err
				}
				r := answer(c, capt)
				r["tag"] = capt.Tag
				return r, nil
			},
		},
	}
}
