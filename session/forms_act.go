package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/cdproto/cdp"

	"github.com/lyrad/lyrad/cdpguard"
	"github.com/lyrad/lyrad/page"
)

// The acting form tools: set_editor, upload_file, save_draft and publish.
// Each goes through the acting pipeline (act.go); what is theirs is here.
//
// Writing an item and releasing it are different acts. save_draft sends a
// form only while its publish state reads private, and asks for SUBMIT,
// never PUBLISH; publish is the one tool that buys PUBLISH, which nothing
// implies and neither trusted list answers.

// Statuses of the form tools, the names agents see on the wire.
const (
	StatusNeedsSubmit = "needs_submit"
	StatusNotPrivate  = "not_private"
	StatusRefused     = "refused"
)

// sendSettle is how long save_draft and publish let the page settle after
// sending (the 2.5 s the README promises), before it is read back.
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
	files, err := uploadsOf(m.cfg).checkUploads(paths)
	if err != nil {
		return nil, err
	}
	defer closeUploads(files)
	opts.Intent.Upload = true
	return m.act(ctx, c, actSpec{verb: "upload_file", opts: opts, usable: actUpload, on: onElement, watch: settleInput,
		do: func(ctx context.Context, a *act) error {
			// The browser gets copies of the files checked, made from
			// their open descriptors (uploads.go).
			list, err := uploadsOf(m.cfg).stageUploads(files)
			if err != nil {
				return err
			}
			n := a.loc.Node
			if err := page.SetFiles(ctx, a.b.conn, n, list); err != nil {
				return err
			}
			a.res.Element = a.st.info()
			for _, f := range files {
				a.res.Files = append(a.res.Files, f.UploadedFile)
			}
			a.settle(ctx, lingerPress, n)
			return nil
		}})
}

// SaveDraft sends the form whose submit control submit names (its text,
// as read_form's submitText gives it, a selector or a ref), only while its
// publish state reads private and the control itself does not say it
// publishes; it asks for SUBMIT, never PUBLISH.
func (m *Manager) SaveDraft(ctx context.Context, c Caller, submit string, opts ActOptions) (*ActResult, error) {
	opts.Selector, opts.Intent.Submit, opts.Intent.Publish = "", true, false
	sel, err := submitSelector(submit)
	if err != nil {
		return nil, err
	}
	// mustBePrivate reads the publish state of the form the submit control
	// sends, and refuses unless it reads private and the control does not
	// itself say it publishes (a form's "Publish" button beside its "Save
	// draft").
	mustBePrivate := func(ctx context.Context, a *act) (*page.FormSends, error) {
		if who, err := page.SubmitterOf(ctx, a.b.conn, &a.b.worlds, a.loc.Node); err != nil {
			return nil, err
		} else if who.Publishes() {
			return nil, a.failure(StatusNotPrivate, fmt.Sprintf("the control that sends (%q) says it publishes: nothing was sent", firstNonEmpty(who.Text, who.Value, who.Name)),
				"save_draft sends with the control that keeps the item private (read_form submitText, e.g. Save draft); to release the item, ask the user and call publish.").
				arg("submit")
		}
		// The state read and what the form sends under it are one read:
		// the credit pays only for a body that sends what was read private.
		fs, err := page.FormSendsOf(ctx, a.b.conn, &a.b.worlds, a.loc.Node)
		if err != nil {
			return nil, err
		}
		st := fs.State
		if !page.StateIsPrivate(st) {
			return nil, a.failure(StatusNotPrivate, "the form's publish state does not read private, so sending it could publish the item: nothing was sent",
				"read_draft shows the state. Set the form back to its draft/private setting (click it), then save_draft again; to release the item, ask the user and call publish.").
				sending(st)
		}
		return fs, nil
	}
	return m.act(ctx, c, actSpec{verb: "save_draft", opts: opts, usable: actClick, on: onElement, watch: settleInput,
		prepare: func(ctx context.Context, a *act) error {
			a.sel = sel
			if err := a.waitUsable(ctx); err != nil {
				return a.submitNotFound(ctx, sel, err)
			}
			_, err := mustBePrivate(ctx, a)
			return err
		},
		do: func(ctx context.Context, a *act) error {
			// Checked again as the form is sent: the page had the time the
			// user took to answer to change it.
			fs, err := mustBePrivate(ctx, a)
			if err != nil {
				return err
			}
			if err := a.bindSends(ctx, fs); err != nil {
				return err
			}
			return a.send(ctx, a.loc.Node, &SendResult{State: fs.State})
		}})
}

