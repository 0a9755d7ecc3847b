package cdpconn

import (
	"context"
	"net"
	"testing"

	"github.com/chromedp/cdproto"
)

// TestDialContext: with DialContext the connection runs on the socket the
// caller dialed, which is what launch hands to its watchdog.
func TestDialContext(t *testing.T) {
	f := newFakeChrome(t, func(fc *fakeConn, msg cdproto.Message) { fc.reply(msg, map[string]any{}) })
	var sock net.Conn
	c, _ := f.dial(t, Options{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
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
