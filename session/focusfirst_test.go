package session

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
	"time"

	"github.com/lyrad/lyrad/page"
)

// TestFocusFirstOnlyUsableFieldsOfOrigin: the look that finds a field
// focuses it (page.WithFocusFirst) only when it is a usable, writable text
// field of the tab's main frame, in a document of the origin given: not a
// read-only, disabled, hidden or date field, not one of another origin's
// document, not one in a child frame. The focus is counted by the page.
func TestFocusFirstOnlyUsableFieldsOfOrigin(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>F</title><script>function seen() { document.body.dataset.focuses = +(document.body.dataset.focuses || 0) + 1 }</script>
<input id=text onfocus="seen()"> <input id=ro readonly onfocus="seen()"> <input id=dis disabled>
<input id=hid style="display:none" onfocus="seen()"> <input id=date type=date onfocus="seen()">
<iframe src="/frame"></iframe>`)
	})
	mux.HandleFunc("/frame", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><input id=inframe onfocus="parent.seen()">`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	m, b, c, pt := testPage(t, ctx, srv.URL+"/")
	main := page.FrameRef{Session: pt.Session, Frame: pt.Main()}
	sess := b.conn.Session(pt.Session)
	// focuses is how many focus events the page's handlers counted, and
	// what holds the focus (blurred after).
	focuses := func() (n int, active string) {
		var r struct {
			N      int    `json:"n"`
			Active string `json:"active"`
		}
		fn := `function() {
  const a = document.activeElement;
  const r = {n: +(document.body.dataset.focuses || 0), active: a ? a.id || a.localName : ''};
  if (a && a !== document.body) a.blur();
  return r;
}`
		if err := b.worlds.CallFunction(ctx, sess, main.Frame, fn, &r); err != nil {
			t.Fatal(err)
		}
		return r.N, r.Active
	}
	origin := srv.URL
	other := regexp.MustCompile(`127\.0\.0\.1`).ReplaceAllString(srv.URL, "127.0.0.2")
	ff := func(o string) context.Context {
		return page.WithFocusFirst(ctx, page.FocusFirst{Frame: main, Origin: o, Timer: page.TypingTimer(), Wait: textWait})
	}
	before, _ := focuses()
	for _, tc := range []struct {
		sel, origin string
		want        bool
	}{
		{"#text", other, false},
		{"#ro", origin, false},
		{"#dis", origin, false},
		{"#hid", origin, false},
		{"#date", origin, false},
		{"#inframe", origin, false},
		{"#text", origin, true},
	} {
		found, err := page.Locate(ff(tc.origin), b.conn, &b.worlds, pt, "css", tc.sel, page.NewActGroup())
		if err != nil || found.Node == nil || found.State == nil {
			t.Fatalf("%s: %v %+v", tc.sel, err, found)
		}
		n, active := focuses()
		if found.State.Focused != tc.want || (n-before == 1) != tc.want || (active == tc.sel[1:]) != tc.want {
			t.Errorf("%s on %s: focused %v, page counted %d focus events, active %q; want focused %v", tc.sel, tc.origin, found.State.Focused, n-before, active, tc.want)
		}
		before = n
	}
	// By ref, as an agent types after a read.
	r, err := m.ReadPage(ctx, c, ReadOptions{Mode: "tree", MaxChars: 100000})
	if err != nil {
		t.Fatal(err)
	}
	ref := regexp.MustCompile(`aria-ref=(e\d+) textbox`).FindStringSubmatch(r.Page.Text)
	if ref == nil {
		t.Fatalf("no ref for a textbox in %q", r.Page.Text)
	}
	_, n, st, err := b.resolveRefNode(ff(origin), ref[1], page.NewActGroup())
	if err != nil || n == nil || st == nil || !st.Focused {
		t.Fatalf("by ref %s: %v %v %+v, want focused", ref[1], err, n, st)
	}
	if got, _ := focuses(); got-before != 1 {
		t.Errorf("by ref: the page counted %d focus events, want 1", got-before)
	}
}
