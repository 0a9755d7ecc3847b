package tools

import (
	"context"
	_ "embed"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

//go:generate go test -run TestGuideMatchesREADME -update-guide .

// guide is the long form of the tool descriptions: README.md's "Tools" and
// "What the agent may do" sections, copied by go generate. The descriptions
// in tools/list stay short and point here; an agent reads it when a
// description is not enough.
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
		Title:       "lyrad: how the tools behave",
		Description: "The long form of the tool descriptions: selectors, what acting calls answer, every tool's details, statuses, and the grants the user is asked for.",
		MIMEType:    "text/markdown",
		Size:        int64(len(guide)),
	}, readGuide)
}

func readGuide(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
		{URI: GuideURI, MIMEType: "text/markdown", Text: guide},
	}}, nil
}