// submitSelector reads save_draft's and publish's submit: an aria-ref, or
// a selector that names its engine (css=, text=, xpath=, //), is that
// selector; anything else is the text of a submit control (read_form's
// submitText), else CSS (b.locateSubmit).
func submitSelector(raw string) (parsedSelector, error) {
	s := strings.TrimSpace(raw)
	lower := strings.ToLower(s)
	for _, p := range []string{"aria-ref=", "text=", "css=", "xpath=", "//", "(//"} {
		if strings.HasPrefix(lower, p) {
			sel, err := parseSelector(s)
			return sel, withArgument(err, "submit")
		}
	}
	if s == "" {
		return parsedSelector{}, withArgument(selectorError(raw, "submit is empty"), "submit")
	}
	return parsedSelector{kind: selSubmit, body: s, raw: s}, nil
}

// locateSubmit resolves a selSubmit: the submit control whose text it is
// (exact first, then in any case; page.LocateSubmit), else what it names
// as CSS. Controls that say it but send differently are an error that
// lists them.
func (b *Browser) locateSubmit(ctx context.Context, tab cdpguard.Target, sel parsedSelector, group string) (*located, error) {
	n, match, err := page.LocateSubmit(ctx, b.conn, &b.worlds, b.pageTab(tab), sel.body, group)
	if err != nil {
		return nil, err
	}
	if match.Ambiguous {
		return nil, newError(StatusError, fmt.Sprintf("%d submit controls say %q, and they send differently: nothing was sent", match.Matches, sel.body),
			"Pass the one meant as submit by its selector (from candidates), or an aria-ref=eN from read_page.").
			arg("submit").submits(match.Candidates)
	}
	if n != nil {
		return &located{Matches: match.Matches, Node: n}, nil
	}
	// No control says it: it may be CSS ("#save", "button.primary").
	found, err := page.Locate(ctx, b.conn, &b.worlds, b.pageTab(tab), string(selCSS), sel.body, group)
	var bad *page.InvalidSelectorError
	if errors.As(err, &bad) {
		return &located{}, nil
	}
	if err != nil {
		return nil, err
	}
	return &located{Matches: found.Count, Node: found.Node, state: found.State}, nil
}

// submitNotFound words a submit text that named nothing: no control says
// it and it matches nothing as CSS. It lists the page's submit controls.
func (a *act) submitNotFound(ctx context.Context, sel parsedSelector, err error) error {
	var se *Error
	if sel.kind != selSubmit || !errors.As(err, &se) || se.Status != StatusNotFound {
		return withArgument(err, "submit")
	}
	se.Message = fmt.Sprintf("no submit control says %q, and it matches nothing as a CSS selector", sel.body)
	se.Hint = "Pass one of read_form's submitText as it is, a CSS selector or an aria-ref=eN from read_page."
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if _, m, err := page.LocateSubmit(qctx, a.b.conn, &a.b.worlds, a.b.pageTab(a.tab), sel.body, a.group); err == nil {
		se.submits(nonNilCandidates(m.Candidates))
	}
	return se.arg("submit")
}

