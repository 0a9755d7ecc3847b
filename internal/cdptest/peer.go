// Package cdptest is the fake browser endpoint every package's tests dial
// instead of a real Chromium: a WebSocket server that reads CDP commands,
// keeps them in order and answers them as the test says, and sends the
// events the test writes. Only tests import it.
//
// It imports no package of lyrad, so cdpconn's own tests can use it: the
// test dials Peer.URL with its own client.
package cdptest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/coder/websocket"
)

// Handler answers one command read on c, on c's reader: a command is read
// only once the one before it was handled.
type Handler func(c *Conn, m cdproto.Message)

// Peer is a fake browser endpoint.
type Peer struct {
	// URL is the browser's WebSocket URL, as a DevToolsActivePort names it
	// (ws://127.0.0.1:port/devtools/browser/<id>).
	URL string

	t      testing.TB
	handle Handler

	mu    sync.Mutex
	conns []*Conn
	log   []cdproto.Message              // every command, in arrival order
	taken int                            // log[:taken] were handed out by Next
	fail  func(m cdproto.Message) string // the default answer's error for m, or ""
	// changed is closed, and replaced, when a command or a connection
	// comes: every waiter wakes.
	changed chan struct{}
}

// Conn is one WebSocket connection to the peer.
type Conn struct {
	t  testing.TB
	ws *websocket.Conn
}

// New starts a peer, stopped at the test's end. handle answers every
// command; nil answers each with an empty result, or with the error OnFail
// names for it.
func New(t testing.TB, handle Handler) *Peer {
	t.Helper()
	p := &Peer{t: t, handle: handle, changed: make(chan struct{})}
	if p.handle == nil {
		p.handle = p.answer
	}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(srv.Close)
	p.URL = "ws" + strings.TrimPrefix(srv.URL, "http") + "/devtools/browser/secret-0123"
	return p
}

func (p *Peer) serve(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	ws.SetReadLimit(-1)
	c := &Conn{t: p.t, ws: ws}
	p.mu.Lock()
	p.conns = append(p.conns, c)
	p.wakeLocked()
	p.mu.Unlock()
	for {
		_, b, err := ws.Read(context.Background())
		if err != nil {
			return
		}
		var m cdproto.Message
		if err := jsonv2.Unmarshal(b, &m); err != nil {
			p.t.Errorf("cdptest: bad command %s: %v", b, err)
			return
		}
		p.mu.Lock()
		p.log = append(p.log, m)
		p.wakeLocked()
		p.mu.Unlock()
		p.handle(c, m)
	}
}

func (p *Peer) wakeLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// answer is the default Handler.
func (p *Peer) answer(c *Conn, m cdproto.Message) {
	p.mu.Lock()
	fail := p.fail
	p.mu.Unlock()
	if fail != nil {
		if msg := fail(m); msg != "" {
			c.Error(m, -32000, msg)
			return
		}
	}
	c.Reply(m, map[string]any{})
}

// OnFail sets which commands the default Handler answers with an error:
// those f names a message for.
func (p *Peer) OnFail(f func(m cdproto.Message) string) {
	p.mu.Lock()
	p.fail = f
	p.mu.Unlock()
}

// Conn returns the newest connection, waiting for the first one.
func (p *Peer) Conn() *Conn {
	p.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		n := len(p.conns)
		var c *Conn
		if n > 0 {
			c = p.conns[n-1]
		}
		changed := p.changed
		p.mu.Unlock()
		if c != nil {
			return c
		}
		select {
		case <-changed:
		case <-deadline.C:
			p.t.Fatal("cdptest: nobody connected")
			return nil
		}
	}
}

// Event sends an event on the newest connection; sid "" is the browser's
// own session.
func (p *Peer) Event(sid target.SessionID, method string, params any) {
	p.Conn().Event(sid, method, params)
}

// Send writes a raw message on the newest connection.
func (p *Peer) Send(v any) { p.Conn().Send(v) }

// Next returns the next command not yet handed out, in arrival order,
// waiting for it until ctx ends (ok is then false).
func (p *Peer) Next(ctx context.Context) (m cdproto.Message, ok bool) {
	for {
		p.mu.Lock()
		if p.taken < len(p.log) {
			m = p.log[p.taken]
			p.taken++
			p.mu.Unlock()
			return m, true
		}
		changed := p.changed
		p.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return cdproto.Message{}, false
		}
	}
}

// Skip hands out, unread, every command that has arrived so far: Next
// returns only later ones.
func (p *Peer) Skip() {
	p.mu.Lock()
	p.taken = len(p.log)
	p.mu.Unlock()
}

// WaitCmd waits for a command of this method on session sid, taking the
// commands before it with it (see Next). To wait on two sessions in turn,
// use WaitSent.
func (p *Peer) WaitCmd(method string, sid target.SessionID) cdproto.Message {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		m, ok := p.Next(ctx)
		if !ok {
			p.t.Fatalf("cdptest: no %s on %q", method, sid)
			return cdproto.Message{}
		}
		if string(m.Method) == method && m.SessionID == sid {
			return m
		}
	}
}

// WaitSent waits for a command of this method to have arrived on session
// sid, whether or not Next handed it out.
func (p *Peer) WaitSent(method string, sid target.SessionID) {
	p.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		p.mu.Lock()
		changed := p.changed
		p.mu.Unlock()
		if slices.Contains(p.Sent(sid), method) {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			p.t.Fatalf("cdptest: no %s on %q: %v", method, sid, p.Sent(sid))
			return
		}
	}
}

// Sent lists the methods of the commands sent on session sid so far, in
// order.
func (p *Peer) Sent(sid target.SessionID) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, m := range p.log {
		if m.SessionID == sid {
			out = append(out, string(m.Method))
		}
	}
	return out
}

// WS is the connection's WebSocket, for a test that writes frames itself
// or drops the connection.
func (c *Conn) WS() *websocket.Conn { return c.ws }

// Send writes one message.
func (c *Conn) Send(v any) {
	b, err := jsonv2.Marshal(v)
	if err != nil {
		c.t.Errorf("cdptest: marshal: %v", err)
		return
	}
	_ = c.ws.Write(context.Background(), websocket.MessageText, b)
}

// Reply answers command m with result.
func (c *Conn) Reply(m cdproto.Message, result any) {
	c.Send(map[string]any{"id": m.ID, "sessionId": m.SessionID, "result": result})
}

// Error answers command m with a protocol error.
func (c *Conn) Error(m cdproto.Message, code int, message string) {
	c.Send(map[string]any{"id": m.ID, "sessionId": m.SessionID, "error": map[string]any{"code": code, "message": message}})
}

// Event sends an event; sid "" is the browser's own session.
func (c *Conn) Event(sid target.SessionID, method string, params any) {
	m := map[string]any{"method": method, "params": params}
	if sid != "" {
		m["sessionId"] = sid
	}
	c.Send(m)
}
