package page

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpconn"
)

// The watcher is replayed from CDP event sequences recorded from lyrad
// driving Chromium 156 (testdata/watch): each line is one event the
// watcher took, in order, or a note of what lyrad's side saw at that point
// ("lyrad.drained": the page ran what the input queued; "lyrad.refused":
// the guard's refusal of a navigation on a tab was on record;
// "lyrad.frameOf": an opener was one of the tab's frames). The events are
// fed in their order as fast as the watcher takes them, so the outcome
// does not depend on how loaded the machine is.

type recorded struct {
	Session target.SessionID `json:"session"`
	Method  string           `json:"method"`
	Params  json.RawMessage  `json:"params"`
}

// fakeGuard is the guard's view as the recording says it was.
type fakeGuard struct {
	mu      sync.Mutex
	refused map[target.ID]bool
	closed  map[target.ID]bool
	frames  map[target.ID]bool
}

func (g *fakeGuard) Refused(tab target.ID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.refused[tab]
}

func (g *fakeGuard) Open(id target.ID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return !g.closed[id]
}

func (g *fakeGuard) FrameOf(tab, id target.ID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.frames[id]
}

type replay struct {
	w       *Watcher
	drained chan bool
	start   func()
}

// replayOf loads a recording and makes a watcher on its tab. start feeds
// it.
func replayOf(t *testing.T, name string) *replay {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "watch", name+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []recorded
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r recorded
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, r)
	}
	g := &fakeGuard{refused: map[target.ID]bool{}, closed: map[target.ID]bool{}, frames: map[target.ID]bool{}}
	var tab target.ID
	var tabSession target.SessionID
	for _, r := range evs {
		var p struct {
			Tab target.ID `json:"tab"`
			ID  target.ID `json:"id"`
		}
		_ = json.Unmarshal(r.Params, &p)
		switch r.Method {
		case "lyrad.watch":
			tab, tabSession = p.Tab, r.Session
		case "lyrad.frameOf":
			g.frames[p.ID] = true
		}
	}
	if tab == "" {
		t.Fatal("the recording names no tab")
	}
	ch := make(chan cdpconn.Event, len(evs))
	rp := &replay{drained: make(chan bool)}
	rp.w = newWatcher(ch, func() {}, g, tab, tabSession)
	rp.start = func() {
		go func() {
			for _, r := range evs {
				var p struct {
					Tab target.ID `json:"tab"`
				}
				_ = json.Unmarshal(r.Params, &p)
				switch r.Method {
				case "lyrad.drained":
					close(rp.drained)
				case "lyrad.refused":
					g.mu.Lock()
					g.refused[p.Tab] = true
					g.mu.Unlock()
				case "lyrad.closed":
					g.mu.Lock()
					g.closed[p.Tab] = true
					g.mu.Unlock()
				default:
					if !strings.HasPrefix(r.Method, "lyrad.") {
						ch <- cdpconn.Event{SessionID: r.Session, Method: r.Method, Params: jsonv2.Value(r.Params)}
					}
				}
			}
		}()
	}
	return rp
}

func (rp *replay) settle(t *testing.T) (Outcome, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	rp.start()
	o := rp.w.Settle(ctx, 10*time.Millisecond, rp.drained)
	if ctx.Err() != nil {
		t.Fatalf("Settle ran out of time: %+v", o)
	}
	return o, time.Since(start)
}

// A click on a same-site link: followed until the new page is there.
func TestSettleNavigation(t *testing.T) {
	o, _ := replayOf(t, "click_navigation").settle(t)
	if !o.Navigated || o.NavPending || o.TabClosed || len(o.Popups) != 0 {
		t.Errorf("outcome %+v, want navigated", o)
	}
}

// A link whose redirect hop the guard refused: the refusal ends the wait,
// and nothing committed.
func TestSettleRefusedHop(t *testing.T) {
	rp := replayOf(t, "refused_hop")
	o, _ := rp.settle(t)
	if o.Navigated || o.NavPending || len(o.Popups) != 0 {
		t.Errorf("outcome %+v, want nothing committed", o)
	}
	if !rp.w.env.Refused(rp.w.tab) {
		t.Error("Settle ended before the refusal was on record")
	}
}