func nonNilCandidates(c []page.SubmitCandidate) []page.SubmitCandidate {
	if c == nil {
		return []page.SubmitCandidate{}
	}
	return c
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
			sel, err := submitSelector(submit)
			if err != nil {
				return err
			}
			if send, _, err = a.usable(ctx, sel, actClick); err != nil {
				return a.submitNotFound(ctx, sel, err)
			}
			a.sender = send.Node
			a.spec.opts.Intent.Detail = publishDetail(a.itemSummary(ctx))
			return nil
		},
		do: func(ctx context.Context, a *act) error {
			b := a.b
			checked, err := page.Checked(ctx, b.conn, &b.worlds, a.loc.Node)
			if err != nil {
				return err
			}
			if !checked {
				if err := a.click(ctx, a.loc.Node); err != nil {
					return err
				}
				if checked, err = page.Checked(ctx, b.conn, &b.worlds, a.loc.Node); err != nil {
					return err
				}
			}
			if !checked {
				return a.failure(StatusNotActionable, "the live control did not stay set after it was clicked: nothing was sent",
					"selector should name the radio or checkbox that makes the item public (read_form lists them under drafts).")
			}
			// What the user approved is the item made public: the form as
			// it stands with its live control set is what the credits pay
			// for.
			fs, err := page.FormSendsOf(ctx, a.b.conn, &a.b.worlds, send.Node)
			if err != nil {
				return err
			}
			if err := a.bindSends(ctx, fs); err != nil {
				return err
			}
			return a.send(ctx, send.Node, &SendResult{Published: true, State: fs.State})
		}})
}

// send clicks the control that sends the form, lets the page settle, and
// reads it back: a page that answers with errors, or a dialog, refused it;
// so did the browser when the form's own validation stopped the send (its
// fields invalid before the click and still after it, on the same page).
func (a *act) send(ctx context.Context, n *page.Node, r *SendResult) error {
	invalid, _ := page.FormValidity(ctx, a.b.conn, &a.b.worlds, n)
	if err := a.click(ctx, n); err != nil {
		return err
	}
	a.settle(ctx, sendSettle, n)
	a.res.Sent = r
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	blocked := false
	if invalid != nil && invalid.Blocked {
		if after, err := page.FormValidity(qctx, a.b.conn, &a.b.worlds, n); err == nil && after.Blocked {
			blocked = true
			r.Errors, r.Alert, r.Refused, r.FormStill = after.Fields, after.Fields[0], true, true
		}
	}
	if back, err := page.ReadAfterSend(qctx, &a.b.worlds, a.b.conn.Session(a.tab.SessionID), cdp.FrameID(a.tab.ID)); err == nil {
		r.FormStill = r.FormStill || back.FormPresent
		for _, e := range back.Errors {
			if len(r.Errors) < 5 {
				r.Errors = append(r.Errors, e)
			}
		}
		if r.Alert == "" {
			r.Alert = back.Alert
		}
		r.Refused = r.Refused || back.Refused
	}
	for _, d := range a.b.dialogs.since(a.start, a.tab.ID) {
		if d.Type == page.DialogAlert && r.Alert == "" {
			r.Alert, r.Refused = d.Message, true
		}
	}
	if r.Refused && !a.outcome.TabClosed && a.refused() == nil {
		r.Published = false
		msg := "the site did not accept the form: " + r.Alert
		if blocked {
			msg = "the browser did not send the form, a field is invalid: " + r.Alert
		}
		e := a.failure(StatusRefused, msg, "Fix what the page says (read_form shows the form again), then send again.")
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
	// Page text, each part quoted on its own (prompttext.go).
	if state != "" {
		return quoted(item, maxPageRunes) + " (its publish setting now: " + quoted(state, maxPageRunes) + ")"
	}
	return quoted(item, maxPageRunes)
}

// publishDetail is lyrad's line under the PUBLISH question: the item the
// page holds, quoted by itemSummary.
func publishDetail(item string) string {
	if item == "" {
		return ""
	}
	return "Item to publish to its audience: " + item
}

// withArgument names the argument an envelope is about.
func withArgument(err error, arg string) error {
	if se, ok := err.(*Error); ok {
		return se.arg(arg)
	}
	return err
}
