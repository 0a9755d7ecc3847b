package cdpconn

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/coder/websocket"
)

// Session is the browser session or one flattened target session of a Conn.
type Session struct {
	conn *Conn
	id   target.SessionID
}

var _ cdp.Session = (*Session)(nil)

// ID returns the session id, "" for the browser session.
func (s *Session) ID() target.SessionID { return s.id }

// Conn returns the connection of the session.
func (s *Session) Conn() *Conn { return s.conn }

// Call sends the command and waits for its reply, decoding the result into
// result (ignored when nil). ctx bounds only the wait, 60 s when it has no
// deadline; when it ends the socket stays open and a late reply is dropped.
// Errors name the method and wrap ctx.Err(), ErrClosed, ErrDetached or the
// browser's *cdproto.Error.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultCallTimeout)
		defer cancel()
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cdp %s: %w", method, err)
	}
	p, err := s.Send(method, params)
	if err != nil {
		return err
	}
	return p.Wait(ctx, result)
}

// Pending is a command that was sent and whose reply has not been read.
type Pending struct {
	c      *Conn
	id     int64
	method string
	p      *pending
}

// Send writes a command and returns at once; Wait reads its reply. Chrome
// handles one session's commands in the order they arrive, so a caller can
// send several and then wait for all: a target held before it runs answers
// some commands only once it runs, and the command that lets it run must
// not wait behind them.
func (s *Session) Send(method string, params any) (*Pending, error) {
	return s.send(method, params, nil, nil)
}

// SendAsync writes a command and returns at once, like Send, with nothing
// to wait on: done is called once with the reply's error (nil for success;
// the result is dropped), on the reader goroutine as the reply is read, or
// when the session detaches or the connection ends. done must not block.
// It is for answers whose reply matters only when it is an error (a paused
// request continued), and spares a goroutine waiting for each. When the
// command cannot be written SendAsync returns the error; done is then
// called at most with the connection's end, never with a reply.
func (s *Session) SendAsync(method string, params any, done func(error)) error {
	if done == nil {
		done = func(error) {}
	}
	_, err := s.send(method, params, nil, done)
	return err
}

// send is Send; a mark is delivered as a MethodMark event when the reply
// comes, whether anyone still waits for it or not; done, when set, takes
// the reply instead of Pending.Wait.
func (s *Session) send(method string, params any, mark jsonv2.Value, done func(error)) (*Pending, error) {
	c := s.conn
	var raw jsonv2.Value
	if params != nil {
		b, err := jsonv2.Marshal(params, marshalOpts)
		if err != nil {
			return nil, fmt.Errorf("cdp %s: encode params: %w", method, err)
		}
		if string(b) != "null" { // a nil pointer: send no params
			raw = b
		}
	}
	id := c.nextID.Add(1)
	msg, err := jsonv2.Marshal(&cdproto.Message{
		ID:        id,
		SessionID: s.id,
		Method:    cdproto.MethodType(method),
		Params:    raw,
	}, marshalOpts)
	if err != nil {
		return nil, fmt.Errorf("cdp %s: encode message: %w", method, err)
	}

	// Register before writing: the reply can come before Write returns.
	p := &pending{method: method, session: s.id, mark: mark, done: done}
	if done == nil {
		p.reply = make(chan reply, 1)
	}
	c.mu.Lock()
	if c.closed {
		err := c.err
		c.mu.Unlock()
		return nil, fmt.Errorf("cdp %s: %w", method, err)
	}
	c.pending[id] = p
	c.mu.Unlock()
	if isInput(method) {
		c.inputs.sent(id, s.id)
	}

	wctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	err = c.ws.Write(wctx, websocket.MessageText, msg)
	cancel()
	if err != nil {
		// A failed write leaves the socket unusable; coder/websocket has
		// closed it and the reader ends the connection.
		c.forget(id)
		if cerr := c.Err(); cerr != nil {
			return nil, fmt.Errorf("cdp %s: %w", method, cerr)
		}
		return nil, fmt.Errorf("cdp %s: write: %w: %w", method, ErrClosed, scrub(err))
	}
	return &Pending{c: c, id: id, method: method, p: p}, nil
}

// Wait reads the reply into result (nil: ignore it). A ctx that ends first
// leaves the socket open; the late reply is dropped.
func (p *Pending) Wait(ctx context.Context, result any) error {
	select {
	case r := <-p.p.reply:
		if r.err != nil {
			return r.err
		}
		if result != nil && len(r.result) > 0 {
			if err := jsonv2.Unmarshal(r.result, result, unmarshalOpts); err != nil {
				return fmt.Errorf("cdp %s: decode result: %w", p.method, err)
			}
		}
		return nil
	case <-ctx.Done():
		p.c.forget(p.id)
		return fmt.Errorf("cdp %s: %w", p.method, ctx.Err())
	}
}

// forget drops a pending call, so that its reply, if it comes, is dropped.
func (c *Conn) forget(id int64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Subscribe returns the params of this session's events of the method, in
// order. The channel closes after cancel (idempotent; drops what is queued),
// or after what is queued when the session detaches or the connection ends.
// A subscriber must read until the channel closes or call cancel.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	c := s.conn
	q := newQueue[jsonv2.Value]()
	sub := &subscription{
		methods: []string{method},
		session: s.id,
		deliver: func(ev Event) { q.push(ev.Params) },
		end:     q.end,
	}
	c.addSub(sub)
	return q.out, func() { c.removeSub(sub); q.cancel() }
}
