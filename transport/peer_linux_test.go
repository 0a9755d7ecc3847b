//go:build linux

package transport

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The kernel's word on a socket's peer: here this very process, which is
// "lyrad" to itself, so its parent's executable is part of the proof.
func TestPeerOf(t *testing.T) {
	ln, err := ListenSocket(filepath.Join(t.TempDir(), "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialed, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer dialed.Close()
	conn, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	proof, desc, ok := peerOf(conn.(*net.UnixConn))
	self, _ := os.Readlink("/proc/self/exe")
	if !ok || len(proof) != 64 || !strings.Contains(desc, self) || !strings.Contains(desc, " relaying for ") {
		t.Fatalf("peerOf: %q %q %v (self %s)", proof, desc, ok, self)
	}
	again, _, _ := peerOf(conn.(*net.UnixConn))
	if again != proof {
		t.Error("the same peer, two proofs")
	}
}
