package cdpguard

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/coder/websocket"

	"github.com/lyrad/lyrad/cdpconn"
)

// fakePeer is a fake browser endpoint: it answers every command with an
// empty result (or the error fail names) and keeps the commands, in order;
// the test sends the events.
type fakePeer struct {
	t    testing.TB
	ws   chan *websocket.Conn
	cmds chan cdproto.Message

	mu   sync.Mutex
	log  []cdproto.Message              // every command, in arrival order
	fail func(m cdproto.Message) string // an error message to answer m with, or ""
}

func newFakePeer(t testing.TB) (*fakePeer, *cdpconn.Conn) {
	t.Helper()
	p := &fakePeer{t: t, ws: make(chan *websocket.Conn, 1), cmds: make(chan cdproto.Message, 1000)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		p.ws <- ws
		for {
			_, b, err := ws.Read(context.Background())
			if err != nil {
				return
			}
			var m cdproto.Message
			if jsonv2.Unmarshal(b, &m) != nil {
				t.Errorf("bad command %s", b)
				return
			}
			p.mu.Lock()
			p.log = append(p.log, m)
			fail := p.fail
			p.mu.Unlock()
			p.cmds <- m
			if fail != nil {
				if msg := fail(m); msg != "" {
					p.send(map[string]any{"id": m.ID, "sessionId": m.SessionID, "error": map[string]any{"code": -32000, "message": msg}}, ws)
					continue
				}
			}
			p.send(map[string]any{"id": m.ID, "sessionId": m.SessionID, "result": map[string]any{}}, ws)
		}
	}))
	t.Cleanup(srv.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := cdpconn.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/devtools/browser/x", cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Abort)
	ws := <-p.ws
	p.ws <- ws
	return p, conn
}

func (p *fakePeer) send(v any, ws *websocket.Conn) {
	if ws == nil {
		ws = <-p.ws
		p.ws <- ws
	}
	b, err := jsonv2.Marshal(v)
	if err != nil {
		p.t.Error(err)
		return
	}
	_ = ws.Write(context.Background(), websocket.MessageText, b)
}

func (p *fakePeer) event(sid target.SessionID, method string, params any) {
	p.send(map[string]any{"method": method, "sessionId": sid, "params": params}, nil)
}

// waitCmd waits for a command of this method on this session.
func (p *fakePeer) waitCmd(method string, sid target.SessionID) {
	p.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case m := <-p.cmds:
			if string(m.Method) == method && m.SessionID == sid {
				return
			}
		case <-deadline:
			p.t.Fatalf("no %s on %q", method, sid)
		}
	}
}

// sent lists the methods sent on session sid so far, in order.
func (p *fakePeer) sent(sid target.SessionID) []string {
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

// onFail sets which commands are answered with an error.
func (p *fakePeer) onFail(f func(m cdproto.Message) string) {
	p.mu.Lock()
	p.fail = f
	p.mu.Unlock()
}
