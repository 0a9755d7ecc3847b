package tools

import (
	"context"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/session"
)

// imageReply is a PNG a call wrote.
type imageReply struct {
	ImagePath string `json:"image_path" desc:"the PNG file"`
	MIMEType  string `json:"mime_type"`
	Width     int    `json:"width"`
	Height    int    `json:"height"`
	Bytes     int    `json:"bytes"`
}

type shotReply struct {
	imageReply
	Clipped bool `json:"clipped,omitempty" desc:"cut at 16384 px"`
}

type pictureReply struct {
	imageReply
	Tag string `json:"tag"`
}

func captureTools(d Deps) []*tool {
	m := d.Session
	inline := Param{Name: "inline", Kind: "boolean", Description: "Also return the image, for a client without file access.", Default: false}
	// answer is the reply of both tools; the audit gets the path and the
	// size, never the pixels.
	answer := func(c *call, capt *session.Capture) imageReply {
		c.note("image_path", capt.Path)
		c.note("bytes", capt.Bytes)
		if c.boolean("inline") {
			c.attach(&mcp.ImageContent{Data: capt.Data, MIMEType: "image/png"})
		}
		return imageReply{ImagePath: capt.Path, MIMEType: "image/png", Width: capt.Width, Height: capt.Height, Bytes: capt.Bytes}
	}
	return []*tool{
		{
			name:  "screenshot",
			title: "Take a screenshot",
			description: "The page as a PNG file (image_path). full_page=true: the whole page. inline=true: the image too, for a client that cannot read this machine's files. " +
				"A read.",
			readOnly: true,
			params: []Param{
				{Name: "full_page", Kind: "boolean", Description: "The whole page, not only the view.", Default: false},
				inline,
			},
			output: outOf[shotReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				capt, clipped, err := m.Screenshot(ctx, c.caller, c.boolean("full_page"))
				if err != nil {
					return nil, err
				}
				return shotReply{imageReply: answer(c, capt), Clipped: clipped}, nil
			},
		},
		{
			name:  "read_image",
			title: "Look at one picture on the page",
			description: "One element (img, canvas, svg, chart) as the PNG it renders; answers like screenshot. " +
				"A read.",
			readOnly: true,
			params: []Param{
				{Name: "selector", Kind: "string", Required: true, Description: selectorHelp},
				inline,
			},
			output: outOf[pictureReply](),
			run: func(ctx context.Context, c *call) (any, error) {
				sel := c.str("selector")
				if strings.TrimSpace(sel) == "" {
					return nil, badArg("selector", "selector is empty", "Name the element, e.g. selector=\"img.chart\" or an aria-ref from read_page(mode=\"tree\").")
				}
				capt, err := m.ReadImage(ctx, c.caller, sel)
				if err != nil {
					return nil, err
				}
				return pictureReply{imageReply: answer(c, capt), Tag: capt.Tag}, nil
			},
		},
	}
}
