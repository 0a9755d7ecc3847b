package cdpconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/internal/cdptest"
)

// dial connects to the fake browser p and returns the connection with the
// peer's side of it.
func dial(t *testing.T, p *cdptest.Peer, opts Options) (*Conn, *cdptest.Conn) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := Dial(ctx, p.URL, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Abort() })
	return c, p.Conn()
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestCallReply(t *testing.T) {
	var raw sync.Map // method -> raw params as received
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		raw.Store(string(msg.Method), string(msg.Params))
		fc.Reply(msg, map[string]any{"method": msg.Method, "session": msg.SessionID, "params": msg.Params})
	})
	c, _ := dial(t, f, Options{})

	type res struct {
		Method  string           `json:"method"`
		Session target.SessionID `json:"session"`
		Params  jsonv2.Value     `json:"params"`
	}
	var r res
	if err := c.Browser().Call(ctxT(t), "Browser.getVersion", nil, &r); err != nil {
		t.Fatal(err)
	}
	if r.Method != "Browser.getVersion" || r.Session != "" {
		t.Fatalf("got %+v", r)
	}
	if p, _ := raw.Load("Browser.getVersion"); p != "" {
		t.Errorf("nil params sent as %q, want no params key", p)
	}

	s := c.Session("S1")
	if s.ID() != "S1" || s.Conn() != c || c.Session("") != c.Browser() {
		t.Fatal("session accessors")
	}
	if err := s.Call(ctxT(t), "Page.navigate", map[string]string{"url": "data:,x"}, &r); err != nil {
		t.Fatal(err)
	}
	if r.Session != "S1" || string(r.Params) != `{"url":"data:,x"}` {
		t.Fatalf("got %+v", r)
	}
	// result nil: ignored.
	if err := s.Call(ctxT(t), "Page.enable", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestErrorReply(t *testing.T) {
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		fc.Send(map[string]any{"id": msg.ID, "error": map[string]any{"code": -32601, "message": "'Foo.bar' wasn't found"}})
	})
	c, _ := dial(t, f, Options{})
	err := c.Browser().Call(ctxT(t), "Foo.bar", nil, nil)
	var cerr *cdproto.Error
	if !errors.As(err, &cerr) || cerr.Code != -32601 {
		t.Fatalf("want *cdproto.Error, got %v", err)
	}
	if !strings.Contains(err.Error(), "Foo.bar") {
		t.Errorf("error does not name the method: %v", err)
	}
}

func TestCallTimeoutLateReplyDropped(t *testing.T) {
	slow := make(chan cdproto.Message, 1)
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		if msg.Method == "Slow.wait" {
			slow <- msg // answered later
			return
		}
		fc.Reply(msg, map[string]any{"ok": msg.ID})
	})
	c, fc := dial(t, f, Options{})

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := c.Browser().Call(ctx, "Slow.wait", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "Slow.wait") {
		t.Fatalf("want deadline error naming the method, got %v", err)
	}

	// The late reply arrives; nobody waits for it.
	fc.Reply(<-slow, map[string]any{"late": true})

	var r struct {
		OK   int64 `json:"ok"`
		Late bool  `json:"late"`
	}
	if err := c.Browser().Call(ctxT(t), "Fast.ok", nil, &r); err != nil {
		t.Fatalf("socket not usable after timeout: %v", err)
	}
	if r.Late || r.OK == 0 {
		t.Fatalf("got the late reply: %+v", r)
	}
	if c.Err() != nil {
		t.Fatalf("connection ended: %v", c.Err())
	}
	select {
	case <-c.Done():
		t.Fatal("Done closed")
	default:
	}
}

func TestCallDefaultTimeout(t *testing.T) {
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {})
	c, _ := dial(t, f, Options{})
	old := defaultCallTimeout
	defaultCallTimeout = 100 * time.Millisecond
	defer func() { defaultCallTimeout = old }()
	err := c.Browser().Call(context.Background(), "Never.answer", nil, nil)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "Never.answer") {
		t.Fatalf("got %v", err)
	}
}

