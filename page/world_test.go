package page

import (
	"fmt"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
)

// A day of tabs opened, used and closed: the cache of isolated worlds
// follows the frames still there, not every frame it has seen.
func TestWorldsDropGoneFrames(t *testing.T) {
	live := map[cdp.FrameID]bool{}
	w := &Worlds{Live: func(sid target.SessionID, f cdp.FrameID) bool { return live[f] }}
	for i := range 3 { // tabs that stay open all day
		f := cdp.FrameID(fmt.Sprintf("keep-%d", i))
		live[f] = true
		w.put(f, "S-keep", runtime.ExecutionContextID(i+1))
	}
	for i := range 10000 {
		f := cdp.FrameID(fmt.Sprintf("tab-%d", i))
		live[f] = true
		w.put(f, target.SessionID(fmt.Sprintf("S%d", i)), runtime.ExecutionContextID(100+i))
		delete(live, f) // closed
		if n := w.Len(); n > 2*minPrune+3 {
			t.Fatalf("after %d closed tabs the cache holds %d worlds", i+1, n)
		}
	}
	w.Prune()
	if n := w.Len(); n != 3 {
		t.Fatalf("%d worlds left after a prune, want the 3 live frames'", n)
	}
	for i := range 3 {
		if e, ok := w.ctx[cdp.FrameID(fmt.Sprintf("keep-%d", i))]; !ok || e.id != runtime.ExecutionContextID(i+1) {
			t.Errorf("live frame %d lost its world: %v", i, e)
		}
	}
}

// Without Live nothing is known to be gone, and nothing is dropped.
func TestWorldsWithoutLiveKeepAll(t *testing.T) {
	var w Worlds
	for i := range 200 {
		w.put(cdp.FrameID(fmt.Sprint(i)), "S", runtime.ExecutionContextID(i))
	}
	w.Prune()
	if w.Len() != 200 {
		t.Fatalf("%d worlds kept, want 200", w.Len())
	}
}
