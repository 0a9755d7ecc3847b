//go:build !linux

package transport

import "net"

// peerOf: no peer credentials read on this platform yet, so a socket
// session carries no proof and a disconnected driver's window is not kept
// for it (session/reconnect.go).
func peerOf(uc *net.UnixConn) (proof, desc string, ok bool) { return "", "", false }
