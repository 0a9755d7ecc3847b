package tools

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/session"
)

// Front doors, as session.Caller.Door names them.
const (
	doorStdio = "stdio" // stdio in-process, and the socket `lyrad stdio` relays to
	doorHTTP  = "http"
)

// callerOf is the Caller for session id on ss: with the client's name from
// initialize and the front door it came through, by which a client that
// reconnects is known again. Only streamable HTTP sessions carry an
// Mcp-Session-Id; stdio and the socket have none.
func callerOf(ss *mcp.ServerSession, id string) session.Caller {
	c := session.Caller{ID: id, Door: doorStdio}
	if ss.ID() != "" {
		c.Door = doorHTTP
	}
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		c.Client = p.ClientInfo.Name
	}
	return c
}
