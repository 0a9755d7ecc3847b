package page

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/cdp/jsonv2"

	"github.com/lyrad/lyrad/snapshot"
)

// fakeSnapshot answers DOMSnapshot.captureSnapshot with a recorded body.
type fakeSnapshot string

func (f fakeSnapshot) Call(_ context.Context, _ string, _, out any) error {
	return jsonv2.Unmarshal([]byte(f), out)
}

func TestCaptureLayout(t *testing.T) {
	// One document: a div holding "ab", a <wbr> and "cd"; the text nodes
	// are laid out, and the div's box grows to hold its second line.
	body := `{"documents":[{"frameId":0,
		"nodes":{"parentIndex":[-1,0,1,1,1],"backendNodeId":[1,2,3,4,5],
			"nodeType":[9,1,3,1,3],"nodeName":[-1,4,2,1,2],"nodeValue":[-1,-1,3,-1,5]},
		"layout":{"nodeIndex":[1,2,4],"bounds":[[0,0,100,20],[0,0,10,10],[0,20,10,10]]},
		"scrollOffsetX":0,"scrollOffsetY":7}],
		"strings":["main","WBR","#text","ab","DIV","cd"]}`
	l, err := CaptureLayout(context.Background(), fakeSnapshot(body))
	if err != nil {
		t.Fatal(err)
	}
	d := l.Docs["main"]
	if d == nil {
		t.Fatalf("no document for the main frame: %+v", l.Docs)
	}
	if got := d.Boxes[2]; got != (snapshot.Rect{X: 0, Y: 0, W: 100, H: 30}) {
		t.Errorf("the div's box = %+v", got)
	}
	if d.ScrollY != 7 {
		t.Errorf("scrollY = %v", d.ScrollY)
	}
	if !d.HasWordBreaks() {
		t.Fatal("the <wbr> was not seen")
	}
	if text, ok := d.WordBreakText(2); !ok || text != "abcd" {
		t.Errorf("WordBreakText = %q %v", text, ok)
	}
	if in := d.Subtree(cdp.BackendNodeID(2)); len(in) != 4 || in[1] {
		t.Errorf("subtree of the div = %v", in)
	}
}
