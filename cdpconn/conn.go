// Package cdpconn is one WebSocket connection to Chrome's browser endpoint,
// speaking the raw Chrome DevTools Protocol with flattened target sessions.
//
// One reader goroutine reads every message. Replies go to the call that waits
// for them; events go to subscriptions, each with its own unbounded queue, so
// that no consumer can stall the reader and with it every reply.
package cdpconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/coder/websocket"
	"go.uber.org/zap"
)

// Event is one protocol event as it arrived. Params is shared with the other
// subscribers of the event: do not modify it. Inside the params of every
// event, members named postData or postDataEntries (upload bodies) are
// removed; request.hasPostData remains.
type Event struct {
	SessionID target.SessionID // "" for the browser session
	Method    string
	Params    jsonv2.Value
}

// Options configures a connection.
type Options struct {
	Logger *zap.Logger
	// OnClose is called exactly once, in its own goroutine, when the
	// connection ends for any reason; err is nil after Close.
	OnClose func(err error)
	// DialContext, when set, opens the TCP connection the WebSocket runs
	// on, so that the caller holds the socket itself (launch hands it to
	// its watchdog).
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
}

// ErrClosed is wrapped by every error of a call that fails because the
// connection ended, and by Err.
var ErrClosed = errors.New("cdp connection closed")

// ErrDetached is wrapped by the error of a call whose target session detached
// before the reply came.
var ErrDetached = errors.New("target detached")

// defaultCallTimeout bounds a call whose ctx has no deadline, so that a reply
// Chrome never sends cannot leak a waiter forever. A var for the tests.
var defaultCallTimeout = 60 * time.Second

const (
	// writeTimeout bounds a websocket write. It is not the caller's ctx:
	// coder/websocket closes the whole connection when a write's ctx ends.
	writeTimeout = 30 * time.Second
)

const methodDetached = "Target.detachedFromTarget"

// MethodMark is the method of the events Mark delivers. Subscribe to it
// like to any protocol event.
const MethodMark = "cdpconn.mark"

// Conn is one connection to the browser endpoint.
type Conn struct {
	ws      *websocket.Conn
	dec     msgDecoder // used by the reader goroutine only
	log     *zap.Logger
	onClose func(error)
	browser *Session
	nextID  atomic.Int64

	done       chan struct{} // closed when the connection ends
	readerDone chan struct{} // closed when the reader goroutine returns

	mu      sync.Mutex
	closed  bool
	err     error // why it ended; set with closed
	pending map[int64]*pending
	subs    map[string]map[*subscription]struct{} // by method

	inputs inputs // lyrad's own input commands (InputAt)
}

// pending is a call waiting for its reply.
type pending struct {
	method  string
	session target.SessionID
	reply   chan reply   // buffered 1: the reader never waits on a caller
	done    func(error)  // set by SendAsync: called instead of reply
	mark    jsonv2.Value // set by Mark: dispatched when the reply comes
}

// deliver hands the reply to whoever waits for it. It never blocks unless
// a SendAsync callback does.
func (p *pending) deliver(r reply) {
	if p.done != nil {
		p.done(r.err)
		return
	}
	p.reply <- r
}

type reply struct {
	result jsonv2.Value
	err    error
}

// subscription routes events to one queue.
type subscription struct {
	methods []string
	all     bool             // every session (Conn.Subscribe)
	session target.SessionID // the one session otherwise
	deliver func(Event)      // must not block
	end     func()
}

// Dial connects to the browser endpoint wsURL (ws://host:port/devtools/browser/<id>).
// ctx bounds only the dial. Errors never contain wsURL: it holds the
// debugging port and a secret path.
func Dial(ctx context.Context, wsURL string, opts Options) (*Conn, error) {
	var dopts *websocket.DialOptions
	if opts.DialContext != nil {
		dopts = &websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{DialContext: opts.DialContext}}}
	}
	ws, resp, err := websocket.Dial(ctx, wsURL, dopts)
	if err != nil {
		return nil, dialError(ctx, err, resp)
	}
	// Chrome sends a whole upload body in one Fetch.requestPaused message
	// (a 40 MB form is ~98 MB); decodeMessage streams it, so no limit.
	ws.SetReadLimit(-1)

	c := &Conn{
		ws:         ws,
		log:        opts.Logger,
		onClose:    opts.OnClose,
		done:       make(chan struct{}),
		readerDone: make(chan struct{}),
		pending:    make(map[int64]*pending),
		subs:       make(map[string]map[*subscription]struct{}),
	}
	if c.log == nil {
		c.log = zap.NewNop()
	}
	c.browser = &Session{conn: c}
	go c.readLoop()
	return c, nil
}

