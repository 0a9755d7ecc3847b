package cdpguard

import (
	"context"
	"testing"
	"time"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/internal/cdptest"
)

// newFakePeer connects to a fake browser that answers every command with
// an empty result (or the error Peer.OnFail names) and keeps the commands,
// in order; the test sends the events.
func newFakePeer(t testing.TB) (*cdptest.Peer, *cdpconn.Conn) {
	t.Helper()
	p := cdptest.New(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := cdpconn.Dial(ctx, p.URL, cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Abort)
	p.Conn()
	return p, conn
}
