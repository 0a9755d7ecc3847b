package cdpconn

import (
	"bytes"
	"context"
	"encoding/base64"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/coder/websocket"

	"github.com/lyrad/lyrad/internal/cdptest"
)

// TestHugeRequestPausedEvent streams a ~100 MB Fetch.requestPaused message (a
// 40+ MB upload as Chrome sends it: postData plus postDataEntries in base64)
// and checks that the event arrives without the body and that the client
// never holds a copy of the whole message.
func TestHugeRequestPausedEvent(t *testing.T) {
	const (
		postDataSize = 42 << 20 // bytes of the JSON string content
		entrySize    = 58 << 20 // bytes of base64
		chunk        = 1 << 20
	)
	// Body content with escapes, so that the filter's string scanning is
	// exercised across chunk boundaries; len(unit) divides chunk.
	unit := []byte(`ab\"c\\d\u00e9/xyz0123456789 ` + "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
	unit = append(unit, bytes.Repeat([]byte("-"), 128-len(unit))...)
	textChunk := bytes.Repeat(unit, chunk/len(unit))
	b64Chunk := []byte(base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xfb, 0xef, 0xbe}, chunk/4))) // chunk bytes, no padding
	prefix := `{"method":"Fetch.requestPaused","params":{"requestId":"interception-job-1.0","request":{"url":"https://example.test/upload","method":"POST","headers":{"Content-Type":"multipart/form-data; boundary=x"},"postData":"`
	middle := `","hasPostData":true,"postDataEntries":[{"bytes":"`
	suffix := `"},{"bytes":"QQ=="}],"initialPriority":"VeryHigh","referrerPolicy":"strict-origin-when-cross-origin"},"frameId":"F1","resourceType":"Document","networkId":"N1"},"sessionId":"S1"}`

	var size atomic.Int64
	f := cdptest.New(t, func(fc *cdptest.Conn, msg cdproto.Message) {
		if msg.Method != "Test.sendBig" {
			fc.Reply(msg, struct{}{})
			return
		}
		// Streamed in frames, so that the server side holds no 100 MB buffer
		// in this process's heap either.
		w, err := fc.WS().Writer(context.Background(), websocket.MessageText)
		if err != nil {
			t.Error(err)
			return
		}
		n := 0
		write := func(b []byte) {
			m, err := w.Write(b)
			n += m
			if err != nil {
				t.Error(err)
			}
		}
		write([]byte(prefix))
		for range postDataSize / chunk {
			write(textChunk)
		}
		write([]byte(middle))
		for range entrySize / chunk {
			write(b64Chunk)
		}
		write([]byte(suffix))
		if err := w.Close(); err != nil {
			t.Error(err)
		}
		size.Store(int64(n))
		fc.Reply(msg, struct{}{})
	})
	c, _ := dial(t, f, Options{})
	events, cancel := c.Subscribe("Fetch.requestPaused")
	defer cancel()

	// Sample the peak heap while the message streams.
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()

	ctx, cancelCtx := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancelCtx()
	start := time.Now()
	if err := c.Browser().Call(ctx, "Test.sendBig", nil, nil); err != nil {
		t.Fatal(err)
	}
	var ev Event
	select {
	case ev = <-events:
	case <-ctx.Done():
		t.Fatal("no event")
	}
	elapsed := time.Since(start)
	close(stop)
	<-sampled
	var after runtime.MemStats
	runtime.ReadMemStats(&after)

	msgSize := size.Load()
	totalAlloc := after.TotalAlloc - before.TotalAlloc
	peakGrowth := int64(peak.Load()) - int64(before.HeapInuse)
	t.Logf("message %.1f MB in %v: TotalAlloc delta %.2f MB (%.3fx), peak HeapInuse growth %.2f MB (%.3fx), params kept %d bytes",
		float64(msgSize)/1e6, elapsed.Round(time.Millisecond),
		float64(totalAlloc)/1e6, float64(totalAlloc)/float64(msgSize),
		float64(peakGrowth)/1e6, float64(peakGrowth)/float64(msgSize), len(ev.Params))

	if msgSize < 95e6 {
		t.Fatalf("message only %d bytes", msgSize)
	}
	if totalAlloc > uint64(2*msgSize) {
		t.Errorf("allocated %d bytes for a %d byte message (>2x)", totalAlloc, msgSize)
	}

	if ev.Method != "Fetch.requestPaused" || ev.SessionID != "S1" {
		t.Fatalf("event %s on %q", ev.Method, ev.SessionID)
	}
	if len(ev.Params) > 4096 {
		t.Fatalf("params still %d bytes", len(ev.Params))
	}
	if s := string(ev.Params); strings.Contains(s, "postData\"") || strings.Contains(s, "postDataEntries") {
		t.Fatalf("postData kept: %s", s)
	}
	var p fetch.EventRequestPaused
	if err := jsonv2.Unmarshal(ev.Params, &p); err != nil {
		t.Fatal(err)
	}
	if !p.Request.HasPostData || p.Request.URL != "https://example.test/upload" || p.Request.Method != "POST" ||
		p.FrameID != "F1" || p.RequestID != "interception-job-1.0" || p.NetworkID != "N1" {
		t.Fatalf("params lost fields: %s", ev.Params)
	}
	// The connection still works.
	if err := c.Browser().Call(ctx, "Test.ping", nil, nil); err != nil {
		t.Fatal(err)
	}
}