// dialError describes a failed dial without the URL, which the errors of
// net/http and net (addresses) would print.
func dialError(ctx context.Context, err error, resp *http.Response) error {
	var errno syscall.Errno
	var netErr net.Error
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("dial browser: %w", ctx.Err())
	case resp != nil:
		return fmt.Errorf("dial browser: websocket handshake failed with HTTP status %d", resp.StatusCode)
	case errors.As(err, &errno):
		return fmt.Errorf("dial browser: %w", errno)
	case errors.As(err, &netErr) && netErr.Timeout():
		return errors.New("dial browser: timeout")
	default:
		return errors.New("dial browser: connection failed")
	}
}

// Browser returns the browser-level session (no sessionId).
func (c *Conn) Browser() *Session { return c.browser }

// Session returns the flattened target session id. Sessions hold no state of
// their own, so this is cheap and may be called for every use.
func (c *Conn) Session(id target.SessionID) *Session {
	if id == "" {
		return c.browser
	}
	return &Session{conn: c, id: id}
}

// Subscribe returns one channel with the events of these methods from all
// sessions, in arrival order. The channel closes after cancel (which drops
// what is queued), or when the connection ends (after what is queued).
// A subscriber must read until the channel closes or call cancel.
func (c *Conn) Subscribe(methods ...string) (<-chan Event, func()) {
	q := newQueue[Event]()
	s := &subscription{methods: slices.Clone(methods), all: true, deliver: q.push, end: q.end}
	c.addSub(s)
	return q.out, func() { c.removeSub(s); q.cancel() }
}

// Observe calls fn on the reader for each event of methods, in the order
// the browser sent them: fn has seen an event before any later event is
// delivered to anyone. fn must be quick and must neither block nor use the
// connection. The returned func stops it.
func (c *Conn) Observe(fn func(Event), methods ...string) func() {
	s := &subscription{methods: slices.Clone(methods), all: true, deliver: fn, end: func() {}}
	c.addSub(s)
	return func() { c.removeSub(s) }
}

// SubscribeWhere is Subscribe with a filter: keep is called on the reader
// goroutine for each event of these methods, in arrival order, and only the
// events it keeps are queued. keep must be cheap, must not block and must
// not call into the connection. It spares the subscriber a wake-up for
// every event it would have dropped at once (most of a page's Network
// events, for most subscribers).
func (c *Conn) SubscribeWhere(keep func(Event) bool, methods ...string) (<-chan Event, func()) {
	q := newQueue[Event]()
	deliver := func(ev Event) {
		if keep(ev) {
			q.push(ev)
		}
	}
	s := &subscription{methods: slices.Clone(methods), all: true, deliver: deliver, end: q.end}
	c.addSub(s)
	return q.out, func() { c.removeSub(s); q.cancel() }
}

// Close closes the connection normally; OnClose gets nil.
func (c *Conn) Close() error {
	c.shutdown(ErrClosed, nil)
	err := c.ws.Close(websocket.StatusNormalClosure, "")
	<-c.readerDone
	if err == nil || errors.Is(err, net.ErrClosed) || websocket.CloseStatus(err) != -1 {
		return nil
	}
	return fmt.Errorf("close: %w", scrub(err))
}

// Abort drops the TCP connection at once, without a close handshake.
func (c *Conn) Abort() {
	err := fmt.Errorf("%w: aborted", ErrClosed)
	c.shutdown(err, err)
	_ = c.ws.CloseNow()
	<-c.readerDone
}

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err returns why the connection ended (wrapping ErrClosed), nil while open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// shutdown ends the connection once: it fails the pending calls with err,
// ends the subscriptions, closes Done and calls OnClose with closeErr.
func (c *Conn) shutdown(err, closeErr error) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed, c.err = true, err
	pend, subs := c.pending, c.subs
	c.pending, c.subs = nil, nil
	c.mu.Unlock()

	for _, p := range pend {
		p.deliver(reply{err: fmt.Errorf("cdp %s: %w", p.method, err)})
	}
	ended := make(map[*subscription]bool)
	for _, set := range subs {
		for s := range set {
			if !ended[s] {
				ended[s] = true
				s.end()
			}
		}
	}
	close(c.done)
	c.log.Debug("cdp connection ended", zap.Error(err))
	if c.onClose != nil {
		go c.onClose(closeErr)
	}
}

func (c *Conn) readLoop() {
	defer close(c.readerDone)
	for {
		if err := c.readMessage(); err != nil {
			err = fmt.Errorf("%w: %w", ErrClosed, scrub(err))
			c.shutdown(err, err)
			_ = c.ws.CloseNow()
			return
		}
	}
}

