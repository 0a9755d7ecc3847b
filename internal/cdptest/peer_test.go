package cdptest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/coder/websocket"
)

// TestPeerAnswersAndKeepsOrder: the default handler answers each command
// with an empty result or the error OnFail names; commands are kept in
// arrival order, handed out once by Next, and an event reaches the client.
func TestPeerAnswersAndKeepsOrder(t *testing.T) {
	p := New(t, nil)
	p.OnFail(func(m cdproto.Message) string {
		if m.Method == "Bad.call" {
			return "no such thing"
		}
		return ""
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, p.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	read := func() cdproto.Message {
		t.Helper()
		_, b, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m cdproto.Message
		if err := jsonv2.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	for i, c := range []string{`{"id":1,"method":"Good.call"}`, `{"id":2,"method":"Bad.call","sessionId":"S1"}`, `{"id":3,"method":"Good.call","sessionId":"S1"}`} {
		if err := ws.Write(ctx, websocket.MessageText, []byte(c)); err != nil {
			t.Fatal(err)
		}
		m := read()
		if m.ID != int64(i+1) || (m.Error != nil) != (i == 1) {
			t.Fatalf("answer %d: %+v", i+1, m)
		}
	}
	if got := p.Sent("S1"); !slices.Equal(got, []string{"Bad.call", "Good.call"}) {
		t.Errorf("Sent(S1) = %v", got)
	}
	if m := p.WaitCmd("Bad.call", "S1"); m.ID != 2 {
		t.Errorf("WaitCmd = %+v", m)
	}
	if m, ok := p.Next(ctx); !ok || m.ID != 3 {
		t.Errorf("Next after WaitCmd = %+v %v", m, ok)
	}
	short, stop := context.WithTimeout(ctx, 50*time.Millisecond)
	defer stop()
	if m, ok := p.Next(short); ok {
		t.Errorf("Next handed out %+v twice", m)
	}
	p.Event("S1", "Page.loadEventFired", map[string]any{"timestamp": 1})
	if m := read(); m.Method != "Page.loadEventFired" || m.SessionID != "S1" {
		t.Errorf("event = %+v", m)
	}
}
