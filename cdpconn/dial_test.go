package cdpconn

import (
	"context"
	"net"
	"testing"

	"github.com/chromedp/cdproto"

	"github.com/lyrad/lyrad/internal/cdptest"
)

// TestDialContext: with DialContext the connection runs on the socket the
// caller dialed, which is what launch hands to its watchdog.
func TestDialContext(t *testing.T) {
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) { fc.Reply(msg, map[string]any{}) })
	var sock net.Conn
	c, _ := dial(t, f, Options{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		s, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		sock = s
		return s, err
	}})
	if sock == nil {
		t.Fatal("DialContext was not used")
	}
	if err := c.Browser().Call(ctxT(t), "Browser.getVersion", nil, nil); err != nil {
		t.Fatal(err)
	}
	// The same socket: closing it ends the connection.
	sock.Close()
	select {
	case <-c.Done():
	case <-ctxT(t).Done():
		t.Fatal("the connection outlived the socket DialContext returned")
	}
}
