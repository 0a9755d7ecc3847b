package session

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
)

// Target resolution: what a selector names on the active tab.
//
//	aria-ref=e12      an element a read_page(mode="tree") of this document gave
//	text=Save         visible text (see page.Locate for the three forms)
//	xpath=//a, //a    XPath
//	css=a.b, a.b      CSS, document-wide, open shadow roots included
//
// CSS, text and XPath are looked up by our own script in lyrad's isolated
// world: one call answers the match count and the element to act on, which
// is then addressed by its object there (and its backendNodeId, which
// survives worlds). The main frame is searched first; only when nothing
// there matches are the tab's iframes searched, same-process ones through
// the tab's session and out-of-process ones through their own.

type selectorKind string

const (
	selCSS   selectorKind = "css"
	selText  selectorKind = "text"
	selXPath selectorKind = "xpath"
	selRef   selectorKind = "ref"
	// selSubmit is save_draft's and publish's submit given as a control's
	// text (read_form's submitText), else CSS (forms_act.go).
	selSubmit selectorKind = "submit"
)

// parsedSelector is a selector split into its engine and its body.
type parsedSelector struct {
	kind selectorKind
	body string
	raw  string
}

// selectorError is a selector that cannot be used: an error envelope that
// names the argument.
func selectorError(sel, msg string) *Error {
	return newError(StatusError, msg,
		`Pass a CSS selector (button.save, #email), text=Visible text (text="Exact text" for a whole-text match), xpath=//a, or an aria-ref=eN from read_page(mode="tree").`).
		arg("selector").on(sel)
}

func parseSelector(raw string) (parsedSelector, error) {
	s := strings.TrimSpace(raw)
	p := parsedSelector{raw: s}
	if s == "" {
		return p, selectorError(raw, "selector is empty")
	}
	lower := strings.ToLower(s)
	switch {
	case IsRef(s):
		p.kind, p.body = selRef, s
	case strings.HasPrefix(lower, "text="):
		p.kind, p.body = selText, s[len("text="):]
	case strings.HasPrefix(lower, "css="):
		p.kind, p.body = selCSS, s[len("css="):]
	case strings.HasPrefix(lower, "xpath="):
		p.kind, p.body = selXPath, s[len("xpath="):]
	case strings.HasPrefix(s, "//") || strings.HasPrefix(s, "(//"):
		p.kind, p.body = selXPath, s
	case strings.HasPrefix(lower, "role=") || strings.HasPrefix(lower, "internal:"):
		return p, selectorError(raw, "the "+s[:strings.IndexByte(s, '=')+1]+" selector engine is not supported")
	default:
		p.kind, p.body = selCSS, s
	}
	if strings.TrimSpace(p.body) == "" {
		return p, selectorError(raw, "selector "+s+" names nothing")
	}
	return p, nil
}

// located is what a selector names now.
type located struct {
	Matches int
	Node    *page.Node         // the element to act on; nil when nothing matched
	Why     string             // text=: why this match was taken over the first visible one ("" when it was that one)
	state   *page.ElementState // Node's state as it was found, when read with it
}

// locate resolves a selector on the tab (page.Locate). A syntax error is
// an *Error naming the selector argument; an aria-ref that names nothing
// is resolveRef's not_found.
func (b *Browser) locate(ctx context.Context, tab cdpguard.Target, sel parsedSelector, group string) (*located, error) {
	if sel.kind == selSubmit {
		return b.locateSubmit(ctx, tab, sel, group)
	}
	if sel.kind == selRef {
		_, n, st, err := b.resolveRefNode(ctx, sel.body, group)
		if err != nil {
			return nil, err
		}
		return &located{Matches: 1, Node: n, state: st}, nil
	}
	found, err := page.Locate(ctx, b.conn, &b.worlds, b.pageTab(tab), string(sel.kind), sel.body, group)
	var bad *page.InvalidSelectorError
	if errors.As(err, &bad) {
		return nil, selectorError(sel.raw, "the selector is not valid: "+bad.Text)
	}
	if err != nil {
		return nil, err
	}
	return &located{Matches: found.Count, Node: found.Node, Why: found.Why, state: found.State}, nil
}

// matchesHint says, when several elements matched, which one was used and
// how many others there were.
func (l *located) matchesHint() string {
	which := "the first visible one"
	if l.Why != "" {
		which = l.Why
	}
	others := "others"
	if l.Matches == 2 {
		others = "other"
	}
	return fmt.Sprintf("%d elements matched; %s was used (%d %s matched). If it was the wrong one, use a more specific selector or an aria-ref from read_page(mode=\"tree\").",
		l.Matches, which, l.Matches-1, others)
}
