package session

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"

	"github.com/lyrad/lyrad/page"
)

// afterDrainPage has a field and a button whose click (the page's own
// handler) changes the field and adds a heading a page timer of 20 ms
// later: what a read queued behind a drain timed 60 ms after must see
// (the page runs its timers in the order they are due, however slow the
// machine).
const afterDrainPage = `data:text/html,<title>D</title><input id=f value=before><button id=go onclick="setTimeout(() => { f.value = 'after'; document.body.insertAdjacentHTML('beforeend', '<h2>Timed heading</h2>') }, 20)">Go</button>`

// testPage is testBrowser on url, loaded, with its tab.
func testPage(t *testing.T, ctx context.Context, url string) (*Manager, *Browser, Caller, page.Tab) {
	t.Helper()
	m, b, c := testBrowser(t)
	if _, err := m.Navigate(ctx, c, url, "load", Intent{}); err != nil {
		t.Fatal(err)
	}
	tab, err := b.activePage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return m, b, c, b.pageTab(tab)
}

// afterDrainSetup opens afterDrainPage and finds its field, held in group.
func afterDrainSetup(t *testing.T, ctx context.Context) (*Browser, page.Tab, *page.Node, string) {
	t.Helper()
	_, b, _, pt := testPage(t, ctx, afterDrainPage)
	group := page.NewActGroup()
	found, err := page.Locate(ctx, b.conn, &b.worlds, pt, "css", "#f", group)
	if err != nil || found.Node == nil {
		t.Fatalf("locate #f: %v %+v", err, found)
	}
	if found.State == nil || !found.State.TextField || found.State.Tag != "input" {
		t.Fatalf("the state read behind the locate is %+v, want an input text field", found.State)
	}
	return b, pt, found.Node, group
}

// press runs the page's button handler (the timer it sets is the page's).
func press(t *testing.T, ctx context.Context, b *Browser, tab page.Tab) {
	t.Helper()
	if err := b.worlds.CallFunction(ctx, b.conn.Session(tab.Session), tab.Main(), `function() { document.getElementById('go').click() }`, nil); err != nil {
		t.Fatal(err)
	}
}

// TestReadsQueuedBehindDrain: the field's value and the map read behind a
// drain see what the page's timer due before the drain's did, though both
// were sent before the drain answered.
func TestReadsQueuedBehindDrain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, tab, n, _ := afterDrainSetup(t, ctx)
	main := page.FrameRef{Session: tab.Session, Frame: tab.Main()}

	press(t, ctx, b, tab)
	d, err := page.StartDrain(ctx, b.conn, &b.worlds, main, 60*time.Millisecond, "")
	if err != nil {
		t.Fatal(err)
	}
	field := d.Field(n)
	pt := d.Tree(page.Region{}, nil)
	tree, err := page.ReadTreeAfter(ctx, b.conn, &b.worlds, tab, pt)
	if err != nil {
		t.Fatal(err)
	}
	v, err := field.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if closing, err := d.Result(); err != nil || closing {
		t.Errorf("drain: closing %v, err %v", closing, err)
	}
	if !v.IsField || v.Value != "after" {
		t.Errorf("field read behind the drain: %+v, want value \"after\"", v)
	}
	var heading bool
	for _, it := range tree.Items {
		if it.Role == "heading" && strings.Contains(it.Name, "Timed heading") {
			heading = true
		}
	}
	if !heading {
		t.Errorf("the map read behind the drain has no timed heading: %+v", tree.Items)
	}
}

// TestReadsQueuedBehindOtherDrain: a read queued behind a drain whose gate
// another drain replaced in the world does not run there: it is made again
// once its own drain answered, and still sees what the page did.
func TestReadsQueuedBehindOtherDrain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, tab, n, _ := afterDrainSetup(t, ctx)
	main := page.FrameRef{Session: tab.Session, Frame: tab.Main()}

	press(t, ctx, b, tab)
	d1, err := page.StartDrain(ctx, b.conn, &b.worlds, main, 60*time.Millisecond, "")
	if err != nil {
		t.Fatal(err)
	}
	d2, err := page.StartDrain(ctx, b.conn, &b.worlds, main, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	// Sent after d2's drain: the world's gate is d2's.
	field := d1.Field(n)
	tree, err := page.ReadTreeAfter(ctx, b.conn, &b.worlds, tab, d1.Tree(page.Region{}, nil))
	if err != nil {
		t.Fatal(err)
	}
	v, err := field.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d2.Result(); err != nil {
		t.Fatal(err)
	}
	if v.Value != "after" {
		t.Errorf("field read again after its drain: %+v, want value \"after\"", v)
	}
	if len(tree.Items) == 0 || !strings.Contains(itemNames(tree), "Timed heading") {
		t.Errorf("map read again after its drain has no timed heading: %s", itemNames(tree))
	}
}

