package session

import (
	"context"
	"fmt"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	cdppage "github.com/chromedp/cdproto/page"

	"github.com/lyrad/lyrad/page"
)

// The acting form tools: set_editor, upload_file, save_draft and publish.
// Each goes through the acting pipeline (act.go); what is theirs is here.
//
// Writing an item and releasing it are different acts. save_draft sends a
// form only while its publish state reads private, and asks for SUBMIT,
// never PUBLISH; publish is the one tool that buys PUBLISH, which nothing
// implies and neither trusted list answers.

// Statuses of the form tools, as the seed names them.
const (
	StatusNeedsSubmit = "needs_submit"
	StatusNotPrivate  = "not_private"
	StatusRefused     = "refused"
)

// sendSettle is how long save_draft and publish let the page settle after
// sending (the seed's number), before it is read back.
const sendSettle = 2500 * time.Millisecond

// EditorOptions is what set_editor takes. Without a selector the first
// editor of the page is written.
type EditorOptions struct {
	ActOptions
	Content string
	HTML    bool
}

// SetEditor writes content into a rich-text editor and syncs the field the
// form posts. The content is never in the reply or the audit.
func (m *Manager) SetEditor(ctx context.Context, c Caller, o EditorOptions) (*ActResult, error) {
	spec := actSpec{verb: "set_editor", opts: o.ActOptions, usable: actEditor, on: onElement, watch: settleInput,
		do: func(ctx context.Context, a *act) error {
			w, err := page.WriteEditor(ctx, a.b.conn, &a.b.worlds, a.loc.Node, o.Content, o.HTML)
			if err != nil {
				return err
			}
			switch {
			case w.NotEditor:
				return a.failure(StatusNotActionable, "the element is not an editor (no iframe editor, contenteditable, Quill or ProseMirror)",
					"Leave selector out to use the first editor on the page, or name the editor's iframe or its [contenteditable] element; plain fields take type_text.")
			case w.Unreadable:
				return a.failure(StatusNotActionable, "the editor is in a frame of another site that cannot be written from here",
					"Click into the editor and use type_text or press_key, which reach any frame.")
			}
			a.res.Editor = &EditorResult{Kind: w.Kind, Surface: w.Surface, Written: w.Written, SyncedField: w.SyncedField, FieldChars: w.FieldChars}
			a.settle(ctx, lingerLight, a.loc.Node)
			return nil
		}}
	if o.Selector == "" {
		// The first editor, found before anyone is asked.
		spec.prepare = func(ctx context.Context, a *act) error {
			n, err := a.firstEditor(ctx)
			if err != nil {
				return err
			}
			if n == nil {
				return a.failure(StatusNotFound, "the page has no editor (no iframe editor, contenteditable, Quill or ProseMirror)",
					"read_form lists the page's editors; a plain field takes type_text.")
			}
			a.loc = &located{Matches: 1, Node: n}
			return nil
		}
	}
	return m.act(ctx, c, spec)
}

// firstEditor is the first editor of the tab: in its page, else in its
// out-of-process frames.
func (a *act) firstEditor(ctx context.Context) (*page.Node, error) {
	frames := []page.FrameRef{{Session: a.tab.SessionID, Frame: cdp.FrameID(a.tab.ID)}}
	for _, f := range a.b.guard.Frames(a.tab.ID) {
		frames = append(frames, page.FrameRef{Session: f.SessionID, Frame: cdp.FrameID(f.ID)})
	}
	for _, f := range frames {
		id, err := page.FindEditor(ctx, a.b.conn, &a.b.worlds, f)
		if err != nil && f.Session == a.tab.SessionID {
			return nil, err
		}
		if id != 0 {
			return page.NewNode(f.Session, f.Frame, id, a.group), nil
		}
	}
	return nil, nil
}

// UploadFile attaches local files to a file input, hidden or not. The
// paths are checked before anything else (uploads.go); UPLOAD is asked for
// on every call.
func (m *Manager) UploadFile(ctx context.Context, c Caller, opts ActOptions, paths []string) (*ActResult, error) {
	files, err := m.checkUploads(paths)
	if err != nil {
		return nil, err
	}
	opts.Intent.Upload = true
	return m.act(ctx, c, actSpec{verb: "upload_file", opts: opts, usable: actUpload, on: onElement, watch: settleInput,
		do: func(ctx context.Context, a *act) error {
			list := make([]string, len(files))
			for i, f := range files {
				list[i] = f.Path
			}
			n := a.loc.Node
			if _, err := cdp.Call(ctx, a.b.conn.Session(n.Session), dom.SetFileInputFiles,
				dom.SetFileInputFilesParams{Files: list, BackendNodeID: n.Backend}); err != nil {
				return err
			}
			a.res.Element, a.res.Files = a.st.info(), files
			a.settle(ctx, lingerPress, n)
			return nil
		}})
}

