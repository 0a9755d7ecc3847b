package transport

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// noDelete drops DELETE on the floor, as a client that exits without
// ending its session does.
type noDelete struct{ token string }

func (n noDelete) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodDelete {
		return &http.Response{StatusCode: http.StatusNoContent, Body: http.NoBody, Request: r}, nil
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+n.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestIdleHTTPSessionsClosed: a session whose client went away without
// DELETE is closed after the timeout; one whose client keeps its GET
// stream open is not, however long it is quiet.
func TestIdleHTTPSessionsClosed(t *testing.T) {
	const tok = "0123456789abcdef0123456789abcdef"
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	ln, port, err := ListenHTTP(0)
	if err != nil {
		t.Fatal(err)
	}
	const timeout = 300 * time.Millisecond
	hs := &http.Server{Handler: HTTPHandler(srv, tok, port, timeout)}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })

	connect := func(protocol string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "idle", Version: "1"}, nil)
		tr := &mcp.StreamableClientTransport{Endpoint: fmt.Sprintf("http://127.0.0.1:%d/mcp", port), HTTPClient: &http.Client{Transport: noDelete{tok}}}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
		if err != nil {
			t.Fatal(err)
		}
		return cs
	}
	live := func(id string) bool {
		for ss := range srv.Sessions() {
			if ss.ID() == id {
				return true
			}
		}
		return false
	}
	streaming := connect("2025-11-25") // keeps a GET stream open
	defer streaming.Close()
	gone := connect("2025-11-25")
	if !live(streaming.ID()) || !live(gone.ID()) {
		t.Fatal("sessions not registered")
	}
	gone.Close() // no DELETE reaches the server; its GET stream ends
	deadline := time.Now().Add(20 * time.Second)
	for live(gone.ID()) {
		if time.Now().After(deadline) {
			t.Fatal("a session whose client left was never closed")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// By now the quiet, connected session has been idle longer than the
	// timeout, but its stream is open.
	time.Sleep(2 * timeout)
	if !live(streaming.ID()) {
		t.Error("a connected session with its stream open was closed")
	}
	if err := streaming.Ping(context.Background(), nil); err != nil {
		t.Errorf("the connected session no longer answers: %v", err)
	}
}