func TestEventsPerSessionAndOrder(t *testing.T) {
	type ev struct {
		s target.SessionID
		m string
		n int
	}
	var sent []ev
	for i := range 300 {
		sent = append(sent, ev{[]target.SessionID{"", "A", "B"}[i%3], []string{"E.one", "E.two", "E.three"}[i%2+i%5/4], i})
	}
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		for _, e := range sent {
			fc.Event(e.s, e.m, map[string]int{"n": e.n})
		}
		fc.Reply(msg, struct{}{})
	})
	c, _ := dial(t, f, Options{})

	all, cancelAll := c.Subscribe("E.one", "E.two")
	defer cancelAll()
	aOne, cancelA := c.Session("A").Subscribe("E.one")
	defer cancelA()
	bOne, cancelB := c.Browser().Subscribe("E.one")
	defer cancelB()

	if err := c.Browser().Call(ctxT(t), "Test.emit", nil, nil); err != nil {
		t.Fatal(err)
	}
	num := func(v jsonv2.Value) int {
		var p struct {
			N int `json:"n"`
		}
		if err := jsonv2.Unmarshal(v, &p); err != nil {
			t.Fatal(err)
		}
		return p.N
	}
	for _, e := range sent {
		if e.m == "E.three" {
			continue
		}
		got := <-all
		if got.SessionID != e.s || got.Method != e.m || num(got.Params) != e.n {
			t.Fatalf("Conn.Subscribe: got %v %s %s, want %+v", got.SessionID, got.Method, got.Params, e)
		}
	}
	for _, want := range []struct {
		ch <-chan jsonv2.Value
		s  target.SessionID
	}{{aOne, "A"}, {bOne, ""}} {
		for _, e := range sent {
			if e.s != want.s || e.m != "E.one" {
				continue
			}
			if got := num(<-want.ch); got != e.n {
				t.Fatalf("session %q: got n=%d want %d", want.s, got, e.n)
			}
		}
		select {
		case v := <-want.ch:
			t.Fatalf("session %q: extra event %s", want.s, v)
		case <-time.After(50 * time.Millisecond):
		}
	}

	// cancel is idempotent and closes the channel.
	cancelA()
	cancelA()
	for range aOne {
	}
}

func TestSlowConsumerDoesNotBlockReader(t *testing.T) {
	const n = 20000
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		for i := range n {
			fc.Event("S", "Net.req", map[string]int{"i": i})
		}
		fc.Reply(msg, struct{}{})
	})
	c, _ := dial(t, f, Options{})
	events, cancel := c.Session("S").Subscribe("Net.req")
	defer cancel()
	all, cancelAll := c.Subscribe("Net.req")
	defer cancelAll()

	// Nobody reads either channel, yet the reply behind 20000 events arrives.
	if err := c.Browser().Call(ctxT(t), "Test.flood", nil, nil); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		var p struct {
			I int `json:"i"`
		}
		if err := jsonv2.Unmarshal(<-events, &p); err != nil || p.I != i {
			t.Fatalf("event %d: got %d (%v)", i, p.I, err)
		}
	}
	cancelAll() // drops the queue and closes
	for range all {
	}
}

func TestDetachedFromTarget(t *testing.T) {
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		switch msg.SessionID {
		case "S1": // never answered
		default:
			fc.Reply(msg, struct{}{})
		}
	})
	c, fc := dial(t, f, Options{})

	s1, cancel1 := c.Session("S1").Subscribe("Page.loadEventFired")
	defer cancel1()
	s2, cancel2 := c.Session("S2").Subscribe("Page.loadEventFired")
	defer cancel2()
	detached, cancelD := c.Browser().Subscribe(methodDetached)
	defer cancelD()

	callErr := make(chan error, 1)
	go func() { callErr <- c.Session("S1").Call(ctxT(t), "Runtime.evaluate", nil, nil) }()
	// Let the call reach the fake before detaching.
	time.Sleep(50 * time.Millisecond)

	fc.Event("S1", "Page.loadEventFired", map[string]any{"timestamp": 1})
	fc.Event("", methodDetached, map[string]any{"sessionId": "S1", "targetId": "T1"})

	// The queued event still comes, then the channel closes.
	if _, ok := <-s1; !ok {
		t.Fatal("event before detach lost")
	}
	select {
	case _, ok := <-s1:
		if ok {
			t.Fatal("unexpected event")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("S1 subscription not closed after detach")
	}
	err := <-callErr
	if !errors.Is(err, ErrDetached) || !strings.Contains(err.Error(), "detached") || !strings.Contains(err.Error(), "Runtime.evaluate") {
		t.Fatalf("pending call: %v", err)
	}
	if v := <-detached; !strings.Contains(string(v), "S1") {
		t.Fatalf("detached event: %s", v)
	}

	// S2 is untouched.
	fc.Event("S2", "Page.loadEventFired", map[string]any{"timestamp": 2})
	if _, ok := <-s2; !ok {
		t.Fatal("S2 subscription closed")
	}
	if err := c.Session("S2").Call(ctxT(t), "Page.enable", nil, nil); err != nil {
		t.Fatal(err)
	}
}

