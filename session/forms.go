package session

import (
	"context"
	"sort"

	"go.uber.org/zap"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/target"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
)

// The form reads' bounds (page's): read_form's max_fields
// and read_draft's max_chars.
const (
	FormMaxFieldsDefault = page.FormMaxFieldsDefault
	FormMaxFieldsLimit   = page.FormMaxFieldsLimit
	DraftMaxCharsDefault = page.DraftMaxCharsDefault
	DraftMaxCharsMin     = page.DraftMaxCharsMin
	DraftMaxCharsMax     = page.DraftMaxCharsMax
)

// FormOptions is what read_form asks for.
type FormOptions struct {
	Root      string // CSS selector of the form; empty: the first form
	WholePage bool   // every control of the page, not only the form's
	MaxFields int    // 1..500 (the tool clamps)
}

// FormResult answers read_form. Fields are listed up to MaxFields;
// TotalFields counts them all, FieldCount those listed.
type FormResult struct {
	URL         string
	Title       string
	Scope       string
	Fields      []page.FormField
	Buttons     []page.FormButton
	Editors     []page.FormEditor
	Drafts      []page.PublishControl
	State       []string // the checked publish controls, by label (else value)
	SubmitText  []string // what the submit buttons say: save_draft's and publish's submit
	HiddenCount int
	FieldCount  int
	TotalFields int
	Truncated   bool
}

// ReadForm answers read_form: the form's controls in the tab's document,
// its open shadow roots and the frames inside the form (out-of-process ones
// included, each read in its own session). It is a read: it never claims
// the browser.
func (m *Manager) ReadForm(ctx context.Context, c Caller, o FormOptions) (*FormResult, error) {
	b, tab, done, err := m.enterTab(ctx, c, read)
	defer done()
	if err != nil {
		return nil, err
	}
	frames, err := b.tabFrames(ctx, tab)
	if err != nil {
		return nil, callError(ctx, err, "reading the form")
	}
	main := frames[cdp.FrameID(tab.ID)]
	if main == nil {
		return nil, pageGone()
	}
	doc, err := page.ReadFormDoc(ctx, &b.worlds, b.conn.Session(main.sid), main.id, o.Root, o.WholePage, o.MaxFields)
	if err != nil {
		err = readErr(ctx, err, o.Root)
		if e, ok := err.(*Error); ok && e.Argument == "selector" {
			e.Argument = "root"
		}
		return nil, err
	}
	if !doc.Found {
		return nil, noMatch(o.Root).arg("root")
	}
	res := &FormResult{Scope: doc.Scope}
	add := func(d *page.FormDoc, frame string) {
		for _, f := range d.Fields {
			f.Frame = frame
			res.Fields = append(res.Fields, f)
		}
		for _, x := range d.Buttons {
			x.Frame = frame
			res.Buttons = append(res.Buttons, x)
		}
		for _, x := range d.Editors {
			x.Frame = frame
			res.Editors = append(res.Editors, x)
		}
		for _, x := range d.Drafts {
			x.Frame = frame
			res.Drafts = append(res.Drafts, x)
		}
		res.HiddenCount += d.HiddenCount
		res.TotalFields += d.TotalFields
	}
	add(doc, "")
	for _, sf := range b.formFrames(ctx, tab, frames, o.Root, o.WholePage) {
		// Inside the form, a frame's whole document counts.
		d, err := page.ReadFormDoc(ctx, &b.worlds, b.conn.Session(sf.f.sid), sf.f.id, "", true, o.MaxFields)
		if err != nil {
			m.log.Debug("read_form: a frame did not answer", zap.Error(err))
			continue
		}
		add(d, sf.owner)
	}
	if len(res.Fields) > o.MaxFields {
		res.Fields = res.Fields[:o.MaxFields]
	}
	res.FieldCount = len(res.Fields)
	res.Truncated = res.TotalFields > res.FieldCount
	res.State, res.SubmitText = []string{}, []string{}
	for _, d := range res.Drafts {
		if d.Checked {
			res.State = append(res.State, firstNonEmpty(d.Label, d.Value))
		}
	}
	for _, x := range res.Buttons {
		if x.Type == "submit" || x.Type == "image" {
			if t := firstNonEmpty(x.Text, x.Value, x.Name); t != "" {
				res.SubmitText = append(res.SubmitText, t)
			}
		}
	}
	res.URL, res.Title = b.fresh(ctx, tab)
	return res, nil
}

// DraftResult answers read_draft: what the form is about to send.
type DraftResult struct {
	URL         string
	Title       string
	Scope       string
	Fields      []page.DraftField
	Editors     []page.FormEditor
	Attachments []page.Attachment
	State       []page.PublishState
	Submits     []page.SubmitButton
	HiddenCount int
	FieldCount  int
	IsDraft     bool // the publish state reads private (page.ReadsPrivate)
}