// readMessage reads and routes one message. An error ends the connection:
// a message that cannot be parsed may be an event the guard must see, so
// carrying on would fail open.
func (c *Conn) readMessage() error {
	// The reader's ctx is Background: cancelling it would close the socket;
	// Close and Abort unblock the read instead.
	typ, r, err := c.ws.Reader(context.Background())
	if err != nil {
		return err
	}
	if typ != websocket.MessageText {
		return errNotText
	}
	m, err := c.dec.decode(r)
	if err != nil {
		if c.isClosed() {
			return err // the socket went away under the read
		}
		c.log.Error("cdp: cannot decode message", zap.Error(err))
		return fmt.Errorf("decode message: %w", err)
	}
	// Read to the end of the message (trailing whitespace), or coder/websocket
	// refuses the next one.
	if _, err := io.Copy(io.Discard, r); err != nil {
		return err
	}

	switch {
	case m.hasID:
		c.handleReply(m)
	case m.method != "":
		c.dispatch(Event{SessionID: m.sessionID, Method: m.method, Params: m.params})
		if m.method == methodDetached {
			// Any session can carry it: with flattened auto-attach, a
			// page session reports its child sessions.
			var ev target.EventDetachedFromTarget
			if err := jsonv2.Unmarshal(m.params, &ev, unmarshalOpts); err != nil {
				c.log.Warn("cdp: bad Target.detachedFromTarget", zap.Error(err))
			} else if ev.SessionID != "" {
				c.detach(ev.SessionID)
			}
		}
	default:
		c.log.Warn("cdp: message with neither id nor method")
	}
	return nil
}

func (c *Conn) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// Mark puts a marker in every queue subscribed to MethodMark, behind every
// event Chrome has already sent: it sends a command with a cheap answer
// (Browser.getVersion) and, when the answer is read, delivers
// Event{Method: MethodMark, Params: token as a JSON string}. One reader
// hands everything on in the order Chrome wrote it, so a subscriber that
// takes the mark has taken every event Chrome sent before it answered. It
// returns once the command is written; the mark is lost only with the
// connection.
func (c *Conn) Mark(token string) error {
	raw, err := jsonv2.Marshal(token, marshalOpts)
	if err != nil {
		return fmt.Errorf("cdpconn: mark: %w", err)
	}
	_, err = c.browser.send("Browser.getVersion", nil, raw, nil)
	return err
}

func (c *Conn) handleReply(m message) {
	c.inputs.replied(m.id)
	c.mu.Lock()
	p := c.pending[m.id]
	delete(c.pending, m.id)
	c.mu.Unlock()
	if p != nil && p.mark != nil {
		c.dispatch(Event{Method: MethodMark, Params: p.mark})
	}
	if p == nil {
		// Its caller gave up (ctx ended) or it was never ours.
		c.log.Debug("cdp: dropping reply with no waiter", zap.Int64("id", m.id))
		return
	}
	var err error
	if m.err != nil {
		err = fmt.Errorf("cdp %s: %w", p.method, m.err)
	}
	p.deliver(reply{result: m.result, err: err})
}

func (c *Conn) dispatch(ev Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for s := range c.subs[ev.Method] {
		if s.all || s.session == ev.SessionID {
			s.deliver(ev)
		}
	}
}

// detach ends the subscriptions of a session that went away and fails its
// pending calls: their replies will never come.
func (c *Conn) detach(id target.SessionID) {
	var ended []*subscription
	var failed []*pending
	c.mu.Lock()
	for _, set := range c.subs {
		for s := range set {
			if !s.all && s.session == id {
				ended = append(ended, s)
			}
		}
	}
	for _, s := range ended {
		c.unindex(s)
	}
	for pid, p := range c.pending {
		if p.session == id {
			failed = append(failed, p)
			delete(c.pending, pid)
		}
	}
	c.mu.Unlock()
	c.inputs.detached(id)

	for _, s := range ended {
		s.end()
	}
	for _, p := range failed {
		p.deliver(reply{err: fmt.Errorf("cdp %s: %w (session %s)", p.method, ErrDetached, id)})
	}
}

func (c *Conn) addSub(s *subscription) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		s.end()
		return
	}
	for _, m := range s.methods {
		if c.subs[m] == nil {
			c.subs[m] = make(map[*subscription]struct{})
		}
		c.subs[m][s] = struct{}{}
	}
}

func (c *Conn) removeSub(s *subscription) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.unindex(s)
}

// unindex removes s from the method index; c.mu must be held.
func (c *Conn) unindex(s *subscription) {
	for _, m := range s.methods {
		if set := c.subs[m]; set != nil {
			delete(set, s)
			if len(set) == 0 {
				delete(c.subs, m)
			}
		}
	}
}

// scrub strips the socket addresses that *net.OpError prints: they hold the
// browser's debugging port.
func scrub(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return fmt.Errorf("network: %w", op.Err)
	}
	return err
}