func TestOnCloseOnceWhenPeerDrops(t *testing.T) {
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		if msg.Method == "Browser.crash" {
			fc.WS().CloseNow()
		}
	})
	var calls atomic.Int32
	got := make(chan error, 2)
	c, _ := dial(t, f, Options{OnClose: func(err error) { calls.Add(1); got <- err }})

	events, cancel := c.Subscribe("X.y")
	defer cancel()
	err := c.Browser().Call(ctxT(t), "Browser.crash", nil, nil)
	if !errors.Is(err, ErrClosed) || !strings.Contains(err.Error(), "Browser.crash") {
		t.Fatalf("pending call: %v", err)
	}
	<-c.Done()
	if !errors.Is(c.Err(), ErrClosed) {
		t.Fatalf("Err: %v", c.Err())
	}
	if err := <-got; err == nil || !errors.Is(err, ErrClosed) {
		t.Fatalf("OnClose got %v", err)
	}
	if _, ok := <-events; ok {
		t.Fatal("subscription not closed")
	}
	// Later closes do not call OnClose again, and calls fail at once.
	_ = c.Close()
	c.Abort()
	if err := c.Browser().Call(ctxT(t), "X.y", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after close: %v", err)
	}
	// A subscription after the end is closed at once.
	late, _ := c.Session("S").Subscribe("X.y")
	if _, ok := <-late; ok {
		t.Fatal("late subscription open")
	}
	time.Sleep(50 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Fatalf("OnClose called %d times", n)
	}
}

func TestCloseNormal(t *testing.T) {
	f := cdptest.New(t, nil)
	var calls atomic.Int32
	got := make(chan error, 2)
	c, _ := dial(t, f, Options{OnClose: func(err error) { calls.Add(1); got <- err }})
	events, _ := c.Session("S").Subscribe("X.y")
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := <-got; err != nil {
		t.Fatalf("OnClose after Close got %v, want nil", err)
	}
	<-c.Done()
	if !errors.Is(c.Err(), ErrClosed) {
		t.Fatalf("Err: %v", c.Err())
	}
	if _, ok := <-events; ok {
		t.Fatal("subscription not closed")
	}
	_ = c.Close()
	c.Abort()
	time.Sleep(50 * time.Millisecond)
	if n := calls.Load(); n != 1 {
		t.Fatalf("OnClose called %d times", n)
	}
}

func TestAbortFailsPendingCalls(t *testing.T) {
	seen := make(chan struct{}, 8)
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) { seen <- struct{}{} })
	closed := make(chan error, 1)
	c, _ := dial(t, f, Options{OnClose: func(err error) { closed <- err }})

	const n = 5
	errs := make(chan error, n)
	for i := range n {
		go func() { errs <- c.Browser().Call(ctxT(t), fmt.Sprintf("Wait.%d", i), nil, nil) }()
	}
	for range n {
		<-seen
	}
	c.Abort()
	for range n {
		if err := <-errs; !errors.Is(err, ErrClosed) {
			t.Fatalf("pending call: %v", err)
		}
	}
	if err := <-closed; !errors.Is(err, ErrClosed) {
		t.Fatalf("OnClose: %v", err)
	}
	if err := c.Browser().Call(ctxT(t), "After.abort", nil, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("call after abort: %v", err)
	}
}

func TestDialErrorHidesURL(t *testing.T) {
	// A port with nothing listening.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)

	// And a plain HTTP server that refuses the upgrade.
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	_, srvPort, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))

	for _, tc := range []struct{ url, port string }{
		{"ws://" + addr + "/devtools/browser/secret-4f1c", port},
		{"ws" + strings.TrimPrefix(srv.URL, "http") + "/devtools/browser/secret-4f1c", srvPort},
		{"ws://127.0.0.1:bad/devtools/browser/secret-4f1c", "bad"},
	} {
		_, err := Dial(ctxT(t), tc.url, Options{})
		if err == nil {
			t.Fatalf("%s: no error", tc.url)
		}
		msg := err.Error()
		t.Logf("dial error: %s", msg)
		for _, leak := range []string{"secret", "devtools", tc.port, "ws://", "127.0.0.1"} {
			if strings.Contains(msg, leak) {
				t.Errorf("dial error %q contains %q", msg, leak)
			}
		}
	}
}