// SaveDraft sends the form whose submit control submit names, only while
// its publish state reads private; it asks for SUBMIT, never PUBLISH.
func (m *Manager) SaveDraft(ctx context.Context, c Caller, submit string, opts ActOptions) (*ActResult, error) {
	opts.Selector, opts.Intent.Submit, opts.Intent.Publish = submit, true, false
	// mustBePrivate reads the publish state of the form the submit control
	// sends, and refuses unless it reads private.
	mustBePrivate := func(ctx context.Context, a *act) ([]page.PublishState, error) {
		st, err := page.PublishStateOf(ctx, a.b.conn, &a.b.worlds, a.loc.Node)
		if err != nil {
			return nil, err
		}
		if !page.StateIsPrivate(st) {
			return nil, a.failure(StatusNotPrivate, "the form's publish state does not read private, so sending it could publish the item: nothing was sent",
				"read_draft shows the state. Set the form back to its draft/private setting (click it), then save_draft again; to release the item, ask the user and call publish.").
				with("state", publishStateWire(st))
		}
		return st, nil
	}
	return m.act(ctx, c, actSpec{verb: "save_draft", opts: opts, usable: actClick, on: onElement, watch: settleInput,
		prepare: func(ctx context.Context, a *act) error {
			_, err := mustBePrivate(ctx, a)
			return err
		},
		do: func(ctx context.Context, a *act) error {
			// Checked again as the form is sent: the page had the time the
			// user took to answer to change it.
			st, err := mustBePrivate(ctx, a)
			if err != nil {
				return err
			}
			return a.send(ctx, a.loc.Node, &SendResult{State: st})
		}})
}

// Publish sets the live control selector names, then sends the form with
// the control submit names. It asks for PUBLISH and SUBMIT; the prompt
// names the item and its state, so the user approves the item and not the
// word.
func (m *Manager) Publish(ctx context.Context, c Caller, selector, submit string, opts ActOptions) (*ActResult, error) {
	opts.Selector, opts.Intent.Submit, opts.Intent.Publish = selector, true, true
	var send *located
	return m.act(ctx, c, actSpec{verb: "publish", opts: opts, usable: actClick, on: onElement, watch: settleInput,
		prepare: func(ctx context.Context, a *act) error {
			sel, err := parseSelector(submit)
			if err != nil {
				return withArgument(err, "submit")
			}
			if send, _, err = a.usable(ctx, sel, actClick); err != nil {
				return withArgument(err, "submit")
			}
			a.spec.opts.Intent.Reason = publishReason(opts.Intent.Reason, a.itemSummary(ctx))
			return nil
		},
		do: func(ctx context.Context, a *act) error {
			var checked bool
			if err := a.b.call(ctx, a.loc.Node, `function() { return !!this.checked; }`, &checked); err != nil {
				return err
			}
			if !checked {
				if err := a.clickNode(ctx, a.loc.Node); err != nil {
					return err
				}
				if err := a.b.call(ctx, a.loc.Node, `function() { return !!this.checked; }`, &checked); err != nil {
					return err
				}
			}
			if !checked {
				return a.failure(StatusNotActionable, "the live control did not stay set after it was clicked: nothing was sent",
					"selector should name the radio or checkbox that makes the item public (read_form lists them under drafts).")
			}
			st, _ := page.PublishStateOf(ctx, a.b.conn, &a.b.worlds, send.Node)
			return a.send(ctx, send.Node, &SendResult{Published: true, State: st})
		}})
}

// send clicks the control that sends the form, lets the page settle, and
// reads it back: a page that answers with errors, or a dialog, refused it.
func (a *act) send(ctx context.Context, n *page.Node, r *SendResult) error {
	if err := a.clickNode(ctx, n); err != nil {
		return err
	}
	a.settle(ctx, sendSettle, n)
	a.res.Sent = r
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if back, err := page.ReadAfterSend(qctx, &a.b.worlds, a.b.conn.Session(a.tab.SessionID), cdp.FrameID(a.tab.ID)); err == nil {
		r.Errors, r.Alert, r.Refused, r.FormStill = back.Errors, back.Alert, back.Refused, back.FormPresent
	}
	for _, d := range a.b.dialogs.since(a.start, a.tab.ID) {
		if d.Type == string(cdppage.DialogTypeAlert) && r.Alert == "" {
			r.Alert, r.Refused = d.Message, true
		}
	}
	if r.Refused && !a.outcome.TabClosed && a.refused() == nil {
		r.Published = false
		e := a.failure(StatusRefused, "the site did not accept the form: "+r.Alert,
			"Fix what the page says (read_form shows the form again), then send again.")
		e.Result = a.res
		return e
	}
	return nil
}

// itemSummary names the item publish is about to release: the title, else
// the first filled field, and its publish state.
func (a *act) itemSummary(ctx context.Context) string {
	d, err := page.ReadDraftDoc(ctx, &a.b.worlds, a.b.conn.Session(a.loc.Node.Session), a.loc.Node.Frame, 80)
	if err != nil || d == nil {
		return ""
	}
	item := ""
	for _, f := range d.Fields {
		if f.Value == nil || *f.Value == "" {
			continue
		}
		if item == "" || f.Name == "title" || f.Label == "Title" {
			item = *f.Value
			if f.Name == "title" || f.Label == "Title" {
				break
			}
		}
	}
	if item == "" {
		return ""
	}
	state := ""
	for _, p := range d.State {
		if p.Label != "" {
			state = p.Label
		}
	}
	if state != "" {
		return fmt.Sprintf("%q (its publish setting now: %s)", item, state)
	}
	return fmt.Sprintf("%q", item)
}

func publishReason(reason, item string) string {
	if item == "" {
		return reason
	}
	s := "Publish " + item + " to its audience"
	if reason != "" {
		s += " (" + reason + ")"
	}
	return s
}

// publishStateWire is the state as an error field shows it.
func publishStateWire(st []page.PublishState) []map[string]any {
	out := []map[string]any{}
	for _, p := range st {
		out = append(out, map[string]any{"name": p.Name, "value": p.Value, "label": p.Label})
	}
	return out
}

// withArgument names the argument an envelope is about.
func withArgument(err error, arg string) error {
	if se, ok := err.(*Error); ok {
		return se.with("argument", arg)
	}
	return err
}
