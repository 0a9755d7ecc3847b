package transport

import (
	"context"
	"net"

	"github.com/lyrad/lyrad/tools"
)

// A socket session's proof of who its peer is, by which a driver that
// disconnects is known again when it comes back (session/reconnect.go):
// the kernel's word on the connecting process (SO_PEERCRED: its uid and
// pid, and from the pid the executable), never anything the client says.
// When the peer is lyrad itself (`lyrad stdio` relaying for an MCP client
// it was started by), the executable of the relay's parent, the client,
// is part of it too: a stranger starting its own relay is not the client.

// withPeer returns ctx carrying conn's peer proof, when one can be had.
func withPeer(ctx context.Context, conn net.Conn) context.Context {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return ctx
	}
	proof, desc, ok := peerOf(uc)
	if !ok {
		return ctx
	}
	return tools.WithPeer(ctx, tools.Peer{Proof: "socket:" + proof, Desc: desc})
}
