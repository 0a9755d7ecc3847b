package page

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/cdproto"

	"github.com/lyrad/lyrad/cdpconn"
	"github.com/lyrad/lyrad/internal/cdptest"
)

func TestIsBadSelector(t *testing.T) {
	bad := &ScriptError{Text: "Error: lyrad:badselector div["}
	if !IsBadSelector(bad) || !IsBadSelector(fmt.Errorf("wait: %w", bad)) {
		t.Fatal("a rejected selector is not recognised")
	}
	if IsBadSelector(&ScriptError{Text: "TypeError: x is undefined"}) || IsBadSelector(errors.New("lyrad:badselector")) || IsBadSelector(nil) {
		t.Fatal("an error that is not our page-side rejection counts as a bad selector")
	}
}

// TestWaitLooksOnceWhateverTheTimeout: a wait whose time is gone before
// its first look (timeout_ms 1 on a loaded machine) still looks at the
// page once, and a condition that holds already is met.
func TestWaitLooksOnceWhateverTheTimeout(t *testing.T) {
	looks, met := 0, true
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		switch msg.Method {
		case "Page.createIsolatedWorld":
			fc.Reply(msg, map[string]any{"executionContextId": 7})
		case "Runtime.callFunctionOn":
			looks++
			fc.Reply(msg, map[string]any{"result": map[string]any{"type": "object", "value": map[string]any{"met": met}}})
		default:
			fc.Reply(msg, map[string]any{})
		}
	})
	dctx, dcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer dcancel()
	conn, err := cdpconn.Dial(dctx, f.URL, cdpconn.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Abort)
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	var w Worlds
	if _, err := WaitInPage(ctx, conn, &w, Tab{ID: "T1", Session: "S1"}, "text", "Ready now", "visible"); err != nil {
		t.Fatalf("a wait out of time before its first look: %v (looks: %d)", err, looks)
	}
	if looks != 1 {
		t.Fatalf("%d looks, want 1", looks)
	}
	// Not met: out of time, never an answer of met (the deadline may
	// have passed before ctx's timer fired).
	met = false
	short, cancel2 := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel2()
	if _, err := WaitInPage(short, conn, &w, Tab{ID: "T1", Session: "S1"}, "selector", "#nope", "visible"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a wait not met in its time answered %v, want the deadline", err)
	}
	url, err := WaitURL(ctx, conn, Tab{ID: "T1", Session: "S1"}, "**/here", func(ctx context.Context) string {
		if ctx.Err() != nil {
			return ""
		}
		return "http://127.0.0.1/here"
	})
	if err != nil || url != "http://127.0.0.1/here" {
		t.Fatalf("a URL wait out of time before its first look: %q, %v", url, err)
	}
}