func itemNames(t *page.Tree) string {
	var names []string
	for _, it := range t.Items {
		names = append(names, it.Role+" "+it.Name)
	}
	return strings.Join(names, ", ")
}

// TestNodeBackendWhenObjectGone: a located element is reached by its
// object, and its backendNodeId is asked for only when needed
// (Node.Backend). Asked for while the object is held, it finds the element
// again once the object is released; asked for only after, the element
// is said to be gone (never another element).
func TestNodeBackendWhenObjectGone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, tab, n, group := afterDrainSetup(t, ctx)
	s := b.conn.Session(tab.Session)
	if backend, err := n.Backend(ctx, b.conn); err != nil || backend == 0 {
		t.Fatalf("backend: %v, %v", backend, err)
	}
	if _, err := cdp.Call(ctx, s, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group}); err != nil {
		t.Fatal(err)
	}
	v, err := page.FieldValue(ctx, b.conn, &b.worlds, n)
	if err != nil || v.Value != "before" {
		t.Errorf("field value after its object was released: %+v, %v", v, err)
	}

	group2 := page.NewActGroup()
	found, err := page.Locate(ctx, b.conn, &b.worlds, tab, "css", "#f", group2)
	if err != nil || found.Node == nil {
		t.Fatalf("locate #f again: %v %+v", err, found)
	}
	if _, err := cdp.Call(ctx, s, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: group2}); err != nil {
		t.Fatal(err)
	}
	_, err = page.FieldValue(ctx, b.conn, &b.worlds, found.Node)
	var gone *page.NodeGoneError
	if !errors.As(err, &gone) {
		t.Errorf("field value of a node whose object went before its backendNodeId was asked for: %v, want NodeGoneError", err)
	}
}

// TestRefStateReadBehind: an element a ref names is found with its state,
// read by the call sent behind the question (page.FindElement).
func TestRefStateReadBehind(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, tab, _, _ := afterDrainSetup(t, ctx)
	tree, err := page.ReadTree(ctx, b.conn, &b.worlds, tab, page.Region{})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range tree.Items {
		var st page.ElementState
		n, err := page.ResolveRefNode(ctx, b.conn, &b.worlds, tree.Ref(it), page.NewActGroup(), &st)
		if err != nil || n == nil {
			t.Fatalf("%s %q: %v", it.Role, it.Name, err)
		}
		want := map[string]string{"textbox": "input", "button": "button"}[it.Role]
		if want == "" {
			continue
		}
		if st.Tag != want || st.TextField != (want == "input") || !st.Visible || !st.Connected {
			t.Errorf("%s %q: state %+v", it.Role, it.Name, st)
		}
		if backend, err := n.Backend(ctx, b.conn); err != nil || backend == 0 {
			t.Errorf("%s %q: backend %v, %v", it.Role, it.Name, backend, err)
		}
	}
}

// TestTreeAfterDrainFrameAdded: a page with no frame but its main one
// before the input is read as that one frame after it only while its walk
// finds no frame element; a frame the page added meanwhile is listed and
// read.
func TestTreeAfterDrainFrameAdded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m, b, c := testBrowser(t)
	const p = `data:text/html,<title>F</title><input id=f><button id=go onclick="setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<iframe srcdoc=&quot;<button>Inner button</button>&quot;></iframe>'), 20)">Go</button>`
	if _, err := m.Navigate(ctx, c, p, "load", Intent{}); err != nil {
		t.Fatal(err)
	}
	target, err := b.activePage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tab := b.pageTab(target)
	main := page.FrameRef{Session: tab.Session, Frame: tab.Main()}
	read := func(click bool) *page.Tree {
		t.Helper()
		ft := &page.FrameTrees{}
		loaders, err := page.FrameLoaders(page.WithFrameTrees(ctx, ft), b.conn, tab.Session)
		if err != nil {
			t.Fatal(err)
		}
		if click {
			press(t, ctx, b, tab)
		}
		d, err := page.StartDrain(ctx, b.conn, &b.worlds, main, time.Second, "")
		if err != nil {
			t.Fatal(err)
		}
		tree, err := page.ReadTreeAfter(ctx, b.conn, &b.worlds, tab, d.Tree(page.Region{}, ft))
		if err != nil {
			t.Fatal(err)
		}
		if tree.MainLoader != loaders[tab.Main()] {
			t.Errorf("main loader %q, want %q", tree.MainLoader, loaders[tab.Main()])
		}
		return tree
	}
	// Walked once, so the queued walk finds its read function.
	if _, err := page.ReadTree(ctx, b.conn, &b.worlds, tab, page.Region{}); err != nil {
		t.Fatal(err)
	}
	if names := itemNames(read(false)); !strings.Contains(names, "button Go") || strings.Contains(names, "Inner button") {
		t.Errorf("read with no frame: %s", names)
	}
	// The drain is timed long after the page's timer, so that the frame's
	// document has loaded by the time it is read, however slow the
	// machine.
	if names := itemNames(read(true)); !strings.Contains(names, "Inner button") {
		t.Errorf("the frame added after the input is not read: %s", names)
	}
}

