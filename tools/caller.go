package tools

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

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

// Peer is a session's proof of which program it is, set by its front door
// (the socket's peer credentials): a driver that reconnects resumes its
// window only with the same proof (session/reconnect.go).
type Peer struct {
	Proof string // opaque, compared whole
	Desc  string // what it is of, for the audit
}

type peerKey struct{}

// WithPeer returns ctx carrying the session's peer proof.
func WithPeer(ctx context.Context, p Peer) context.Context {
	return context.WithValue(ctx, peerKey{}, p)
}

// ResumeHeader is the HTTP header by which a client proves it is the one
// whose session ended: the same value, of at least minResumeToken
// characters, on the session that drove and on the one that resumes. A
// client that sets it in its configuration (every HTTP client has headers
// for its bearer token) carries it through a crash or a restart.
const ResumeHeader = "Lyra-Resume-Token"

const minResumeToken = 32

// withProof adds the call's proof to c: the front door's peer, or over
// HTTP the resume token the request carries (only its hash is kept).
func withProof(ctx context.Context, c session.Caller, req *mcp.CallToolRequest) session.Caller {
	if p, ok := ctx.Value(peerKey{}).(Peer); ok && p.Proof != "" && c.Door == doorStdio {
		c.Proof, c.Peer = p.Proof, p.Desc
		return c
	}
	if c.Door != doorHTTP || req == nil || req.Extra == nil || req.Extra.Header == nil {
		return c
	}
	if tok := strings.TrimSpace(req.Extra.Header.Get(ResumeHeader)); len(tok) >= minResumeToken {
		h := sha256.Sum256([]byte(tok))
		c.Proof, c.Peer = "http:"+hex.EncodeToString(h[:]), ResumeHeader
	}
	return c
}
