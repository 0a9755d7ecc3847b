package session

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/chrome"
	"github.com/lyrad/lyrad/datadir"
	"github.com/lyrad/lyrad/internal/testenv"
	"github.com/lyrad/lyrad/page"
)

// testBrowser opens a headless guarded browser on a temp data dir, under
// the harness's rule (testenv.Browser: skips under -short, fails in CI when
// Open would find no browser).
func testBrowser(t *testing.T) (*Manager, *Browser, Caller) {
	t.Helper()
	testenv.Browser(t, func() (string, error) {
		f, err := chrome.Find("", "")
		return f.Path, err
	})
	headless := true
	m := New(Config{Data: datadir.New(t.TempDir()), Headless: &headless, ConsentChannel: ConsentOff})
	t.Cleanup(m.Shutdown)
	c := Caller{ID: "test"}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := m.Open(ctx, c); err != nil {
		t.Fatal(err)
	}
	b := m.own.current()
	return m, b, c
}

func TestIsolatedWorld(t *testing.T) {
	m, b, c := testBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := m.Navigate(ctx, c, `data:text/html,<title>T</title><script>window.pageSecret=42</script><button id=b>Go</button>`, "load", Intent{}); err != nil {
		t.Fatal(err)
	}
	tab, _ := b.activePage(ctx)
	s := b.conn.Session(tab.SessionID)
	frame := cdp.FrameID(tab.ID)

	var got struct {
		Title  string `json:"title"`
		Secret any    `json:"secret"`
		Sum    int    `json:"sum"`
	}
	err := b.worlds.CallFunction(ctx, s, frame, `function(a, b) { return {title: document.title, secret: window.pageSecret ?? null, sum: a + b} }`, &got, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	// The DOM is shared; the page's globals are not.
	if got.Title != "T" || got.Secret != nil || got.Sum != 5 {
		t.Errorf("isolated world saw %+v", got)
	}

	doc, err := cdp.Call(ctx, s, dom.GetDocument, dom.GetDocumentParams{})
	if err != nil {
		t.Fatal(err)
	}
	q, err := cdp.Call(ctx, s, dom.QuerySelector, dom.QuerySelectorParams{NodeID: doc.Root.NodeID, Selector: "#b"})
	if err != nil {
		t.Fatal(err)
	}
	desc, err := cdp.Call(ctx, s, dom.DescribeNode, dom.DescribeNodeParams{NodeID: q.NodeID})
	if err != nil {
		t.Fatal(err)
	}
	var text string
	if err := b.worlds.CallOnNode(ctx, s, frame, desc.Node.BackendNodeID, `function() { return this.textContent }`, &text); err != nil {
		t.Fatal(err)
	}
	if text != "Go" {
		t.Errorf("node text %q", text)
	}

	// After a navigation the cached context is gone; the call recovers.
	if _, err := m.Navigate(ctx, c, `data:text/html,<title>Second</title>`, "load", Intent{}); err != nil {
		t.Fatal(err)
	}
	if err := b.worlds.CallFunction(ctx, s, frame, `function() { return {title: document.title} }`, &got); err != nil || got.Title != "Second" {
		t.Errorf("after navigation: %+v %v", got, err)
	}
	var se *page.ScriptError
	if err := b.worlds.CallFunction(ctx, s, frame, `function() { throw new Error("boom") }`, nil); err == nil || !asScript(err, &se) {
		t.Errorf("exception: %v", err)
	}
}

func asScript(err error, se **page.ScriptError) bool {
	e, ok := err.(*page.ScriptError)
	*se = e
	return ok
}

// A closed tab takes its isolated world with it: a day of tabs opened and
// closed leaves the cache as it found it.
func TestClosedTabsLeaveNoWorlds(t *testing.T) {
	m, b, c := testBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := m.Navigate(ctx, c, `data:text/html,<title>Main</title>`, "load", Intent{}); err != nil {
		t.Fatal(err)
	}
	main, _ := b.activePage(ctx)
	if err := b.worlds.CallFunction(ctx, b.conn.Session(main.SessionID), cdp.FrameID(main.ID), `function() { return 1 }`, nil); err != nil {
		t.Fatal(err)
	}
	before := b.worlds.Len()
	for i := 0; i < 5; i++ {
		res, err := cdp.Call(ctx, b.conn.Browser(), target.CreateTarget, target.CreateTargetParams{URL: "about:blank"})
		if err != nil {
			t.Fatal(err)
		}
		var tab cdpguard.Target
		testenv.WaitFor(t, "the new tab to be guarded", 20*time.Second, func() bool { var ok bool; tab, ok = b.guardSet().Page(res.TargetID); return ok })
		if err := b.worlds.CallFunction(ctx, b.conn.Session(tab.SessionID), cdp.FrameID(tab.ID), `function() { return 2 }`, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := cdp.Call(ctx, b.conn.Browser(), target.CloseTarget, target.CloseTargetParams{TargetID: tab.ID}); err != nil {
			t.Fatal(err)
		}
		testenv.WaitFor(t, "the closed tab to be let go", 20*time.Second, func() bool { _, ok := b.guardSet().Page(res.TargetID); return !ok })
	}
	testenv.WaitFor(t, "the closed tabs' worlds to leave the cache", 20*time.Second, func() bool { return b.worlds.Len() == before })
}
