package transport

import (
	"context"
	"errors"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AnswerBeforeEOF wraps a stream transport (stdio, the socket) so that the
// client closing its input ends the session only once every request read
// before it has been answered. go-sdk's connection treats a read EOF as the
// end at once: the calls under way are cancelled and their replies refused,
// so `printf '...' | lyrad stdio` got none of them, and a call's audit rows
// came after the trail was closed.
//
// It also gives a code to an error go-sdk answers without one (withCode).
//
// At EOF, a question lyrad had put to the client (elicitation) can no
// longer be answered: it is answered here, with an error, so the call that
// asked goes on without it.
func AnswerBeforeEOF(t mcp.Transport) mcp.Transport { return drainTransport{t} }

type drainTransport struct{ mcp.Transport }

func (t drainTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainConn{Connection: c, pending: map[jsonrpc.ID]bool{}, asked: map[jsonrpc.ID]bool{},
		wake: make(chan struct{}), closed: make(chan struct{})}, nil
}

// errClientGone answers, for the client, what lyrad asked it after its
// input closed.
var errClientGone = &jsonrpc.Error{Code: -32603, Message: "the client closed its input: no answer will come"}

type drainConn struct {
	mcp.Connection

	mu      sync.Mutex
	pending map[jsonrpc.ID]bool // requests read and not yet answered
	asked   map[jsonrpc.ID]bool // lyrad's requests to the client not yet answered
	eof     error               // what the client's input ended with
	broken  bool                // a write failed: no answer can reach the client
	wake    chan struct{}       // closed (and replaced) on every change
	closed  chan struct{}
	once    sync.Once
}

func (c *drainConn) changedLocked() {
	close(c.wake)
	c.wake = make(chan struct{})
}

func (c *drainConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.mu.Lock()
	ended := c.eof != nil
	c.mu.Unlock()
	if !ended {
		msg, err := c.Connection.Read(ctx)
		if err == nil {
			c.mu.Lock()
			switch m := msg.(type) {
			case *jsonrpc.Request:
				if m.IsCall() {
					c.pending[m.ID] = true
				}
			case *jsonrpc.Response:
				delete(c.asked, m.ID)
			}
			c.mu.Unlock()
			return msg, nil
		}
		select {
		case <-c.closed:
			return nil, err // closed by lyrad: nothing to wait for
		default:
		}
		if ctx.Err() != nil {
			return nil, err
		}
		c.mu.Lock()
		c.eof = err
		c.mu.Unlock()
	}
	return c.drained(ctx)
}

// drained waits, after the client's input ended, until every request read
// is answered, answering meanwhile every question put to the client.
func (c *drainConn) drained(ctx context.Context) (jsonrpc.Message, error) {
	for {
		c.mu.Lock()
		for id := range c.asked {
			delete(c.asked, id)
			c.mu.Unlock()
			return &jsonrpc.Response{ID: id, Error: errClientGone}, nil
		}
		if len(c.pending) == 0 || c.broken {
			err := c.eof
			c.mu.Unlock()
			return nil, err
		}
		wake := c.wake
		c.mu.Unlock()
		select {
		case <-wake:
		case <-c.closed:
			return nil, mcp.ErrConnectionClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (c *drainConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	msg = withCode(msg)
	err := c.Connection.Write(ctx, msg)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Response:
		delete(c.pending, m.ID)
	case *jsonrpc.Request:
		if m.IsCall() && err == nil {
			c.asked[m.ID] = true
		}
	}
	if err != nil && ctx.Err() == nil {
		c.broken = true
	}
	c.changedLocked()
	return err
}

// withCode gives a JSON-RPC error that has none its code: go-sdk answers a
// request before initialize with a plain error, which goes out as code 0.
func withCode(msg jsonrpc.Message) jsonrpc.Message {
	resp, ok := msg.(*jsonrpc.Response)
	var werr *jsonrpc.Error
	if !ok || resp.Error == nil || errors.As(resp.Error, &werr) {
		return msg
	}
	code := int64(-32603) // internal error
	if strings.Contains(resp.Error.Error(), "invalid during session initialization") {
		code = -32600 // invalid request: initialize first
	}
	return &jsonrpc.Response{ID: resp.ID, Result: resp.Result, Error: &jsonrpc.Error{Code: code, Message: resp.Error.Error()}}
}

func (c *drainConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return c.Connection.Close()
}