// A mark comes after every event Chrome sent before it answered the mark's
// command, to every subscriber of MethodMark, and to no other.
func TestMarkIsOrderedBehindEvents(t *testing.T) {
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		if msg.Method == "Browser.getVersion" {
			for i := range 100 {
				fc.Event("S1", "Test.ev", map[string]int{"n": i})
			}
		}
		fc.Reply(msg, struct{}{})
	})
	c, _ := dial(t, f, Options{})
	evs, cancel := c.Subscribe("Test.ev", MethodMark)
	defer cancel()
	other, cancelOther := c.Subscribe("Test.ev")
	defer cancelOther()
	if err := c.Mark("m1"); err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	for n := 0; ; n++ {
		select {
		case ev := <-evs:
			if ev.Method != MethodMark {
				continue
			}
			if n != 100 || string(ev.Params) != `"m1"` || ev.SessionID != "" {
				t.Fatalf("mark %s after %d events", ev.Params, n)
			}
		case <-ctx.Done():
			t.Fatal("no mark")
		}
		break
	}
	for range 100 {
		if ev := <-other; ev.Method != "Test.ev" {
			t.Fatalf("a subscriber without MethodMark got %s", ev.Method)
		}
	}
}

// SendAsync hands the reply's error to its callback, once: nil for a
// result, the browser's error, or the detach of the session.
func TestSendAsync(t *testing.T) {
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		switch string(msg.Method) {
		case "Fetch.continueRequest":
			fc.Reply(msg, struct{}{})
		case "Fetch.failRequest":
			fc.Send(map[string]any{"id": msg.ID, "sessionId": msg.SessionID, "error": map[string]any{"code": -32602, "message": "Invalid InterceptionId."}})
		}
		// Anything else is never answered.
	})
	c, fc := dial(t, f, Options{})
	done := make(chan error, 3)
	s := c.Session("S1")
	for _, m := range []string{"Fetch.continueRequest", "Fetch.failRequest", "Fetch.fulfillRequest"} {
		if err := s.SendAsync(m, map[string]string{"requestId": "R1"}, func(err error) { done <- err }); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("continue: %v", err)
	}
	var cerr *cdproto.Error
	if err := <-done; !errors.As(err, &cerr) || !strings.Contains(err.Error(), "Fetch.failRequest") {
		t.Fatalf("fail: %v", err)
	}
	fc.Event("", methodDetached, map[string]any{"sessionId": "S1", "targetId": "T1"})
	select {
	case err := <-done:
		if !errors.Is(err, ErrDetached) {
			t.Fatalf("unanswered on detach: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the callback of a command whose session detached was never called")
	}
	select {
	case err := <-done:
		t.Fatalf("a callback called twice: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	// A nil callback is allowed.
	if err := c.Browser().SendAsync("Fetch.continueRequest", nil, nil); err != nil {
		t.Fatal(err)
	}
	// One still unanswered when the connection ends hears of it.
	if err := c.Browser().SendAsync("Never.answered", nil, func(err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	c.Abort()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("unanswered at abort: %v", err)
	}
}

// SubscribeWhere queues only the events its filter keeps, in order.
func TestSubscribeWhere(t *testing.T) {
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) { fc.Reply(msg, struct{}{}) })
	c, fc := dial(t, f, Options{})
	var seen atomic.Int32
	events, stop := c.SubscribeWhere(func(ev Event) bool {
		seen.Add(1)
		return strings.Contains(string(ev.Params), "keep")
	}, "Network.requestWillBeSent")
	defer stop()
	for _, p := range []string{"keep-1", "drop-2", "keep-3"} {
		fc.Event("S1", "Network.requestWillBeSent", map[string]any{"n": p})
	}
	for _, want := range []string{"keep-1", "keep-3"} {
		select {
		case ev := <-events:
			if !strings.Contains(string(ev.Params), want) || ev.SessionID != "S1" {
				t.Fatalf("got %s from %q, want %s", ev.Params, ev.SessionID, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("no %s", want)
		}
	}
	// A mark behind them: the dropped one was never queued.
	marks, stopMarks := c.Subscribe(MethodMark)
	defer stopMarks()
	if err := c.Mark("m"); err != nil {
		t.Fatal(err)
	}
	<-marks
	select {
	case ev := <-events:
		t.Fatalf("a dropped event was queued: %s", ev.Params)
	default:
	}
	if n := seen.Load(); n != 3 {
		t.Errorf("the filter saw %d events, want 3", n)
	}
}
