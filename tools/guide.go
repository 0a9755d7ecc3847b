package tools

import (
	"context"
	_ "embed"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:generate go test -run TestGuideMatchesREADME -update-guide .

// guide is how pages behave under the tools: README.md's "Working with
// pages", copied by go generate. The descriptions in tools/list stay short
// and point here; an agent reads it when a description is not enough. The
// tools' long form is README.md's "Tools", the grants' "What the agent may
// do".
//
//go:embed guide.md
var guide string

// GuideURI names the guide resource.
const GuideURI = "lyrad://guide"

// registerGuide serves the guide as an MCP resource.
func registerGuide(s *mcp.Server) {
	s.AddResource(&mcp.Resource{
		URI:         GuideURI,
		Name:        "guide",
		Title:       "lyrad: how pages behave",
		Description: "How pages behave under the tools: the tree and refs, selectors, clicks, fields and dates, keys, what changed, forms, grants, statuses.",
		MIMEType:    "text/markdown",
		Size:        int64(len(guide)),
	}, readGuide)
}

func readGuide(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
		{URI: GuideURI, MIMEType: "text/markdown", Text: guide},
	}}, nil
}
