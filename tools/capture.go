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
		"image_path": sStr("the PNG file"), "mime_type": sStr(""), "width": sInt(""), "height": sInt(""), "bytes": sInt(""),
	}
	inline := param{name: "inline", kind: "boolean", description: "Also return the image, for a client without file access.", def: false}
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
	shotOut := merge(out, map[string]any{"clipped": sBool("cut at 16384 px")})
	imgOut := merge(out, map[string]any{"tag": sStr("")})
	return []*tool{
		{
			name:  "screenshot",
			title: "Take a screenshot",
			description: "The page as a PNG file (image_path). full_page=true: the whole page. inline=true: the image too, for a client that cannot read this machine's files. " +
				"A read.",
			readOnly: true,
			params: []param{
				{name: "full_page", kind: "boolean", description: "The whole page, not only the view.", def: false},
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
			description: "One element (img, canvas, svg, chart) as the PNG it renders; answers like screenshot. " +
				"A read.",
			readOnly: true,
			params: []param{
				{name: "selector", kind: "string", required: true, description: selectorHelp},
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
