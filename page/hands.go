package page

import (
	"bytes"
	"context"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// Real input at the window: a listener in lyrad's isolated world of every
// document tells lyrad of each trusted pointer press and key press
// (Runtime.bindingCalled of inputBindingName). A page cannot make a trusted
// event, and cannot see or call the binding (it exists in lyrad's world
// only); lyrad's own Input.* commands are trusted too, so whoever reads
// these tells them apart by when lyrad last sent one
// (cdpconn.Conn.InputAt).
//
// Chrome adds a binding named for a world only to the contexts of that
// world that exist when Runtime.addBinding is called (with no
// Runtime.enable, which lyrad never sends): bindInput is sent again each
// time a frame commits a document. The listener looks the binding up at
// each event, so one a document had before it was bound is not reported
// (a press in the moment between a document's commit and the bind).

// inputBindingName is the binding the listener reports through.
const inputBindingName = "__lyradInput"

// inputWatch runs at the start of every document, before its own scripts,
// in lyrad's world: capturing on the window, where an event's dispatch
// begins, passive, changing nothing the page sees. It calls the binding by
// its name, inputBindingName.
var inputWatch = script("input_watch.js")

// Sender sends a command without waiting for its reply.
type Sender interface {
	Send(method string, params any)
}

// WatchInput installs the listener in every document the target will load
// and in those it has, then binds it.
func WatchInput(q Sender) {
	now := true
	q.Send(cdppage.AddScriptToEvaluateOnNewDocument.Method, cdppage.AddScriptToEvaluateOnNewDocumentParams{
		Source: inputWatch, WorldName: WorldName, RunImmediately: &now,
	})
	bindInput(q)
}

// bindInput adds the binding to the target's lyrad worlds that exist now.
func bindInput(q Sender) {
	q.Send(runtime.AddBinding.Method, runtime.AddBindingParams{Name: inputBindingName, ExecutionContextName: WorldName})
}

var inputBinding = []byte(`"` + inputBindingName + `"`)

// ObserveInput tells pressed of each real press the listener reports, on
// the connection's reader (so a press is known before any request the
// browser tells of after it), and binds the listener again in each
// document a frame commits, until ctx ends or the connection does. failed
// hears of a bind the browser refused for another reason than its target
// going away. stop stops hearing.
func ObserveInput(ctx context.Context, conn *cdpconn.Conn, pressed func(time.Time), failed func(error)) (stop func()) {
	var mu sync.Mutex
	rebind := map[target.SessionID]bool{}
	kick := make(chan struct{}, 1)
	stop = conn.Observe(func(ev cdpconn.Event) {
		switch ev.Method {
		case runtime.BindingCalled.Method:
			if !bytes.Contains(ev.Params, inputBinding) {
				return
			}
			var w struct {
				Name string `json:"name"`
			}
			if jsonv2.Unmarshal(ev.Params, &w) != nil || w.Name != inputBindingName {
				return
			}
			pressed(time.Now())
		case cdppage.FrameNavigated.Method:
			mu.Lock()
			rebind[ev.SessionID] = true
			mu.Unlock()
			select {
			case kick <- struct{}{}:
			default:
			}
		}
	}, runtime.BindingCalled.Method, cdppage.FrameNavigated.Method)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-conn.Done():
				return
			case <-kick:
			}
			mu.Lock()
			todo := rebind
			rebind = map[target.SessionID]bool{}
			mu.Unlock()
			for sid := range todo {
				bindInput(asyncSender{conn.Session(sid), failed})
			}
		}
	}()
	return stop
}

// asyncSender sends without waiting; an error other than the target going
// away goes to failed.
type asyncSender struct {
	s      *cdpconn.Session
	failed func(error)
}

func (a asyncSender) Send(method string, params any) {
	done := func(err error) {
		if err != nil && !cdpconn.IsTargetGone(err) && a.failed != nil {
			a.failed(err)
		}
	}
	if err := a.s.SendAsync(method, params, done); err != nil {
		done(err)
	}
}