// A link with target=_blank: the tab it opened is followed until its first
// document is there.
func TestSettlePopup(t *testing.T) {
	rp := replayOf(t, "popup")
	o, _ := rp.settle(t)
	if len(o.Popups) != 1 || o.Popups[0].Refused || o.NavPending || o.Navigated {
		t.Fatalf("outcome %+v, want one popup, loaded", o)
	}
	if p := rp.w.popups[o.Popups[0].ID]; p == nil || p.loader == "" || !p.done {
		t.Errorf("the popup was not followed to its first document: %+v", p)
	}
}

// A button raising an alert (answered by the session's dialog listener):
// nothing for the watcher to follow.
func TestSettleDialog(t *testing.T) {
	o, _ := replayOf(t, "dialog").settle(t)
	if o.Navigated || o.NavPending || o.TabClosed || len(o.Popups) > 0 {
		t.Errorf("outcome %+v, want nothing", o)
	}
}

// A button that only changes the page: Settle returns once the linger has
// passed and the page ran what the input queued.
func TestSettleNothing(t *testing.T) {
	rp := replayOf(t, "nothing")
	o, took := rp.settle(t)
	if o.Navigated || o.NavPending || o.TabClosed || len(o.Popups) > 0 {
		t.Errorf("outcome %+v, want nothing", o)
	}
	select {
	case <-rp.drained:
	default:
		t.Error("Settle returned before the page ran what the input queued")
	}
	if took < 10*time.Millisecond {
		t.Errorf("Settle returned after %v, before its linger", took)
	}
}

// navigate's load: the document's response and its lifecycle event.
func TestLoadNavigation(t *testing.T) {
	rp := replayOf(t, "navigate_load")
	rp.start()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := rp.w.Load(ctx, LoadSpec{Loader: "C2562426EC2B923FBDC86A78D79DFD63", WaitUntil: "load"})
	if err != nil {
		t.Fatal(err)
	}
	if r.HTTPStatus == nil || *r.HTTPStatus != 200 || r.ContentType == nil || *r.ContentType != "text/html" || r.FromCache || r.Stayed {
		t.Errorf("load: %+v", r)
	}
}

// A history step names no loader: the next document the main frame
// commits is adopted, and waited for.
func TestLoadAdoptsNextDocument(t *testing.T) {
	rp := replayOf(t, "click_navigation")
	rp.start()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := rp.w.Load(ctx, LoadSpec{WaitUntil: "load", History: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.HTTPStatus != nil || r.FromCache || r.SameDocument {
		t.Errorf("load: %+v", r)
	}
	// And a load that never comes ends with the context.
	rp = replayOf(t, "nothing")
	rp.start()
	ctx, cancel = context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := rp.w.Load(ctx, LoadSpec{WaitUntil: "load"}); err != ErrLoadTimeout {
		t.Errorf("a load that never came: %v", err)
	}
}

// A check that reports a refusal ends the load with it.
func TestLoadCheckEndsIt(t *testing.T) {
	rp := replayOf(t, "refused_hop")
	rp.start()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	refusal := errorString("refused")
	_, err := rp.w.Load(ctx, LoadSpec{WaitUntil: "load", Check: func() error {
		if rp.w.env.Refused(rp.w.tab) {
			return refusal
		}
		return nil
	}})
	if err != refusal {
		t.Errorf("Load answered %v, want the check's refusal", err)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// A page that closed itself (the drain saw window.closed) is waited for
// until its tab goes, however late the browser reports it; one that did
// not is not.
func TestSettleWaitsForASelfClosingTab(t *testing.T) {
	for _, closing := range []bool{true, false} {
		ch := make(chan cdpconn.Event, 1)
		g := &fakeGuard{refused: map[target.ID]bool{}, closed: map[target.ID]bool{}, frames: map[target.ID]bool{}}
		w := newWatcher(ch, func() {}, g, "T1", "S1")
		drained := make(chan bool, 1)
		if closing {
			drained <- true
		}
		close(drained)
		// Settle without a closing page ends some 12 ms in: a second
		// leaves room on a loaded machine.
		gone := time.AfterFunc(time.Second, func() {
			ch <- cdpconn.Event{Method: "Target.detachedFromTarget", Params: []byte(`{"sessionId":"S1","targetId":"T1"}`)}
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		o := w.Settle(ctx, 10*time.Millisecond, drained)
		cancel()
		gone.Stop()
		if o.TabClosed != closing {
			t.Errorf("closing=%v: TabClosed %v", closing, o.TabClosed)
		}
	}
}