// TestTypeTextReadsBehindDrain: typing by ref on Playwright MCP's surface
// and by CSS on lyrad's answers what the field holds and what changed,
// the page's message 2 ms after its input handler included, from the
// reads queued behind the drain (run with -race: they are read beside
// the marker and the answer's other reads).
func TestTypeTextReadsBehindDrain(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m, _, c := testBrowser(t)
	const p = `data:text/html,<title>T</title><label>Name <input id=f oninput="setTimeout(() => { m.textContent = 'Saw ' + f.value }, 2)"></label><p><button>Later</button></p><h2 id=m>Nothing yet</h2>`
	if _, err := m.Navigate(ctx, c, p, "load", Intent{}); err != nil {
		t.Fatal(err)
	}
	for i, tool := range []string{"browser_type", "type_text"} {
		c.Tool = tool
		sel := "#f"
		if tool == "browser_type" {
			r, err := m.ReadPage(ctx, c, ReadOptions{Mode: "tree", Nested: true, MaxChars: 100000})
			if err != nil {
				t.Fatal(err)
			}
			ref := regexp.MustCompile(`textbox "Name".*?\[ref=(e\d+)\]`).FindStringSubmatch(r.Page.Text)
			if ref == nil {
				t.Fatalf("no ref for the field in %q (%+v)", r.Page.Text, r)
			}
			sel = "aria-ref=" + ref[1]
		} else if _, err := m.ReadPage(ctx, c, ReadOptions{Mode: "tree"}); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("Ada %d", i)
		res, err := m.TypeText(ctx, c, ActOptions{Selector: sel, Timeout: 10 * time.Second}, text, false)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if res.Field == nil || res.Field.Value != text {
			t.Errorf("%s: field %+v, want %q", tool, res.Field, text)
		}
		if !strings.Contains(res.Changes, "Saw "+text) {
			t.Errorf("%s: changes do not hold the page's message: %q", tool, res.Changes)
		}
		if res.URL == "" || res.Title != "T" {
			t.Errorf("%s: url %q title %q", tool, res.URL, res.Title)
		}
	}
}

// TestDrainTimedFromInputEvent: the drain of typed text is timed from the
// input event the text fired (FocusText armed its timer), not from the
// drain's call: sent well after the event, it does not wait its time
// again. A field whose page stops the event leaves the drain a timer of its
// own. Both are timed on the page's clock; the drain leaves no listener
// or timer behind in the world.
func TestDrainTimedFromInputEvent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_, b, _, pt := testPage(t, ctx, `data:text/html,<title>T</title><input id=f><input id=g oninput="event.stopPropagation()">`)
	main := page.FrameRef{Session: pt.Session, Frame: pt.Main()}
	sess := b.conn.Session(pt.Session)
	const wait = time.Second
	for _, tc := range []struct {
		sel       string
		fromEvent bool
	}{{"#f", true}, {"#g", false}} {
		found, err := page.Locate(ctx, b.conn, &b.worlds, pt, "css", tc.sel, page.NewActGroup())
		if err != nil || found.Node == nil {
			t.Fatalf("locate %s: %v %+v", tc.sel, err, found)
		}
		timer := page.TypingTimer()
		if ok, err := page.FocusText(ctx, b.conn, &b.worlds, found.Node, timer, wait); err != nil || !ok {
			t.Fatalf("focus %s: %v %v", tc.sel, ok, err)
		}
		if err := page.TypeInto(ctx, b.conn, pt, "Ada"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(wait + wait/5)
		now := func() float64 {
			var ms float64
			if err := b.worlds.CallFunction(ctx, sess, main.Frame, `function() { return performance.now() }`, &ms); err != nil {
				t.Fatal(err)
			}
			return ms
		}
		sent := now()
		d, err := page.StartDrain(ctx, b.conn, &b.worlds, main, wait, timer)
		if err != nil {
			t.Fatal(err)
		}
		if closing, err := d.Result(); err != nil || closing {
			t.Fatalf("drain: closing %v, err %v", closing, err)
		}
		took := now() - sent
		if tc.fromEvent && took >= float64(wait.Milliseconds()) {
			t.Errorf("%s: the drain waited %.0f ms after its call: timed from the call, not from the input event %v before", tc.sel, took, wait+wait/5)
		}
		if !tc.fromEvent && took < float64(wait.Milliseconds()) {
			t.Errorf("%s: the drain waited only %.0f ms, with no input event to time it from (want %v)", tc.sel, took, wait)
		}
		var left bool
		if err := b.worlds.CallFunction(ctx, sess, main.Frame, `function() { return '__lyradTyped' in globalThis }`, &left); err != nil || left {
			t.Errorf("%s: the typing timer is still in the world after the drain (%v)", tc.sel, err)
		}
	}
}
