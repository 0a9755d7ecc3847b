package cdpguard

import (
	"context"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/fetch"
	"github.com/coder/websocket"

	"github.com/lyrad/lyrad/internal/cdptest"
)

// pausedRequest and pausedRedirect are Fetch.requestPaused params as
// Chromium 156 sends them for a navigation hop at the request stage and
// for its 302 at the response stage; REQ stands for the request id.
const (
	pausedRequest  = `{"requestId":"REQ","request":{"url":"http://127.0.0.1:42105/hop/0/c2","method":"GET","headers":{"Accept":"text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7","Upgrade-Insecure-Requests":"1","User-Agent":"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36","sec-ch-ua":"\"Not:A-Brand\";v=\"8\", \"Chromium\";v=\"156\"","sec-ch-ua-mobile":"?0","sec-ch-ua-platform":"\"Linux\""},"initialPriority":"VeryHigh","referrerPolicy":"strict-origin-when-cross-origin"},"frameId":"T1","resourceType":"Document","networkId":"4DA691595FA7EA479F11FB41CB6F8FBF","redirectedRequestId":"interception-job-12.4"}`
	pausedRedirect = `{"requestId":"REQ","request":{"url":"http://127.0.0.1:42105/hop/1/c2","method":"GET","headers":{"Accept":"text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7","Upgrade-Insecure-Requests":"1","User-Agent":"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36"},"initialPriority":"VeryHigh","referrerPolicy":"strict-origin-when-cross-origin"},"frameId":"T1","resourceType":"Document","responseStatusCode":302,"responseStatusText":"Found","responseHeaders":[{"name":"Content-Type","value":"text/html; charset=utf-8"},{"name":"Location","value":"/hop/0/c2"},{"name":"Date","value":"Tue, 01 Dec 2026 21:21:14 GMT"},{"name":"Content-Length","value":"32"}],"networkId":"4DA691595FA7EA479F11FB41CB6F8FBF","redirectedRequestId":"interception-job-12.3"}`
)

// BenchmarkPauseAnswered times a paused request from the moment a fake
// browser sends it to the moment it reads the answer (its own decode and
// reply included): plain is a client that continues every pause at once, as
// lyrad-bench's plain CDP does; request and response are the guard, judging
// a navigation hop and looking at a redirect's response. The difference is
// the guard's own share of a pause.
//
//	go test -run XXX -bench PauseAnswered -benchtime 3000x -count 5 ./cdpguard
func BenchmarkPauseAnswered(b *testing.B) {
	for _, c := range []struct{ name, params string }{{"plain", pausedRequest}, {"request", pausedRequest}, {"response", pausedRedirect}} {
		b.Run(c.name, func(b *testing.B) {
			p, conn := newFakePeer(b)
			if c.name == "plain" {
				s := conn.Session("S1")
				paused, stop := s.Subscribe(fetch.RequestPaused.Method)
				defer stop()
				go func() {
					for ev := range paused {
						var e fetch.EventRequestPaused
						if jsonv2.Unmarshal(ev, &e) == nil {
							go cdp.Call(context.Background(), s, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: e.RequestID})
						}
					}
				}()
				benchPauses(b, p, c.params)
				return
			}
			g, err := Start(context.Background(), conn, Options{
				Decide:         func(context.Context, Request) Verdict { return Verdict{Allow: true, Reason: "bench"} },
				OnDecision:     func(Request, Verdict, time.Duration) {},
				RefuseResponse: func(Response) bool { return false },
			})
			if err != nil {
				b.Fatal(err)
			}
			defer g.Stop()
			p.Send(map[string]any{"method": "Target.attachedToTarget", "params": map[string]any{"sessionId": "S1", "waitingForDebugger": true,
				"targetInfo": map[string]any{"targetId": "T1", "type": "page", "url": "http://127.0.0.1:42105/", "title": "", "attached": true, "canAccessOpener": false}}})
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
				if _, ok := g.Page("T1"); ok {
					break
				}
				if time.Now().After(deadline) {
					b.Fatal("T1 never became ready")
				}
			}
			benchPauses(b, p, c.params)
		})
	}
}

func benchPauses(b *testing.B, p *cdptest.Peer, params string) {
	p.Skip() // the setup's commands
	ws := p.Conn().WS()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	b.ResetTimer()
	cpu0 := cpuSeconds()
	defer func() {
		// The process's CPU per pause, fake browser included: what the
		// guard's work takes from a machine it shares with the browser.
		b.ReportMetric((cpuSeconds()-cpu0)*1e9/float64(b.N), "cpu-ns/op")
	}()
	for i := 0; i < b.N; i++ {
		id := "job-" + strconv.Itoa(i)
		msg := `{"method":"Fetch.requestPaused","sessionId":"S1","params":` + strings.Replace(params, "REQ", id, 1) + `}`
		if err := ws.Write(context.Background(), websocket.MessageText, []byte(msg)); err != nil {
			b.Fatal(err)
		}
		for {
			m, ok := p.Next(ctx)
			if !ok {
				b.Fatal("no Fetch.continueRequest")
			}
			if m.Method == "Fetch.continueRequest" {
				break
			}
		}
	}
}

// cpuSeconds is the CPU time the Go runtime counts for this process so far
// (user code and garbage collection; an estimate).
func cpuSeconds() float64 {
	s := []metrics.Sample{{Name: "/cpu/classes/user:cpu-seconds"}, {Name: "/cpu/classes/gc/total:cpu-seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64() + s[1].Value.Float64()
}
