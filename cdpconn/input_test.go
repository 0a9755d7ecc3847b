package cdpconn

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto"

	"github.com/lyrad/lyrad/internal/cdptest"
)

// TestInputAt: lyrad's own input is timed from its write to its reply,
// whoever still waits for that reply; an unanswered one counts as
// arriving now; other commands do not count.
func TestInputAt(t *testing.T) {
	held := make(chan cdproto.Message, 1)
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		if strings.HasPrefix(string(msg.Method), "Input.") {
			held <- msg // answered when the test says
			return
		}
		fc.Reply(msg, map[string]any{})
	})
	c, fc := dial(t, f, Options{})
	if !c.InputAt().IsZero() {
		t.Fatal("input before any was sent")
	}
	if err := c.Session("S1").Call(ctxT(t), "Page.navigate", map[string]string{"url": "data:,x"}, nil); err != nil {
		t.Fatal(err)
	}
	if !c.InputAt().IsZero() {
		t.Fatal("a navigation counted as input")
	}

	// The caller gives up; the press is still on its way.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_ = c.Session("S1").Call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": "mousePressed"}, nil)
	msg := <-held
	time.Sleep(20 * time.Millisecond)
	if at := c.InputAt(); time.Since(at) > 10*time.Millisecond {
		t.Errorf("an unanswered input dated %v ago, want now", time.Since(at))
	}
	before := time.Now()
	fc.Reply(msg, map[string]any{})
	// The reply is read on the reader: wait for it by a later call.
	if err := c.Session("S1").Call(ctxT(t), "Page.enable", nil, nil); err != nil {
		t.Fatal(err)
	}
	at := c.InputAt()
	if at.Before(before) {
		t.Errorf("input dated %v, before its reply came (%v)", at, before)
	}
	time.Sleep(20 * time.Millisecond)
	if c.InputAt() != at {
		t.Error("an answered input still counts as arriving")
	}
	// A session that goes away answers nothing more.
	_, _ = c.Session("S2").Send("Input.dispatchKeyEvent", map[string]any{"type": "keyDown"})
	<-held
	fc.Event("", methodDetached, map[string]any{"sessionId": "S2", "targetId": "T2"})
	if err := c.Browser().Call(ctxT(t), "Browser.getVersion", nil, nil); err != nil {
		t.Fatal(err)
	}
	at = c.InputAt()
	time.Sleep(20 * time.Millisecond)
	if c.InputAt() != at {
		t.Error("the input of a detached session still counts as arriving")
	}
}
