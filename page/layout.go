package page

import (
	"context"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/cdp"

	"github.com/lyrad/lyrad/snapshot"
)

// LayoutSnapshot is the part of DOMSnapshot.captureSnapshot a tree read
// uses, per document of one target.
type LayoutSnapshot struct {
	Docs map[cdp.FrameID]*DocLayout
}

// DocLayout is the layout of one document.
type DocLayout struct {
	Boxes            map[cdp.BackendNodeID]snapshot.Rect // own box and descendants', in document coordinates
	Owners           map[cdp.FrameID]cdp.BackendNodeID   // child frame -> its iframe element
	parent           []int64
	Backend          []cdp.BackendNodeID
	ScrollX, ScrollY float64

	// Only for a document that holds a <wbr>: which nodes hold one, the
	// text of the laid-out text nodes ("" for any other node), and where
	// each node is by backend id.
	wbr   []bool
	text  []string
	index map[cdp.BackendNodeID]int
}

// WordBreakText is the rendered text of an element that holds a <wbr>: its
// laid-out text nodes in document order, joined as they stand; false for
// an element that holds none.
func (d *DocLayout) WordBreakText(backend int64) (string, bool) {
	i, ok := d.index[cdp.BackendNodeID(backend)]
	if !ok || !d.wbr[i] {
		return "", false
	}
	var b strings.Builder
	in := map[int]bool{i: true}
	// Nodes come in document order, so the subtree is the run of nodes
	// after i whose parent is in it.
	for j := i + 1; j < len(d.parent); j++ {
		if p := int(d.parent[j]); !in[p] {
			break
		}
		in[j] = true
		b.WriteString(d.text[j])
	}
	return b.String(), true
}

// Subtree is the set of nodes at or under root (shadow trees included).
// Parents come before their children in a snapshot.
func (d *DocLayout) Subtree(root cdp.BackendNodeID) map[cdp.BackendNodeID]bool {
	in := make([]bool, len(d.Backend))
	out := map[cdp.BackendNodeID]bool{}
	for i, be := range d.Backend {
		if be == root || (d.parent[i] >= 0 && int(d.parent[i]) < i && in[d.parent[i]]) {
			in[i] = true
			out[be] = true
		}
	}
	return out
}

// rawSnapshot decodes only what a tree read needs of captureSnapshot. The
// nodes' names, types and values are only used when a document holds a
// <wbr>, but are decoded always: a second pass over the whole answer to
// fetch them costs more than the few integers per node.
type rawSnapshot struct {
	Documents []struct {
		FrameID int64 `json:"frameId"`
		Nodes   struct {
			ParentIndex          []int64             `json:"parentIndex"`
			BackendNodeID        []cdp.BackendNodeID `json:"backendNodeId"`
			NodeType             []int64             `json:"nodeType"`
			NodeName             []int64             `json:"nodeName"`
			NodeValue            []int64             `json:"nodeValue"`
			ContentDocumentIndex *struct {
				Index []int64 `json:"index"`
				Value []int64 `json:"value"`
			} `json:"contentDocumentIndex"`
		} `json:"nodes"`
		Layout struct {
			NodeIndex []int64      `json:"nodeIndex"`
			Bounds    [][4]float64 `json:"bounds"`
		} `json:"layout"`
		ScrollOffsetX float64 `json:"scrollOffsetX"`
		ScrollOffsetY float64 `json:"scrollOffsetY"`
	} `json:"documents"`
	Strings []string `json:"strings"`
}

// CaptureLayout takes one DOMSnapshot of a target: every document's boxes,
// iframe owners and scroll offsets.
func CaptureLayout(ctx context.Context, s interface {
	Call(context.Context, string, any, any) error
}) (*LayoutSnapshot, error) {
	var raw rawSnapshot
	if err := s.Call(ctx, "DOMSnapshot.captureSnapshot", map[string]any{"computedStyles": []string{}}, &raw); err != nil {
		return nil, fmt.Errorf("DOMSnapshot: %w", err)
	}
	return decodeLayout(&raw)
}