// ReadDraft answers read_draft, each value cut to maxChars. A read.
func (m *Manager) ReadDraft(ctx context.Context, c Caller, maxChars int) (*DraftResult, error) {
	b, tab, done, err := m.enterTab(ctx, c, read)
	defer done()
	if err != nil {
		return nil, err
	}
	frames, err := b.tabFrames(ctx, tab)
	if err != nil {
		return nil, callError(ctx, err, "reading the draft")
	}
	main := frames[cdp.FrameID(tab.ID)]
	if main == nil {
		return nil, pageGone()
	}
	doc, err := page.ReadDraftDoc(ctx, &b.worlds, b.conn.Session(main.sid), main.id, maxChars)
	if err != nil {
		return nil, readErr(ctx, err, "")
	}
	res := &DraftResult{Scope: doc.Scope}
	add := func(d *page.DraftDoc, frame string) {
		for _, f := range d.Fields {
			f.Frame = frame
			res.Fields = append(res.Fields, f)
		}
		for _, e := range d.Editors {
			e.Frame = frame
			res.Editors = append(res.Editors, e)
		}
		res.Attachments = append(res.Attachments, d.Attachments...)
		res.State = append(res.State, d.State...)
		res.Submits = append(res.Submits, d.Submits...)
		res.HiddenCount += d.HiddenCount
	}
	add(doc, "")
	for _, sf := range b.formFrames(ctx, tab, frames, "", false) {
		d, err := page.ReadDraftDoc(ctx, &b.worlds, b.conn.Session(sf.f.sid), sf.f.id, maxChars)
		if err != nil {
			m.log.Debug("read_draft: a frame did not answer", zap.Error(err))
			continue
		}
		add(d, sf.owner)
	}
	res.FieldCount = len(res.Fields)
	res.IsDraft = page.StateIsPrivate(res.State)
	res.URL, res.Title = b.fresh(ctx, tab)
	return res, nil
}

// maxFormFrames bounds the frames a form read looks into.
const maxFormFrames = 40

// scopedFrame is a frame inside the form being read, named by its iframe
// element.
type scopedFrame struct {
	f     *treeFrame
	owner string
}

// formFrames lists the tab's frames that sit inside what a form read
// covers (root, default the first form; whole: everything): a frame whose
// iframe element is inside it, and every frame within such a frame. An
// editor iframe its parent already read through contentDocument is left
// out, so its body is not listed twice.
func (b *Browser) formFrames(ctx context.Context, tab cdpguard.Target, frames map[cdp.FrameID]*treeFrame, root string, whole bool) []scopedFrame {
	mainID := cdp.FrameID(tab.ID)
	type verdict struct {
		inside, read bool
		owner        string
	}
	seen := map[cdp.FrameID]*verdict{mainID: {inside: true}}
	var judge func(f *treeFrame, depth int) *verdict
	judge = func(f *treeFrame, depth int) *verdict {
		if v := seen[f.id]; v != nil {
			return v
		}
		v := &verdict{}
		seen[f.id] = v // a cycle (which a frame tree cannot have) reads as outside
		parent, owner := b.frameParent(ctx, tab, frames, f)
		if parent == nil || owner == 0 || depth > 8 {
			return v
		}
		if parent.id != mainID {
			pv := judge(parent, depth+1)
			v.inside, v.read, v.owner = pv.inside, pv.inside, pv.owner
			return v
		}
		fs, err := page.FrameInScope(ctx, &b.worlds, b.conn.Session(parent.sid), parent.id, owner, root, whole)
		if err != nil {
			return v
		}
		v.inside, v.read, v.owner = fs.Inside, fs.Inside && !fs.EditorRead, fs.Owner
		return v
	}
	// In a stable order, so two reads of the same page list the same.
	ids := make([]string, 0, len(frames))
	for id := range frames {
		ids = append(ids, string(id))
	}
	sort.Strings(ids)
	var out []scopedFrame
	judged := 0
	for _, id := range ids {
		f := frames[cdp.FrameID(id)]
		if f.id == mainID {
			continue
		}
		// A page of a thousand iframes costs a call each: the first
		// maxFormFrames are judged, the rest left out.
		if judged++; judged > maxFormFrames {
			break
		}
		if v := judge(f, 0); v.read {
			out = append(out, scopedFrame{f: f, owner: v.owner})
		}
	}
	return out
}

// frameParent finds the frame holding f's iframe element and that
// element's backendNodeId. An out-of-process frame's own target does not
// name its parent: the tab's other targets are asked who owns it.
func (b *Browser) frameParent(ctx context.Context, tab cdpguard.Target, frames map[cdp.FrameID]*treeFrame, f *treeFrame) (*treeFrame, cdp.BackendNodeID) {
	if p := frames[f.parent]; p != nil && f.parent != "" {
		owner, err := page.FrameOwnerIn(ctx, b.conn, p.sid, f.id)
		if err != nil {
			return nil, 0
		}
		return p, owner
	}
	// The tab's own target first: most out-of-process frames sit in it.
	order := []target.SessionID{tab.SessionID}
	tried := map[target.SessionID]bool{tab.SessionID: true, f.sid: true}
	for _, g := range frames {
		if !tried[g.sid] {
			tried[g.sid] = true
			order = append(order, g.sid)
		}
	}
	for _, sid := range order {
		if sid == f.sid {
			continue
		}
		owner, err := page.FrameOwnerIn(ctx, b.conn, sid, f.id)
		if err != nil || owner == 0 {
			continue
		}
		// The owner is in the root document of that target.
		for _, g := range frames {
			if g.sid == sid && (g.parent == "" || frames[g.parent] == nil || frames[g.parent].sid != sid) {
				return g, owner
			}
		}
	}
	return nil, 0
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
