package tools

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/lyrad/lyrad/session"
)

// A call's proof: the socket's peer for stdio, the resume token's hash over
// HTTP (long enough, never the token itself), nothing otherwise; a header
// is no proof over the socket, nor a peer over HTTP.
func TestWithProof(t *testing.T) {
	tok := strings.Repeat("k", 40)
	hdr := func(v string) *mcp.CallToolRequest {
		h := http.Header{}
		if v != "" {
			h.Set(ResumeHeader, v)
		}
		return &mcp.CallToolRequest{Extra: &mcp.RequestExtra{Header: h}}
	}
	peer := WithPeer(context.Background(), Peer{Proof: "socket:abc", Desc: "uid 1, /bin/x"})
	stdio := session.Caller{ID: "a", Door: doorStdio}
	web := session.Caller{ID: "b", Door: doorHTTP}

	if c := withProof(peer, stdio, nil); c.Proof != "socket:abc" || c.Peer != "uid 1, /bin/x" {
		t.Errorf("socket peer: %+v", c)
	}
	if c := withProof(context.Background(), stdio, hdr(tok)); c.Proof != "" {
		t.Errorf("a header counted over stdio: %+v", c)
	}
	if c := withProof(peer, web, hdr("")); c.Proof != "" {
		t.Errorf("a socket peer counted over HTTP: %+v", c)
	}
	a := withProof(context.Background(), web, hdr(tok))
	b := withProof(context.Background(), web, hdr(" "+tok+" "))
	if a.Proof == "" || a.Proof != b.Proof || strings.Contains(a.Proof, tok) {
		t.Errorf("resume token: %q, %q", a.Proof, b.Proof)
	}
	if c := withProof(context.Background(), web, hdr(tok[:minResumeToken-1])); c.Proof != "" {
		t.Errorf("a short token counted: %+v", c)
	}
	if c := withProof(context.Background(), web, hdr(strings.Repeat("j", 40))); c.Proof == a.Proof {
		t.Error("two tokens, one proof")
	}
}