// decodeLayout turns a decoded DOMSnapshot into each document's layout.
func decodeLayout(raw *rawSnapshot) (*LayoutSnapshot, error) {
	str := func(i int64) string {
		if i >= 0 && int(i) < len(raw.Strings) {
			return raw.Strings[i]
		}
		return ""
	}
	// The string index of "WBR", if any document has one.
	wbr := int64(-1)
	for i, name := range raw.Strings {
		if name == "WBR" {
			wbr = int64(i)
			break
		}
	}
	out := &LayoutSnapshot{Docs: map[cdp.FrameID]*DocLayout{}}
	frameOf := make([]cdp.FrameID, len(raw.Documents))
	for i, d := range raw.Documents {
		frameOf[i] = cdp.FrameID(str(d.FrameID))
	}
	for i, d := range raw.Documents {
		n := len(d.Nodes.BackendNodeID)
		if len(d.Nodes.ParentIndex) != n {
			return nil, fmt.Errorf("DOMSnapshot: %d parents for %d nodes", len(d.Nodes.ParentIndex), n)
		}
		rects := make([]snapshot.Rect, n)
		for j, ni := range d.Layout.NodeIndex {
			if int(ni) < n && j < len(d.Layout.Bounds) {
				bb := d.Layout.Bounds[j]
				rects[ni] = rects[ni].Union(snapshot.Rect{X: bb[0], Y: bb[1], W: bb[2], H: bb[3]})
			}
		}
		// Children come after their parents: fold each box into its
		// parent's, from the last node back, so an inline link that wraps
		// a block (or display:contents) gets its content's box.
		for j := n - 1; j > 0; j-- {
			if p := d.Nodes.ParentIndex[j]; p >= 0 && int(p) < j {
				rects[p] = rects[p].Union(rects[j])
			}
		}
		dl := &DocLayout{
			Boxes:   make(map[cdp.BackendNodeID]snapshot.Rect, n),
			Owners:  map[cdp.FrameID]cdp.BackendNodeID{},
			parent:  d.Nodes.ParentIndex,
			Backend: d.Nodes.BackendNodeID,
			ScrollX: d.ScrollOffsetX, ScrollY: d.ScrollOffsetY,
		}
		for j, be := range d.Nodes.BackendNodeID {
			if !rects[j].Empty() {
				dl.Boxes[be] = rects[j]
			}
		}
		if nn := d.Nodes; wbr >= 0 && len(nn.NodeName) == n {
			wordBreaks(dl, nn.NodeName, nn.NodeType, nn.NodeValue, d.Layout.NodeIndex, wbr, str)
		}
		if cdi := d.Nodes.ContentDocumentIndex; cdi != nil {
			for k, ni := range cdi.Index {
				if k < len(cdi.Value) && int(ni) < n && int(cdi.Value[k]) < len(frameOf) {
					dl.Owners[frameOf[cdi.Value[k]]] = d.Nodes.BackendNodeID[ni]
				}
			}
		}
		out.Docs[frameOf[i]] = dl
	}
	return out, nil
}

// wordBreaks fills in what WordBreakText needs for a document, when it
// holds a <wbr> (wbr is the string index of "WBR").
func wordBreaks(dl *DocLayout, names, types, values, laidOut []int64, wbr int64, str func(int64) string) {
	n := len(names)
	has := make([]bool, n)
	found := false
	for j, nm := range names {
		if nm == wbr {
			has[j], found = true, true
		}
	}
	if !found {
		return
	}
	for j := n - 1; j > 0; j-- {
		if p := dl.parent[j]; has[j] && p >= 0 && int(p) < j {
			has[p] = true
		}
	}
	laid := make([]bool, n)
	for _, ni := range laidOut {
		if ni >= 0 && int(ni) < n {
			laid[ni] = true
		}
	}
	text := make([]string, n)
	for j := range n {
		// A text node that was laid out: rendered text.
		if j < len(types) && types[j] == 3 && laid[j] && j < len(values) {
			text[j] = str(values[j])
		}
	}
	dl.index = make(map[cdp.BackendNodeID]int, n)
	for j, be := range dl.Backend {
		dl.index[be] = j
	}
	dl.wbr, dl.text = has, text
}

// HasWordBreaks reports whether the document holds a <wbr>, so that
// WordBreakText has something to answer.
func (d *DocLayout) HasWordBreaks() bool { return d.wbr != nil }
