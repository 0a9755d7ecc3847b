package page

import (
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"
)

func TestCentreDelta(t *testing.T) {
	for _, c := range []struct{ v, size, want float64 }{
		{10, 100, 0},    // inside: no scroll
		{0, 100, 0},     // the first pixel is inside
		{100, 100, 50},  // just past the end: bring it to the middle
		{-40, 100, -90}, // above
		{250.4, 100, 200},
	} {
		if got := centreDelta(c.v, c.size); got != c.want {
			t.Errorf("centreDelta(%v, %v) = %v, want %v", c.v, c.size, got, c.want)
		}
	}
}

func TestQuadMin(t *testing.T) {
	// A rotated quad: the corner is the smallest x and y of any point.
	x, y := quadMin(dom.Quad{30, 5, 50, 25, 30, 45, 10, 25})
	if x != 10 || y != 5 {
		t.Fatalf("quadMin = %v, %v, want 10, 5", x, y)
	}
}

func TestParentIn(t *testing.T) {
	f := func(id string, kids ...*cdppage.FrameTree) *cdppage.FrameTree {
		return &cdppage.FrameTree{Frame: &cdp.Frame{ID: cdp.FrameID(id)}, ChildFrames: kids}
	}
	tree := f("main", f("a", f("a1")), f("b"))
	for _, c := range []struct{ frame, want string }{{"a", "main"}, {"a1", "a"}, {"b", "main"}, {"main", ""}, {"gone", ""}} {
		if got := parentIn(tree, cdp.FrameID(c.frame)); got != cdp.FrameID(c.want) {
			t.Errorf("parentIn(%s) = %q, want %q", c.frame, got, c.want)
		}
	}
	if parentIn(nil, "a") != "" {
		t.Error("parentIn(nil) found a parent")
	}
}
