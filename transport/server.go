// Package transport holds lyrad's MCP front doors over one server core:
// stdio, a local socket that `lyrad stdio` relays to, and streamable HTTP on
// loopback behind a bearer token. A front door knows nothing of Chrome.
package transport

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/tools"
)

// Instructions tell the agent how the surface is meant to be used.
const Instructions = `lyrad gives you a real browser that a person shares with you.
Call open_browser first. Every request the browser sends is judged against what you were granted before it leaves; a refused step answers blocked_by_policy with a hint.
One MCP session drives at a time: another is answered session_conflict until the driver calls close_browser, goes idle, or disconnects; a driver that reconnects (same client name and program, same front door) within the reconnect grace finds its tabs as it left them.
Every tool answers a JSON object with a status; read its hint when status is not ok.
Every acting call also answers url, title and tab_count, what it set off: navigated, navigating, new_tab (later calls act on it), dialogs (each answered at once; dialogs_more counts the rest), download (a file it kept), and changes when it changed the page: the lines of the page's tree that appeared, went or changed, told from the read read_id names. confirm=true is legacy consent, only for a client that cannot ask its user.
lyrad://guide says how pages behave.`

// Server is the MCP server with every tool registered, and what its tools
// know of its sessions.
type Server struct {
	*mcp.Server
	sessions ender
}

// ender is what a surface knows of its sessions' ends (tools.Sessions,
// playwright.Sessions).
type ender interface{ Ended(*mcp.ServerSession) }

// NewServer builds the MCP server with every tool registered.
func NewServer(d tools.Deps, version string) *Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "lyrad", Title: "lyrad: a shared, guarded browser", Version: version},
		&mcp.ServerOptions{Instructions: Instructions})
	return &Server{Server: s, sessions: tools.Register(s, d)}
}

// ServeStream serves one MCP session on a stream transport (stdio) until
// the client closes its input or ctx ends. It returns once every request
// read has been answered and the session's end has been handled
// (AnswerBeforeEOF, tools.Sessions.Ended).
func (s *Server) ServeStream(ctx context.Context, t mcp.Transport) error {
	ss, err := s.Connect(ctx, AnswerBeforeEOF(t), nil)
	if err != nil {
		return err
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			ss.Close()
		case <-done:
		}
	}()
	err = ss.Wait()
	close(done)
	if s.sessions != nil {
		s.sessions.Ended(ss)
	}
	return err
}
