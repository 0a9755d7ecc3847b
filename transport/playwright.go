package transport

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/tools"
	"github.com/lyrad/lyrad/tools/playwright"
)

// PlaywrightInstructions tell the agent what differs from Playwright MCP.
const PlaywrightInstructions = `lyrad serves Playwright MCP's tools over a shared, guarded browser: every request the browser sends is judged against what you were granted before it leaves; a refused step answers ### Error with the status (blocked_by_policy, approval_required ...) and the next move.
Snapshots list what can be acted on, and headings, with refs (e12) to pass as target. Dialogs are answered as they open; browser_handle_dialog arms the answer for the next action.`

// NewPlaywrightServer builds the MCP server of Playwright MCP's surface
// over the same session core.
func NewPlaywrightServer(d tools.Deps, version string, o playwright.Options) *Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "lyrad", Title: "lyrad: a shared, guarded browser (Playwright MCP's tools)", Version: version},
		&mcp.ServerOptions{Instructions: PlaywrightInstructions})
	return &Server{Server: s, sessions: playwright.Register(s, d, o)}
}
